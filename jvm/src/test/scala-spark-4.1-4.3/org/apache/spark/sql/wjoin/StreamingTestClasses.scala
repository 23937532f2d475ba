package org.apache.spark.sql.wjoin

import org.apache.spark.sql.{Encoder, SparkSession}
import org.apache.spark.sql.execution.streaming.{checkpointing, runtime}

/** The streaming classes the tests use, where Spark 4.1 to 4.3 keep them (see [[StreamingClasses]]). */
object StreamingTestClasses {
  type MemoryStream[A] = runtime.MemoryStream[A]
  type StreamingQueryWrapper = runtime.StreamingQueryWrapper

  /** A memory source of `spark`. */
  def memoryStream[A: Encoder](spark: SparkSession): MemoryStream[A] = runtime.MemoryStream[A](spark)

  /** The checkpoint file manager that renames through Hadoop's FileSystem (no processes started). */
  val fileSystemCheckpointFileManager: String = classOf[checkpointing.FileSystemBasedCheckpointFileManager].getName
}
