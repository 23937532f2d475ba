package wjoin.exec

import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{abs, col, expr}
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.cost.AccessPath
import wjoin.exec.batch.WindowJoinExec
import wjoin.plan.{BandKind, BandKinds}
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/**
 * Band joins on every orderable type against Spark's own join (range access paths forced
 * and chosen), and the keyless double band of three inputs: index probes and a probe order
 * along the predicates keep the candidates near the results (counted, not timed).
 */
class BandJoinSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {

  private def input(kind: BandKind, seed: Int, rows: Int, extremes: Boolean = false): DataFrame = {
    val rnd = new Random(seed)
    // Values whose differences overflow would fail Spark's own join (ANSI): the property test
    // of the range extraction covers the extremes.
    def moderate(v: Any): Boolean = v match {
      case n: java.lang.Byte => n > Byte.MinValue && n < Byte.MaxValue
      case n: java.lang.Short => n > Short.MinValue && n < Short.MaxValue
      case n: java.lang.Integer => n > Int.MinValue && n < Int.MaxValue
      case n: java.lang.Long => math.abs(n.doubleValue) < 1e15
      case d: java.math.BigDecimal => d.abs.compareTo(new java.math.BigDecimal(1000000)) < 0
      case _ => true
    }
    def draw(): Any = Iterator.continually(kind.values(rnd)).find(v => extremes || moderate(v)).get
    val data = Seq.fill(rows)(Row(rnd.nextInt(60).toLong, draw()))
    spark.createDataFrame(java.util.Arrays.asList(data: _*),
      StructType(Seq(StructField("t", LongType), StructField("x", kind.dt))))
  }

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private def execOf(df: DataFrame): WindowJoinExec = collect(df.queryExecution.executedPlan) {
    case e: WindowJoinExec => e
  }.head

  // With ANSI arithmetic (Spark 4's default): the bands are ranges a tree can search.
  for (kind <- BandKinds.all) test(s"band joins on ${kind.name} equal Spark's join, every form, trees forced and auto") {
    withConf("spark.sql.ansi.enabled" -> "true")(bandJoins(kind))
  }

  // Spark 3.5's default: integer differences wrap (-128 - 127 = 1 in TINYINT), and Spark's join
  // accepts what they accept; such a conjunct is no range, so it is tested row by row.
  // Floating-point arithmetic is the same either way (nothing wraps): those kinds run once, above.
  for (kind <- BandKinds.all if !Seq("float", "double").contains(kind.name))
    test(s"band joins on ${kind.name} with wrapping arithmetic (ANSI off) equal Spark's join") {
    withConf("spark.sql.ansi.enabled" -> "false") {
      val (a, b) = (input(kind, 1, 90, extremes = true).alias("A"), input(kind, 2, 90, extremes = true).alias("B"))
      for (form <- kind.forms) {
        val expected = sorted(a.join(b, expr(form) && abs(col("A.t") - col("B.t")) <= 6))
        assert(sorted(WJoin("A" -> a, "B" -> b).on(expr(form)).time("t").window("6").toDF) == expected, form)
        // A tree searches a range: where the arithmetic wraps there is none, and asking for one is refused.
        if (form != "A.x = B.x") scala.util.Try(sorted(WJoin("A" -> a, "B" -> b).on(expr(form)).time("t").window("6")
            .accessPaths("A:bplustree, B:ttree").toDF)) match {
          case scala.util.Success(rows) => assert(rows == expected, s"$form with trees")
          case scala.util.Failure(e: wjoin.errors.WJoinAnalysisException) =>
            assert(e.condition == "WJOIN_ACCESS_PATH_NEEDS_BAND", e.getMessage)
          case scala.util.Failure(e) => throw e
        }
      }
      if (kind.name == "byte") { // the extremes wrap: Spark accepts pairs 255 apart, and so must we
        val wrapped = a.join(b, expr("abs(A.x - B.x) <= 2") && abs(col("A.t") - col("B.t")) <= 6)
          .where("abs(CAST(A.x AS INT) - CAST(B.x AS INT)) > 2").count()
        assert(wrapped > 0, "no wrapping pair: the test could not fail")
      }
    }
  }

  // A day of TIMESTAMP arithmetic is a calendar day in the session time zone: 25 hours across
  // New York's fall-back night. Whole-day bands are then no range; sub-day ones are exact.
  test("timestamp bands of whole days across a daylight saving change equal Spark's join") {
    withConf("spark.sql.session.timeZone" -> "America/New_York") {
      val rnd = new Random(5)
      val fallBack = 1793512800000000L // 2026-11-01 06:00 UTC: 02:00 EDT becomes 01:00 EST
      def side(seed: Int, rows: Int) = {
        val data = Seq.fill(rows)(Row(0L, fallBack + (rnd.nextLong() % (40L * 3600 * 1000000)) +
          rnd.nextInt(4) * 1800L * 1000000))
        spark.createDataFrame(java.util.Arrays.asList(data: _*),
          StructType(Seq(StructField("t", LongType), StructField("us", LongType))))
          .selectExpr("t", "timestamp_micros(us) AS y")
      }
      val (a, b) = (side(1, 120).alias("A"), side(2, 120).alias("B"))
      for (form <- Seq("B.y BETWEEN A.y - INTERVAL 1 DAY AND A.y + INTERVAL 1 DAY",
          "B.y <= A.y + INTERVAL '1 02:00:00' DAY TO SECOND AND B.y > A.y",
          "B.y BETWEEN A.y - INTERVAL 3 HOURS AND A.y + INTERVAL 3 HOURS")) {
        val expected = sorted(a.join(b, expr(form)))
        for (paths <- Seq("auto", "A:bplustree, B:bplustree"))
          scala.util.Try(sorted(WJoin("A" -> a, "B" -> b).on(expr(form)).time("t").window("1").accessPaths(paths).toDF)) match {
            case scala.util.Success(rows) => assert(rows == expected, s"$form with $paths")
            case scala.util.Failure(e: wjoin.errors.WJoinAnalysisException) => // a whole-day band is no range
              assert(e.condition == "WJOIN_ACCESS_PATH_NEEDS_BAND" && form.contains("DAY"), e.getMessage)
            case scala.util.Failure(e) => throw e
          }
      }
      val longDays = a.join(b, expr("B.y BETWEEN A.y - INTERVAL 1 DAY AND A.y + INTERVAL 1 DAY"))
        .where("abs(unix_micros(B.y) - unix_micros(A.y)) > 86400000000").count()
      assert(longDays > 0, "no pair a calendar day but more than 24 hours apart: the test could not fail")
    }
  }

