package wjoin.core.shedding

import wjoin.core.{BackwardEvaluation, EngineListener, EngineMode, EnginePlan, ForwardEvaluation, RangeValues, TupleFilter}
import wjoin.core.window.WindowMemory

/**
 * The load-shedding engines: backward and forward evaluation with the budgets of a
 * [[ShedPlan]] applied to each arriving row. `WJoinEngine.apply` builds one of them only when
 * the query has limits, so the exact engines run no shedding code.
 *
 * {{{
 *   backward (NLW, HW): arrival r of i ── evict expired ── ProbeBudget: probe? ── StateBudget: store?
 *                       probing: combinations with r as newest member;  stored: r is a candidate later
 *   forward (MW):       arrival r of i ── StateBudget: store? ── no: r is dropped (counted shed)
 *                                                           └─ yes: ProbeBudget decides now whether r,
 *                                                              once swept as oldest member, probes
 * }}}
 *
 * Every combination emitted is one the exact engine emits (its members passed the same period
 * tests, in windows that are subsets of the exact ones): the result is a sub-bag of the exact
 * W-join. A forward-evaluated row must be buffered until its sweep to probe at all, so there a
 * row shed from memory neither probes nor is probed.
 *
 * A streaming W-join (eager mode only: the ordered mode holds rows newer than the watermark
 * outside any window, which no budget bounds) keeps the engine across micro-batches; its
 * state store keeps only the rows the windows keep ([[EngineListener.shed]] takes the others
 * back), and the [[ShedBudgets]] are retargeted per batch and saved with the state.
 */
trait SheddingEngine {
  /** The engine's budgets: retargeted per micro-batch, saved with the state (streaming). */
  def budgets: ShedBudgets
}

/**
 * Backward evaluation under limits: each arrival probes if its [[ProbeBudget]] allows and is
 * stored if its [[StateBudget]] does (after expired rows left, so the cap sees live rows).
 *
 * @param shed      the partition's budgets
 * @param partition the partition (seeds the random choices)
 * @param batch     the micro-batch (streaming; 0 in batch)
 * @param memory    the windows' memory account
 */
final class SheddingBackwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    shed: ShedPlan, partition: Int, batch: Long, listener: EngineListener, memory: WindowMemory = WindowMemory.Unaccounted)
    extends BackwardEvaluation(plan, filter, ranges, mode, listener, memory)
    with SheddingEngine {
  assert(shed.n == plan.n, s"a shedding plan of ${shed.n} inputs for a W-join of ${plan.n}")
  val budgets = new ShedBudgets(shed, partition, batch)

  override def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    val s = arriveRow(input, time, row)
    budgets.arrive(input, time)
    if (budgets.probes(input, time)) probe.start(input, time, key, s) else stats.shedProbes += 1
    if (budgets.stores(input, windows(input).size, stats.buffered)) store(input, time, key, s)
    else { stats.shedRows += 1; listener.shed(input, row) }
  }
}

/**
 * Forward evaluation under limits: a row the [[StateBudget]] refuses is dropped; a stored row
 * gets its probe decision on arrival (its second of event time), kept in arrival order until
 * its sweep (sweeps follow arrival order).
 *
 * @param shed      the partition's budgets
 * @param partition the partition (seeds the random choices)
 * @param batch     the micro-batch (streaming; 0 in batch)
 * @param memory    the windows' memory account
 */
final class SheddingForwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    shed: ShedPlan, partition: Int, batch: Long, listener: EngineListener, memory: WindowMemory = WindowMemory.Unaccounted)
    extends ForwardEvaluation(plan, filter, ranges, mode, listener, memory)
    with SheddingEngine {
  assert(shed.n == plan.n, s"a shedding plan of ${shed.n} inputs for a W-join of ${plan.n}")
  assert(mode == EngineMode.Batch, "a streaming W-join under limits runs the eager mode (backward evaluation): " +
    "the ordered mode holds rows newer than the watermark outside its windows, beyond any budget")
  val budgets = new ShedBudgets(shed, partition, batch)
  /** Per stored row, in arrival order: whether it probes when swept. */
  private val decisions = new java.util.ArrayDeque[java.lang.Boolean]()

  override def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    budgets.arrive(input, time)
    if (!budgets.stores(input, windows(input).size, stats.buffered)) {
      arriveRow(input, time)
      stats.shedRows += 1
      listener.shed(input, row)
    } else {
      val probing = budgets.probes(input, time)
      if (!probing) stats.shedProbes += 1
      decisions.addLast(java.lang.Boolean.valueOf(probing))
      super.offer(input, time, key, row)
    }
  }

  override protected def sweep(o: Int, t: Long): Unit = if (decisions.pollFirst().booleanValue) super.sweep(o, t)
}
