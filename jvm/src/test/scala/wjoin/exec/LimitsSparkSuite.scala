package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/** Resource limits (Kang et al. Sec. 5.2) through Spark: sub-bag, budget, metrics, EXPLAIN, errors. */
class LimitsSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private def stream(seed: Int, rows: Int, keys: Int, maxTime: Int): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(rows)((rnd.nextInt(keys), rnd.nextInt(maxTime).toLong, rnd.nextInt(1000))).toDF("k", "t", "v")
  }

  private def bag(df: DataFrame): Map[String, Int] =
    df.collect().map(_.mkString(",")).groupBy(identity).map { case (k, v) => k -> v.length }

  private def subBag(small: Map[String, Int], big: Map[String, Int]) = small.forall { case (k, c) => big.getOrElse(k, 0) >= c }

  private def execs(df: DataFrame): Seq[WindowJoinExec] = {
    df.collect()
    collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
  }

  private val ins = (0 until 3).map(i => stream(80 + i, 300, 2, 200))

  test("limits give a sub-bag of the exact W-join for every algorithm and allocation, the same for the same seed") {
    for (keyed <- Seq(true, false); algorithm <- Seq("nlw", "hw", "mw") if keyed || algorithm != "hw") {
      val base = { val b = WJoin.of(ins).time("t").window("6").algorithm(algorithm); if (keyed) b.on("k") else b }
      val exact = bag(base.toDF)
      assert(exact.nonEmpty)
      for ((limits, allocation) <- Seq(
          (Map[String, Any]("state_rows" -> 20), "auto"), (Map[String, Any]("probe_rate" -> 0.5), "equal"),
          (Map[String, Any]("state_rows" -> 12, "probe_rate" -> 1.0), "proportional"))) {
        val df = base.limits(limits).allocation(allocation).seed(3).toDF
        val got = bag(df)
        assert(subBag(got, exact), s"$algorithm $limits $allocation: not a sub-bag")
        assert(got.values.sum < exact.values.sum, s"$algorithm $limits $allocation shed nothing")
        assert(bag(base.limits(limits).allocation(allocation).seed(3).toDF) == got, s"$algorithm: same seed, other rows")
      }
    }
  }

  test("the state never exceeds state_rows per partition; shed rows and probes are metrics; EXPLAIN shows the shares") {
    val df = WJoin.of(ins).on("k").time("t").window("6").algorithm("hw")
      .limits(Map("state_rows" -> 10, "probe_rate" -> 2)).allocation(Map("A" -> 2, "B" -> 1, "C" -> 1)).toDF
    val exec = execs(df).head
    val partitions = df.queryExecution.toRdd.getNumPartitions
    assert(exec.metrics("peakBufferedRows").value <= 10L * partitions)
    assert(exec.metrics("numShedRows").value > 0 && exec.metrics("numShedProbes").value > 0)
    val text = df.queryExecution.explainString(SimpleMode)
    assert(text.contains("limits=[state_rows=10 [A=5, B=3, C=2], probe_rate=2/s [A=1, B=0.5, C=0.5], " +
      "allocation={A: 0.5, B: 0.25, C: 0.25}, seed=0]"), text)
    val exact = WJoin.of(ins).on("k").time("t").window("6").algorithm("hw").toDF
    val plain = execs(exact).head
    // Without limits nothing is shed: the metrics are not declared.
    assert(!plain.metrics.contains("numShedRows") && !plain.metrics.contains("numShedProbes"))
    assert(!exact.queryExecution.explainString(SimpleMode).contains("limits="))
  }

  test("bad limits fail when the W-join is built, naming the value") {
    def fails(build: => DataFrame, message: String) = {
      val e = intercept[WJoinAnalysisException](build)
      assert(e.getMessage.contains(message), e.getMessage)
    }
    val b = WJoin.of(ins).on("k").time("t").window("6")
    fails(b.limits(Map("rows" -> 5)).toDF, "unknown limit 'rows'; use state_rows")
    fails(b.limits(Map("state_rows" -> 1.5)).toDF, "limits: state_rows: expected a whole number")
    fails(b.limits(Map("probe_rate" -> -1)).toDF, "probe_rate must be a finite number >= 0")
    fails(b.limits(Map("state_rows" -> 5)).allocation("fair").toDF, "unknown allocation 'fair'; use one of auto, equal")
    fails(b.limits(Map("state_rows" -> 5)).allocation(Map("Z" -> 1)).toDF, "allocation: unknown input(s) Z")
    fails(b.allocation("equal").toDF, "allocation applies to resource limits")
    fails(b.limits(Map("state_rows" -> 5)).how("left").toDF, "limits approximate the inner W-join only")
  }
}
