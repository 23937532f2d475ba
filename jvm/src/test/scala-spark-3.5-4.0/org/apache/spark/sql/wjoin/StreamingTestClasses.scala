package org.apache.spark.sql.wjoin

import org.apache.spark.sql.{Encoder, SparkSession}
// Spark 3.5 and 4.0: all in one package.
import org.apache.spark.sql.execution.{streaming => runtime}

/** The streaming classes the tests use, where Spark 3.5 and 4.0 keep them (see [[StreamingClasses]]). */
object StreamingTestClasses {
  type MemoryStream[A] = runtime.MemoryStream[A]
  type StreamingQueryWrapper = runtime.StreamingQueryWrapper

  /** A memory source of `spark` (Spark 4.0 takes its SQLContext). */
  def memoryStream[A: Encoder](spark: SparkSession): MemoryStream[A] =
    runtime.MemoryStream[A](implicitly[Encoder[A]], spark.sqlContext)

  /** The checkpoint file manager that renames through Hadoop's FileSystem (no processes started). */
  val fileSystemCheckpointFileManager: String = classOf[runtime.FileSystemBasedCheckpointFileManager].getName
}
