package wjoin.core

/**
 * How the enumeration bounds and searches a probe's periods ([[ProbeEnumerator]]), fixed by
 * the evaluation and the mode when an engine is built (one value instead of four flags):
 *
 * {{{
 *   shape              period [t - P(o, j), t + P(j, o)] cut to   candidates (scan / hash windows)
 *   BatchBackward      [.., t]: the origin is the newest member   from the start, IsIn, stop past the end
 *   StreamingBackward  uncut (older members may arrive later)     from the period's first row (seek)
 *   Forward            [t, ..]: the origin is the oldest member   slices by binary search (Mode 2)
 *   Broadcast          uncut: the windows hold whole inputs       slices by binary search
 * }}}
 *
 * @param fromOrigin  periods start at the origin's time (forward: the origin is the oldest member)
 * @param untilOrigin periods end at the origin's time (batch backward: it is the newest member)
 * @param sliced      candidates are slices found by binary search (forward, Mode 2)
 * @param seek        unsliced scans start at the period's first row (streaming backward, whose
 *                    state spans the window plus the watermark delay)
 */
sealed abstract class PeriodShape(val fromOrigin: Boolean, val untilOrigin: Boolean, val sliced: Boolean,
    val seek: Boolean) {
  assert(!(fromOrigin && untilOrigin), "a period is cut on one side of the origin at most")
}

object PeriodShape {
  /** NLW- / HW-join of a batch: the trigger is the newest member (Hammad et al. Figs. 2-5). */
  case object BatchBackward extends PeriodShape(fromOrigin = false, untilOrigin = true, sliced = false, seek = false)
  /** NLW- / HW-join of a stream (eager mode): rows of the state may be newer than the trigger's partners. */
  case object StreamingBackward extends PeriodShape(fromOrigin = false, untilOrigin = false, sliced = false, seek = true)
  /** MW-join: the trigger is the oldest member, Mode 2 slices (Hammad et al. Fig. 6). */
  case object Forward extends PeriodShape(fromOrigin = true, untilOrigin = false, sliced = true, seek = false)

  /**
   * The broadcast W-join ([[BroadcastProbe]]): the origin is a row of the streamed input, in no
   * time order, and the other windows hold their whole (broadcast) input, members on both sides.
   */
  case object Broadcast extends PeriodShape(fromOrigin = false, untilOrigin = false, sliced = true, seek = false)

  /** The backward shape of `mode`. */
  def backward(mode: EngineMode): PeriodShape = if (mode == EngineMode.Batch) BatchBackward else StreamingBackward
}
