package wjoin.core

import wjoin.core.window.InputWindow

/**
 * Count-based windows (ROWS(j) = k, [[EnginePlan.rowLimit]]): ComputeCountJoin of Golab &
 * Özsu Sec. 3.6, with per-input counters instead of overwritten slots.
 *
 * {{{
 *   arrival of input i (offer or countOnly) ──> seq += 1, arrived(i) += 1
 *   stored row x = Stamped(row, seq, arrived.clone())
 *
 *   input j:  ... x ... y1 y2 ... yk        k rows of j after x: x is out of j's window
 * }}}
 *
 * Every arrival, including rows that can never match (offered with `countOnly`), takes the
 * next number of the merge order. Member x of input j is in j's window at the combination's
 * newest member m (the member last in merge order) iff
 * {{{
 *   counts_m(j) - counts_x(j) < k          (fewer than k rows of j arrived after x, up to m)
 * }}}
 * Binding a member can only make the newest member newer, so a member that fails fails for
 * every completion and is skipped at once ([[holds]]). Eviction: once
 * `arrived(j) - counts_oldest(j) >= k` ([[countedOut]]) no newer member can pair with j's
 * oldest row: backward evaluation drops it (the circular buffer's overwrite); forward
 * evaluation sweeps it even before its time horizon passed.
 *
 * @param rowLimit per input, k of its ROWS window or [[StreamRows.NoLimit]]
 */
final class CountWindows(rowLimit: Array[Long]) {
  private val n = rowLimit.length
  /** Rows of each input arrived so far, and arrivals of all inputs. */
  private val arrived = new Array[Long](n)
  private var arrivalSeq = 0L
  /** The stamp of each bound member (origin included) of the current enumeration. */
  private val stamps = new Array[Stamped](n)

  /** One more row of `input` in merge order. */
  def arrive(input: Int): Unit = {
    arrived(input) += 1
    arrivalSeq += 1
  }

  /** The row as stored: stamped with the counts of its arrival (call after [[arrive]]). */
  def stamp(row: AnyRef): Stamped = new Stamped(row, arrivalSeq, arrived.clone())

  /** k rows of input j arrived after the oldest row of its window `w`. */
  def countedOut(j: Int, w: InputWindow): Boolean = {
    val k = rowLimit(j)
    k != StreamRows.NoLimit && w.size > 0 && arrived(j) - w.oldestRow.asInstanceOf[Stamped].counts(j) >= k
  }

  /** Binds the stored (stamped) row of input j; returns the row itself. */
  def bind(j: Int, stored: AnyRef): AnyRef = {
    val s = stored.asInstanceOf[Stamped]
    stamps(j) = s
    s.row
  }

  /**
   * After binding depth d of `order` (origin `origin`): every bound member of a counted
   * input is within its input's last k rows as of the newest bound member.
   */
  def holds(origin: Int, order: Array[Int], d: Int): Boolean = {
    var newest = stamps(origin)
    var k = 0
    while (k <= d) {
      val s = stamps(order(k))
      if (s.seq > newest.seq) newest = s
      k += 1
    }
    k = -1
    while (k <= d) {
      val j = if (k < 0) origin else order(k)
      if (rowLimit(j) != StreamRows.NoLimit && newest.counts(j) - stamps(j).counts(j) >= rowLimit(j)) return false
      k += 1
    }
    true
  }
}

/**
 * A stored row of a W-join with count-based windows: its place in the merge order and the
 * number of rows of each input that had arrived when it did (itself included).
 *
 * @param row    the row itself
 * @param seq    its number in the merge order of all inputs' arrivals
 * @param counts per input, the rows arrived up to and including this one
 */
private[core] final class Stamped(val row: AnyRef, val seq: Long, val counts: Array[Long])
