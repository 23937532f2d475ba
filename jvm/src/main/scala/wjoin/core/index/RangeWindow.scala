package wjoin.core.index

import wjoin.core.window.{TimeSortedBuffer, WindowAccount}
import RangeWindow.Entry

/**
 * An input window searched through a [[RangeIndex]] on a `Long` range attribute (the T-tree
 * and B+tree access paths of Kang et al.), with the same life cycle as the engine's
 * `ScanWindow` / `HashWindow`: rows arrive in event-time order and the oldest expires first.
 *
 * {{{
 *   arrivals: ring buffer of entries, time order       index: range key -> entry
 *   oldest ─────────────────────────────> newest           T-tree or B+tree
 *   entry = (range key, time, row), shared by both, so expiring the oldest is
 *   arrivals.popOldest() + index.delete(its key, the same entry): one descent, because
 *   the oldest entry is the first of its key in the index
 * }}}
 *
 * The ring buffer answers "which row is oldest" (time order); the index answers "which rows
 * have x in [lo, hi]" (attribute order). A probe yields candidates in attribute order, so a
 * caller testing a time period must test both of its bounds on every candidate (no early
 * stop as in a time-sorted buffer). Insert and expire cost one index descent each, a probe
 * one descent plus its matches. Entries are compared by identity, so equal rows never
 * confuse the delete.
 *
 * @param index   the T-tree or B+tree
 * @param account the memory account its ring of entries is charged to (the entries and index
 *                slots are charged per row by `IndexedWindow` / `KeyedRangeWindow`)
 * @param initialCapacity the ring's first capacity (small for one key's rows of a keyed window)
 */
final class RangeWindow(val index: RangeIndex[Entry], account: WindowAccount = WindowAccount.None,
    initialCapacity: Int = 64) {
  private val arrivals = new TimeSortedBuffer(initialCapacity, account)
  /** Heap bytes of the ring of entries now (what `account` was charged for it). */
  def ringFootprint: Long = arrivals.footprint

  def size: Int = arrivals.size
  def isEmpty: Boolean = arrivals.isEmpty
  def oldestTime: Long = arrivals.oldestTime
  private def oldest: Entry = arrivals.oldestRow.asInstanceOf[Entry]
  def oldestRow: AnyRef = oldest.row
  def oldestRangeKey: Long = oldest.key

  def insert(rangeKey: Long, time: Long, row: AnyRef): Unit = {
    val entry = new Entry(rangeKey, time, row)
    arrivals.append(time, entry) // a row older than buffered ones (streaming) is placed by time
    index.insert(rangeKey, entry)
  }

  def evictOldest(): Unit = {
    val entry = arrivals.popOldest().asInstanceOf[Entry]
    if (!index.delete(entry.key, entry)) throw new IllegalStateException(s"expired row with key ${entry.key} was not in the index")
  }

  /** Entries whose range key is in [lo, hi] (inclusive), resumable; `value` has time and row. */
  def probe(lo: Long, hi: Long): RangeCursor[Entry] = index.cursor(lo, hi)

  def foreachInRange(lo: Long, hi: Long)(visit: (Long, Entry) => Unit): Unit = index.foreachInRange(lo, hi)(visit)
}

object RangeWindow {

  /** One buffered row with its range key and event time. Equality is identity. */
  final class Entry(val key: Long, val time: Long, val row: AnyRef)

  def tTree(nodeSize: Int = 100, account: WindowAccount = WindowAccount.None, initialCapacity: Int = 64): RangeWindow =
    new RangeWindow(new TTree[Entry](nodeSize), account, initialCapacity)
  def bPlusTree(nodeSize: Int = 100, account: WindowAccount = WindowAccount.None, initialCapacity: Int = 64): RangeWindow =
    new RangeWindow(new BPlusTree[Entry](nodeSize), account, initialCapacity)
}
