package wjoin.core

import wjoin.core.window.WindowMemory

/**
 * Backward evaluation: the NLW-join and HW-join of Hammad et al. (Sec. 3.1), with lazy
 * expiration (Golab & Özsu) and, in streaming, the eager micro-batch mode.
 *
 * {{{
 *   offer(o, t, row) ──> evict expired rows (all inputs) ──> probe the others' windows
 *                        ts + horizon(j) <= limit              from r_o: periods, narrowing
 *                    ──> store r_o in window o                 next(): one combination each
 * }}}
 *
 * The trigger of a combination is its newest member (last in merge order): the arriving row
 * r_o at time t probes the windows of the others, input j within the period (P = the period
 * matrix, bounds inclusive)
 * {{{
 *   batch:           [t - P(o, j), min(t, t + P(j, o))]
 *   streaming eager: [t - P(o, j), t + P(j, o)]
 * }}}
 * narrowed by each bound member ([[ProbeEnumerator]]); each scanned row is tested against its
 * period (IsIn). Only processed rows are in the windows, so each combination is found once,
 * from the member processed last.
 *
 * Eviction (the papers' IsOut against the latest time): on each arrival at t, with
 * limit = min(t - 1, W) (W = +inf in batch), every input j drops its rows with
 * {{{
 *   ts + horizon(j) <= limit          no later row (>= t) and no future row (> W) reaches them
 * }}}
 * Lazy expiration (tau = `plan.expirationInterval` > 0): the drop runs only once the limit
 * moved by tau since the last one; the per-candidate period test keeps the result unchanged,
 * only the windows are larger. Count windows ([[CountWindows]]) also drop a row of j once k
 * newer rows of j arrived. In streaming, finish() evicts up to W.
 *
 * Streaming (one engine per micro-batch and partition): the state's rows are `preload`ed
 * without probing (they were joined in earlier batches), then the batch's new rows are offered
 * in time order. Rows of the state may be newer than an offered row, so the period is not cut
 * at t, and a probe seeks its period's start (the state spans window + watermark delay).
 *
 * Not final: [[shedding.SheddingBackwardEvaluation]] is its load-shedding variant.
 *
 * @param plan   the plan of an NLW-join or HW-join
 * @param filter non-window predicate
 * @param ranges range attributes of rows, for indexed inputs
 * @param mode   batch, or streaming with the watermark W (the eager mode)
 * @param memory the windows' memory account
 */
class BackwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    listener: EngineListener = EngineListener.Silent, memory: WindowMemory = WindowMemory.Unaccounted)
    extends WJoinEngine(plan, filter, ranges, mode, listener, PeriodShape.backward(mode), memory) {
  assert(!plan.forward, "backward evaluation runs the NLW-join and the HW-join")
  private val streaming = mode != EngineMode.Batch
  private val tau = plan.expirationInterval
  /** Lazy expiration: the limit of the last eviction (rows up to it are gone). */
  private var evictedUpTo = Long.MinValue

  def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    val s = arriveRow(input, time, row)
    probe.start(input, time, key, s)
    store(input, time, key, s)
  }

  /** Counts the arrival and evicts what it puts out of reach; returns the row as stored. */
  protected final def arriveRow(input: Int, time: Long, row: AnyRef): AnyRef = {
    arrival(input, time)
    stats.rowsIn(input) += 1
    val s = stored(row)
    if (tau == 0 || complete == Long.MinValue || SaturatingTime.minus(complete, tau) >= evictedUpTo) evictExpired(complete)
    s
  }

  def countOnly(input: Int, time: Long): Unit = {
    assert(counts != null, "countOnly is for count-based (ROWS) windows")
    arrival(input, time)
    evictExpired(complete)
  }

  /**
   * Streaming: a row of the state, already joined in earlier batches. It only joins the rows
   * offered after it, so it is inserted without probing.
   */
  override def preload(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    assert(streaming, "only the eager streaming engine preloads its state")
    assert(counts == null, "count-based windows need every row in merge order, so eager streaming cannot preload them")
    store(input, time, key, row)
  }

  /** Streaming: evicts what no row after W can reach. */
  def finish(): Unit = {
    complete = completeBound
    if (streaming && !probe.active) evictExpired(complete)
  }

  def next(): Boolean = probe.next()

  override protected def restarted(): Unit = evictedUpTo = Long.MinValue

  private def arrival(input: Int, time: Long): Unit = {
    arrive(input, time)
    if (counts != null) while (counts.countedOut(input, windows(input))) evictOldest(input)
  }

  /** Drops the rows of every input j with ts + horizon(j) <= limit. */
  private def evictExpired(limit: Long): Unit = {
    evictedUpTo = limit
    var j = 0
    while (j < n) {
      val h = horizon(j)
      val w = windows(j)
      while (w.size > 0 && SaturatingTime.reached(w.oldestTime, h, limit)) evictOldest(j)
      j += 1
    }
  }
}
