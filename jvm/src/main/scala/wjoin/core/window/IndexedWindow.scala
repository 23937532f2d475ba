package wjoin.core.window

import wjoin.core.index.{RangeCursor, RangeWindow}

/**
 * T-tree or B+tree access path (Kang et al.'s asymmetric joins): the rows in a
 * [[wjoin.core.index.RangeWindow]], indexed on one `Long` range attribute, probed with
 * `probe(lo, hi)`.
 *
 * {{{
 *   insert(row) ──> range.insert(rangeOf(row), time, row)
 *   probe(lo, hi) ──> cursor over rows with lo <= rangeOf(row) <= hi, in attribute order
 * }}}
 *
 * The cursor yields candidates in attribute order, not time order, so the engine tests both
 * period bounds on each (no early stop).
 *
 * @param range    the ring of entries plus the T-tree or B+tree over them
 * @param rangeOf  the indexed range attribute of a row as stored
 * @param keepKeys keep the rows' keys as in [[ScanWindow]]
 */
final class IndexedWindow(val range: RangeWindow, rangeOf: AnyRef => Long, keepKeys: Boolean)
    extends InputWindow {
  private val keys = new ArrivalKeys(keepKeys)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = { range.insert(rangeOf(row), time, row); keys.append(time, key) }
  def candidates(key: AnyRef): TimeSortedBuffer =
    throw new UnsupportedOperationException("an indexed window is probed by range, not scanned")
  def probe(lo: Long, hi: Long): RangeCursor[RangeWindow.Entry] = range.probe(lo, hi)
  def size: Int = range.size
  def oldestTime: Long = range.oldestTime
  def oldestRow: AnyRef = range.oldestRow
  def oldestKey: AnyRef = keys.oldest
  def evictOldest(): Unit = { range.evictOldest(); keys.popOldest() }
  def distinctKeys(sample: Int): Long = keys.distinct(sample)
}
