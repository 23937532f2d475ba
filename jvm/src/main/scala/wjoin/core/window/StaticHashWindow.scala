package wjoin.core.window

/**
 * A hash window built whole from a fixed set of rows and never changed: the broadcast W-join's
 * window of a broadcast input under a hash access path ([[wjoin.core.BroadcastWindow]]). The
 * same buckets as [[HashWindow]] (per key, time-sorted, searched by binary search), laid out
 * flat: every row in two arrays, ordered by (key's first arrival, time), and each bucket a
 * range of them, its bounds side by side in one int array; a probe reads a bucket through a
 * view of its own ([[TimeSortedBuffer.slice]], re-pointed per probe), so no object per bucket
 * is built, held or fetched.
 *
 * {{{
 *   rows in any order:     (k2,t3) (k1,t2) (k2,t1) (k1,t4) (k3,t5)
 *   flat (stable by key):  [k2: t3 t1][k1: t2 t4][k3: t5]      two arrays, one allocation each
 *   each bucket sorted:    [k2: t1 t3][k1: t2 t4][k3: t5]      in place, ties in arrival order
 *   ids: k2 -> 0, k1 -> 1, k3 -> 2                              KeyIds (dense Long keys: key - min)
 *   offsets:               [0, 2, 4, 5]                          bucket id = slots [offsets(id), offsets(id + 1))
 *   candidatesIn(k1, view) = view re-pointed at [2, 4)           one lookup, no copy
 * }}}
 *
 * Built in passes over the rows (ids, counts per id, placing, sorting each bucket), where
 * [[HashWindow]] grows a ring per key and an arrival ring row by row; nothing is evicted, so
 * there is no arrival ring at all. The rows need no time order: sorting the buckets, most of
 * them a few rows, costs less than sorting the input, and the passes read the rows in the order
 * they were made, not in a random one.
 * One integral key column's keys are their offsets when dense ([[DenseLongKeyIds]]), else ids in a
 * primitive table ([[LongKeyIds]]); others ids in a map.
 * Memory (charged once, when built): each row, the two arrays, the ids' table (and its key
 * objects), the bucket bounds.
 */
final class StaticHashWindow private (ids: KeyIds, offsets: Array[Int], flatTimes: Array[Long], flatRows: Array[AnyRef],
    rows: Int, oldest: (Long, AnyRef, AnyRef)) extends InputWindow {
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit =
    throw new UnsupportedOperationException("a static hash window is built whole")
  def candidates(key: AnyRef): TimeSortedBuffer = candidatesIn(key, newView())
  override def newView(): TimeSortedBuffer = TimeSortedBuffer.slice(flatTimes, flatRows, 0, 0)
  override def candidatesIn(key: AnyRef, view: TimeSortedBuffer): TimeSortedBuffer = {
    val id = ids.idOf(key)
    if (id < 0) return null
    val from = offsets(id)
    val until = offsets(id + 1)
    if (from == until) null else view.repoint(from, until - from) // null: no row has it (an id of a dense key range)
  }
  def size: Int = rows
  def oldestTime: Long = oldest._1
  def oldestRow: AnyRef = oldest._2
  def oldestKey: AnyRef = oldest._3
  def evictOldest(): Unit = throw new UnsupportedOperationException("a static hash window is never evicted")
  def distinctKeys(sample: Int): Long = ids.size.toLong
}

object StaticHashWindow {
  /**
   * The window of `rows` with hash keys `keys` (none null) at `times`, in any order; charged
   * to `account`; the rows laid out by `layout` once in bucket order. Rows of one key and one
   * time keep their order.
   */
  def apply(keys: Array[AnyRef], times: Array[Long], rows: Array[AnyRef], account: WindowAccount,
      layout: RowLayout = RowLayout.AsTheyAre): StaticHashWindow = {
    val m = rows.length
    assert(keys.length == m && times.length == m, "a key and a time per row")
    val idOf = new Array[Int](m)
    val ids = KeyIds.of(keys, idOf)
    val count = ids.idCount
    val offsets = new Array[Int](count + 1)
    var k = 0
    var oldest = 0
    while (k < m) {
      offsets(idOf(k) + 1) += 1
      if (times(k) < times(oldest)) oldest = k
      k += 1
    }
    var id = 0
    while (id < count) { offsets(id + 1) += offsets(id); id += 1 }
    val length = Integer.highestOneBit(math.max(1, m) * 2 - 1)
    val flatTimes = new Array[Long](length)
    val flatRows = new Array[AnyRef](length)
    val fill = java.util.Arrays.copyOf(offsets, count)
    var bytes = 0L
    k = 0
    while (k < m) { // stable: each key's rows keep their order
      val p = fill(idOf(k))
      flatTimes(p) = times(k)
      flatRows(p) = rows(k)
      if (ids.holdsKeys && p == offsets(idOf(k))) bytes += account.keyBytes(keys(k)) // its bucket's first row
      fill(idOf(k)) = p + 1
      bytes += account.rowBytes(rows(k))
      k += 1
    }
    id = 0
    while (id < count) {
      if (offsets(id + 1) - offsets(id) > 1) sortByTime(flatTimes, flatRows, offsets(id), offsets(id + 1))
      id += 1
    }
    layout.lay(flatRows, m)
    account.rowsIn(m, bytes)
    account.resized(ids.footprint + WindowFootprint.array(count + 1, 4) + WindowFootprint.ring(length))
    new StaticHashWindow(ids, offsets, flatTimes, flatRows, m,
      if (m == 0) (Long.MinValue, null, null) else (times(oldest), rows(oldest), keys(oldest)))
  }

  /** Buckets up to this size are sorted by insertion; larger ones by their [[TimeOrder]]. */
  private val InsertionRows = 32

  /** Sorts rows [from, until) of the flat arrays by time, stably. */
  private def sortByTime(times: Array[Long], rows: Array[AnyRef], from: Int, until: Int): Unit = {
    var k = from + 1
    while (k < until && times(k - 1) <= times(k)) k += 1
    if (k >= until) return // sorted, as most buckets of rows that came in about time order are
    if (until - from <= InsertionRows) {
      while (k < until) {
        val t = times(k)
        val r = rows(k)
        var j = k - 1
        while (j >= from && times(j) > t) { times(j + 1) = times(j); rows(j + 1) = rows(j); j -= 1 }
        times(j + 1) = t
        rows(j + 1) = r
        k += 1
      }
    } else {
      val order = TimeOrder.of(java.util.Arrays.copyOfRange(times, from, until))
      val sortedTimes = new Array[Long](order.length)
      val sortedRows = new Array[AnyRef](order.length)
      k = 0
      while (k < order.length) { sortedTimes(k) = times(from + order(k)); sortedRows(k) = rows(from + order(k)); k += 1 }
      System.arraycopy(sortedTimes, 0, times, from, order.length)
      System.arraycopy(sortedRows, 0, rows, from, order.length)
    }
  }
}
