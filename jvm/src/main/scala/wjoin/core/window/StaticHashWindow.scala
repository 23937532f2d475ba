package wjoin.core.window

/**
 * A hash window built whole from a fixed set of rows and never changed: the broadcast W-join's
 * window of a broadcast input under a hash access path ([[wjoin.core.BroadcastWindow]]). The
 * same buckets as [[HashWindow]] (per key, time-sorted, searched by binary search), laid out
 * flat: every row in two arrays, ordered by (key's first arrival, time), and each bucket a
 * read-only slice of them ([[TimeSortedBuffer.slice]]).
 *
 * {{{
 *   rows in time order:  (k2,t1) (k1,t2) (k2,t3) (k1,t4) (k3,t5)
 *   flat (stable by key):  [k2: t1 t3][k1: t2 t4][k3: t5]      two arrays, one allocation each
 *   candidates(k1) = slice [2, 4)                               a HashMap lookup, no copy
 * }}}
 *
 * Built in two passes over the rows (count per key, then place), where [[HashWindow]] grows a
 * ring per key and an arrival ring row by row; nothing is evicted, so there is no arrival ring
 * at all. Memory (charged once, when built): each row, the two arrays, and per key its slice,
 * the key object and its map entry.
 */
final class StaticHashWindow private (buckets: java.util.HashMap[AnyRef, TimeSortedBuffer], rows: Int,
    oldest: (Long, AnyRef, AnyRef)) extends InputWindow {
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit =
    throw new UnsupportedOperationException("a static hash window is built whole")
  def candidates(key: AnyRef): TimeSortedBuffer = buckets.get(key)
  def size: Int = rows
  def oldestTime: Long = oldest._1
  def oldestRow: AnyRef = oldest._2
  def oldestKey: AnyRef = oldest._3
  def evictOldest(): Unit = throw new UnsupportedOperationException("a static hash window is never evicted")
  def distinctKeys(sample: Int): Long = buckets.size.toLong
}

object StaticHashWindow {
  /**
   * The window of `rows` with hash keys `keys` (none null) at `times`, given in non-decreasing
   * time order; charged to `account`.
   */
  def apply(keys: Array[AnyRef], times: Array[Long], rows: Array[AnyRef], account: WindowAccount): StaticHashWindow = {
    val m = rows.length
    assert(keys.length == m && times.length == m, "a key and a time per row")
    val ids = new java.util.HashMap[AnyRef, Integer](math.max(16, m / 2))
    val idOf = new Array[Int](m)
    var counts = new Array[Int](16)
    var k = 0
    while (k < m) {
      assert(k == 0 || times(k - 1) <= times(k), "rows in time order")
      var id = ids.get(keys(k))
      if (id == null) {
        id = Integer.valueOf(ids.size)
        ids.put(keys(k), id)
        if (id >= counts.length) counts = java.util.Arrays.copyOf(counts, counts.length * 2)
      }
      idOf(k) = id
      counts(id) += 1
      k += 1
    }
    val distinct = ids.size
    val offsets = new Array[Int](distinct + 1)
    var id = 0
    while (id < distinct) { offsets(id + 1) = offsets(id) + counts(id); id += 1 }
    val length = Integer.highestOneBit(math.max(1, m) * 2 - 1)
    val flatTimes = new Array[Long](length)
    val flatRows = new Array[AnyRef](length)
    val fill = java.util.Arrays.copyOf(offsets, distinct)
    k = 0
    while (k < m) { // stable: each key's rows stay in time order
      val p = fill(idOf(k))
      flatTimes(p) = times(k)
      flatRows(p) = rows(k)
      fill(idOf(k)) = p + 1
      account.rowIn(account.rowBytes(rows(k)))
      k += 1
    }
    val buckets = new java.util.HashMap[AnyRef, TimeSortedBuffer](math.max(16, distinct * 2))
    ids.forEach { (key, i) =>
      buckets.put(key, TimeSortedBuffer.slice(flatTimes, flatRows, offsets(i), counts(i)))
      account.resized(WindowFootprint.BucketEntry + WindowFootprint.obj(4L * 4 + 3 * WindowFootprint.Ref) +
        account.keyBytes(key))
    }
    account.resized(WindowFootprint.ring(length))
    new StaticHashWindow(buckets, m, if (m == 0) (Long.MinValue, null, null) else (times(0), rows(0), keys(0)))
  }
}
