package wjoin.exec
package batch

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.core.{JoinHow, TimeBands}
import wjoin.exec.codec.{KeyOrder, TimeColumn}
import wjoin.plan.logical.WindowJoin
import wjoin.plan.physical.InputSize
import wjoin.plan.physical.WindowJoinPlanner
import wjoin.plan.physical.WindowJoinPlanner.{JoinChoice, PlannedJoin}

/**
 * Physical W-join of N inputs (Hammad et al. Sec. 3). Thin: it carries what the planner
 * decided ([[WindowJoinPlanner]]), states what it needs from its children and hands each
 * partition to a [[WindowJoinEvaluator]].
 *
 * {{{
 *   WindowJoinExec
 *     ├─ Sort [ts_A]  <- Exchange hashpartitioning(key_A)   (or SinglePartition without a key)
 *     ├─ Sort [ts_B]  <- Exchange hashpartitioning(key_B)
 *     └─ ...
 *
 *   WindowJoinExec, small inputs: one task, no shuffle
 *     ├─ Sort [ts_A]  <- Coalesce 1   (every partition of A read by that task)
 *     └─ ...
 * }}}
 *
 * Small inputs ([[InputSize]]) run in one task: the planner puts a narrow `Coalesce 1` over
 * each child ([[WindowJoinStrategy]]), which satisfies the one-partition requirement below
 * without an Exchange; Spark sorts each coalesced child by time in that task.
 *
 * With an equality key shared by all inputs, every child is clustered on its key into the
 * same partitioning, so all rows that can join meet in one partition. Each child is sorted by
 * its event time, and the evaluator merges the children into one arrival order (the papers'
 * streams). With key groups, a partition whose first rows show that its windows would hold
 * many rows sorts its inputs again, by key, and joins one key's rows after the other
 * ([[KeyGroupSort]], [[wjoin.core.FeedGroups.ByKey]]).
 *
 * Without such a key the join is partitioned by event time into bands ([[TimeBands]]): the
 * children are taken as they are, and `doExecute` samples their times (one job), sends every
 * row to the bands its windows reach and sorts each band by time ([[TimeBandShuffle]]); the
 * evaluator of band b emits only the combinations whose earliest member lies in band b. How many
 * bands is decided there, from the rows the sample counted (`spark.wjoin.timeBandRows` per band,
 * at least one per core, at most `timeBands`; [[TimeBands.countFor]]). With
 * `timeBands` = 1 (setting `spark.wjoin.timeBands`, `WJoinConf`) all rows go to a single
 * partition instead.
 *
 * @param timeColumns each input's event-time column
 * @param keys        each input's hash-key expressions; empty when there is no shared key
 * @param residual    the conjuncts the engine tests (the keys guarantee the others)
 * @param output      the output columns: some of the children's, in input order
 * @param planned     input names, windows, algorithm (never auto), access paths
 * @param children    the planned inputs
 * @param timeBands   the most time bands (= partitions) to use, >= 1; 1 means no band shuffle
 *                    (the planner gives 1 with a key or a ROWS window)
 * @param how         what is emitted; left, left_semi and left_anti without a key run in one
 *                    partition (an anchor row copied to several bands would be decided in each)
 * @param inputSize   the inputs' estimated size against `spark.wjoin.smallInputBytes` (None:
 *                    the setting is -1); small: one task without a shuffle, no bands
 * @param keyGroups   hash-partitioned: a partition whose first rows show that its windows would
 *                    hold over this many rows is joined key by key ([[WindowJoinPlanner.keyGroupsApply]],
 *                    [[KeyGroupSort]]); None: never
 */
