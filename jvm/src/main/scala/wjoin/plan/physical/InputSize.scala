package wjoin.plan
package physical

import scala.util.Try

import org.apache.spark.sql.catalyst.plans.logical.{Filter, LocalRelation, LogicalPlan, Project, SubqueryAlias}
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage
import org.apache.spark.sql.execution.columnar.InMemoryRelation
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.plan.logical.WindowJoin

/**
 * How big a batch W-join's inputs are, from Spark's logical-plan statistics (no job), and so
 * whether it runs as one task without a shuffle: the small-input plan.
 *
 * {{{
 *   bytes = sum over inputs i of stats(child_i).sizeInBytes      (Spark's estimate, as for broadcasts)
 *   small = bytes <= spark.wjoin.smallInputBytes                  (the setting is -1: never)
 *   one task iff small and (every child in memory, or no broadcast plan applies)
 *
 *   one task:  child_i ── Coalesce 1 (narrow: all partitions read by one task) ── Sort [ts_i] ──┐
 *                                                                         WindowJoinExec, 1 task
 *   otherwise: child_i ── Exchange hash / time bands / single ── Sort [ts_i] ──────────────────┘
 * }}}
 *
 * A shuffle has a fixed cost (map tasks writing shuffle files, a second stage, the reducers'
 * fetches) that small inputs cannot amortise, while one task merges a few MiB faster than the
 * shuffle moves them: the reason Spark broadcasts a join side under
 * `spark.sql.autoBroadcastJoinThreshold`, whose default the setting shares. One task is one
 * partition for every form of W-join (keyed, keyless, ROWS windows, every `how`), so the
 * result is the shuffled plans' result; resource limits budget that one partition.
 *
 * An input Spark cannot size (an RDD-backed one, e.g. PySpark's `createDataFrame` of a list)
 * has Spark's default size `spark.sql.defaultSizeInBytes` (effectively infinite): it is never
 * small, as Spark never broadcasts it.
 *
 * One task reads its inputs' rows for free only where they are already in memory: a cached
 * DataFrame, local rows, a finished stage of adaptive execution, under projections and filters
 * at most. Any other input is computed (generated, read from files, aggregated, a UDF): the
 * `Coalesce 1` would run its whole plan in that one task, on one core. There the planner takes
 * the broadcast plan when it applies ([[BroadcastPlan]]), which computes every input in its
 * own partitions: 3 x 200k generated rows with 100k keys took 1.15 s in one task and 0.52 s
 * broadcast on 2 cores, where on cached inputs the two plans were within the noise of each
 * other (3 x 100k rows: 0.51 s one task, 0.57 s broadcast).
 *
 * @param bytes     the inputs' estimated size, summed
 * @param threshold the setting's value (>= 0)
 * @param unknown   some input's size is unknown to Spark (its estimate is the default size)
 * @param computed  the inputs (by index) whose rows are not already in memory
 */
final case class InputSize(bytes: BigInt, threshold: Long, unknown: Boolean = false, computed: Seq[Int] = Nil) {
  /** The inputs fit: the W-join runs in one task without a shuffle. */
  def small: Boolean = !unknown && bytes <= threshold

  /** EXPLAIN's reason: "inputs 1.2 MiB <= spark.wjoin.smallInputBytes 10.0 MiB". */
  def describe: String =
    (if (unknown) "input size unknown to Spark" else s"inputs ${WJoinConf.bytesText(bytes)}") +
      s" ${if (small) "<=" else ">"} ${WJoinConf.SmallInputBytesKey} ${WJoinConf.bytesText(threshold)}"
}

object InputSize {
  /**
   * The size of `w`'s inputs against the setting in `conf`; None when the setting is -1 (the
   * plan is never considered). An input whose statistics cannot be computed counts as
   * Spark's default size (`spark.sql.defaultSizeInBytes`, effectively infinite). A bad
   * setting fails here, naming the key.
   */
  def of(w: WindowJoin, conf: SQLConf): Option[InputSize] = WJoinConf.smallInputBytes(conf).map { threshold =>
    val sizes = w.children.map(c => Try(c.stats.sizeInBytes).getOrElse(BigInt(conf.defaultSizeInBytes)))
    InputSize(sizes.sum, threshold, unknown = sizes.exists(_ >= conf.defaultSizeInBytes),
      computed = w.children.indices.filterNot(i => inMemory(w.children(i))))
  }

  /** `plan`'s rows are already in memory: cached, local, or a finished stage, under projections and filters. */
  def inMemory(plan: LogicalPlan): Boolean = plan match {
    case _: InMemoryRelation | _: LocalRelation | _: LogicalQueryStage => true
    case Project(_, child) => inMemory(child)
    case Filter(_, child) => inMemory(child)
    case SubqueryAlias(_, child) => inMemory(child)
    case _ => false
  }
}
