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
 *   ids: k2 -> 0, k1 -> 1, k3 -> 2                              KeyIds: the keys' dense ids
 *   candidates(k1) = buckets(1) = slice [2, 4)                   one lookup, no copy
 * }}}
 *
 * Built in passes over the rows (ids, counts per id, placing), where [[HashWindow]] grows a ring
 * per key and an arrival ring row by row; nothing is evicted, so there is no arrival ring at all.
 * One integral key column's keys are ids in a primitive table ([[LongKeyIds]]), others in a map.
 * Memory (charged once, when built): each row, the two arrays, the ids' table (and its key
 * objects), and per key its slice.
 */
final class StaticHashWindow private (ids: KeyIds, buckets: Array[TimeSortedBuffer], rows: Int,
    oldest: (Long, AnyRef, AnyRef)) extends InputWindow {
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit =
    throw new UnsupportedOperationException("a static hash window is built whole")
  def candidates(key: AnyRef): TimeSortedBuffer = { val id = ids.idOf(key); if (id < 0) null else buckets(id) }
  def size: Int = rows
  def oldestTime: Long = oldest._1
  def oldestRow: AnyRef = oldest._2
  def oldestKey: AnyRef = oldest._3
  def evictOldest(): Unit = throw new UnsupportedOperationException("a static hash window is never evicted")
  def distinctKeys(sample: Int): Long = ids.size.toLong
}

object StaticHashWindow {
  /**
   * The window of `rows` with hash keys `keys` (none null) at `times`, given in non-decreasing
   * time order; charged to `account`.
   */
  def apply(keys: Array[AnyRef], times: Array[Long], rows: Array[AnyRef], account: WindowAccount): StaticHashWindow = {
    val m = rows.length
    assert(keys.length == m && times.length == m, "a key and a time per row")
    val idOf = new Array[Int](m)
    val ids = KeyIds.of(keys, idOf)
    val distinct = ids.size
    val offsets = new Array[Int](distinct + 1)
    var k = 0
    while (k < m) {
      assert(k == 0 || times(k - 1) <= times(k), "rows in time order")
      offsets(idOf(k) + 1) += 1
      k += 1
    }
    var id = 0
    while (id < distinct) { offsets(id + 1) += offsets(id); id += 1 }
    val length = Integer.highestOneBit(math.max(1, m) * 2 - 1)
    val flatTimes = new Array[Long](length)
    val flatRows = new Array[AnyRef](length)
    val fill = java.util.Arrays.copyOf(offsets, distinct)
    var bytes = 0L
    k = 0
    while (k < m) { // stable: each key's rows stay in time order
      val p = fill(idOf(k))
      flatTimes(p) = times(k)
      flatRows(p) = rows(k)
      if (ids.holdsKeys && p == offsets(idOf(k))) bytes += account.keyBytes(keys(k)) // its bucket's first row
      fill(idOf(k)) = p + 1
      bytes += account.rowBytes(rows(k))
      k += 1
    }
    val buckets = new Array[TimeSortedBuffer](distinct)
    id = 0
    while (id < distinct) {
      buckets(id) = TimeSortedBuffer.slice(flatTimes, flatRows, offsets(id), offsets(id + 1) - offsets(id))
      id += 1
    }
    account.rowsIn(m, bytes)
    account.resized(ids.footprint + WindowFootprint.array(distinct, WindowFootprint.Ref) +
      distinct * TimeSortedBuffer.SliceFootprint + WindowFootprint.ring(length))
    new StaticHashWindow(ids, buckets, m, if (m == 0) (Long.MinValue, null, null) else (times(0), rows(0), keys(0)))
  }
}
