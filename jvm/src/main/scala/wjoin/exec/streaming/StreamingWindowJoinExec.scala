package wjoin.exec
package streaming

import java.util.concurrent.TimeUnit.NANOSECONDS

import org.apache.hadoop.conf.Configuration
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, BindReferences, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.wjoin.StreamingClasses.{StatefulOperatorCustomMetric, StatefulOperatorStateInfo}
import org.apache.spark.sql.wjoin.{StateStoreOperator, WJoinConf}

import wjoin.core.{JoinHow, WindowMatrix}
import wjoin.exec.codec.RowCodec
import wjoin.exec.state.{StateFormat, StateQuery, WindowJoinStateMetadata}
import wjoin.plan.logical.WindowJoin
import wjoin.plan.physical.StreamPartitioning
import wjoin.plan.physical.WindowJoinPlanner
import wjoin.plan.physical.WindowJoinPlanner.{JoinChoice, PlannedJoin}

/**
 * Streaming W-join of N streams: one stateful operator whose state lives in Spark's state
 * store, versioned and checkpointed with the query.
 *
 * {{{
 *   StreamingWindowJoinExec  ── state store (opId, partition): buffered rows of all inputs
 *     ├─ Sort [ts_A] <- Exchange hashpartitioning(key_A, P)    P = the checkpoint's partition
 *     ├─ Sort [ts_B] <- Exchange hashpartitioning(key_B, P)        count (SinglePartition
 *     └─ ...                                                        without a key or cells)
 *   without a key, by band cells: key_i = the cell column of a BandCellsExec under each
 *   Exchange (StreamPartitioning.ByCells), the W-join being planned as keyed on it
 * }}}
 *
 * Per micro-batch, with WL = the previous batch's watermark and W = this batch's (Spark's
 * two watermarks for late rows and for eviction, both global):
 *  - an input row with ts <= WL is late: dropped and counted in numRowsDroppedByWatermark;
 *  - eager mode (NLW-join, HW-join) emits every combination as soon as its last member has
 *    arrived; ordered mode (MW-join) emits a combination once W has passed its oldest member
 *    plus that member's horizon, and sweeps in event-time order (Mode 1 / Mode 2);
 *  - a row of input j leaves the state once ts + horizon(j) <= W, horizon(j) = max over i of
 *    upper(i, j): every future row has ts > W and so is out of its reach (ordered mode keeps
 *    rows until they are swept, which happens by the same bound).
 * Every combination of non-late rows is emitted exactly once over the life of the query; a
 * restarted batch reloads the state version it started from and emits the same rows. Each
 * partition's engine stays in executor memory from one batch to the next
 * ([[StreamingEngineCache]], bounded by `spark.wjoin.streaming.keptEngineRows`); the store is
 * the durable copy it is rebuilt from whenever it was not kept for exactly the version loaded.
 * Under resource limits (eager mode only) the state keeps only the rows the shedding engine
 * keeps, and each batch sheds with its own budgets ([[wjoin.core.shedding.ShedBudgets]]).
 *
 * Output watermark: output rows carry the event time of the first input (the only output
 * column that keeps the watermark metadata). Eager mode emits a combination in the batch of
 * a member newer than WL, so ts_1 > WL - horizon(1); ordered mode emits it when its oldest
 * member is at most the largest horizon H older than WL, so ts_1 > WL - H.
 *
 * @param timeColumns         each input's event-time column (a timestamp with a watermark)
 * @param keys                each input's hash-key expressions; empty when there is no shared key
 * @param residual            the conjuncts the engine tests
 * @param output              the output columns
 * @param planned             input names, windows, algorithm (never auto), access paths, and
 *                            under limits this batch's budgets per partition
 * @param stateInfo           where the state lives; None only when the plan is merely explained
 * @param lateWatermarkMs     WL in milliseconds (0: none yet)
 * @param evictionWatermarkMs W in milliseconds (0: none yet)
 * @param children            the planned inputs
 * @param how                 what is emitted: left, left_semi, left_anti decide each first-input
 *                            row once the watermark passes its horizon ([[StreamingWindowJoinEvaluator]])
 * @param partitioning        how rows are spread over the partitions (for EXPLAIN; the keys
 *                            carry it: with cells they are the cell columns)
 * @param conditionAbove      the condition's conjuncts Spark tests in a Filter above this node
 *                            (Python UDFs), as text: recorded with the state
 */
