package org.apache.spark.sql.wjoin

import scala.reflect.ClassTag

import org.apache.hadoop.conf.Configuration
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.wjoin.StreamingClasses.StateStoreWriter

/**
 * A stateful operator's calls into Spark's state store, as Spark 4 has them (Spark 3.5 has its
 * own copy of this trait): one store per partition with one column family, no prefix key.
 *
 * The operator's own check of what its state was written by ([[checkStateOrigin]]) runs where
 * Spark 4 validates state schemas: on the driver, once per query run, before any task.
 */
trait StateStoreOperator extends StateStoreWriter { self: SparkPlan =>
  /** The schema of the store's keys and of its values. */
  protected def stateKeySchema: StructType
  protected def stateValueSchema: StructType

  /** Refuses state this operator cannot read; throws the user-facing error. */
  protected def checkStateOrigin(hadoopConf: Configuration): Unit

  override def validateAndMaybeEvolveStateSchema(
      hadoopConf: Configuration, batchId: Long, stateSchemaVersion: Int): List[StateSchemaValidationResult] = {
    checkStateOrigin(hadoopConf)
    val schema = List(StateStoreColFamilySchema(StateStore.DEFAULT_COL_FAMILY_NAME, 0, stateKeySchema, 0,
      stateValueSchema))
    List(StateSchemaCompatibilityChecker.validateAndMaybeEvolveStateSchema(getStateInfo, hadoopConf, schema,
      session.sessionState, stateSchemaVersion))
  }

  /** `f` over each partition of `rdd` with that partition's store of this micro-batch. */
  protected def withStateStore[T: ClassTag, U: ClassTag](rdd: RDD[T])(f: (StateStore, Iterator[T]) => Iterator[U]): RDD[U] =
    rdd.mapPartitionsWithStateStore(getStateInfo, stateKeySchema, stateValueSchema,
      NoPrefixKeyStateEncoderSpec(stateKeySchema), session.sessionState,
      Some(SparkBridge.stateStoreCoordinator(session)))(f)
}
