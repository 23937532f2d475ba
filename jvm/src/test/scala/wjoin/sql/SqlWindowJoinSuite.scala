package wjoin.sql

import java.sql.Timestamp

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.col
import org.scalatest.funsuite.AnyFunSuite

import wjoin.WJoin

import wjoin.exec.batch.WindowJoinExec
import wjoin.plan.logical.WindowJoin
import wjoin.testkit.SharedSparkSession

/**
 * Every SQL form of the W-join against the DataFrame API (`WJoin(...)`) on the same data:
 * the same multiset of rows, and the SQL statement really runs the W-join operator (not the
 * cross join its FROM clause would be without the window clause).
 */
class SqlWindowJoinSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {
  import spark.implicits._

  private val start = Timestamp.valueOf("2024-01-01 08:00:00").getTime

  /** A camera's sightings over one hour: (ObjID, ts, speed), 25 vehicles. */
  private def camera(seed: Int): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(250)((rnd.nextInt(25), new Timestamp(start + rnd.nextInt(3600) * 1000L), rnd.nextInt(120)))
      .toDF("ObjID", "ts", "speed")
  }

  /** Integral event times (sequence numbers), each input's time column named differently. */
  private def sequence(seed: Int, time: String): DataFrame = {
    val rnd = new scala.util.Random(seed)
    Seq.fill(150)((rnd.nextInt(4), rnd.nextInt(200).toLong, rnd.nextInt(1000))).toDF("k", time, "v")
  }

  private lazy val (cam1, cam2, cam3) = (camera(1), camera(2), camera(3))
  private lazy val (seqA, seqB, seqC) = (sequence(4, "t"), sequence(5, "t2"), sequence(6, "t"))

  override def beforeAll(): Unit = {
    super.beforeAll()
    Seq(cam1, cam2, cam3).zipWithIndex.foreach { case (df, i) => df.createOrReplaceTempView(s"Camera${i + 1}") }
    Seq(seqA, seqB, seqC).zip(Seq("a", "b", "c")).foreach { case (df, name) => df.createOrReplaceTempView(name) }
  }

  private def bag(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).sorted.toSeq

  private val sameObject: Column = col("A.ObjID") === col("B.ObjID") && col("B.ObjID") === col("C.ObjID")
  private val cameraColumns = Seq(col("A.ObjID"), col("A.ts"), col("B.ts"), col("C.ts"), col("C.speed"))

  private def cameraJoin(windows: String): DataFrame =
    WJoin("A" -> cam1, "B" -> cam2, "C" -> cam3).on(sameObject).time("ts").windows(windows).toDF
      .select(cameraColumns: _*)

  /** Runs `sql`, checks it plans our operator, and returns its rows as a sorted bag. */
  private def sqlBag(sql: String): Seq[String] = {
    val df = spark.sql(sql)
    assert(df.queryExecution.optimizedPlan.collect { case w: WindowJoin => w }.nonEmpty,
      s"no WindowJoin in\n${df.queryExecution.optimizedPlan}")
    bag(df)
  }

  private def execOf(df: DataFrame): WindowJoinExec = {
    df.collect()
    collect(df.queryExecution.executedPlan) { case e: WindowJoinExec => e }.head
  }

  private val camerasSelect = "SELECT A.ObjID, A.ts, B.ts, C.ts, C.speed FROM Camera1 A, Camera2 B, Camera3 C"
  private val camerasWhere = "WHERE A.ObjID = B.ObjID AND B.ObjID = C.ObjID"

  test("the papers' query: per-pair windows (Form 2)") {
    val expected = bag(cameraJoin("WINDOW(A,B) = 2 minutes AND WINDOW(B,C) = 3 minutes AND WINDOW(A,C) = 4 minutes"))
    assert(expected.size > 20)
    assert(sqlBag(
      s"""$camerasSelect
         |WINDOW(A,B) = INTERVAL 2 MINUTES AND WINDOW(B,C) = INTERVAL 3 MINUTES AND WINDOW(A,C) = INTERVAL 4 MINUTES
         |$camerasWhere""".stripMargin) == expected)
  }

  test("Form 1: WINDOW = length, with or without INTERVAL, in any case") {
    val expected = bag(cameraJoin("WINDOW = 3 minutes"))
    assert(expected.size > 20)
    for (window <- Seq("WINDOW = INTERVAL 3 MINUTES", "window = interval '3' minute", "WINDOW=3 minutes",
        "WINDOW = INTERVAL '3 minutes'", "WINDOW = INTERVAL 180 SECONDS", "WINDOW = INTERVAL '0 00:03:00' DAY TO SECOND",
        "WINDOW = INTERVAL '00:03' HOUR TO MINUTE"))
      assert(sqlBag(s"$camerasSelect $window $camerasWhere") == expected, window)
  }

  test("Form 3: a pair named nowhere gets the implied bound") {
    val expected = bag(cameraJoin("WINDOW(A,B) = 2 minutes AND WINDOW(B,C) = 3 minutes"))
    assert(sqlBag(s"$camerasSelect WINDOW(A,B) = INTERVAL 2 MINUTES AND WINDOW(B,C) = INTERVAL 3 MINUTES " +
      camerasWhere) == expected)
  }

  test("directed windows and travel-time intervals") {
    val path = bag(cameraJoin("DWINDOW(A,B) = 10 minutes AND DWINDOW(B,C) = 10 minutes"))
    assert(path.size > 5)
    assert(sqlBag(s"$camerasSelect DWINDOW(A,B) = INTERVAL 10 MINUTES AND DWINDOW(B,C) = INTERVAL 10 MINUTES " +
      camerasWhere) == path)
    val travel = bag(cameraJoin("DWINDOW(A,B) = [30 seconds, 10 minutes] AND DWINDOW(B,C) = [1 minute, 15 minutes]"))
    assert(travel.nonEmpty && travel != path)
    assert(sqlBag(
      s"""$camerasSelect
         |DWINDOW(A,B) = [INTERVAL 30 SECONDS, INTERVAL 10 MINUTES]
         |AND DWINDOW(B,C) = [INTERVAL '1' MINUTE, INTERVAL '15' MINUTES]
         |$camerasWhere""".stripMargin) == travel)
    assert(sqlBag(
      s"""$camerasSelect
         |DWINDOW(A,B) = [INTERVAL '00:30' MINUTE TO SECOND, INTERVAL '0 00:10:00' DAY TO SECOND]
         |AND DWINDOW(B,C) = [INTERVAL '01:00' MINUTE TO SECOND, INTERVAL '00:15' HOUR TO MINUTE]
         |$camerasWhere""".stripMargin) == travel)
  }

  test("any alias, backquoted in the window terms as in the FROM clause; the API's terms alike") {
    val expected = bag(cameraJoin("DWINDOW(A,B) = 10 minutes AND DWINDOW(B,C) = 10 minutes"))
    assert(expected.size > 5)
    // The same names in the API's terms, as its structured window forms write them (nameText).
    val names = Seq("Cam 1", "cam, 2 AND x", "C`3")
    val Seq(a, b, c) = names.map(wjoin.core.WindowTermParser.nameText)
    val api = WJoin(names(0) -> cam1, names(1) -> cam2, names(2) -> cam3)
      .on(col(s"$a.ObjID") === col(s"$b.ObjID") && col(s"$b.ObjID") === col(s"$c.ObjID")).time("ts")
      .windows(s"DWINDOW($a,$b) = 10 minutes AND DWINDOW($b,$c) = 10 minutes").toDF
      .select(col(s"$a.ObjID"), col(s"$a.ts"), col(s"$b.ts"), col(s"$c.ts"), col(s"$c.speed"))
    assert(bag(api) == expected)
    assert(sqlBag(
      s"""SELECT $a.ObjID, $a.ts, $b.ts, $c.ts, $c.speed FROM Camera1 $a, Camera2 $b, Camera3 $c
         |DWINDOW($a,$b) = INTERVAL 10 MINUTES AND DWINDOW(`cam, 2 AND x`, $c) = INTERVAL 10 MINUTES
         |WHERE $a.ObjID = $b.ObjID AND $b.ObjID = $c.ObjID""".stripMargin) == expected)
  }

  test("per-stream RANGE windows mixed with pairwise windows") {
    val expected = bag(cameraJoin("RANGE(B) = 1 minute AND WINDOW = 5 minutes"))
    assert(expected.nonEmpty && expected != bag(cameraJoin("WINDOW = 5 minutes")))
    assert(sqlBag(s"$camerasSelect RANGE(B) = INTERVAL 1 MINUTE AND WINDOW = INTERVAL 5 MINUTES $camerasWhere") ==
      expected)
  }

  test("integral time columns named per input with USING TIME, plain-number windows") {
    val api = WJoin("A" -> seqA, "B" -> seqB, "C" -> seqC).on(col("A.k") === col("B.k") && col("B.v") < col("C.v"))
      .time("t", "t2", "t").windows("WINDOW(A,B) = 3 AND DWINDOW(B,C) = [1, 4]").toDF
    val expected = bag(api)
    assert(expected.size > 20)
    assert(sqlBag(
      """SELECT * FROM a A, b B, c C WINDOW(A,B) = 3 AND DWINDOW(B,C) = [1, 4] USING TIME (A.t, B.t2, C.t)
        |WHERE A.k = B.k AND B.v < C.v""".stripMargin) == expected)
    // Names are matched like window-term names (case-insensitive), in any order.
    assert(sqlBag(
      """SELECT * FROM a A, b B, c C WINDOW(a,b) = 3 AND DWINDOW(b,c) = [1, 4] USING TIME (c.t, a.t, b.t2)
        |WHERE A.k = B.k AND B.v < C.v""".stripMargin) == expected)
  }

  test("one time column for all inputs; unaliased relations are named by their table") {
    val expected = bag(WJoin("a" -> seqA, "c" -> seqC).on("k").time("t").window("2").toDF.select("a.t", "c.t"))
    assert(expected.size > 20)
    assert(sqlBag("SELECT a.t, c.t FROM a, c WINDOW = 2 USING TIME t WHERE a.k = c.k") == expected)
  }

  test("JOIN ... ON and CROSS JOIN read like commas and WHERE") {
    val expected = bag(cameraJoin("WINDOW = 3 minutes"))
    val window = "WINDOW = INTERVAL 3 MINUTES"
    assert(sqlBag("SELECT A.ObjID, A.ts, B.ts, C.ts, C.speed FROM Camera1 A JOIN Camera2 B ON A.ObjID = B.ObjID " +
      s"INNER JOIN Camera3 C ON B.ObjID = C.ObjID $window") == expected)
    assert(sqlBag("SELECT A.ObjID, A.ts, B.ts, C.ts, C.speed FROM Camera1 A CROSS JOIN Camera2 B, Camera3 C " +
      s"$window $camerasWhere") == expected)
  }

  test("USING ALGORITHM picks the algorithm; auto picks hw when WHERE holds a shared key, EXPLAIN shows it") {
    val expected = bag(cameraJoin("WINDOW = 3 minutes"))
    for (algorithm <- Seq("auto", "nlw", "hw", "mw", "MW")) {
      val df = spark.sql(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES USING ALGORITHM $algorithm $camerasWhere")
      assert(bag(df) == expected, algorithm)
      assert(execOf(df).algorithm.name == (if (algorithm == "auto") "hw" else algorithm.toLowerCase), algorithm)
    }
    val explained = spark.sql(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES $camerasWhere")
      .queryExecution.explainString(SimpleMode)
    assert(explained.contains("WindowJoin hw (hash), inputs=[A, B, C]"), explained)
    assert(explained.contains("keys=(A.ObjID) = (B.ObjID) = (C.ObjID)"), explained)
    assert(explained.contains("windows=WINDOW = INTERVAL 3 MINUTES, matrix="), explained)
    // USING TIME and USING ALGORITHM in either order.
    assert(execOf(spark.sql(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES USING ALGORITHM nlw USING TIME ts " +
      camerasWhere)).algorithm.name == "nlw")
  }

  test("the same view twice, and a W-join of subqueries") {
    val expected = bag(WJoin("A" -> cam1, "B" -> cam1).on(col("A.ObjID") === col("B.ObjID") &&
      col("A.speed") < col("B.speed")).time("ts").window("2 minutes").toDF.select("A.ts", "B.ts"))
    assert(expected.nonEmpty)
    assert(sqlBag("SELECT A.ts, B.ts FROM Camera1 A, Camera1 B WINDOW = INTERVAL 2 MINUTES " +
      "WHERE A.ObjID = B.ObjID AND A.speed < B.speed") == expected)
    assert(sqlBag("SELECT A.ts, B.ts FROM (SELECT * FROM Camera1) A, (SELECT ObjID, ts, speed FROM Camera1) AS B " +
      "WINDOW = INTERVAL 2 MINUTES WHERE A.ObjID = B.ObjID AND A.speed < B.speed") == expected)
  }

  test("W-joins in a CTE, a subquery, a UNION (both directions of a path) and an aggregate") {
    val forward = cameraJoin("DWINDOW(A,B) = 10 minutes AND DWINDOW(B,C) = 10 minutes")
    val backward = cameraJoin("DWINDOW(C,B) = 10 minutes AND DWINDOW(B,A) = 10 minutes")
    val both = bag(forward.union(backward))
    assert(sqlBag(
      s"""$camerasSelect DWINDOW(A,B) = INTERVAL 10 MINUTES AND DWINDOW(B,C) = INTERVAL 10 MINUTES $camerasWhere
         |UNION ALL
         |$camerasSelect DWINDOW(C,B) = INTERVAL 10 MINUTES AND DWINDOW(B,A) = INTERVAL 10 MINUTES $camerasWhere
         |""".stripMargin) == both)
    val inCte = spark.sql(
      s"""WITH journeys AS ($camerasSelect DWINDOW(A,B) = INTERVAL 10 MINUTES AND DWINDOW(B,C) = INTERVAL 10 MINUTES
         |  $camerasWhere)
         |SELECT ObjID, count(*) AS n FROM journeys GROUP BY ObjID""".stripMargin)
    assert(bag(inCte) == bag(forward.groupBy(col("A.ObjID")).count()))
    val inSubquery = spark.sql(
      s"""SELECT DISTINCT ObjID FROM Camera1 WHERE ObjID IN (
         |  SELECT A.ObjID FROM Camera1 A, Camera2 B DWINDOW(A,B) = INTERVAL 1 MINUTE WHERE A.ObjID = B.ObjID)
         |""".stripMargin)
    val pairs = WJoin("A" -> cam1, "B" -> cam2).on("ObjID").time("ts").windows("DWINDOW(A,B) = 1 minute").toDF
    assert(bag(inSubquery) == bag(pairs.select("ObjID").distinct()))
  }

  test("views and cached tables defined by a W-join keep their window clause") {
    val expected = bag(cameraJoin("WINDOW(A,B) = 2 minutes AND WINDOW(B,C) = 3 minutes"))
    val query = "SELECT A.ObjID, A.ts AS a_ts, B.ts AS b_ts, C.ts AS c_ts, C.speed FROM Camera1 A, Camera2 B, " +
      s"Camera3 C WINDOW(A,B) = INTERVAL 2 MINUTES\n  AND WINDOW(B,C) = INTERVAL 3 MINUTES $camerasWhere"
    spark.sql(s"CREATE OR REPLACE TEMP VIEW journeys AS $query")
    assert(sqlBag("SELECT * FROM journeys") == expected)
    // A persistent view may only read tables: the cameras as external tables in a scratch folder.
    val folder = java.nio.file.Files.createTempDirectory("wjoin-sql")
    try {
      for (i <- 1 to 3) spark.sql(s"CREATE TABLE camera${i}_table USING parquet LOCATION '$folder/camera$i' " +
        s"AS SELECT * FROM Camera$i")
      spark.sql(s"CREATE VIEW journeys_view AS ${query.replaceAll("(Camera\\d)", "$1_table")}")
      assert(sqlBag("SELECT * FROM journeys_view") == expected)
    } finally {
      spark.sql("DROP VIEW IF EXISTS journeys_view")
      for (i <- 1 to 3) spark.sql(s"DROP TABLE IF EXISTS camera${i}_table")
      java.nio.file.Files.walk(folder).sorted(java.util.Comparator.reverseOrder()).forEach(p => p.toFile.delete())
    }
    spark.sql(s"CACHE TABLE journeys_cached AS $query")
    try assert(bag(spark.table("journeys_cached")) == expected)
    finally spark.sql("UNCACHE TABLE journeys_cached")
  }

  test("EXPLAIN of a W-join, and parameter markers elsewhere in the statement") {
    val explained = spark.sql(s"EXPLAIN $camerasSelect WINDOW = INTERVAL 3 MINUTES $camerasWhere").collect()
      .head.getString(0)
    assert(explained.contains("WindowJoin hw (hash)"), explained)
    val expected = bag(cameraJoin("WINDOW = 3 minutes").where(col("C.speed") > 50))
    val named = spark.sql(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES $camerasWhere AND C.speed > :min",
      Map("min" -> 50))
    assert(bag(named) == expected)
    val positional = spark.sql(s"SELECT ? AS tag, A.ObjID FROM Camera1 A, Camera2 B WINDOW = INTERVAL 3 MINUTES " +
      "WHERE A.ObjID = B.ObjID AND B.speed > ?", Array[Any]("x", 50))
    assert(positional.count() == WJoin("A" -> cam1, "B" -> cam2).on("ObjID").time("ts").window("3 minutes").toDF
      .where(col("B.speed") > 50).count())
  }

  test("a W-join and Spark's named window in one statement; ${var} substitution in a length") {
    val pairs = WJoin("A" -> seqA, "B" -> seqB).on("k").time("t", "t2").window("3").toDF
    val expected = bag(pairs.groupBy("k").count().join(pairs.select("k"), "k"))
    assert(sqlBag("SELECT A.k, count(*) OVER w FROM a A, b B WINDOW(A,B) = 3 USING TIME (A.t, B.t2) " +
      "WHERE A.k = B.k WINDOW w AS (PARTITION BY A.k)") == expected)
    spark.conf.set("wjoin.test.window", "INTERVAL 3 MINUTES")
    try assert(sqlBag(s"$camerasSelect WINDOW = $${wjoin.test.window} $camerasWhere") ==
      bag(cameraJoin("WINDOW = 3 minutes")))
    finally spark.conf.unset("wjoin.test.window")
  }

  test("the default time column is each input's only timestamp column") {
    assert(sqlBag(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES USING TIME ts $camerasWhere") ==
      sqlBag(s"$camerasSelect WINDOW = INTERVAL 3 MINUTES $camerasWhere"))
  }
}
