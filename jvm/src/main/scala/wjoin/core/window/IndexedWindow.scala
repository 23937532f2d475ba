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
 * Memory: each row (`account.rowBytes`) with its entry and index slot
 * ([[WindowFootprint.IndexedEntry]]), and the ring of entries by capacity.
 *
 * @param range    the ring of entries plus the T-tree or B+tree over them (its ring charged to `account`)
 * @param rangeOf  the indexed range attribute of a row as stored
 * @param keepKeys keep the rows' keys as in [[ScanWindow]]
 * @param account  the window's memory account
 */
final class IndexedWindow(val range: RangeWindow, rangeOf: AnyRef => Long, keepKeys: Boolean,
    account: WindowAccount = WindowAccount.None) extends RangeProbedWindow {
  private val keys = new ArrivalKeys(keepKeys, account)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    range.insert(rangeOf(row), time, row)
    keys.append(time, key)
    account.rowIn(account.rowBytes(row) + WindowFootprint.IndexedEntry)
  }
  def candidates(key: AnyRef): TimeSortedBuffer =
    throw new UnsupportedOperationException("an indexed window is probed by range, not scanned")
  def probe(lo: Long, hi: Long): RangeCursor[RangeWindow.Entry] = range.probe(lo, hi)
  /** The key plays no part: the rows of every key are in the one tree. */
  def probe(key: AnyRef, lo: Long, hi: Long): RangeCursor[RangeWindow.Entry] = range.probe(lo, hi)
  def holds(key: AnyRef): Boolean = range.size > 0
  def size: Int = range.size
  def oldestTime: Long = range.oldestTime
  def oldestRow: AnyRef = range.oldestRow
  def oldestKey: AnyRef = keys.oldest
  def evictOldest(): Unit = {
    account.rowOut(account.rowBytes(range.oldestRow) + WindowFootprint.IndexedEntry)
    range.evictOldest()
    keys.popOldest()
  }
  def distinctKeys(sample: Int): Long = keys.distinct(sample)
}
