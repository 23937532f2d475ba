package wjoin
package extension

import java.util.concurrent.atomic.AtomicInteger

import org.apache.spark.scheduler.{SparkListener, SparkListenerJobStart}
import org.scalatest.concurrent.Eventually._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.time.{Seconds, Span}

import wjoin.testkit.SharedSparkSession

class FirstQueryWarmUpSuite extends AnyFunSuite with SharedSparkSession {
  test("building a session with the extension starts the warm-up (once per JVM)") {
    spark.range(1).count() // the session's state is built
    assert(FirstQueryWarmUp.state != FirstQueryWarmUp.NotStarted)
  }

  test("the warm-up runs no Spark job, and its evaluators give what Spark's run of the same W-joins gives") {
    // Events arrive in order: once the sentinel job's start is seen, every earlier job's was.
    val jobs = new AtomicInteger()
    @volatile var sentinelSeen = false
    val listener = new SparkListener {
      override def onJobStart(jobStart: SparkListenerJobStart): Unit =
        if (Option(jobStart.properties).exists(_.getProperty("spark.job.description") == "sentinel")) sentinelSeen = true
        else if (!sentinelSeen) jobs.incrementAndGet()
    }
    spark.sparkContext.addSparkListener(listener)
    try {
      val state = FirstQueryWarmUp.run(spark)
      val warmed = FirstQueryWarmUp.Workloads.indices.map(FirstQueryWarmUp.warm(spark, _))
      spark.sparkContext.setJobDescription("sentinel")
      try spark.range(1).count() finally spark.sparkContext.setJobDescription(null)
      eventually(timeout(Span(30, Seconds)))(assert(sentinelSeen))
      assert(jobs.get() == 0, "the warm-up ran Spark jobs")
      val counts = warmed.map(_._2)
      assert(state == FirstQueryWarmUp.Done(counts.sum, state.asInstanceOf[FirstQueryWarmUp.Done].millis))
      assert(counts.forall(_ > 1000), s"the warm-up workloads produced too little to warm anything: $counts")
      for ((df, produced) <- warmed) assert(df.count() == produced)
    } finally spark.sparkContext.removeSparkListener(listener)
  }

  test("spark.wjoin.warmUp is a static setting: it cannot be changed in a running session") {
    assert(spark.conf.get("spark.wjoin.warmUp") == "true")
    val e = intercept[Exception](spark.conf.set("spark.wjoin.warmUp", "false"))
    assert(e.getMessage.contains("spark.wjoin.warmUp"))
  }
}
