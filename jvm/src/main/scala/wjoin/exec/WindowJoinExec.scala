package wjoin.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

import wjoin.core.{Algorithm, EnginePlan}
import wjoin.plan.{JoinConditionAnalysis, WindowJoin, WindowSpec}

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
    output: Seq[Attribute],
    children: Seq[SparkPlan]) extends SparkPlan {

  private def hashed: Boolean = algorithm != Algorithm.NLW && keys.nonEmpty

  @transient lazy val enginePlan: EnginePlan = windows.enginePlan(algorithm, hashed)

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
    "numRefineRejections" -> SQLMetrics.createMetric(sparkContext,
      "candidates of the GCA / LCA periods rejected by the true windows"),
    "numExcludedCombinations" -> SQLMetrics.createMetric(sparkContext,
      "bidirectional: combinations left to the other direction"),
    "joinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "W-join time incl. downstream")
  ) ++ inputNames.indices.map(i =>
    s"numInputRows$i" -> SQLMetrics.createMetric(sparkContext, s"input rows of ${inputNames(i)}"))

  override def simpleString(maxFields: Int): String =
    s"WindowJoin ${algorithm.name}${if (hashed) " (hash)" else ""}, " +
      WindowJoinExec.describe(inputNames, timeColumns, keys, residual, windows, enginePlan)

  override protected def doExecute(): RDD[InternalRow] = {
    val evaluator = new WindowJoinEvaluator(children.map(_.output), timeColumns, keys, residual, output,
      enginePlan, metrics)
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
  final case class JoinChoice(keys: Seq[Seq[Expression]], algorithm: Algorithm, residual: Seq[Expression])

  def choose(w: WindowJoin): JoinChoice = {
    val analysis = JoinConditionAnalysis(w.children.map(_.outputSet), w.condition)
    val algorithm = Algorithm.parse(w.algorithm).getOrElse(Algorithm.auto(analysis.hasKey))
    val hashed = algorithm != Algorithm.NLW && analysis.hasKey
    JoinChoice(analysis.keys, algorithm, if (hashed) analysis.otherConjuncts else analysis.allConjuncts)
  }

  def apply(w: WindowJoin, children: Seq[SparkPlan]): WindowJoinExec = {
    val choice = choose(w)
    new WindowJoinExec(w.inputNames, w.timeColumns, choice.keys, choice.residual, w.windows, choice.algorithm,
      w.output, children)
  }

  /** The part of EXPLAIN's node line that batch and streaming W-joins share. */
  def describe(inputNames: Seq[String], timeColumns: Seq[Expression], keys: Seq[Seq[Expression]],
      residual: Seq[Expression], windows: WindowSpec, enginePlan: EnginePlan): String = {
    val keyText = if (keys.isEmpty) "none" else keys.map(_.map(_.sql).mkString("(", ", ", ")")).mkString(" = ")
    s"inputs=[${inputNames.mkString(", ")}], time=[${timeColumns.map(_.sql).mkString(", ")}], keys=$keyText, " +
      s"windows=${windows.describe(inputNames)}" +
      (if (residual.isEmpty) "" else s", residual=${residual.map(_.sql).mkString(" AND ")}") +
      s", window strategy=${enginePlan.describeStrategy(inputNames, windows.render)}" +
      s", probe order=[${enginePlan.describe(inputNames)}]"
  }
}
