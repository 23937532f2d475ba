package wjoin.testkit

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/** One local session with the W-join extension for a suite. */
trait SharedSparkSession extends BeforeAndAfterAll { self: Suite =>
  @transient lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName(getClass.getSimpleName)
    .config("spark.sql.extensions", "wjoin.WJoinExtensions")
    .config("spark.sql.shuffle.partitions", "7")
    .config("spark.ui.enabled", "false")
    .getOrCreate()

  override def afterAll(): Unit = {
    try spark.stop() finally super.afterAll()
  }
}
