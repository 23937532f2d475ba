package wjoin.core

/**
 * The one place where a time (or a range key) is offset by a bound: every period, horizon,
 * eviction limit, band reach and range binding goes through it, so no bound wraps at either
 * end of the Long range, whatever the column's values.
 *
 * Times are Longs in the column's unit (microseconds for timestamps), covering the whole range
 * `[Long.MinValue, Long.MaxValue]`; bounds are Longs too, where `Long.MaxValue` is the
 * unbounded bound ([[WindowMatrix.Inf]]). With exact integers:
 * {{{
 *   plus(t, d)  = Long.MaxValue                       if d = Inf (unbounded above)
 *               = clamp(t + d)                        else
 *   minus(t, d) = Long.MinValue                       if d = Inf (unbounded below)
 *               = clamp(t - d)                        else
 *   clamp(x)    = min(max(x, Long.MinValue), Long.MaxValue)
 * }}}
 * Clamping is exact for every test the engines make: a bound `[t - d1, t + d2]` clamped to the
 * Long range holds the same Long times as the mathematical one, except where a whole period
 * lies beyond an end (`t - d1 > Long.MaxValue` or `t + d2 < Long.MinValue`, possible with a
 * negative d, a travel-time interval's lower end): it holds no time, where the clamped one would
 * hold that end; [[minusAboveRange]] and [[plusBelowRange]] say so, and the period is empty. `plus(t, h) <= limit` is
 * exact as long as `limit < Long.MaxValue`; at `Long.MaxValue` (the end of a batch) every row
 * is reached, as it should be.
 *
 * A limit of `Long.MinValue` ("every row up to here has arrived") is not a real limit: a row
 * at `Long.MinValue` may still be followed by another at the same time. [[reached]] treats it
 * as "nothing has arrived", which the engines, the state and the watermark share.
 */
object SaturatingTime {
  // Bound + bound (the closure of the window matrix) is WindowMatrix.add, where Inf absorbs
  // everything; here the first operand is a time, and a time of Long.MaxValue is a real time.
  /** The unbounded bound; the same value as [[WindowMatrix.Inf]]. */
  final val Inf: Long = Long.MaxValue

  /** t + d, clamped to the Long range; Inf for an unbounded d. */
  def plus(t: Long, d: Long): Long =
    if (d == Inf) Inf
    else {
      val r = t + d
      // Overflow iff t and d have the same sign and r another one (Hacker's Delight 2-13).
      if (((t ^ r) & (d ^ r)) < 0) { if (d > 0) Long.MaxValue else Long.MinValue } else r
    }

  /** t - d, clamped to the Long range; Long.MinValue for an unbounded d. */
  def minus(t: Long, d: Long): Long =
    if (d == Inf) Long.MinValue
    else {
      val r = t - d
      if (((t ^ d) & (t ^ r)) < 0) { if (t < 0) Long.MinValue else Long.MaxValue } else r
    }

  /**
   * Whether t - d lies above Long.MaxValue: a period whose lower end it is holds no time (the
   * clamped bound, Long.MaxValue, would hold one). False for an unbounded (positive) d.
   */
  def minusAboveRange(t: Long, d: Long): Boolean = d < 0 && t - d < t

  /**
   * Whether t + d lies below Long.MinValue: a period whose upper end it is holds no time (the
   * clamped bound, Long.MinValue, would hold one).
   */
  def plusBelowRange(t: Long, d: Long): Boolean = d < 0 && t + d > t

  /** a - b > bound, exactly (no wrap for times at opposite ends); false for an unbounded bound. */
  def differenceExceeds(a: Long, b: Long, bound: Long): Boolean =
    if (bound == Inf) false
    else {
      val r = a - b
      if (((a ^ b) & (a ^ r)) < 0) a > b else r > bound
    }

  /**
   * A row at time `t` that no row later than it by more than `h` can join is out of reach
   * once every row up to `limit` has arrived: t + h <= limit. Long.MinValue as the limit
   * means nothing has arrived yet (no row is ever reached then).
   */
  def reached(t: Long, h: Long, limit: Long): Boolean =
    limit != Long.MinValue && plus(t, h) <= limit

  /** The limit after a row at time t: every row before t has arrived (Long.MinValue: none). */
  def before(t: Long): Long = if (t == Long.MinValue) t else t - 1
}
