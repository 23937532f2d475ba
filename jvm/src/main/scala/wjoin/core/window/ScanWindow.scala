package wjoin.core.window

/**
 * Nested-loops access path (NLW-join of Hammad et al. Sec. 3.1.1): one ring buffer in arrival
 * order, and every probe scans it; the buffer is time-sorted, so a probe may stop past its
 * period.
 *
 * {{{
 *   insert ──> [oldest ... newest] ──> candidates(any key) = the whole buffer
 * }}}
 *
 * Memory: each row (`account.rowBytes`) and the ring by its capacity ([[WindowFootprint]]).
 *
 * @param keepKeys keep the rows' keys beside them ([[ArrivalKeys]]): a keyed plan where other
 *                 inputs are hashed, so forward evaluation can probe them with the oldest key
 * @param account  the window's memory account
 */
final class ScanWindow(keepKeys: Boolean = false, account: WindowAccount = WindowAccount.None) extends InputWindow {
  private val buffer = new TimeSortedBuffer(64, account)
  private val keys = new ArrivalKeys(keepKeys, account)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    buffer.append(time, row)
    keys.append(time, key)
    account.rowIn(account.rowBytes(row))
  }
  def candidates(key: AnyRef): TimeSortedBuffer = buffer
  def size: Int = buffer.size
  def oldestTime: Long = buffer.oldestTime
  def oldestRow: AnyRef = buffer.oldestRow
  def oldestKey: AnyRef = keys.oldest
  def evictOldest(): Unit = {
    account.rowOut(account.rowBytes(buffer.oldestRow))
    buffer.popOldest()
    keys.popOldest()
  }
  def distinctKeys(sample: Int): Long = keys.distinct(sample)
}
