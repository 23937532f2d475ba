package wjoin.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import wjoin.core.{Algorithm, Durations, EnginePlan, RangeBinding}
import wjoin.core.cost.{AccessDecision, AccessPath, AccessPlanner, AccessRequest}
import wjoin.plan.{JoinConditionAnalysis, RangePredicates, WindowJoin, WindowSpec}

/**
 * Physical W-join of N inputs. Thin: it states what it needs from its children and hands
 * each partition to a [[WindowJoinEvaluator]].
 *
 * {{{
 *   WindowJoinExec
 *     ├─ Sort [ts_A]  <- Exchange hashpartitioning(key_A)   (or SinglePartition without a key)
 *     ├─ Sort [ts_B]  <- Exchange hashpartitioning(key_B)
 *     └─ ...
 * }}}
 *
 * With an equality key shared by all inputs, every child is clustered on its key into the
 * same partitioning, so all rows that can join meet in one partition; without one, all rows
 * go to a single partition. Each child is sorted by its event time, and the evaluator merges
 * the children into one arrival order (the papers' streams).
 *
 * @param inputNames  input names, for EXPLAIN and metrics
 * @param timeColumns each input's event-time column
 * @param keys        each input's hash-key expressions; empty when there is no shared key
 * @param residual    the conjuncts the engine tests (the keys guarantee the others)
 * @param windows     the window constraints and their closed matrix
 * @param algorithm   the chosen algorithm (never "auto" here)
 * @param access      access path per input, range predicates, probe orders, expiration interval
 * @param output      the output columns: some of the children's, in input order
 * @param children    the planned inputs
 */
case class WindowJoinExec(
    inputNames: Seq[String],
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    windows: WindowSpec,
    algorithm: Algorithm,
    access: WindowJoinExec.PlannedAccess,
    output: Seq[Attribute],
    children: Seq[SparkPlan]) extends SparkPlan {

  private def hashed: Boolean = algorithm != Algorithm.NLW && keys.nonEmpty

  @transient lazy val enginePlan: EnginePlan = access.enginePlan(windows, algorithm, hashed)

  override def requiredChildDistribution: Seq[Distribution] =
    if (keys.nonEmpty) keys.map(k => ClusteredDistribution(k)) else children.map(_ => AllTuples)

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = timeColumns.map(t => Seq(SortOrder(t, Ascending)))

  override def outputPartitioning: Partitioning = {
    val partitionings = children.map(_.outputPartitioning)
    if (partitionings.map(_.numPartitions).distinct.size == 1) PartitioningCollection(partitionings)
    else UnknownPartitioning(partitionings.head.numPartitions)
  }

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numInputRows" -> SQLMetrics.createMetric(sparkContext, "number of input rows"),
    "numNullRows" -> SQLMetrics.createMetric(sparkContext, "input rows with NULL time or key (never match)"),
    "numEvictedRows" -> SQLMetrics.createMetric(sparkContext, "rows evicted from windows"),
    "peakBufferedRows" -> SQLMetrics.createMetric(sparkContext, "peak buffered rows (sum over tasks)"),
    "numComparisons" -> SQLMetrics.createMetric(sparkContext, "time-stamp comparisons"),
    "numPredicateEvals" -> SQLMetrics.createMetric(sparkContext, "predicate evaluations"),
    "joinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "W-join time incl. downstream")
  ) ++ inputNames.indices.map(i =>
    s"numInputRows$i" -> SQLMetrics.createMetric(sparkContext, s"input rows of ${inputNames(i)}"))

  override def simpleString(maxFields: Int): String =
    s"WindowJoin ${algorithm.name}${if (enginePlan.allHashed) " (hash)" else ""}, " +
      WindowJoinExec.describe(inputNames, timeColumns, keys, residual, windows, enginePlan, access)

  override protected def doExecute(): RDD[InternalRow] = {
    val evaluator = new WindowJoinEvaluator(children.map(_.output), timeColumns, keys, residual, output,
      enginePlan, metrics, rangeAttributes = access.rangeAttributes)
    new ZippedPartitionsNRDD[InternalRow, InternalRow](children.map(_.execute()), evaluator.eval)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): WindowJoinExec =
    copy(children = newChildren)
}

object WindowJoinExec {
  /**
   * What planning decides for a logical W-join, batch or streaming alike.
   *
   * @param keys      each input's hash-key expressions; empty when there is no shared key
   * @param algorithm the algorithm ("auto": [[Algorithm.auto]])
   * @param residual  the conjuncts the engine tests (hash buckets guarantee the key equalities)
   */
  final case class JoinChoice(keys: Seq[Seq[Expression]], algorithm: Algorithm, residual: Seq[Expression],
      access: PlannedAccess)

