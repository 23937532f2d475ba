package wjoin.testkit

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.wjoin.StreamingTestClasses
import org.scalatest.{BeforeAndAfterAll, Suite}

/**
 * One local session with the W-join extension for a suite. The suites' inputs are all small,
 * so the small-input plan (one task, `spark.wjoin.smallInputBytes`) is off here and they test
 * the partitioned plans (hash, time bands) that larger inputs get; `SmallInputSparkSuite`
 * turns it on and checks it against them.
 */
trait SharedSparkSession extends BeforeAndAfterAll { self: Suite =>
  @transient lazy val spark: SparkSession = SparkSession.builder()
    .master("local[2]")
    .appName(getClass.getSimpleName)
    .config("spark.sql.extensions", "wjoin.WJoinExtensions")
    .config("spark.sql.shuffle.partitions", "4") // every streaming micro-batch commits one store per partition
    .config("spark.wjoin.smallInputBytes", "-1")
    .config("spark.wjoin.broadcastBytes", "-1") // the broadcast plan: BroadcastWindowJoinSparkSuite
    .config("spark.wjoin.timeBandRows", "1") // tests' few rows still cut into many bands (TimeBandSparkSuite: the default)
    .config("spark.ui.enabled", "false")
    // Checkpoints are on the local disk: renames through Hadoop's FileSystem, not Spark's
    // default manager, which starts readlink/chmod processes on every state commit without
    // Hadoop's native library (about 30 ms per partition and micro-batch; see the user guide).
    .config("spark.sql.streaming.checkpointFileManagerClass", StreamingTestClasses.fileSystemCheckpointFileManager)
    .getOrCreate()

  /** Runs `body` with the session settings `pairs`, then restores what was set before. */
  protected def withConf[T](pairs: (String, String)*)(body: => T): T = {
    val old = pairs.map { case (k, _) => k -> spark.conf.getOption(k) }
    pairs.foreach { case (k, v) => spark.conf.set(k, v) }
    try body finally old.foreach { case (k, v) => v.fold(spark.conf.unset(k))(spark.conf.set(k, _)) }
  }

  override def afterAll(): Unit = {
    try spark.stop() finally super.afterAll()
  }
}