  private def bandJoins(kind: BandKind): Unit = {
    val (a, b) = (input(kind, 1, 90).alias("A"), input(kind, 2, 90).alias("B"))
    var nonEmpty = 0
    for (form <- kind.forms) {
      val expected = sorted(a.join(b, expr(form) && abs(col("A.t") - col("B.t")) <= 6))
      if (expected.nonEmpty) nonEmpty += 1
      // an equality is a hash key, not a band (floats and doubles too: hashed normalized)
      val key = form == "A.x = B.x"
      for (paths <- Seq("A:bplustree, B:ttree", "auto") if !key || paths == "auto") {
        val df = WJoin("A" -> a, "B" -> b).on(expr(form)).time("t").window("6").accessPaths(paths).toDF
        assert(sorted(df) == expected, s"$form with $paths")
      }
      if (!key) {
        val forced = execOf(WJoin("A" -> a, "B" -> b).on(expr(form)).time("t").window("6")
        .accessPaths("A:bplustree, B:ttree").toDF).enginePlan
        assert(forced.accessPath.toSeq == Seq(AccessPath.BPlusTree, AccessPath.TTree))
      }
    }
    assert(nonEmpty >= kind.forms.size / 2, "most forms must give rows, or the test could not fail")
  }

  /** Three inputs, 400 rows/s, x a double uniform in [0, 1000), bands of 2.0, every pair within 1 s. */
  private def doubleBand(rows: Int): (DataFrame, DataFrame, DataFrame) = {
    def one(seed: Int) = {
      val rnd = new Random(seed)
      spark.createDataFrame(java.util.Arrays.asList((0 until rows).map(i => Row(i * 2500L, rnd.nextDouble() * 1000)): _*),
        StructType(Seq(StructField("ts", LongType), StructField("x", org.apache.spark.sql.types.DoubleType))))
    }
    (one(1).alias("A"), one(2).alias("B"), one(3).alias("C"))
  }

  test("the keyless double band of three inputs probes indexes along the predicates: candidates stay near the results") {
    val (a, b, c) = doubleBand(5000)
    val band = abs(col("A.x") - col("B.x")) <= 2.0 && abs(col("B.x") - col("C.x")) <= 2.0
    val df = WJoin("A" -> a, "B" -> b, "C" -> c).on(band).time("ts").window("1000000").toDF
    val text = df.queryExecution.explainString(SimpleMode)
    assert(text.contains("probe order=[A: B->C; B: "), text)
    assert(text.contains("C: B->A]"), text)
    assert(!text.contains("=scan"), text)
    assert(text.contains("selectivities=[A-B "), text)
    val spark3 = a.join(b, abs(col("A.ts") - col("B.ts")) <= 1000000 && abs(col("A.x") - col("B.x")) <= 2.0)
      .join(c, abs(col("B.ts") - col("C.ts")) <= 1000000 && abs(col("A.ts") - col("C.ts")) <= 1000000 &&
        abs(col("B.x") - col("C.x")) <= 2.0)
    val rows = df.collect()
    assert(rows.length == spark3.count())
    assert(rows.length > 10000)
    val m = execOf(df).metrics
    val evals = m("numPredicateEvals").value
    // A scan plan tests every pair in the window (millions); a cross product A x B even more.
    assert(evals < 4 * rows.length + 30000, s"$evals predicate evaluations for ${rows.length} results")
    assert(m("numComparisons").value < 100L * rows.length, s"${m("numComparisons").value} comparisons")
  }

  test("probe orders follow the predicates: a chain never binds an unconnected input while a connected one is left") {
    val (a, b, c) = doubleBand(300)
    val d = doubleBand(300)._1.alias("D")
    // D-A, A-B, B-C: a chain; a UDF-like residual (no range form) connects B and C
    val cond = abs(col("D.x") - col("A.x")) <= 5.0 && abs(col("A.x") - col("B.x")) <= 5.0 &&
      expr("cast(B.x AS STRING) < cast(C.x AS STRING)")
    for (algorithm <- Seq("mw", "nlw", "auto")) {
      val plan = execOf(WJoin("A" -> a, "B" -> b, "C" -> c, "D" -> d).on(cond).time("ts").window("100000")
        .algorithm(algorithm).toDF).enginePlan
      val edges = Set(Set(3, 0), Set(0, 1), Set(1, 2))
      for (o <- 0 until 4) {
        var bound = Set(o)
        for (j <- plan.probeOrder(o)) {
          assert(edges.exists(e => e.contains(j) && (e - j).subsetOf(bound)),
            s"$algorithm origin $o order ${plan.probeOrder(o).mkString("->")}: ${j} is not connected to $bound")
          bound += j
        }
      }
    }
  }
}
