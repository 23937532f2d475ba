package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{FormattedMode, SimpleMode}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{abs, col}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.WJoin
import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.SharedSparkSession

/**
 * EXPLAIN in Spark's shapes ([[ExplainText]]) and the metrics each plan declares
 * ([[WindowJoinMetrics.declared]]); planning only, no job runs.
 */
class ExplainTextSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private def timed(name: String): DataFrame =
    Seq((1, 0L, 1.0), (2, 600L, 2.0)).toDF("k", "s", "x").selectExpr("k", "timestamp_seconds(s) as ts", "x").as(name)

  private def numbered(name: String): DataFrame = Seq((1, 0L, 1.0), (2, 6L, 2.0)).toDF("k", "t", "x").as(name)

  private def execOf(df: DataFrame): WindowJoinExec = {
    val nodes = collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
    assert(nodes.size == 1, s"one WindowJoinExec expected in\n${df.queryExecution.executedPlan}")
    nodes.head
  }

  private def block(df: DataFrame): String = {
    val text = df.queryExecution.explainString(FormattedMode)
    val start = text.indexOf(") WindowJoin\n")
    assert(start > 0, text)
    text.substring(start, text.indexOf("\n\n", start))
  }

  test("length: a timestamp column's microseconds in words, an integral column's as numbers") {
    assert(ExplainText.length(30L * 60 * 1000000, integralTime = false) == "30 minutes")
    assert(ExplainText.length(5400L * 1000000 + 1000, integralTime = false) == "1 hour 30 minutes 1 millisecond")
    assert(ExplainText.length(-1000000L, integralTime = false) == "-1 second")
    assert(ExplainText.length(1800L, integralTime = true) == "1800")
    assert(ExplainText.watermark(0L, "UTC") == "none yet")
    assert(ExplainText.watermark(1795553290230L, "UTC") == "2026-11-24 20:48:10.230 UTC")
  }

  test("formatted: Input, Output and the Arguments in the user's units, with the algorithm's reason") {
    val df = WJoin("A" -> timed("A"), "B" -> timed("B"), "C" -> timed("C")).on("k").time("ts")
      .window("30 minutes").on(abs(col("A.x") - col("B.x")) <= 1.0).toDF.select("A.k", "B.ts", "C.x")
    val text = withConf(WJoinConf.SmallInputBytesKey -> "-1")(block(df))
    assert(text.linesIterator.toSeq(1).matches("""Input \[9\]: \[k#\d+, ts#\d+, x#\d+, .*\]"""), text)
    assert(text.linesIterator.toSeq(2).startsWith("Output [3]: [k#"), text)
    for (line <- Seq("windows:            WINDOW = 30 minutes",
        "window matrix:      B - A in [-30 minutes, 30 minutes]; C - A in [-30 minutes, 30 minutes]",
        "algorithm:          hw", ": auto: every input shares a hash key",
        "keys:               (A.k) = (B.k) = (C.k)",
        "residual condition: ", "(abs((A.x - B.x)) <= 1.0D)",
        "access paths:       A=", "probe orders:       A: B->C; B: A->C; C: A->B",
        "cost:               cost=", "partitioning:       hash(keys)"))
      assert(text.contains(line), text)
    assert(!text.contains("PlannedJoin(") && !text.contains("1800000000"), text)
    val numbers = WJoin("A" -> numbered("A"), "B" -> numbered("B")).time("t").windows("DWINDOW(A,B) = [2, 9]")
      .algorithm("nlw").toDF
    val plain = block(numbers)
    assert(plain.contains("window matrix:      B - A in [2, 9]"), plain)
    assert(plain.contains("algorithm:          nlw: asked for (algorithm=nlw)"), plain)
    // EXPLAIN COST keeps the costs, on the logical node and on the physical tree line.
    val cost = numbers.queryExecution.explainString(org.apache.spark.sql.execution.CostMode)
    assert(cost.split("runner-up=").length >= 3, cost)
    assert(numbers.queryExecution.explainString(SimpleMode).contains("cost="))
  }

  test("metrics: a keyed hash plan declares no band, limit, bidirectional or refinement metric; a band plan does") {
    val keyed = execOf(WJoin("A" -> timed("A"), "B" -> timed("B")).on("k").time("ts").window("1 minute").toDF)
    val always = Set("numOutputRows", "numInputRows", "numInputRows0", "numInputRows1", "numNullRows",
      "numEvictedRows", "numComparisons", "peakBufferedRows", "joinTime")
    // Key equalities stay in the residual unless every input is hashed (the planner may scan small inputs).
    val evals = if (keyed.residual.nonEmpty) Set("numPredicateEvals") else Set.empty[String]
    // The run-time check declares its two only where a partition has something to choose.
    val checks = Set("numCheckedPartitions", "numRechosenPartitions")
    // A key of one integral column: partitions may be joined key by key (spark.wjoin.keyGroupRows).
    val groups = if (keyed.keyGroups.isDefined) Set("numKeyGroupedPartitions") else Set.empty[String]
    assert(keyed.metrics.keySet == always ++ evals ++ groups ++ (if (keyed.access.recheck.isDefined) checks else Nil),
      keyed.metrics.keySet)
    val banded = withConf(WJoinConf.TimeBandsKey -> "4", WJoinConf.SmallInputBytesKey -> "-1") {
      execOf(WJoin("A" -> numbered("A"), "B" -> numbered("B")).time("t").window("5")
        .on(abs(col("A.x") - col("B.x")) <= 1.0).toDF)
    }
    assert(banded.banded)
    assert(banded.access.recheck.isDefined, "a band between two inputs may take a scan or a tree in each partition")
    assert(banded.metrics.keySet == always ++ checks ++ Set("numTimeBands", "numReplicatedRows",
      "numForeignCombinations", "numPredicateEvals"), banded.metrics.keySet)
  }
}
