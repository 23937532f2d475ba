package org.apache.spark.sql.wjoin

// Spark 3.5 and 4.0: all in one package.
import org.apache.spark.sql.execution.{streaming => checkpointing}
import org.apache.spark.sql.execution.{streaming => runtime}
import org.apache.spark.sql.execution.{streaming => stateful}

/**
 * The streaming classes of Spark the operator builds on, where Spark 3.5 and 4.0 keep them. Spark 4.1 moved
 * them out of `org.apache.spark.sql.execution.streaming` into sub-packages
 * (`operators.stateful`, `runtime`, `checkpointing`); the rest of spark-wjoin imports them
 * from here (`import org.apache.spark.sql.wjoin.StreamingClasses._`) and compiles unchanged on
 * every supported Spark.
 */
object StreamingClasses {
  type StatefulOperatorStateInfo = stateful.StatefulOperatorStateInfo
  val StatefulOperatorStateInfo: stateful.StatefulOperatorStateInfo.type = stateful.StatefulOperatorStateInfo
  type StateStoreWriter = stateful.StateStoreWriter
  type StatefulOperatorCustomMetric = stateful.StatefulOperatorCustomMetric
  type StatefulOperatorCustomSumMetric = stateful.StatefulOperatorCustomSumMetric
  val StatefulOperatorCustomSumMetric: stateful.StatefulOperatorCustomSumMetric.type =
    stateful.StatefulOperatorCustomSumMetric
  type IncrementalExecution = runtime.IncrementalExecution
  val MicroBatchExecution: runtime.MicroBatchExecution.type = runtime.MicroBatchExecution
  val StreamExecution: runtime.StreamExecution.type = runtime.StreamExecution
  type CheckpointFileManager = checkpointing.CheckpointFileManager
  val CheckpointFileManager: checkpointing.CheckpointFileManager.type = checkpointing.CheckpointFileManager
  type FileStreamSink = runtime.FileStreamSink
}
