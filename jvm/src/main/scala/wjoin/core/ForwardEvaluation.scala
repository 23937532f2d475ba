package wjoin.core

import wjoin.core.window.{TimeSortedBuffer, WindowMemory}

/**
 * Forward evaluation: the MW-join of Hammad et al. (Fig. 6), batch or streaming ordered.
 *
 * {{{
 *   offer(i, t, row) ──> window i, and (t, i) to the merge-ordered arrivals
 *   next():  Mode 1: oldest unprocessed r_o at t, once t + horizon(o) <= complete
 *            Mode 2: enumerate r_o's slices in the others' windows ──> combinations
 *            then drop r_o (no later origin can pair with an earlier row)
 * }}}
 *
 * The trigger of a combination is its oldest member (first in merge order). Mode 1 sweeps to
 * the oldest unprocessed row r_o once no row can still arrive inside its period:
 * {{{
 *   t + horizon(o) <= complete      complete = min(latest offered time - 1, W), W = +inf in batch
 * }}}
 * (or, with a ROWS window on o, once k newer rows of o arrived: [[CountWindows]]). Mode 2
 * enumerates the slices of each window inside the period (P = the period matrix, inclusive)
 * {{{
 *   [max(t, t - P(o, j)), t + P(j, o)]
 * }}}
 * found by binary search, so no row is window-tested; a pair's bounds narrow the slices only
 * where the origin's period does not already imply them ([[EnginePlan.refine]]).
 *
 * Eviction: each row is dropped right after it was the origin, so every row is swept exactly
 * once, in merge order. Memory follows window size x arrival rate.
 *
 * Streaming ordered (one engine per micro-batch and partition): rows with time <= W, from the
 * state and the batch alike, are offered in merge order; the sweep of r_o at t runs once
 * t + horizon(o) <= W. Rows newer than W wait in the state; the swept rows are always a
 * prefix of the merge order. Only the bound differs from batch, not the routine.
 *
 * Not final: [[shedding.SheddingForwardEvaluation]] is its load-shedding variant.
 *
 * @param plan   the plan of an MW-join
 * @param filter non-window predicate
 * @param ranges range attributes of rows, for indexed inputs
 * @param mode   batch, or streaming with the watermark W (the ordered mode)
 * @param memory the windows' memory account
 */
class ForwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    listener: EngineListener = EngineListener.Silent, memory: WindowMemory = WindowMemory.Unaccounted)
    extends WJoinEngine(plan, filter, ranges, mode, listener, PeriodShape.Forward, memory) {
  assert(plan.forward, "forward evaluation runs the MW-join")
  /** Every buffered row in merge order (rows hold the input index). */
  private val arrivals = new TimeSortedBuffer(64, engineAccount)
  /** The input of the origin being enumerated (dropped when it runs out), or -1. */
  private var sweeping = -1

  def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    arriveRow(input, time)
    arrivals.append(time, Integer.valueOf(input))
    store(input, time, key, stored(row))
  }

  /** Counts the arrival (every row that will be swept, and every shed row). */
  protected final def arriveRow(input: Int, time: Long): Unit = {
    arrive(input, time)
    stats.rowsIn(input) += 1
  }

  /** Mode 2 from the oldest row of `o` (at t): the combinations it is the oldest member of. */
  protected def sweep(o: Int, t: Long): Unit = probe.start(o, t, windows(o).oldestKey, windows(o).oldestRow)

  def countOnly(input: Int, time: Long): Unit = {
    assert(counts != null, "countOnly is for count-based (ROWS) windows")
    arrive(input, time)
  }

  /** Every row whose period ends by W (batch: every row) may now be swept. */
  def finish(): Unit = complete = completeBound

  override protected def restarted(): Unit = assert(arrivals.isEmpty && sweeping < 0, "every row was swept")

  def next(): Boolean = {
    while (true) {
      if (probe.next()) return true
      if (sweeping >= 0) {
        evictOldest(sweeping)
        arrivals.popOldest()
        sweeping = -1
      }
      if (arrivals.isEmpty) return false
      val o = arrivals.oldestRow.asInstanceOf[Integer].intValue
      val t = arrivals.oldestTime
      if (!SaturatingTime.reached(t, horizon(o), complete) && !(counts != null && counts.countedOut(o, windows(o)))) return false
      sweeping = o
      sweep(o, t)
    }
    false
  }
}
