package wjoin.core.shedding

import wjoin.core.{BackwardEvaluation, EngineMode, EnginePlan, ForwardEvaluation, RangeValues, TupleFilter}

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
 */
private[shedding] object SheddingEvaluation {
  /** The engine's budgets; the caller counts each arrival in the rates before asking them. */
  def budgets(shed: ShedPlan, partition: Int, batch: Long): (ArrivalRates, StateBudget, ProbeBudget) = {
    val random = shed.random(partition, batch)
    val rates = new ArrivalRates(shed.expectedRates, shed.unitsPerSecond)
    (rates, new StateBudget(shed.stateCaps.getOrElse(IndexedSeq.fill(shed.n)(Int.MaxValue)), shed.retention, rates,
      random.split()),
      shed.probeRates.map(mu => new ProbeBudget(mu, rates, shed.unitsPerSecond, random.split())).orNull)
  }
}

/**
 * Backward evaluation under limits: each arrival probes if its [[ProbeBudget]] allows and is
 * stored if its [[StateBudget]] does (after expired rows left, so the cap sees live rows).
 *
 * @param shed      the partition's budgets
 * @param partition the partition (seeds the random choices)
 * @param batch     the micro-batch (streaming; 0 in batch)
 */
final class SheddingBackwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    shed: ShedPlan, partition: Int, batch: Long) extends BackwardEvaluation(plan, filter, ranges, mode) {
  require(shed.n == plan.n, s"a shedding plan of ${shed.n} inputs for a W-join of ${plan.n}")
  private val (rates, state, probes) = SheddingEvaluation.budgets(shed, partition, batch)

  override def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    val s = arriveRow(input, time, row)
    rates.arrive(input, time)
    if (probes == null || probes.probes(input, time)) probe.start(input, time, key, s) else stats.shedProbes += 1
    if (state.admits(input, windows(input).size)) store(input, time, key, s) else stats.shedRows += 1
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
 */
final class SheddingForwardEvaluation(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    shed: ShedPlan, partition: Int, batch: Long) extends ForwardEvaluation(plan, filter, ranges, mode) {
  require(shed.n == plan.n, s"a shedding plan of ${shed.n} inputs for a W-join of ${plan.n}")
  private val (rates, state, probes) = SheddingEvaluation.budgets(shed, partition, batch)
  /** Per stored row, in arrival order: whether it probes when swept. */
  private val decisions = new java.util.ArrayDeque[java.lang.Boolean]()

  override def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    rates.arrive(input, time)
    if (!state.admits(input, windows(input).size)) {
      arriveRow(input, time)
      stats.shedRows += 1
    } else {
      val probing = probes == null || probes.probes(input, time)
      if (!probing) stats.shedProbes += 1
      decisions.addLast(java.lang.Boolean.valueOf(probing))
      super.offer(input, time, key, row)
    }
  }

  override protected def sweep(o: Int, t: Long): Unit = if (decisions.pollFirst().booleanValue) super.sweep(o, t)
}
