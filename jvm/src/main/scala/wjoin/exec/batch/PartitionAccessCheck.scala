package wjoin.exec
package batch

import org.apache.spark.internal.Logging

import wjoin.core.cost.{AccessRecheck, SliceStatistics}
import wjoin.core.window.WindowMemory
import wjoin.core.{Algorithm, EnginePlan, EngineRow}
import wjoin.exec.codec.RowCodec
import wjoin.plan.logical.WindowSpec
import wjoin.plan.physical.WindowJoinPlanner.PlannedAccess

/**
 * A batch partition's run-time check of its access paths and probe orders
 * ([[AccessRecheck]]), before its engine holds a row: the first rows of the merged inputs are
 * read and kept, measured, and then offered first.
 *
 * {{{
 *   InputMerger ──first sliceRows rows──> slice (charged to the task's window memory)
 *        │                                  └─> SliceStatistics ──> AccessRecheck.decide ──> EnginePlan, RowCodec
 *        └── the rest ───────────────────────────────────────── feed = slice ++ rest
 * }}}
 *
 * @param recheck    the planner's problem and decision, and the slice's size
 * @param access     the planned access (the engine plan is rebuilt from it with the partition's decision)
 * @param windows    the window constraints
 * @param algorithm  the algorithm (never auto)
 * @param partitions how many partitions the inputs are spread over
 */
final class PartitionAccessCheck(recheck: AccessRecheck, access: PlannedAccess, windows: WindowSpec,
    algorithm: Algorithm, partitions: Int) extends Serializable with Logging {

  /**
   * Reads the slice from `merger`, decides, and returns what the engine is built with; the
   * slice's rows are charged to `memory` (an account per input, so a refusal names one) until
   * they are offered.
   */
  def apply(partition: Int, merger: InputMerger, codec: RowCodec, memory: WindowMemory): PartitionAccessCheck.Checked = {
    val accounts = Array.tabulate(codec.n)(memory.account(_))
    def bytes(r: EngineRow): Long = accounts(r.input).rowBytes(r.row) + accounts(r.input).keyBytes(r.key)
    val started = System.nanoTime()
    val rows = new scala.collection.mutable.ArrayBuffer[EngineRow](math.min(recheck.sliceRows, 1 << 16))
    while (rows.size < recheck.sliceRows && merger.hasNext) {
      val r = merger.next()
      accounts(r.input).rowIn(bytes(r))
      rows += r
    }
    val exhausted = !merger.hasNext
    val read = System.nanoTime()
    val outcome = if (exhausted && rows.size < PartitionAccessCheck.MinRows) None else {
      val stats = SliceStatistics.of(rows, codec.n, codec.plan.hashed, access.bindings, codec.rangeValues(always = true),
        exhausted)
      val measuredAt = System.nanoTime()
      val decided = recheck.decide(stats, partitions)
      val decidedAt = System.nanoTime()
      logInfo(f"W-join partition $partition, run-time access check on ${rows.size} rows " +
        f"(read in ${(read - started) / 1e6}%.1f ms, measured in ${(measuredAt - read) / 1e6}%.2f ms, " +
        f"decided in ${(decidedAt - measuredAt) / 1e6}%.2f ms): " +
        decided.describe(recheck.names, recheck.planned))
      Some(decided)
    }
    val plan = outcome.filter(_.changed).map(o => access.copy(paths = o.decision.paths, orders = o.decision.orders,
      tau = o.decision.tau).enginePlan(windows, algorithm, codec.plan.hashed))
    val feed = rows.iterator.map { r =>
      accounts(r.input).rowOut(bytes(r))
      r
    } ++ merger
    PartitionAccessCheck.Checked(plan.getOrElse(codec.plan), plan.fold(codec)(codec.withPlan), feed, outcome)
  }
}

object PartitionAccessCheck {
  /**
   * A partition whose whole input is fewer rows is not checked: its join is done in less time
   * than the check takes (many small time bands, or hash partitions of a small input).
   */
  val MinRows = 1024

  /**
   * What a partition's engine is built with.
   *
   * @param plan    the engine plan (the planned one when nothing changed)
   * @param codec   the row codec of that plan (its residual is placed along the plan's probe orders)
   * @param feed    the slice's rows, then the rest of the merged inputs
   * @param outcome the decision and what the slice showed; None for a partition too small to check
   */
  final case class Checked(plan: EnginePlan, codec: RowCodec, feed: Iterator[EngineRow],
      outcome: Option[AccessRecheck.Outcome])
}
