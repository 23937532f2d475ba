package wjoin.exec
package batch

import java.util.UUID

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.core.JoinHow
import wjoin.exec.codec.RowCodec
import wjoin.plan.logical.WindowJoin
import wjoin.plan.physical.{BroadcastFallback, BroadcastPlan, WindowJoinPlanner}
import wjoin.plan.physical.WindowJoinPlanner.{JoinChoice, PlannedJoin}

/**
 * Physical broadcast W-join ([[BroadcastPlan]]): every input but one broadcast, the largest
 * streamed in its own partitions. Thin: it asks Spark for the broadcasts (a
 * `BroadcastDistribution` of each small child, which Spark satisfies with a
 * `BroadcastExchange`, reused and adaptive like its own joins', its rows [[PackedRows]]) and
 * hands each streamed partition to a [[BroadcastWindowJoinEvaluator]].
 *
 * {{{
 *   BroadcastWindowJoin
 *     ├─ (streamed) A           no Exchange, no Sort: its partitions as they are
 *     ├─ BroadcastExchange  <- B
 *     └─ BroadcastExchange  <- C
 * }}}
 *
 * @param timeColumns each input's event-time column
 * @param keys        each input's hash-key expressions; empty when there is no shared key
 * @param residual    the conjuncts the engine tests (the keys guarantee the others)
 * @param output      the output columns: some of the children's, in input order
 * @param planned     input names, windows, algorithm (never auto), access paths
 * @param children    the planned inputs
 * @param broadcast   which input streams, and the sizes behind the choice
 */
case class BroadcastWindowJoinExec(
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    planned: PlannedJoin,
    children: Seq[SparkPlan],
    broadcast: BroadcastPlan) extends BaseWindowJoinExec {

  private def streamed: Int = broadcast.streamed

  override def how: JoinHow = JoinHow.Inner

  override protected def streaming: Boolean = false

  override def requiredChildDistribution: Seq[Distribution] = children.indices.map { i =>
    if (i == streamed) UnspecifiedDistribution else BroadcastDistribution(PackedRows)
  }

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = children.map(_ => Nil)

  override def outputPartitioning: Partitioning = UnknownPartitioning(children(streamed).outputPartitioning.numPartitions)

  override def metricPlan: WindowJoinMetrics.MetricPlan = super.metricPlan.copy(broadcast = true)

  override lazy val metrics: Map[String, SQLMetric] = WindowJoinMetrics.batchMetrics(sparkContext, metricPlan)

  override def partitioningText: String = broadcast.describe(inputNames) +
    (if (WJoinConf.broadcastFallback(conf)) "; shuffled if their index outgrows a task's memory" else "")

  override protected def doExecute(): RDD[InternalRow] = {
    val broadcasts = children.indices.filter(_ != streamed).map(i => i -> children(i).executeBroadcast[Array[InternalRow]]())
    val codec = broadcastCodec
    val typed = joinMetrics
    // The broadcast inputs' rows, counted once here (every executor indexes them again), and
    // what their index will take.
    var read = 0L
    var nulls = 0L
    var indexBytes = 0L
    for ((i, b) <- broadcasts) {
      val rows = PackedRows.unpack(b.value, children(i).output.length)
      val joinable = codec.joinable(i)
      var kept = 0L
      for (row <- rows if joinable(row)) {
        kept += 1
        indexBytes += TaskWindowMemory.RowSizes.sizeOf(row) + BroadcastFallback.SlotBytes
      }
      read += rows.length
      nulls += rows.length - kept
      typed.numInputRowsOf(i).set(kept)
    }
    val check = BroadcastFallback.check(sparkContext, indexBytes)
    if (BroadcastFallback.falls(this, check)) return shuffled(check.get, typed)
    typed.numInputRows.set(read)
    typed.numNullRows.set(nulls)
    post(typed.numInputRows +: typed.numNullRows +: broadcasts.map(b => typed.numInputRowsOf(b._1)))
    val evaluator = new BroadcastWindowJoinEvaluator(codec, typed, streamed,
      broadcasts.map { case (i, b) => (i, children(i).output.length, b) }, UUID.randomUUID().toString, windowNames)
    children(streamed).execute().mapPartitionsWithIndex(evaluator.eval, preservesPartitioning = false)
  }

  private def post(metrics: Seq[SQLMetric]): Unit =
    SQLMetrics.postDriverMetricUpdates(sparkContext, sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), metrics)

  /**
   * The shuffled plan's rows ([[BroadcastFallback]]): that plan's engine counters stay in its
   * own metrics (no node of the query shows them); this node counts the output rows.
   */
  private def shuffled(check: BroadcastFallback.Check, typed: WindowJoinMetrics): RDD[InternalRow] = {
    logWarning(s"W-join ${inputNames.mkString(", ")}: the broadcast inputs' ${check.describe} of an executor; " +
      s"running the shuffled plan instead (${WJoinConf.BroadcastFallbackKey})")
    typed.numBroadcastFallbacks.foreach { m => m.set(1L); post(Seq(m)) }
    val out = typed.numOutputRows
    BroadcastFallback.shuffled(this).execute().mapPartitions(_.map { row => out += 1; row }, preservesPartitioning = true)
  }

  /**
   * One streamed partition's evaluation run here, outside any Spark job, over `broadcast` rows by
   * input (the children's output): [[wjoin.extension.FirstQueryWarmUp]] warms the plan's code with it.
   */
  private[wjoin] def evaluateHere(streamedRows: Iterator[InternalRow],
      broadcastRows: Seq[(Int, Array[InternalRow])]): Iterator[InternalRow] =
    new BroadcastWindowJoinEvaluator(broadcastCodec, joinMetrics, streamed, Nil, "warm-up", windowNames)
      .evaluateHere(streamedRows, broadcastRows)

  /**
   * The row codec, storing every column of a broadcast input: its windows keep the broadcast's
   * rows themselves (views of its bytes, held anyway), where a projection would copy each.
   */
  private def broadcastCodec: RowCodec = rowCodec(children.indices.filter(_ != streamed).flatMap(children(_).output))

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): BroadcastWindowJoinExec =
    copy(children = newChildren)
}

object BroadcastWindowJoinExec {
  /** The broadcast node of `w` for a planner's `choice` with a broadcast plan ([[WindowJoinPlanner.batch]]). */
  def of(w: WindowJoin, choice: JoinChoice, children: Seq[SparkPlan]): BroadcastWindowJoinExec =
    new BroadcastWindowJoinExec(w.timeColumns, choice.keys, choice.residual, w.output, WindowJoinPlanner.planned(w, choice),
      children, choice.broadcast.getOrElse(throw new IllegalArgumentException("the choice has no broadcast plan")))
}