case class WindowJoinExec(
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    planned: PlannedJoin,
    children: Seq[SparkPlan],
    timeBands: Int = 1,
    how: JoinHow = JoinHow.Inner,
    inputSize: Option[InputSize] = None,
    keyGroups: Option[Long] = None) extends BaseWindowJoinExec {
  assert(timeBands >= 1, s"the number of time bands must be at least 1, got $timeBands")
  assert(keyGroups.isEmpty || (hashed && hashPartitioned && !singleTask), "key groups need a hash-partitioned, hashed W-join")

  /** Small inputs: one task reads every input, no shuffle (children are coalesced to one partition). */
  def singleTask: Boolean = inputSize.exists(_.small)

  override protected def streaming: Boolean = false

  /**
   * Partitioned by event-time bands: no shared key, more than one band allowed, and no ROWS
   * window (a band does not see the rows before it, so it could not count them).
   */
  override def banded: Boolean = keys.isEmpty && timeBands > 1 && !windows.counted && !how.anchored && !singleTask

  override def requiredChildDistribution: Seq[Distribution] =
    if (singleTask) children.map(_ => AllTuples)
    else if (hashPartitioned) keys.map(k => ClusteredDistribution(k))
    else if (banded) children.map(_ => UnspecifiedDistribution)
    else children.map(_ => AllTuples)

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    if (banded) children.map(_ => Nil) // sorted after the band shuffle
    else arrivalOrdering

  override def outputPartitioning: Partitioning = if (banded) UnknownPartitioning(timeBands) else {
    val partitionings = children.map(_.outputPartitioning)
    if (partitionings.map(_.numPartitions).distinct.size == 1) PartitioningCollection(partitionings)
    else UnknownPartitioning(partitionings.head.numPartitions)
  }

  override def metricPlan: WindowJoinMetrics.MetricPlan = super.metricPlan.copy(keyGroups = keyGroups.isDefined)

  override lazy val metrics: Map[String, SQLMetric] = WindowJoinMetrics.batchMetrics(sparkContext, metricPlan)

  /**
   * EXPLAIN's partitioning: one task for small inputs, hash on the key, time bands (at most, and
   * their least width), or one partition; with the inputs' size against the setting, and where
   * partitions may be joined key by key.
   */
  override def partitioningText: String = inputSize match {
    case Some(size) if size.small => s"single task (${size.describe})"
    case size => shuffledText + size.fold("")(s => s" (${s.describe})") + keyGroups.fold("") {
      case 0 => s", key groups in every partition (${WJoinConf.KeyGroupRowsKey} 0)"
      case rows => s", key groups where a partition's windows would hold over $rows rows (${WJoinConf.KeyGroupRowsKey})"
    }
  }

  private def shuffledText: String =
    if (hashPartitioned) "hash(keys)"
    else if (banded) s"time bands(<= $timeBands, width >= ${windows.render(TimeBands.minWidth(windows.matrix))})"
    else if (keys.isEmpty && timeBands > 1 && how.anchored) s"single partition (how=$how decides each anchor row once)"
    else "single partition"

  override protected def doExecute(): RDD[InternalRow] = {
    val inputs = children.map(_.execute())
    val typed = joinMetrics
    if (!banded) {
      val unbanded = unbandedEvaluator(typed)
      return new ZippedPartitionsNRDD[InternalRow, InternalRow](inputs, unbanded.eval)
    }
    val times = children.indices.map(i => TimeColumn.of(children(i).output, timeColumns(i).asInstanceOf[Attribute]))
    val bands = TimeBandShuffle.bands(inputs, times, timeBands, WJoinConf.timeBandRows(conf), windows.matrix)
    typed.numTimeBands.foreach { m =>
      m.set(bands.count.toLong)
      SQLMetrics.postDriverMetricUpdates(sparkContext,
        sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), Seq(m))
    }
    val sorted = children.indices.map(i => TimeBandShuffle.partition(inputs(i), i, children(i).output,
      timeColumns(i).asInstanceOf[Attribute], bands, bands.count, typed))
    val evaluator = new WindowJoinEvaluator(rowCodec(), typed, bands = Some(bands), shed = planned.shed,
      names = Some(windowNames), check = accessCheck(bands.count))
    new ZippedPartitionsNRDD[InternalRow, InternalRow](sorted, evaluator.eval)
  }

  /**
   * One partition's evaluator run here, outside any Spark job, on `inputs` (rows of the
   * children's output, each sorted by time): [[wjoin.extension.FirstQueryWarmUp]] warms the code path of
   * a task with it.
   */
  private[wjoin] def evaluateHere(inputs: Seq[Iterator[InternalRow]]): Iterator[InternalRow] =
    unbandedEvaluator(joinMetrics).eval(0, inputs)

  /** The evaluator of the unbanded plans (hash, one partition, one task). */
  private def unbandedEvaluator(metrics: WindowJoinMetrics): WindowJoinEvaluator =
    new WindowJoinEvaluator(rowCodec(), metrics, how = how, shed = planned.shed, names = Some(windowNames),
      check = accessCheck(outputPartitioning.numPartitions),
      keyGroups = keyGroups.map(new KeyGroupSort(_, KeyGroupSort.PrefixRows, enginePlan.horizon.toSeq, KeyOrder.of(keys))))

  /** Each partition's run-time check of the access paths, when the planner asked for one. */
  private def accessCheck(partitions: Int): Option[PartitionAccessCheck] =
    access.recheck.map(new PartitionAccessCheck(_, access, windows, algorithm, partitions))

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): WindowJoinExec =
    copy(children = newChildren)
}

object WindowJoinExec {
  /**
   * The batch node of `w` for a planner's `choice` ([[WindowJoinPlanner.batch]]); with small
   * inputs, `children` are the coalesced ones ([[WindowJoinStrategy]]).
   */
  def of(w: WindowJoin, choice: JoinChoice, children: Seq[SparkPlan]): WindowJoinExec =
    new WindowJoinExec(w.timeColumns, choice.keys, choice.residual, w.output, WindowJoinPlanner.planned(w, choice),
      children, choice.timeBands, w.how, choice.inputSize, choice.keyGroups)
}
