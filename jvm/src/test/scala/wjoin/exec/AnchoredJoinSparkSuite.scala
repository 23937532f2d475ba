package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.{NullableRows, SharedSparkSession}
import wjoin.WJoin

/**
 * Batch left outer, left semi and left anti W-joins against Spark's own joins: two inputs
 * against Spark's interval joins with BETWEEN bounds (NULL keys and NULL times included), three
 * inputs against the anchor rows in / not in Spark's 3-way inner join, for every algorithm,
 * keyed and keyless, and in SQL.
 */
class AnchoredJoinSparkSuite extends AnyFunSuite with SharedSparkSession {
  import spark.implicits._

  /** Rows (k, t, v, id) with some NULL keys and NULL times. */
  private def input(seed: Int, rows: Int, keys: Int, maxTime: Int, idBase: Int): DataFrame =
    NullableRows(spark, seed, rows, keys, maxTime, idBase)

  private def sorted(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private val hows = Seq("left" -> "left_outer", "left_semi" -> "left_semi", "left_anti" -> "left_anti")

  test("2 inputs, DWINDOW [lo, hi] = Spark's left outer / semi / anti join with BETWEEN, NULL keys and times") {
    val (a, b) = (input(1, 150, 6, 100, 0), input(2, 150, 6, 100, 1000))
    for ((lo, hi) <- Seq((-3L, 5L), (0L, 0L), (2L, 9L)); (how, sparkHow) <- hows) {
      val cond = $"A.k" === $"B.k" && $"B.t".between($"A.t" + lo, $"A.t" + hi)
      val spark = a.alias("A").join(b.alias("B"), cond, sparkHow)
      val expected = sorted(if (how == "left") spark.select("A.k", "A.t", "A.v", "A.id", "B.t", "B.v", "B.id")
        else spark.select("A.k", "A.t", "A.v", "A.id"))
      // Anchor rows with a NULL key or time never match: left and left_anti keep them.
      assert(expected.exists(_.contains("null")) == (how != "left_semi"), how)
      for (algorithm <- Seq("auto", "hw", "mw", "nlw")) {
        val got = WJoin("A" -> a, "B" -> b).on("k").time("t").windows(s"DWINDOW(A,B) = [$lo, $hi]")
          .algorithm(algorithm).how(how).toDF
        val columns = if (how == "left") Seq("k", "t", "v", "id", "t", "v", "id") else Seq("k", "t", "v", "id")
        assert(got.columns.toSeq == columns, s"$how columns")
        assert(sorted(got) == expected, s"$how $algorithm [$lo, $hi]")
      }
    }
  }

  test("2 inputs without a key (one partition even with time bands) = Spark's joins") {
    val (a, b) = (input(3, 80, 1, 200, 0), input(4, 80, 1, 200, 1000))
    spark.conf.set("spark.wjoin.timeBands", "4")
    try for ((how, sparkHow) <- hows; algorithm <- Seq("mw", "nlw")) {
      val cond = $"A.v" < $"B.v" && $"B.t".between($"A.t" - 2, $"A.t" + 4)
      val spark = a.alias("A").join(b.alias("B"), cond, sparkHow)
      val expected = sorted(if (how == "left") spark else spark.select("A.*"))
      val got = WJoin("A" -> a, "B" -> b).on($"A.v" < $"B.v").time("t").windows("DWINDOW(A,B) = [-2, 4]")
        .algorithm(algorithm).how(how).toDF
      assert(sorted(got) == expected, s"$how $algorithm")
      val plan = got.queryExecution.executedPlan.toString
      assert(plan.contains(s"how=$how") && plan.contains("single partition"), plan)
    } finally spark.conf.unset("spark.wjoin.timeBands")
  }

  /** The 3-way inner join of Spark with the given pairwise conditions, and the anchor rows' fate. */
  private def threeWay(windows: String, sparkCondition: String, keyed: Boolean): Unit = {
    val (a, b, c) = (input(5, 60, 3, 60, 0), input(6, 60, 3, 60, 1000), input(7, 60, 3, 60, 2000))
    a.createOrReplaceTempView("a3"); b.createOrReplaceTempView("b3"); c.createOrReplaceTempView("c3")
    val keyText = if (keyed) "A.k = B.k AND B.k = C.k AND " else ""
    spark.sql(s"SELECT A.id AS aid, B.t AS bt, B.v AS bv, B.id AS bid, C.t AS ct, C.v AS cv, C.id AS cid " +
      s"FROM a3 A, b3 B, c3 C WHERE $keyText$sparkCondition").createOrReplaceTempView("inner3")
    val matched = spark.sql("SELECT A.* FROM a3 A LEFT SEMI JOIN inner3 M ON A.id = M.aid")
    val unmatched = spark.sql("SELECT A.* FROM a3 A LEFT ANTI JOIN inner3 M ON A.id = M.aid")
    val left = spark.sql("SELECT A.k, A.t, A.v, A.id, M.bt, M.bv, M.bid, M.ct, M.cv, M.cid " +
      "FROM a3 A LEFT JOIN inner3 M ON A.id = M.aid")
    assert(matched.count() > 0 && unmatched.count() > 0, windows)
    for ((how, expected) <- Seq("left" -> left, "left_semi" -> matched, "left_anti" -> unmatched);
         algorithm <- if (keyed) Seq("hw", "mw", "nlw") else Seq("mw", "nlw")) {
      val builder = WJoin("A" -> a, "B" -> b, "C" -> c).time("t").windows(windows).algorithm(algorithm).how(how)
      val got = (if (keyed) builder.on("k") else builder).toDF
      val shown = if (keyed || how != "left") got else got.drop($"B.k").drop($"C.k")
      assert(sorted(shown) == sorted(expected), s"$how $algorithm $windows")
    }
  }

  test("3 inputs, every window form: each anchor row in / not in Spark's 3-way inner join") {
    threeWay("WINDOW = 4", "abs(A.t - B.t) <= 4 AND abs(A.t - C.t) <= 4 AND abs(B.t - C.t) <= 4", keyed = true)
    threeWay("WINDOW(A,B) = 3 AND WINDOW(B,C) = 5", // Form 3: A-C implied (8)
      "abs(A.t - B.t) <= 3 AND abs(B.t - C.t) <= 5", keyed = true)
    threeWay("DWINDOW(A,B) = [1, 6] AND DWINDOW(B,C) = [-2, 3]",
      "B.t - A.t BETWEEN 1 AND 6 AND C.t - B.t BETWEEN -2 AND 3", keyed = true)
    threeWay("WINDOW = 6 AND RANGE(B) = 2",
      "abs(A.t - B.t) <= 6 AND abs(A.t - C.t) <= 6 AND abs(B.t - C.t) <= 6 AND greatest(A.t, B.t, C.t) - B.t <= 2",
      keyed = true)
    threeWay("DWINDOW(A,B) = 3 AND DWINDOW(B,C) = 3", "B.t - A.t BETWEEN 0 AND 3 AND C.t - B.t BETWEEN 0 AND 3",
      keyed = false)
  }

  test("SQL: USING LEFT ANTI JOIN, the WHERE clause is the join predicate") {
    val (a, b) = (input(8, 100, 5, 100, 0), input(9, 100, 5, 100, 1000))
    a.createOrReplaceTempView("cam1"); b.createOrReplaceTempView("cam2")
    for ((how, sql) <- Seq("left" -> "LEFT", "left" -> "LEFT OUTER", "left_semi" -> "LEFT SEMI",
        "left_anti" -> "LEFT ANTI")) {
      val got = spark.sql(s"SELECT * FROM cam1 A, cam2 B DWINDOW(A,B) = [0, 5] USING TIME t USING $sql JOIN " +
        "WHERE A.k = B.k AND B.v > 100")
      val api = WJoin("A" -> a, "B" -> b).on($"A.k" === $"B.k" && $"B.v" > 100).time("t")
        .windows("DWINDOW(A,B) = [0, 5]").how(how).toDF
      assert(sorted(got) == sorted(api), sql)
      assert(got.columns.length == (if (how == "left") 8 else 4))
    }
  }

  test("misuse: unknown how, bidirectional, filters above stay above") {
    val (a, b) = (input(10, 20, 2, 20, 0), input(11, 20, 2, 20, 1000))
    val e = intercept[WJoinAnalysisException](WJoin("A" -> a, "B" -> b).on("k").time("t").window("2").how("right").toDF)
    assert(e.getMessage.contains("unknown how 'right'; use one of inner, left, left_semi, left_anti"))
    val e2 = intercept[WJoinAnalysisException](WJoin("A" -> a, "B" -> b).on("k").time("t")
      .windows("DWINDOW(A,B) = 2").bidirectional(true).how("left_anti").toDF)
    assert(e2.getMessage.contains("bidirectional"))
    // A filter on B's columns above a left W-join filters its output (unmatched rows have NULL B.v).
    val left = WJoin("A" -> a, "B" -> b).on("k").time("t").window("3").how("left").toDF
    assert(left.where($"B.v".isNull).count() == left.where($"B.id".isNull).count())
    assert(left.where($"B.v".isNull).count() > 0)
    // A filter on A's columns moves into A.
    val anti = WJoin("A" -> a, "B" -> b).on("k").time("t").window("3").how("left_anti").toDF
    assert(sorted(anti.where($"A.v" > 500)) == sorted(anti).filter(_.split(",")(2).toInt > 500))
  }
}
