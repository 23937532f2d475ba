package wjoin.plan
package physical

import java.util.Collections

import scala.collection.mutable

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{CoalesceExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.sql.types.LongType
import org.apache.spark.sql.wjoin.SparkBridge

import wjoin.errors.WJoinErrors
import wjoin.exec.batch.{BroadcastWindowJoinExec, WindowJoinExec}
import wjoin.exec.streaming.BandCellsExec
import wjoin.exec.streaming.StreamingWindowJoinExec
import wjoin.plan.logical.WindowJoin

/**
 * Plans [[WindowJoin]] (and nothing else): as [[WindowJoinExec]] over batch inputs (over a
 * `Coalesce 1` of each when they are small: one task, no shuffle), as
 * [[StreamingWindowJoinExec]] over streams, as [[WindowJoinPlanner]] decides. Spark gives state info and watermarks only to
 * its own stateful operators, so the streaming node gets them here, from the micro-batch
 * being planned ([[SparkBridge.currentMicroBatch]]). A keyless streaming W-join partitioned
 * by band cells ([[StreamPartitioning.ByCells]]) gets a [[BandCellsExec]] over each input and
 * is planned as keyed on the cell columns.
 */
object WindowJoinStrategy extends SparkStrategy with Logging {
  /**
   * Our operator ids start here, far above Spark's own (numbered 0, 1, ... per query), so they
   * never collide. The k-th W-join of the optimized plan (pre-order) gets base + k on every
   * batch and every restart of the same query.
   */
  val OperatorIdBase: Long = 1000000L

  /**
   * Per (query run, operator), the access paths and probe orders of its last planned
   * micro-batch (the most recent runs only: a run's entry is useless once it stopped).
   */
  private val lastAccess = Collections.synchronizedMap(
    new java.util.LinkedHashMap[(java.util.UUID, Long), WindowJoinPlanner.PlannedAccess](16, 0.75f, true) {
      override def removeEldestEntry(e: java.util.Map.Entry[(java.util.UUID, Long), WindowJoinPlanner.PlannedAccess]) =
        size > 256
    })

  /** Per planning run, the W-join indices already given out (equal W-joins get distinct ids). */
  private val idsGiven = Collections.synchronizedMap(new java.util.WeakHashMap[AnyRef, mutable.Set[Int]]())

  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case w: WindowJoin if w.isStreaming => planStreaming(w) :: Nil
    case w: WindowJoin => planBatch(w) :: Nil
    case _ => Nil
  }

  /**
   * A batch W-join as [[WindowJoinPlanner.batch]] decides. Small inputs are read by one task:
   * each child under a narrow `Coalesce 1` (no shuffle: the task reads all of the child's
   * partitions), which satisfies the node's one-partition requirement without an Exchange.
   * A broadcast plan is its own node, whose broadcast children Spark puts under a
   * `BroadcastExchange`.
   */
  private def planBatch(w: WindowJoin): SparkPlan = {
    val choice = WindowJoinPlanner.batch(w)
    val children = w.children.map(planLater)
    if (choice.broadcast.isDefined) BroadcastWindowJoinExec.of(w, choice, children)
    else WindowJoinExec.of(w, choice, if (choice.singleTask) children.map(CoalesceExec(1, _)) else children)
  }

  private def planStreaming(w: WindowJoin): SparkPlan = {
    val batch = SparkBridge.currentMicroBatch()
    val (children, cellKeys) = partitioned(w, batch.map(_.lateWatermarkMs).getOrElse(0L))
    batch match {
      case None => // explain() of a streaming DataFrame: nothing runs, so no state
        logInfo(s"Planning ${w.nodeName} without state: no micro-batch is being planned on this thread")
        StreamingWindowJoinExec(w, WindowJoinPlanner.choose(w, cellKeys = cellKeys), children, None, 0L, 0L)
      case Some(batch) =>
        WJoinErrors.check(batch.outputMode == OutputMode.Append(), "WJOIN_UNSUPPORTED_OUTPUT_MODE",
          Seq("mode" -> batch.outputMode))
        val joins = batch.optimizedPlan.collect { case j: WindowJoin => j }
        val used = idsGiven.computeIfAbsent(batch.planningKey, _ => mutable.Set.empty[Int])
        val index = used.synchronized {
          val k = joins.indices.find(k => joins(k) == w && !used(k)).getOrElse(joins.indices.find(!used(_)).getOrElse(0))
          used += k
          k
        }
        // Planned per micro-batch from what the recent ones showed, but kept stable: a new
        // plan makes every partition rebuild its kept engine from the state store.
        val operator = OperatorIdBase + index
        val runKey = (batch.stateInfo(operator, batch.numStateStores).queryRunId, operator)
        val choice = WindowJoinPlanner.chooseStreaming(w, StreamingStatistics.samples(batch.recentProgress, index, w.inputNames.size),
          Option(lastAccess.get(runKey)), cellKeys)
        lastAccess.put(runKey, choice.access)
        val info = batch.stateInfo(operator, WindowJoinPlanner.statePartitions(w, choice, batch.numStateStores))
        StreamingWindowJoinExec(w, choice, children, Some(info), batch.lateWatermarkMs, batch.evictionWatermarkMs)
    }
  }

  /**
   * The inputs of streaming W-join `w` as its node takes them, and the cell keys it is
   * planned with: by band cells ([[StreamPartitioning.ByCells]]), each input under a
   * [[BandCellsExec]] that appends its cell column (the key); otherwise as they are, no cells.
   */
  private def partitioned(w: WindowJoin, lateWatermarkMs: Long): (Seq[SparkPlan], Seq[Attribute]) = {
    val children = w.children.map(planLater)
    WindowJoinPlanner.streaming(w) match {
      case StreamPartitioning.ByCells(cells, values) =>
        val keys = w.inputNames.map(name => AttributeReference(s"wjoin_cell_$name", LongType, nullable = false)())
        val lateMicros = if (lateWatermarkMs <= 0) Long.MinValue else lateWatermarkMs * 1000
        (children.indices.map(i => BandCellsExec(i, values(i), w.timeColumns(i).asInstanceOf[Attribute], keys(i), cells,
          lateMicros, children(i))), keys)
      case _ => (children, Nil)
    }
  }
}
