package wjoin.core.index

import wjoin.core.TimeSortedBuffer

/**
 * An input window searched through a [[RangeIndex]] on a `Long` range attribute (the T-tree
 * and B+tree access paths of paper 003), with the same life cycle as the engine's
 * `ScanWindow` / `HashWindow`: rows arrive in event-time order and the oldest expires first.
 *
 * {{{
 *   arrivals: ring buffer (time, row) + ring of range keys     index: key -> row
 *   oldest ─────────────────────────────> newest                  T-tree or B+tree
 *     evictOldest(): pop the front, index.delete(its key, its row)  (the first entry of
 *                                                                    that key: one descent)
 * }}}
 *
 * The ring buffer answers "which row is oldest" (time order); the index answers "which rows
 * have x in [lo, hi]" (attribute order). Insert and expire cost one index descent each,
 * a probe one descent plus its matches.
 */
final class RangeWindow(val index: RangeIndex[AnyRef]) {
  private val arrivals = new TimeSortedBuffer(64)
  private var keys = new Array[Long](64) // range keys, parallel to arrivals (same ring positions)
  private var head = 0

  def size: Int = arrivals.size
  def isEmpty: Boolean = arrivals.isEmpty
  def oldestTime: Long = arrivals.oldestTime
  def oldestRow: AnyRef = arrivals.oldestRow
  def oldestRangeKey: Long = keys(head)

  def insert(rangeKey: Long, time: Long, row: AnyRef): Unit = {
    arrivals.append(time, row) // rejects out-of-order times before anything changes
    if (arrivals.size > keys.length) growKeys()
    keys((head + arrivals.size - 1) & (keys.length - 1)) = rangeKey
    index.insert(rangeKey, row)
  }

  def evictOldest(): Unit = {
    val key = keys(head)
    val row = arrivals.popOldest()
    head = (head + 1) & (keys.length - 1)
    if (!index.delete(key, row)) throw new IllegalStateException(s"expired row with key $key was not in the index")
  }

  /** Rows whose range key is in [lo, hi] (inclusive), resumable. */
  def probe(lo: Long, hi: Long): RangeCursor[AnyRef] = index.cursor(lo, hi)

  def foreachInRange(lo: Long, hi: Long)(visit: (Long, AnyRef) => Unit): Unit = index.foreachInRange(lo, hi)(visit)

  private def growKeys(): Unit = {
    val count = arrivals.size - 1 // the row just appended has no key slot yet
    val grown = new Array[Long](keys.length * 2)
    var i = 0
    while (i < count) { grown(i) = keys((head + i) & (keys.length - 1)); i += 1 }
    keys = grown
    head = 0
  }
}

object RangeWindow {
  def tTree(nodeSize: Int = 100): RangeWindow = new RangeWindow(new TTree[AnyRef](nodeSize))
  def bPlusTree(nodeSize: Int = 100): RangeWindow = new RangeWindow(new BPlusTree[AnyRef](nodeSize))
}
