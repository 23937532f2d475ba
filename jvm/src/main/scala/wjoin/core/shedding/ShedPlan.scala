package wjoin.core.shedding

import java.util.SplittableRandom

/**
 * One partition's budgets, per input, as the shedding engine applies them
 * ([[SheddingBackwardEvaluation]], [[SheddingForwardEvaluation]]): built on the driver from
 * [[ResourceLimits]] and the workload the planner estimates, shipped to tasks.
 *
 * {{{
 *   input i:  state cap M_i   (sum_i M_i <= M)    retention (N_i = lambda_i x retention)   StateBudget
 *             probe rate mu_i (sum_i mu_i <= mu)  arrival estimate lambda_i                ProbeBudget
 * }}}
 *
 * @param limits         the request, for EXPLAIN
 * @param stateCaps      M_i, the most rows input i's window keeps; None: memory unlimited
 * @param retention      per input, how long (seconds of event time) a row stays in its full
 *                       window: N_i = lambda_i x retention_i
 * @param probeRates     mu_i, the most arrivals of input i per second of event time that probe;
 *                       None: CPU unlimited
 * @param expectedRates  lambda_i, arrivals of input i per second the planner expects (the
 *                       engine then follows the rates it sees, [[ArrivalRates]])
 * @param unitsPerSecond time units per second of event time (1,000,000 for timestamps, 1 for
 *                       integral time columns, whose unit counts as a second)
 * @param seed           the query's seed
 */
final case class ShedPlan(limits: ResourceLimits, stateCaps: Option[IndexedSeq[Int]], retention: IndexedSeq[Double],
    probeRates: Option[IndexedSeq[Double]], expectedRates: IndexedSeq[Double], unitsPerSecond: Long, seed: Long) {
  val n: Int = retention.size
  assert(unitsPerSecond > 0, s"a second of event time must be > 0 time units, got $unitsPerSecond")
  assert(stateCaps.forall(c => c.size == n && c.forall(_ >= 0)) && probeRates.forall(_.size == n) &&
    expectedRates.size == n, "one budget per input")
  assert(stateCaps.forall(_.map(_.toLong).sum <= limits.stateRows.getOrElse(Long.MaxValue)),
    "the inputs' state caps exceed state_rows")

  /** The random choices of one engine: seeded by the query's seed, the partition and the micro-batch. */
  def random(partition: Int, batch: Long = 0L): SplittableRandom =
    new SplittableRandom(ShedPlan.mix(ShedPlan.mix(seed ^ 0x5DEECE66DL) + partition) * 31 + batch)

  /** EXPLAIN: "state_rows=1000 [A=1000, B=0], probe_rate=100/s [A=100, B=0], allocation=auto, seed=7". */
  def describe(names: Seq[String]): String = {
    def per[T](v: IndexedSeq[T], show: T => String) = names.indices.map(i => s"${names(i)}=${show(v(i))}").mkString("[", ", ", "]")
    (limits.stateRows.map(m => s"state_rows=$m ${per(stateCaps.get, (c: Int) => c.toString)}").toSeq ++
      limits.probeRate.map(mu => s"probe_rate=${ShedPlan.number(mu)}/s ${per(probeRates.get, ShedPlan.number)}") ++
      Seq(s"allocation=${limits.allocation.describe(names)}", s"seed=$seed")).mkString(", ")
  }
}

object ShedPlan {
  /**
   * The plan of `limits` for one partition's workload (per input: arrival rate and full window
   * in rows): the shares of [[UnitTimeAllocation.allocate]], memory rounded down to whole rows
   * by largest remainder (so the caps sum to at most M).
   */
  def of(limits: ResourceLimits, workload: UnitTimeAllocation.Workload, unitsPerSecond: Long): ShedPlan = {
    val budgets = UnitTimeAllocation.allocate(workload, limits.stateRows.map(_.toDouble), limits.probeRate,
      limits.allocation)
    val caps = limits.stateRows.map(m => wholeRows(budgets.state, m))
    val retention = workload.windows.indices.map { i =>
      if (workload.rates(i) > 0) workload.windows(i) / workload.rates(i) else 0.0
    }
    ShedPlan(limits, caps, retention, limits.probeRate.map(_ => budgets.probes), workload.rates, unitsPerSecond, limits.seed)
  }

  /** Whole rows per input summing to at most m: floors, then the largest remainders get one more. */
  def wholeRows(shares: IndexedSeq[Double], m: Long): IndexedSeq[Int] = {
    val total = math.min(m, shares.sum.round)
    val floors = shares.map(s => math.min(Int.MaxValue.toLong, math.floor(math.max(0.0, s)).toLong))
    var left = math.max(0L, total - floors.sum)
    val extra = Array.fill(shares.size)(0L)
    for (i <- shares.indices.sortBy(i => -(shares(i) - math.floor(shares(i)))) if left > 0) { extra(i) = 1; left -= 1 }
    shares.indices.map(i => math.min(Int.MaxValue.toLong, floors(i) + extra(i)).toInt)
  }

  /** 100 for 100.0, else up to 3 decimals. */
  def number(d: Double): String =
    if (d == math.rint(d) && math.abs(d) < 1e15) d.toLong.toString
    else BigDecimal(d).setScale(3, BigDecimal.RoundingMode.HALF_UP).bigDecimal.stripTrailingZeros.toPlainString

  /** SplitMix64's finalizer: spreads seeds that differ in few bits. */
  private[shedding] def mix(z0: Long): Long = {
    var z = z0 + 0x9E3779B97F4A7C15L
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL
    z ^ (z >>> 31)
  }
}