case class StreamingWindowJoinExec(
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    planned: PlannedJoin,
    stateInfo: Option[StatefulOperatorStateInfo],
    lateWatermarkMs: Long,
    evictionWatermarkMs: Long,
    children: Seq[SparkPlan],
    how: JoinHow = JoinHow.Inner,
    partitioning: StreamPartitioning = StreamPartitioning.ByKey,
    conditionAbove: Seq[String] = Nil) extends BaseWindowJoinExec with StateStoreOperator {

  override protected def streaming: Boolean = true

  /** Schema of the state store: chunks of rows, see [[wjoin.exec.state.WindowJoinStateStore]]. */
  override protected def stateKeySchema: StructType = StateFormat.keySchema
  override protected def stateValueSchema: StructType = StateFormat.valueSchema

  override def producedAttributes: AttributeSet = AttributeSet(output)

  override def requiredChildDistribution: Seq[Distribution] =
    if (hashPartitioned) {
      val partitions = stateInfo.map(_.numPartitions).getOrElse(conf.numShufflePartitions)
      keys.map(k => StatefulOpClusteredDistribution(k, partitions))
    } else children.map(_ => AllTuples)

  override def requiredChildOrdering: Seq[Seq[SortOrder]] = arrivalOrdering

  // Cells are not output columns: the output is then partitioned by nothing it has.
  override def outputPartitioning: Partitioning = children.head.outputPartitioning match {
    case p: HashPartitioning if hashPartitioned && partitioning == StreamPartitioning.ByKey =>
      PartitioningCollection(children.map(_.outputPartitioning))
    case p => UnknownPartitioning(p.numPartitions)
  }

  override def shortName: String = "windowJoin"

  override protected def customStatefulOperatorMetrics: Seq[StatefulOperatorCustomMetric] =
    WindowJoinMetrics.streamingCustomMetrics(metricPlan)

  override def partitioningText: String = partitioning.describe(inputNames)

  /**
   * Our state format is checked on the driver before any task of a query run (a format this
   * code cannot read is refused; the metadata is written when missing,
   * [[WindowJoinStateMetadata.verify]]); Spark then checks the store's schema.
   */
  override protected def checkStateOrigin(hadoopConf: Configuration): Unit =
    WindowJoinStateMetadata.verify(getStateInfo.checkpointLocation, getStateInfo.operatorId, hadoopConf,
      Some(stateQuery))

  /** What the state depends on: recorded with it, compared on restart ([[StateQuery]]). */
  def stateQuery: StateQuery =
    StateQuery.of(inputNames, children.map(_.output), timeColumns, keys, residual, conditionAbove, windows,
      enginePlan.forward, how, planned.shed.map(_.limits.describe(inputNames)),
      if (hashPartitioned) partitioning.describe(inputNames) else "one partition")

  /** Microseconds of the watermark, or Long.MinValue while there is none. */
  private def micros(ms: Long): Long = if (ms <= 0) Long.MinValue else ms * 1000

  /** Output rows never carry a first-input time older than this (see the class comment). */
  override def produceOutputWatermark(inputWatermarkMs: Long): Option[Long] = {
    // A ROWS-windowed input without a time bound has an infinite horizon: its rows may join
    // arbitrarily later ones, so no output watermark can be promised.
    val reach = if (enginePlan.forward) enginePlan.horizon.max else enginePlan.horizon(0)
    if (reach == WindowMatrix.Inf) return Some(0L)
    val reachMs = (math.max(0L, reach) + 999) / 1000
    Some(math.max(0L, inputWatermarkMs - reachMs))
  }

  /** A no-data batch is worth running whenever the watermark moved: state can be evicted or swept. */
  override def shouldRunAnotherBatch(newInputWatermark: Long): Boolean = newInputWatermark > evictionWatermarkMs

  /**
   * What an engine kept between micro-batches was built from: a kept engine serves a batch
   * only if this is the same (the planner may choose other access paths or probe orders from
   * one batch to the next, and stored columns follow the residual). Columns are compared by
   * name, type and place, not by expression id: a file source's columns get new ids in every
   * micro-batch, and a kept codec binds by place.
   */
  private def planFingerprint(codec: RowCodec): String = {
    val stored = codec.storedAttributes.flatten
    // Bound to places: a micro-batch without new data replaces a source by an empty relation
    // whose columns carry no qualifier, so `A.k` would read `k`.
    def bound(e: Expression, to: Seq[Attribute]) = BindReferences.bindReference(e, to, allowFailures = true).sql
    Seq[Any](how, algorithm, planned.shed.map(_.limits), enginePlan.describe(inputNames), enginePlan.describePaths(inputNames),
      enginePlan.describeStrategy(inputNames, _.toString), enginePlan.expirationInterval, enginePlan.nodeSize,
      enginePlan.bindings, enginePlan.horizon.toSeq, residual.map(bound(_, stored)),
      codec.inputAttributes.map(_.map(a => s"${a.name}:${a.dataType}")), codec.time,
      keys.zip(codec.inputAttributes).map { case (ks, in) => ks.map(bound(_, in)) },
      codec.storedAttributes.map(_.map(a => s"${a.name}:${a.dataType}")),
      output.map(a => stored.indexWhere(_.exprId == a.exprId))).mkString("|")
  }

  override protected def doExecute(): RDD[InternalRow] = {
    // Time and key columns are stored too: an engine can be rebuilt from the state.
    val codec = rowCodec(storeAlso = timeColumns.map(_.asInstanceOf[Attribute]) ++ keys.flatten.flatMap(_.references))
    val evaluator = new StreamingWindowJoinEvaluator(codec, joinMetrics, micros(lateWatermarkMs),
      micros(evictionWatermarkMs), how, planFingerprint(codec), WJoinConf.keptEngineRows(conf), planned.shed,
      WJoinConf.keptEngineMemoryFraction(conf), Some(windowNames))
    val outputs = children.map(_.output)
    val filters = ArrivalFilters.of(residual, outputs, how, enginePlan.rowLimit.toSeq)
    val zipped = new ZippedPartitionsNRDD[InternalRow, Seq[Iterator[InternalRow]]](
      children.map(_.execute()),
      (index, inputs) => Iterator.single(if (filters.isEmpty) inputs else filters(inputs, outputs, index)))
    val commitTime = longMetric("commitTimeMs")
    val updateTime = longMetric("allUpdatesTimeMs")
    val runId = getStateInfo.queryRunId
    withStateStore(zipped) { (store, partition) =>
      val started = System.nanoTime()
      val inputs = if (partition.hasNext) partition.next() else children.map(_ => Iterator.empty)
      val run = evaluator.evalBatch(store.id.partitionId, getStateInfo.storeVersion, inputs, store, runId)
      var committed = false
      // The store is committed once the output is consumed: the sink drains every partition.
      run.rows ++ new Iterator[InternalRow] {
        def hasNext: Boolean = {
          if (!committed) {
            committed = true
            updateTime += NANOSECONDS.toMillis(System.nanoTime() - started)
            var version = 0L
            commitTime += timeTakenMs { version = store.commit() }
            run.committed(version)
            setStoreMetrics(store)
            // The store counts chunks; numRowsTotal reports the buffered rows. (This task's
            // copy of the metric holds only its own store's count, and SQL metrics ignore
            // negative increments, so it is set, not corrected.)
            longMetric("numTotalStateRows").set(run.liveRows)
            setOperatorMetrics()
          }
          false
        }
        def next(): InternalRow = throw new NoSuchElementException("W-join partition is exhausted")
      }
    }
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): StreamingWindowJoinExec =
    copy(children = newChildren)
}

object StreamingWindowJoinExec {
  /** The streaming node of `w` for a planner's `choice` (see `WindowJoinStrategy`). */
  def apply(w: WindowJoin, choice: JoinChoice, children: Seq[SparkPlan],
      stateInfo: Option[StatefulOperatorStateInfo], lateWatermarkMs: Long,
      evictionWatermarkMs: Long): StreamingWindowJoinExec =
    new StreamingWindowJoinExec(w.timeColumns, choice.keys, choice.residual, w.output,
      WindowJoinPlanner.planned(w, choice), stateInfo, lateWatermarkMs, evictionWatermarkMs, children, w.how,
      WindowJoinPlanner.streaming(w), w.conditionAbove)
}
