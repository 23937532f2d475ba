package wjoin.core.shedding

import wjoin.core.{Named, NamedValues}
import wjoin.errors.WJoinErrors

/**
 * What a user allows a resource-limited (approximate) W-join, resolved to input indices
 * (Kang et al. Sec. 5.2): at most `stateRows` buffered rows per partition (the
 * memory-limited case, Sec. 5.2.2), at most `probeRate` arriving rows per second of event
 * time probing the others (the CPU-limited case, Sec. 5.2.1), or both (Sec. 5.2.3), and how
 * each budget is split across the inputs.
 *
 * {{{
 *   limits = {state_rows: M, probe_rate: mu}   allocation = auto | equal | proportional | shares
 *        │                                            │
 *        └──────────── UnitTimeAllocation ────────────┘──> ShedPlan (per input: M_i, mu_i)
 * }}}
 *
 * @param stateRows  M: the most rows all windows of one partition hold together; None: unlimited
 * @param probeRate  mu: the most arriving rows per second of event time that probe; None: unlimited
 * @param allocation how M and mu are split across the inputs
 * @param seed       seeds every random choice of the shedding (with the partition), so a
 *                   query gives the same rows on every run
 */
final case class ResourceLimits(stateRows: Option[Long], probeRate: Option[Double], allocation: Allocation,
    seed: Long) {
  assert(stateRows.isDefined || probeRate.isDefined, "limits: give state_rows, probe_rate or both")
  stateRows.foreach(m => assert(m >= 0, s"limits: state_rows must be >= 0 rows, got $m"))
  probeRate.foreach(mu => assert(mu >= 0 && !mu.isInfinite && !mu.isNaN,
    s"limits: probe_rate must be a finite number >= 0 (probes per second of event time), got $mu"))

  /** "state_rows=1000, probe_rate=100/s, allocation=auto, seed=7". */
  def describe(names: Seq[String]): String =
    (stateRows.map(m => s"state_rows=$m").toSeq ++ probeRate.map(mu => s"probe_rate=${ShedPlan.number(mu)}/s") ++
      Seq(s"allocation=${allocation.describe(names)}", s"seed=$seed")).mkString(", ")
}

object ResourceLimits {
  /** The keys of the `limits` argument, and what each means (for errors). */
  val Keys: Seq[(String, String)] = Seq(
    "state_rows" -> "the most buffered rows per partition, all inputs together",
    "probe_rate" -> "the most arriving rows per second of event time that probe the other inputs")

  /** The seed when none is given: shedding is deterministic either way. */
  val DefaultSeed = 0L
}

/** How the budgets of [[ResourceLimits]] are split across the inputs. */
sealed abstract class Allocation(name: String) extends Named(name) {
  def describe(names: Seq[String]): String = name
}

object Allocation extends NamedValues[Allocation] {
  /** By the unit-time model: the split with the most output ([[UnitTimeAllocation.auto]]). */
  case object Auto extends Allocation("auto")
  /** Each input 1/N of each budget. */
  case object Equal extends Allocation("equal")
  /** Each budget in proportion to the inputs' arrival rates. */
  case object Proportional extends Allocation("proportional")

  /**
   * Fixed shares per input (fractions summing to 1), one split per budget: the user's
   * `{input: share}` (the same for both), or `{"state_rows": {...}, "probe_rate": {...}}`.
   */
  final case class Shares(state: IndexedSeq[Double], probes: IndexedSeq[Double]) extends Allocation("shares") {
    assert(state.size == probes.size, "one share per input for each budget")
    override def describe(names: Seq[String]): String = {
      def one(s: IndexedSeq[Double]) = names.indices.map(i => s"${names(i)}: ${ShedPlan.number(s(i))}").mkString("{", ", ", "}")
      if (state == probes) one(state) else s"{state_rows: ${one(state)}, probe_rate: ${one(probes)}}"
    }
  }

  val all: Seq[Allocation] = Seq(Auto, Equal, Proportional)

  /**
   * Shares from non-negative weights: normalized to sum 1. `what` names the argument in errors.
   */
  def normalized(weights: IndexedSeq[Double], what: String): IndexedSeq[Double] = {
    weights.foreach(w => WJoinErrors.check(w >= 0 && !w.isNaN && !w.isInfinite, "WJOIN_INVALID_ARGUMENT",
      Seq("argument" -> what, "reason" -> s"shares must be finite numbers >= 0, got $w")))
    val sum = weights.sum
    WJoinErrors.check(sum > 0, "WJOIN_INVALID_ARGUMENT", Seq("argument" -> what,
      "reason" -> "at least one share must be > 0 (shares are fractions of the budget, normalized to sum 1)"))
    weights.map(_ / sum)
  }
}
