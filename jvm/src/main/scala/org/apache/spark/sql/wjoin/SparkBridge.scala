package org.apache.spark.sql.wjoin

import java.util.UUID

import org.apache.spark.sql.{Column, DataFrame, ExperimentalMethods, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.streaming.state.{StateStore, StateStoreCoordinatorRef, StateStoreProviderId}
import org.apache.spark.sql.streaming.{OutputMode, StreamingQueryProgress}
import org.apache.spark.sql.wjoin.SessionApi.ClassicSession
import org.apache.spark.sql.wjoin.StreamingClasses.{IncrementalExecution, MicroBatchExecution, StatefulOperatorStateInfo,
  StreamExecution}

/**
 * The one place spark-wjoin reaches `private[sql]` members of Spark (pinned to Spark 4.3.0):
 * turning a DataFrame into its analyzed plan and back, a Column into its expression, and what
 * a stateful streaming operator needs from the micro-batch being planned. A Spark upgrade
 * that moves these touches this file only.
 */
object SparkBridge {
  private def classicSession(spark: SparkSession): ClassicSession = SessionApi.classicSession(spark).getOrElse {
    throw new IllegalArgumentException(
      s"spark-wjoin runs inside the Spark driver and needs a classic SparkSession, got ${spark.getClass.getName} " +
        "(from a Spark Connect client, use the Python package or SQL: the server's plugin builds the W-join there)")
  }

  def analyzedPlan(df: DataFrame): LogicalPlan = SessionApi.analyzedPlan(df).getOrElse {
    classicSession(df.sparkSession); throw new IllegalStateException("unreachable")
  }

  def toDataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame =
    SessionApi.toDataFrame(classicSession(spark), plan)

  /**
   * The ids of the DataFrames whose plan `plan` is: Spark tags a DataFrame's plan with them, and
   * its columns with theirs (`__dataset_id`), to tell the columns of self-joined DataFrames apart.
   */
  def datasetIds(plan: LogicalPlan): Set[Long] =
    plan.getTagValue(org.apache.spark.sql.catalyst.trees.TreeNodeTag[scala.collection.mutable.HashSet[Long]]("dataset_id"))
      .map(_.toSet).getOrElse(Set.empty)

  /** True for strings whose collation makes `=` byte equality (so hashing them is exact). */
  def hasBinaryEquality(t: org.apache.spark.sql.types.StringType): Boolean = SessionApi.hasBinaryEquality(t)

  /** A Column of an expression (e.g. one a Spark Connect planner made from a client's). */
  def column(expression: Expression): Column = SessionApi.column(expression)

  /** The (unresolved) expression of a Column, converted the way the session's DataFrames do. */
  def expression(spark: SparkSession, column: Column): Expression = SessionApi.expression(classicSession(spark), column)

  /**
   * The micro-batch a streaming query is planning right now, as a stateful operator sees it.
   * Spark fills state info and watermarks only into its own operator classes, so an
   * extension's operator reads them here, at planning time.
   *
   * @param optimizedPlan       the batch's optimized logical plan (to number our operators)
   * @param outputMode          the query's output mode
   * @param lateWatermarkMs     the previous batch's watermark: input rows at or before it are late
   * @param evictionWatermarkMs this batch's watermark: state no row after it can reach is evicted
   * @param numStateStores      the partition count of stateful operators: the one recorded in
   *                            the checkpoint's offset log, so a restart with another
   *                            spark.sql.shuffle.partitions keeps finding its state
   * @param stateInfo           state info for (operator id, partition count)
   * @param planningKey         identifies this planning run (for numbering operators)
   * @param recentProgress      the query's progress of its recent micro-batches, oldest first
   *                            (what the next batch's access paths are planned from)
   */
  final case class MicroBatch(
      optimizedPlan: LogicalPlan,
      outputMode: OutputMode,
      lateWatermarkMs: Long,
      evictionWatermarkMs: Long,
      numStateStores: Int,
      stateInfo: (Long, Int) => StatefulOperatorStateInfo,
      planningKey: AnyRef,
      recentProgress: Seq[StreamingQueryProgress] = Nil)

  /** The session's runtime hooks: planner strategies and optimizer rules added after it started. */
  def experimental(spark: SparkSession): ExperimentalMethods = classicSession(spark).experimental

  /** The post-hoc resolution rules the session was built with (its extensions' included). */
  def postHocResolutionRules(spark: SparkSession): Seq[Rule[LogicalPlan]] =
    classicSession(spark).sessionState.analyzer.postHocResolutionRules

  /**
   * The micro-batch being planned on this thread, or None (e.g. `explain()` of a streaming
   * DataFrame, which has no query behind it). Found through the query id Spark sets as a
   * local property on the stream thread; the batch id guards against a stale execution.
   */
  def currentMicroBatch(): Option[MicroBatch] = {
    val session = SparkSession.getActiveSession.flatMap(SessionApi.classicSession)
    for {
      spark <- session
      queryId <- Option(spark.sparkContext.getLocalProperty(StreamExecution.QUERY_ID_KEY))
      batchId <- Option(spark.sparkContext.getLocalProperty(MicroBatchExecution.BATCH_ID_KEY)).map(_.toLong)
      query <- Option(spark.sharedState.activeStreamingQueries.get(UUID.fromString(queryId)))
      ie <- Option(query.lastExecution) if ie.currentBatchId == batchId
    } yield microBatch(ie).copy(recentProgress = Option(query.recentProgress).map(_.toSeq).getOrElse(Nil))
  }

  private def microBatch(ie: IncrementalExecution): MicroBatch = {
    // Rows with no watermark yet read 0 here; so do Spark's own operators.
    val late = ie.prevOffsetSeqMetadata.map(_.batchWatermarkMs).getOrElse(0L)
    val eviction = ie.offsetSeqMetadata.batchWatermarkMs
    val stateInfo = (operatorId: Long, partitions: Int) => SessionApi.stateInfo(ie, operatorId, partitions)
    MicroBatch(ie.optimizedPlan, ie.outputMode, late, eviction, ie.numStateStores, stateInfo, ie)
  }

  def stateStoreCoordinator(spark: SparkSession): StateStoreCoordinatorRef =
    classicSession(spark).streams.stateStoreCoordinator

  /**
   * Whether this executor still has the state store provider `id` loaded: Spark's maintenance
   * unloads a provider once its query run stopped or its partition moved to another executor.
   */
  def stateStoreLoaded(id: StateStoreProviderId): Boolean = StateStore.isLoaded(id)

  /**
   * Whether this JVM's block manager still holds broadcast `id` (its value, or the pieces the
   * driver wrote): Spark removes them everywhere once the driver's cleaner found the broadcast
   * unreachable, or when it is destroyed. No `SparkEnv` (core tests): true.
   */
  def broadcastHeld(id: Long): Boolean = Option(org.apache.spark.SparkEnv.get).forall { env =>
    val bm = env.blockManager
    bm.getStatus(org.apache.spark.storage.BroadcastBlockId(id)).isDefined ||
      bm.getStatus(org.apache.spark.storage.BroadcastBlockId(id, "piece0")).isDefined
  }

  /**
   * Whether Spark's shuffle writes each record out as it is handed over, for `numPartitions`
   * partitions and `serializer`: the sort shuffle's bypass-merge and serialized writers do, so
   * the map side may pass a row object it reuses (Spark's `ShuffleExchangeExec` skips its row
   * copies by the same rule); its generic writer buffers objects, and another shuffle manager
   * is not known (no `SparkEnv`: false).
   */
  def shuffleWritesRecordsAtOnce(numPartitions: Int, serializer: org.apache.spark.serializer.Serializer): Boolean =
    Option(org.apache.spark.SparkEnv.get).exists { env =>
      import org.apache.spark.shuffle.sort.SortShuffleManager
      env.shuffleManager.isInstanceOf[SortShuffleManager] &&
        (numPartitions <= env.conf.get(org.apache.spark.internal.config.SHUFFLE_SORT_BYPASS_MERGE_THRESHOLD) ||
          serializer.supportsRelocationOfSerializedObjects &&
            numPartitions <= SortShuffleManager.MAX_SHUFFLE_OUTPUT_PARTITIONS_FOR_SERIALIZED_MODE)
    }

  /**
   * The memory Spark manages on each executor that has registered (its unified execution and
   * storage pool, as its block manager reported it; the driver's too when it is the only one,
   * in local mode) and how many tasks the application can run at once: what a task's memory
   * share is computed from. No executor registered yet: no pools.
   */
  def executorPools(sc: org.apache.spark.SparkContext): (Seq[Long], Int) = {
    val infos = sc.statusTracker.getExecutorInfos.toSeq
    val driver = Option(org.apache.spark.SparkEnv.get).map(_.blockManager.blockManagerId)
    val executors = if (sc.isLocal) infos
      else infos.filterNot(e => driver.exists(d => d.host == e.host && d.port == e.port))
    val slots = sc.maxNumConcurrentTasks(sc.resourceProfileManager.defaultResourceProfile)
    (executors.map(_.totalOnHeapStorageMemory).filter(_ > 0), slots)
  }

  /**
   * `plan` with the exchanges and sorts its children's required distributions and orderings
   * call for, as Spark's planner adds them (`EnsureRequirements`), for a plan made at run time.
   */
  def withRequiredExchanges(plan: org.apache.spark.sql.execution.SparkPlan): org.apache.spark.sql.execution.SparkPlan =
    org.apache.spark.sql.execution.exchange.EnsureRequirements().apply(plan)

  /**
   * The input below broadcast `plan` (a `BroadcastExchange`, or the query stage or reused
   * exchange adaptive execution makes of one), with `plan`'s own output attributes.
   */
  def belowBroadcast(plan: org.apache.spark.sql.execution.SparkPlan): org.apache.spark.sql.execution.SparkPlan = {
    import org.apache.spark.sql.catalyst.expressions.Alias
    import org.apache.spark.sql.execution.ProjectExec
    import org.apache.spark.sql.execution.adaptive.BroadcastQueryStageExec
    import org.apache.spark.sql.execution.exchange.{BroadcastExchangeExec, ReusedExchangeExec}
    import org.apache.spark.sql.catalyst.expressions.Attribute
    def renamed(to: Seq[Attribute], below: org.apache.spark.sql.execution.SparkPlan) =
      if (below.output == to) below else ProjectExec(to.zip(below.output).map { case (o, c) => Alias(c, o.name)(o.exprId) }, below)
    plan match {
      case s: BroadcastQueryStageExec => renamed(plan.output, belowBroadcast(s.plan))
      case r: ReusedExchangeExec => renamed(r.output, belowBroadcast(r.child))
      case b: BroadcastExchangeExec => b.child
      case other => throw new IllegalStateException(s"not a broadcast: ${other.nodeName}")
    }
  }
}
