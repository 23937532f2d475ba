package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin


/** Window strategies (GCA / LCA / exact) and bidirectional path queries through Spark. */
class WindowStrategySparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private def stream(seed: Int, rows: Int, keys: Int, maxTime: Int): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(rows)((rnd.nextInt(keys), rnd.nextInt(maxTime).toLong, rnd.nextInt(1000))).toDF("k", "t", "v")
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private def execs(df: DataFrame): Seq[WindowJoinExec] = {
    df.collect()
    collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
  }

  private val perPair = "WINDOW(A,B) = 6 AND WINDOW(B,C) = 2 AND WINDOW(A,C) = 3 AND WINDOW(C,D) = 2 AND WINDOW(B,D) = 5"

  test("every strategy and algorithm gives Spark's inner join for per-pair windows (Form 2)") {
    val ins = (0 until 4).map(i => stream(60 + i, 150, 3, 120))
    ins.zipWithIndex.foreach { case (df, i) => df.createOrReplaceTempView(s"w$i") }
    val expected = sorted(spark.sql(
      """SELECT w0.k, w0.t, w0.v, w1.t, w1.v, w2.t, w2.v, w3.t, w3.v FROM w0, w1, w2, w3
        |WHERE w0.k = w1.k AND w1.k = w2.k AND w2.k = w3.k AND abs(w0.t - w1.t) <= 6 AND abs(w1.t - w2.t) <= 2
        |AND abs(w0.t - w2.t) <= 3 AND abs(w2.t - w3.t) <= 2 AND abs(w1.t - w3.t) <= 5""".stripMargin))
    assert(expected.nonEmpty)
    for (strategy <- Seq("auto", "exact", "gca", "LCA"); algorithm <- Seq("mw", "hw", "nlw")) {
      val df = WJoin.of(ins).on("k").time("t").windows(perPair).algorithm(algorithm).windowStrategy(strategy).toDF
      assert(sorted(df) == expected, s"$algorithm / $strategy")
    }
  }

  test("EXPLAIN shows the strategy; GCA's refinement rejections are a metric") {
    val ins = (0 until 4).map(i => stream(70 + i, 200, 1, 150))
    val gca = WJoin.of(ins).time("t").windows(perPair).algorithm("mw").windowStrategy("gca").toDF
    val exec = execs(gca).head
    val text = gca.queryExecution.explainString(SimpleMode)
    // Closure tightens WINDOW(A,B) = 6 to 5 (A-C-B); the single window is the widest, A-D = 5.
    assert(text.contains("window strategy=gca (single window 5, refine"), text)
    assert(exec.metrics("numRefineRejections").value > 0)
    val lca = WJoin.of(ins).time("t").windows(perPair).algorithm("mw").windowStrategy("lca").toDF
    assert(lca.queryExecution.explainString(SimpleMode).contains("window strategy=lca (local windows A=5 B=5 C=3 D=5"))
    val auto = WJoin.of(ins).time("t").windows(perPair).toDF
    assert(auto.queryExecution.explainString(SimpleMode).contains("window strategy=exact"))
    // Exact windows refine nothing: the metric is not declared.
    assert(!execs(auto).head.metrics.contains("numRefineRejections"))
  }

  private val pathTerms = "DWINDOW(A,B) = [0, 3] AND DWINDOW(B,C) = 4"

  test("bidirectional = union of the path and the reversed path, each combination once") {
    val ins = (0 until 3).map(i => stream(80 + i, 200, 3, 100))
    ins.zipWithIndex.foreach { case (df, i) => df.createOrReplaceTempView(s"p$i") }
    def sql(where: String) = sorted(spark.sql(s"SELECT p0.k, p0.t, p0.v, p1.t, p1.v, p2.t, p2.v FROM p0, p1, p2 " +
      s"WHERE p0.k = p1.k AND p1.k = p2.k AND ($where)"))
    val forward = "p1.t - p0.t BETWEEN 0 AND 3 AND p2.t - p1.t BETWEEN 0 AND 4"
    val backward = "p0.t - p1.t BETWEEN 0 AND 3 AND p1.t - p2.t BETWEEN 0 AND 4"
    val expected = sql(s"($forward) OR ($backward)")
    assert(sql(s"($forward) AND ($backward)").nonEmpty, "the data must have combinations matching both ways")
    assert(expected.size > sql(forward).size && expected.size > sql(backward).size)
    for (algorithm <- Seq("auto", "nlw", "mw"); strategy <- Seq("exact", "lca")) {
      val df = WJoin.of(ins).on("k").time("t").windows(pathTerms).algorithm(algorithm).windowStrategy(strategy)
        .bidirectional(true).toDF
      assert(sorted(df) == expected, s"$algorithm / $strategy")
    }
    val one = WJoin.of(ins).on("k").time("t").windows(pathTerms).toDF
    assert(sorted(one) == sql(forward))
    val both = WJoin.of(ins).on("k").time("t").windows(pathTerms).bidirectional(true).toDF
    val text = both.queryExecution.explainString(SimpleMode)
    assert(text.contains("excluding DWINDOW(A,B) = [0, 3] AND DWINDOW(B,C) = 4"), text)
    assert(text.contains("DWINDOW(B,A) = [0, 3] AND DWINDOW(C,B) = 4"), text)
    // Only the reversed path's node excludes, and only it declares the metric.
    val excluded = execs(both).flatMap(_.metrics.get("numExcludedCombinations"))
    assert(excluded.size == 1 && excluded.head.value > 0)
  }

  test("misuse names the term or value at fault") {
    val (a, b) = (stream(90, 10, 2, 10), stream(91, 10, 2, 10))
    val notDirected = intercept[WJoinAnalysisException](
      WJoin("A" -> a, "B" -> b).time("t").windows("WINDOW(A,B) = 3").bidirectional(true).toDF)
    assert(notDirected.getMessage.contains("'WINDOW(A,B) = 3' is not directed"), notDirected.getMessage)
    val uniform = intercept[WJoinAnalysisException](
      WJoin("A" -> a, "B" -> b).time("t").window("3").bidirectional(true).toDF)
    assert(uniform.getMessage.contains("'WINDOW = 3' is not directed"), uniform.getMessage)
    val unknown = intercept[WJoinAnalysisException](
      WJoin("A" -> a, "B" -> b).time("t").window("3").windowStrategy("local").toDF)
    assert(unknown.getMessage.contains("unknown window strategy 'local'; use one of auto, exact, gca, lca"))
  }
}
