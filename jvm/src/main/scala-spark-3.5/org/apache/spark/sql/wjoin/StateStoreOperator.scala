package org.apache.spark.sql.wjoin

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.wjoin.StreamingClasses.{StateStoreWriter, StatefulOperatorStateInfo}

/**
 * A stateful operator's calls into Spark's state store, as Spark 3.5 has them (Spark 4 has its
 * own copy of this trait): one store per partition, no prefix key columns.
 *
 * Spark 3.5 checks a store's schema itself when a task opens it, and has no driver-side hook
 * before the first task of a query run: the operator's own check ([[checkStateOrigin]]) runs
 * on the driver as the run's first micro-batch RDD is made, before its tasks, and not again in
 * that run (as Spark 4 checks once per run): a check reads a file of the checkpoint, which on
 * object storage costs a round trip every micro-batch would pay.
 */
trait StateStoreOperator extends StateStoreWriter { self: SparkPlan =>
  /** The schema of the store's keys and of its values. */
  protected def stateKeySchema: StructType
  protected def stateValueSchema: StructType

  /** Refuses state this operator cannot read; throws the user-facing error. */
  protected def checkStateOrigin(hadoopConf: Configuration): Unit

  /** `f` over each partition of `rdd` with that partition's store of this micro-batch. */
  protected def withStateStore[T: ClassTag, U: ClassTag](rdd: RDD[T])(f: (StateStore, Iterator[T]) => Iterator[U]): RDD[U] = {
    StateStoreOperator.oncePerRun(getStateInfo)(checkStateOrigin(session.sessionState.newHadoopConf()))
    rdd.mapPartitionsWithStateStore(getStateInfo, stateKeySchema, stateValueSchema, 0, session.sessionState,
      Some(SparkBridge.stateStoreCoordinator(session)))(f)
  }
}

object StateStoreOperator {
  /** Runs remembered at most (a long-lived driver starts many; a forgotten one is checked again). */
  private val MaxRuns = 1024

  /** (checkpoint location, query run, operator) whose state origin passed its check. */
  private val checked = new java.util.LinkedHashMap[(String, java.util.UUID, Long), Unit](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[(String, java.util.UUID, Long), Unit]): Boolean =
      size > MaxRuns
  }

  /** `check` unless it passed before in this query run of this operator; throws what it throws. */
  def oncePerRun(info: StatefulOperatorStateInfo)(check: => Unit): Unit = {
    val run = (info.checkpointLocation, info.queryRunId, info.operatorId)
    if (!checked.synchronized(checked.containsKey(run))) {
      check
      checked.synchronized(checked.put(run, ()))
    }
  }
}
