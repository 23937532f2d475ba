package wjoin.exec

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

import wjoin.errors.WJoinAnalysisException
import wjoin.exec.batch.WindowJoinExec
import wjoin.implicits._

class WindowJoinSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private def stream(seed: Int, rows: Int, keys: Int, maxTime: Int): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(rows)((rnd.nextInt(keys), rnd.nextInt(maxTime).toLong, rnd.nextInt(1000)))
      .toDF("k", "t", "v")
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private def execOf(df: DataFrame): WindowJoinExec = {
    df.collect()
    val nodes = collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }
    assert(nodes.nonEmpty, s"no WindowJoinExec in\n${df.queryExecution.executedPlan}")
    nodes.head
  }

  test("3-way uniform window equals Spark's inner join with BETWEEN, for every algorithm") {
    val (a, b, c) = (stream(1, 300, 5, 200), stream(2, 300, 5, 200), stream(3, 300, 5, 200))
    a.createOrReplaceTempView("a"); b.createOrReplaceTempView("b"); c.createOrReplaceTempView("c")
    val expected = sorted(spark.sql(
      """SELECT a.k, a.t, a.v, b.t, b.v, c.t, c.v FROM a JOIN b ON a.k = b.k AND b.t BETWEEN a.t - 4 AND a.t + 4
        |JOIN c ON b.k = c.k AND c.t BETWEEN a.t - 4 AND a.t + 4 AND c.t BETWEEN b.t - 4 AND b.t + 4""".stripMargin))
    assert(expected.size > 100)
    for (algorithm <- Seq("auto", "hw", "mw", "nlw")) {
      val got = a.wjoin(b, c).on("k").time("t").window("4").algorithm(algorithm).toDF
      assert(got.columns.toSeq == Seq("k", "t", "v", "t", "v", "t", "v"))
      assert(sorted(got) == expected, s"algorithm $algorithm")
    }
  }

  test("5 inputs (more than Spark's zipPartitions takes) equal Spark's joins") {
    val inputs = (0 until 5).map(i => stream(40 + i, 60, 2, 40))
    inputs.zipWithIndex.foreach { case (df, i) => df.createOrReplaceTempView(s"s$i") }
    val pairs = for (i <- 0 until 5; j <- i + 1 until 5) yield s"abs(s$i.t - s$j.t) <= 3"
    val expected = sorted(spark.sql(
      s"SELECT * FROM s0, s1, s2, s3, s4 WHERE s0.k = s1.k AND s1.k = s2.k AND s2.k = s3.k AND s3.k = s4.k AND " +
        pairs.mkString(" AND ")))
    assert(expected.nonEmpty)
    for (algorithm <- Seq("hw", "mw")) {
      val got = WJoin.of(inputs).on(col("A.k") === col("B.k") && col("B.k") === col("C.k") &&
        col("C.k") === col("D.k") && col("D.k") === col("E.k")).time("t").window("3").algorithm(algorithm).toDF
      assert(sorted(got) == expected, algorithm)
    }
  }

  test("condition as a Column with per-pair windows, no shared key") {
    val (a, b, c) = (stream(4, 120, 3, 100), stream(5, 120, 3, 100), stream(6, 120, 3, 100))
    a.createOrReplaceTempView("a"); b.createOrReplaceTempView("b"); c.createOrReplaceTempView("c")
    val expected = sorted(spark.sql(
      """SELECT * FROM a JOIN b ON a.k = b.k AND abs(a.t - b.t) <= 3
        |JOIN c ON b.v < c.v AND abs(b.t - c.t) <= 5""".stripMargin))
    for (algorithm <- Seq("auto", "mw", "nlw")) {
      val got = WJoin("A" -> a, "B" -> b, "C" -> c)
        .on(col("A.k") === col("B.k") && col("B.v") < col("C.v"))
        .time("t").windows("WINDOW(A,B) = 3 AND WINDOW(B,C) = 5").algorithm(algorithm).toDF
      assert(sorted(got) == expected, s"algorithm $algorithm")
    }
  }

  test("auto picks HW-join with a shared key and MW-join without; EXPLAIN shows the matrix") {
    val (a, b) = (stream(7, 50, 3, 50), stream(8, 50, 3, 50))
    val keyed = a.wjoin(b).on("k").time("t").window("2").toDF
    assert(execOf(keyed).algorithm.name == "hw")
    val unkeyed = a.wjoin(b).time("t").window("2").toDF
    assert(execOf(unkeyed).algorithm.name == "mw")
    val explained = keyed.queryExecution.explainString(org.apache.spark.sql.execution.SimpleMode)
    assert(explained.contains("WindowJoin hw (hash), inputs=[A, B]"), explained)
    assert(explained.contains("matrix=[[0, 2], [2, 0]]"), explained)
  }

  test("metrics count input, output and evicted rows") {
    val (a, b) = (stream(9, 200, 4, 400), stream(10, 200, 4, 400))
    val df = a.wjoin(b).on("k").time("t").window("3").toDF
    val exec = execOf(df)
    val out = df.count()
    val m = exec.metrics
    assert(m("numOutputRows").value == out)
    assert(m("numInputRows").value == 400)
    assert(m("numInputRows0").value == 200)
    assert(m("numEvictedRows").value > 0)
    assert(m("peakBufferedRows").value < 400)
  }

  test("the operator produces only the columns its parent uses") {
    val (a, b, c) = (stream(17, 300, 3, 200), stream(18, 300, 3, 200), stream(19, 300, 3, 200))
    val joined = a.wjoin(b, c).on("k").time("t").window("4").toDF
    val all = joined.collect()
    val counted = joined.groupBy().count()
    assert(execOf(counted).output.isEmpty)
    assert(counted.collect().head.getLong(0) == all.length)
    val some = joined.select(col("C.v"), col("A.t"))
    assert(execOf(some).output.map(_.name) == Seq("v", "t"), "in the order selected")
    assert(sorted(some) == all.map(r => s"${r.getInt(6)},${r.getLong(1)}").sorted.toSeq)
    val withPredicate = WJoin("A" -> a, "B" -> b).on("k").on(col("A.v") < col("B.v")).time("t").window("4").toDF
      .select(col("B.t"))
    assert(execOf(withPredicate).output.map(_.name) == Seq("t"))
    assert(withPredicate.count() == WJoin("A" -> a, "B" -> b).on("k").time("t").window("4").toDF
      .where(col("A.v") < col("B.v")).count())
  }

  test("NULL times and keys never match and never fail") {
    val a = Seq[(Option[Int], Option[Long])]((Some(1), Some(1L)), (None, Some(1L)), (Some(1), None)).toDF("k", "t")
    val b = Seq[(Option[Int], Option[Long])]((Some(1), Some(2L)), (None, Some(2L)), (Some(1), None)).toDF("k", "t")
    for (algorithm <- Seq("hw", "mw", "nlw")) {
      val got = a.wjoin(b).on("k").time("t").window("5").algorithm(algorithm).toDF.collect()
      assert(got.toSeq == Seq(Row(1, 1L, 2L)), algorithm)
    }
  }

  test("column pruning and filter push-down keep the answer") {
    // Generated from range, not local data, so the optimizer cannot fold filters into the input.
    def ranged(m: Int) = spark.range(200)
      .selectExpr("CAST(id % 4 AS INT) AS k", s"CAST((id * $m) % 100 AS BIGINT) AS t", s"CAST((id * ${m * 13}) % 1000 AS INT) AS v")
    val (a, b) = (ranged(7919), ranged(104729))
    val joined = WJoin("A" -> a, "B" -> b).on("k").time("t").window("3").toDF
    val filtered = joined.where(col("A.v") > 500 && col("A.v") + col("B.v") > 900).select(col("A.t"))
    val join = filtered.queryExecution.optimizedPlan.collectFirst { case w: wjoin.plan.logical.WindowJoin => w }.get
    val pushed = join.children.head.collectFirst { case f: org.apache.spark.sql.catalyst.plans.logical.Filter => f }
    assert(pushed.exists(_.condition.sql.contains("> 500")), s"A.v > 500 not pushed into input A:\n$join")
    assert(join.children(1).collectFirst { case f: org.apache.spark.sql.catalyst.plans.logical.Filter => f }.isEmpty)
    a.createOrReplaceTempView("a"); b.createOrReplaceTempView("b")
    val expected = sorted(spark.sql(
      "SELECT a.t FROM a JOIN b ON a.k = b.k AND abs(a.t - b.t) <= 3 WHERE a.v > 500 AND a.v + b.v > 900"))
    assert(sorted(filtered) == expected)
    val exec = execOf(filtered)
    assert(exec.residual.exists(_.sql.contains("+")), "multi-input conjunct joined the W-join condition")
    assert(exec.children.head.output.map(_.name).toSet == Set("k", "t", "v"))
  }

  test("a selection of columns in any order is the W-join's own output, with no projection above it") {
    val (a, b, c) = (stream(21, 200, 4, 100), stream(22, 200, 4, 100), stream(23, 200, 4, 100))
    val joined = WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").window("3").toDF
    a.createOrReplaceTempView("a"); b.createOrReplaceTempView("b"); c.createOrReplaceTempView("c")
    val expected = sorted(spark.sql(
      """SELECT c.v, a.t, b.v, a.k, c.t FROM a JOIN b ON a.k = b.k AND abs(a.t - b.t) <= 3
        |JOIN c ON a.k = c.k AND abs(a.t - c.t) <= 3 AND abs(b.t - c.t) <= 3""".stripMargin))
    assert(expected.size > 100)
    val selected = joined.select(col("C.v"), col("A.t"), col("B.v"), col("k"), col("C.t"))
    val plan = selected.queryExecution.optimizedPlan
    assert(plan.isInstanceOf[wjoin.plan.logical.WindowJoin], s"a projection stayed above the W-join:\n$plan")
    assert(plan.output.map(_.qualifiedName) == selected.queryExecution.analyzed.output.map(_.qualifiedName))
    assert(sorted(selected) == expected)
    // An expression keeps its projection; the W-join's output is what it reads, in that order.
    val computed = joined.select((col("C.v") + col("A.v")).as("s"), col("B.t"))
    val below = computed.queryExecution.optimizedPlan.collectFirst { case w: wjoin.plan.logical.WindowJoin => w }.get
    assert(below.output.map(_.qualifiedName) == Seq("C.v", "A.v", "B.t"))
    assert(sorted(computed) == sorted(spark.sql(
      """SELECT c.v + a.v, b.t FROM a JOIN b ON a.k = b.k AND abs(a.t - b.t) <= 3
        |JOIN c ON a.k = c.k AND abs(a.t - c.t) <= 3 AND abs(b.t - c.t) <= 3""".stripMargin)))
  }

  test("the same DataFrame may be several inputs") {
    val a = stream(13, 100, 3, 60)
    val got = WJoin("X" -> a, "Y" -> a).on("k").time("t").window("0").toDF
    a.createOrReplaceTempView("s")
    val expected = sorted(spark.sql("SELECT * FROM s x JOIN s y ON x.k = y.k AND x.t = y.t").drop("k"))
    assert(got.count() == expected.size)
  }

  test("one DataFrame filtered into three inputs keeps them apart (Spark's alias removal would merge their columns)") {
    // A repartition (unlike a local relation, which Spark would fold the filters into) keeps
    // the inputs' projections apart from the one below it: their aliases are then to columns.
    val events = spark.range(0, 400).selectExpr("cast(id % 3 as int) as k", "cast(pmod(hash(id), 100) as bigint) as t", "cast(id as int) as v",
      "cast((id div 3) % 3 as int) as input").repartition(3)
    val ins = (0 until 3).map(i => ('A' + i).toChar.toString -> events.filter(col("input") === i).drop("input"))
    events.createOrReplaceTempView("ev")
    val expected = sorted(spark.sql(
      """SELECT a.v, b.v, c.v FROM ev a JOIN ev b JOIN ev c ON a.input = 0 AND b.input = 1 AND c.input = 2
        |AND a.k = b.k AND b.k = c.k AND abs(a.t - b.t) <= 3 AND abs(a.t - c.t) <= 3 AND abs(b.t - c.t) <= 3""".stripMargin))
    assert(expected.nonEmpty)
    for (algorithm <- Seq("hw", "mw", "nlw")) {
      val got = WJoin(ins: _*).on("k").time("t").window("3").algorithm(algorithm).toDF.select("A.v", "B.v", "C.v")
      assert(sorted(got) == expected, algorithm)
    }
  }

  test("misuse fails before any job with a message naming the culprit") {
    val a = stream(14, 10, 2, 10)
    val b = stream(15, 10, 2, 10)
    def error(f: => Any): String = intercept[WJoinAnalysisException](f).getMessage
    assert(error(a.wjoin(b).on("k").time("nope").window("1").toDF).contains("'nope' is not a column of input A"))
    assert(error(a.wjoin(b).on("k").time("t").windows("WINDOW(A,Z) = 1").toDF).contains("names input 'Z'"))
    assert(error(a.wjoin(b).on("k").time("t").window("-1").toDF).contains("negative"))
    assert(error(a.wjoin(b).on("k").time("t").window("2 seconds").toDF).contains("integral"))
    assert(error(a.wjoin(b).on("k").time("t").toDF).contains("give the window"))
    assert(error(a.wjoin(b).on("k").time("t").window("1").algorithm("fast").toDF).contains("unknown algorithm"))
    assert(error(a.wjoin(b).time("t").window("1").algorithm("hw").toDF).contains("needs an equality key"))
    assert(error(a.wjoin(b).on("k").time("v").windows("DWINDOW(A,B) = [5, 2]").toDF).contains("exceeds"))
    assert(error(a.wjoin(b, stream(16, 5, 2, 5)).on("k").time("t").windows("WINDOW(A,B) = 3").toDF)
      .contains("input C has no window bound"))
    assert(error(a.wjoin(b).on("k").time("t")
      .windows("DWINDOW(A,B) = [5, 6] AND DWINDOW(B,A) = [0, 2]").toDF).contains("contradict"))
    assert(error(WJoin.of(Seq(a)).time("t").window("1").toDF).contains("at least 2 inputs"))
  }
}