  /**
   * The access-path part of the planning choice (issue 5), see [[AccessPlanner]].
   *
   * @param paths           access path per input
   * @param bindings        band / inequality predicates usable to search an input's tree
   * @param rangeAttributes per input, the range attributes the bindings number
   * @param orders          probe order per origin (made valid through the join graph)
   * @param tau             lazy expiration interval in time units (0: eager)
   * @param decision        the costs behind the choice
   * @param integralTime    time columns are plain numbers (for rendering tau)
   */
  final case class PlannedAccess(paths: Seq[AccessPath], bindings: Seq[RangeBinding],
      rangeAttributes: Seq[Seq[Expression]], orders: Seq[Seq[Int]], tau: Long, decision: AccessDecision,
      integralTime: Boolean) {
    def enginePlan(windows: WindowSpec, algorithm: Algorithm, hashed: Boolean): EnginePlan =
      new EnginePlan(windows.matrix, algorithm, hashed, paths, bindings, orders,
        expirationInterval = if (algorithm == Algorithm.MW) 0L else tau)

    /** "A=hash, B=ttree(B.x)", the expiration interval, and the costs. */
    def describe(names: Seq[String], forward: Boolean = false): String = {
      val ps = paths.indices.map { j =>
        val attr = bindings.find(_.target == j).map(b => rangeAttributes(j)(b.targetAttr).sql)
        s"${names(j)}=${paths(j).name}" + (if (paths(j).answersRanges && paths(j) != AccessPath.Scan) attr.fold("")(a => s"($a)") else "")
      }
      s"access paths=[${ps.mkString(", ")}], expiration=" +
        (if (forward) "after sweep" else if (tau == 0) "eager" else s"every ${Durations.render(tau, integralTime)}") +
        s", ${decision.describe(names)}"
    }
  }

  def choose(w: WindowJoin): JoinChoice = {
    val names = w.inputNames
    val inputs = w.children.map(_.outputSet)
    val analysis = JoinConditionAnalysis(inputs, w.condition)
    val algorithm = Algorithm.parse(w.algorithm).getOrElse(Algorithm.auto(analysis.hasKey))
    val keyed = algorithm != Algorithm.NLW && analysis.hasKey
    val ranges = RangePredicates(inputs, analysis.otherConjuncts)
    val request = AccessRequest.parse(w.access.paths, names)
    val horizon = names.indices.map(w.windows.matrix.horizon)
    val tau = w.access.expiration.trim.toLowerCase(java.util.Locale.ROOT) match {
      case "auto" => None
      case "eager" | "0" | "" => Some(0L)
      case text => Some(Durations.parse(text, w.windows.integralTime, "expiration interval"))
    }
    val stats = names.indices.map { i =>
      InputStatistics.of(w.children(i), w.timeColumns(i), if (keyed) analysis.keys(i) else Nil,
        ranges.attributes(i), horizon(i), w.isStreaming)
    }
    val decision = AccessPlanner.plan(names, horizon, keyed, ranges.bindings, stats, request,
      scanOnly = algorithm == Algorithm.NLW, tau)
    val allHashed = keyed && decision.paths.forall(_ == AccessPath.Hash)
    JoinChoice(analysis.keys, algorithm, if (allHashed) analysis.otherConjuncts else analysis.allConjuncts,
      PlannedAccess(decision.paths, ranges.bindings, ranges.attributes, decision.orders, decision.tau, decision,
        w.windows.integralTime))
  }

  def apply(w: WindowJoin, children: Seq[SparkPlan]): WindowJoinExec = {
    val choice = choose(w)
    new WindowJoinExec(w.inputNames, w.timeColumns, choice.keys, choice.residual, w.windows, choice.algorithm,
      choice.access, w.output, children)
  }

  /** The part of EXPLAIN's node line that batch and streaming W-joins share. */
  def describe(inputNames: Seq[String], timeColumns: Seq[Expression], keys: Seq[Seq[Expression]],
      residual: Seq[Expression], windows: WindowSpec, enginePlan: EnginePlan, access: PlannedAccess): String = {
    val keyText = if (keys.isEmpty) "none" else keys.map(_.map(_.sql).mkString("(", ", ", ")")).mkString(" = ")
    s"inputs=[${inputNames.mkString(", ")}], time=[${timeColumns.map(_.sql).mkString(", ")}], keys=$keyText, " +
      s"windows=${windows.describe(inputNames)}" +
      (if (residual.isEmpty) "" else s", residual=${residual.map(_.sql).mkString(" AND ")}") +
      s", probe order=[${enginePlan.describe(inputNames)}], " + access.describe(inputNames, enginePlan.forward)
  }
}
