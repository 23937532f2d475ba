package wjoin.plan
package physical

import wjoin.core.cost.InputStats
import wjoin.core.shedding.{ResourceLimits, ShedPlan, UnitTimeAllocation}
import wjoin.core.WindowMatrix
import wjoin.plan.logical.WindowJoin

/**
 * The budgets of a resource-limited W-join for one partition (Kang et al. Sec.
 * 5.2): the workload of the unit-time model estimated from the planner's input statistics,
 * then split by [[UnitTimeAllocation]] into a [[ShedPlan]].
 *
 * {{{
 *   lambda_i = rows_i / span_i x (time units per second) / partitions       arrivals per second
 *   N_i      = lambda_i x horizon(i) / (time units per second)              full window, rows
 *   w_ij     = max(0, upper(i, j)) / horizon(j)                             the part of j's window
 *                                                                           an arrival of i probes
 * }}}
 * partitions = min(spark.sql.shuffle.partitions, distinct keys) when rows are hash-partitioned
 * on the key, else 1 (a time band sees every input's rate). Small inputs run in one task
 * ([[InputSize]]): the planner then plans with one shuffle partition, so partitions = 1 and
 * the budgets are the whole input's. A second of event time is
 * 1,000,000 units of a timestamp column, and 1 unit of an integral one.
 */
object ShedPlanning {
  /** Time units per second: timestamps are microseconds; an integral time unit counts as a second. */
  def unitsPerSecond(integralTime: Boolean): Long = if (integralTime) 1L else 1000000L

  /** The partition's workload from per-input statistics. */
  def workload(stats: Seq[InputStats], matrix: WindowMatrix, unitsPerSecond: Long,
      partitions: Double): UnitTimeAllocation.Workload = {
    val n = stats.size
    val horizon = (0 until n).map(matrix.horizon)
    val rates = stats.map(s => s.rate * unitsPerSecond / math.max(1.0, partitions)).toIndexedSeq
    val windows = (0 until n).map(i => rates(i) * math.max(1L, horizon(i)).toDouble / unitsPerSecond)
    val reach = (0 until n).map(i => (0 until n).map { j =>
      if (i == j || horizon(j) <= 0) 1.0 else math.min(1.0, math.max(0L, matrix.upper(i, j)).toDouble / horizon(j))
    })
    UnitTimeAllocation.Workload(rates, windows, reach)
  }

  /** The shed plan of `limits` for `w` with the planner's statistics. */
  def plan(w: WindowJoin, limits: ResourceLimits, stats: Seq[InputStats], hashPartitioned: Boolean,
      shufflePartitions: Int): ShedPlan = {
    val partitions = if (hashPartitioned) math.max(1.0, math.min(shufflePartitions.toDouble, stats.map(_.distinct).min)) else 1.0
    val units = unitsPerSecond(w.windows.integralTime)
    ShedPlan.of(limits, workload(stats, w.windows.matrix, units, partitions), units)
  }
}
