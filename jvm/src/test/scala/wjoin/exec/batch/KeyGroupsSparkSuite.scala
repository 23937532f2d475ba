package wjoin.exec
package batch

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.functions.{abs, col}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.{NullableRows, SharedSparkSession}
import wjoin.WJoin

/**
 * Key groups (`spark.wjoin.keyGroupRows`): partitions of a shuffled batch W-join that are
 * joined key by key give exactly the rows of the time order and of Spark's join, for every
 * hashed algorithm and `how`, NULL keys and times, few and many keys, int, long, date and
 * timestamp keys (also of different widths), string, decimal and several-column keys (grouped
 * by their hash); the metric counts them and EXPLAIN says so; a partition whose windows stay
 * small keeps the time order; bands, ROWS windows, NLW-join, small inputs and the setting -1
 * never plan key groups.
 */
class KeyGroupsSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {

  private val shuffled = Seq(WJoinConf.SmallInputBytesKey -> "-1", WJoinConf.BroadcastBytesKey -> "-1")

  private def execOf(plan: SparkPlan): WindowJoinExec = collect(plan) { case e: WindowJoinExec => e }.head

  /** The rows of `build`, its node and how many partitions were joined key by key, under `rows`. */
  private def run(rows: String)(build: => DataFrame): (Seq[String], WindowJoinExec, Long) =
    withConf(shuffled :+ (WJoinConf.KeyGroupRowsKey -> rows): _*) {
      val df = build
      val got = df.collect().map(_.mkString(",")).sorted.toSeq
      val node = execOf(df.queryExecution.executedPlan)
      (got, node, node.metrics.get("numKeyGroupedPartitions").fold(-1L)(_.value))
    }

  /** `build` joined key by key in every partition (setting 0): the time order's rows (setting -1). */
  private def sameAsTimeOrder(what: String)(build: => DataFrame): Seq[String] = {
    val (grouped, node, groupedPartitions) = run("0")(build)
    val (timed, timeNode, _) = run("-1")(build)
    assert(grouped == timed, s"$what: key groups differ from the time order")
    assert(node.keyGroups.contains(0L) && timeNode.keyGroups.isEmpty, s"$what: planned key groups ${node.keyGroups}")
    assert(node.partitioningText == "hash(keys), key groups in every partition (spark.wjoin.keyGroupRows 0)",
      node.partitioningText)
    assert(groupedPartitions > 0, s"$what: no partition was joined key by key")
    grouped
  }

  private def nullable(seed: Int, rows: Int, keys: Int, base: Int): DataFrame = NullableRows(spark, seed, rows, keys, 90, base)

  test("every hashed algorithm and how, NULL keys and times, few and many keys: key groups = time order") {
    for (keys <- Seq(1, 5, 300)) {
      val Seq(a, b, c) = Seq(1, 2, 3).map(s => nullable(s + keys, 240, keys, 1000 * s))
      for (windows <- Seq("WINDOW = 6", "DWINDOW(A,B) = [-2, 5] AND WINDOW(B,C) = 4");
           how <- Seq("inner", "left", "left_semi", "left_anti"); algorithm <- Seq("auto", "hw", "mw")) {
        val rows = sameAsTimeOrder(s"$keys keys, $windows, $how, $algorithm") {
          WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows(windows).algorithm(algorithm).how(how).toDF
        }
        assert(rows.nonEmpty, s"$keys keys $windows $how $algorithm: no rows prove little")
      }
    }
  }

  test("= Spark's join: 3 inputs, WINDOW = 5, 40 keys") {
    val Seq(a, b, c) = Seq(4, 5, 6).map(s => nullable(s, 300, 40, 1000 * s))
    a.createOrReplaceTempView("kg_a"); b.createOrReplaceTempView("kg_b"); c.createOrReplaceTempView("kg_c")
    val expected = spark.sql("SELECT A.k, A.t, A.v, A.id, B.t, B.v, B.id, C.t, C.v, C.id FROM kg_a A, kg_b B, kg_c C " +
      "WHERE A.k = B.k AND B.k = C.k AND abs(A.t - B.t) <= 5 AND abs(A.t - C.t) <= 5 AND abs(B.t - C.t) <= 5")
      .collect().map(_.mkString(",")).sorted.toSeq
    val got = sameAsTimeOrder("Spark's join")(WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 5").toDF)
    assert(expected.size > 100 && got == expected)
  }

  test("integral keys of other types and widths: int = long, date, timestamp, negative values") {
    val Seq(a, b, c) = Seq(7, 8, 9).map(s => nullable(s, 200, 12, 1000 * s).withColumn("k", col("k") - 6))
    val long = b.withColumn("k", col("k").cast("long") * 1L)
    sameAsTimeOrder("int = long")(WJoin("A" -> a, "B" -> long, "C" -> c).on("k").time("t").windows("WINDOW = 6").toDF)
    for (cast <- Seq("date_add(DATE'2026-01-01', k)", "timestamp_seconds(k)")) {
      val Seq(x, y, z) = Seq(a, b, c).map(_.selectExpr(s"$cast AS k", "t", "v", "id"))
      assert(sameAsTimeOrder(cast) {
        WJoin("A" -> x, "B" -> y, "C" -> z).on("k").time("t").windows("WINDOW = 6").how("left").toDF
      }.nonEmpty, cast)
    }
  }

  test("string, decimal and several-column keys, grouped by their hash: the time order's rows and Spark's") {
    val Seq(a, b, c) = Seq(19, 20, 21).map(s => nullable(s, 240, 25, 1000 * s))
    val keyed = Seq(
      "string" -> Seq("concat('key-', k) AS k"),
      "decimal" -> Seq("CAST(k AS DECIMAL(20, 2)) / 4 AS k"),
      "string and int" -> Seq("CAST(k % 4 AS STRING) AS k", "CAST(k / 4 AS INT) AS k2"))
    for ((what, keys) <- keyed; how <- Seq("inner", "left_anti"); algorithm <- Seq("hw", "mw")) {
      val Seq(x, y, z) = Seq(a, b, c).map(_.selectExpr(keys ++ Seq("t", "v", "id"): _*))
      val on = if (keys.size == 1) Seq("k") else Seq("k", "k2")
      val rows = sameAsTimeOrder(s"$what, $how, $algorithm") {
        WJoin("A" -> x, "B" -> y, "C" -> z).on(on: _*).time("t").windows("WINDOW = 6").how(how).algorithm(algorithm).toDF
      }
      assert(rows.nonEmpty, s"$what $how: no rows prove little")
    }
    val Seq(x, y, z) = Seq(a, b, c).map(_.selectExpr("concat('key-', k) AS k", "t", "v", "id"))
    x.createOrReplaceTempView("kgs_a"); y.createOrReplaceTempView("kgs_b"); z.createOrReplaceTempView("kgs_c")
    val expected = spark.sql("SELECT A.k, A.t, A.v, A.id, B.t, B.v, B.id, C.t, C.v, C.id FROM kgs_a A, kgs_b B, kgs_c C " +
      "WHERE A.k = B.k AND B.k = C.k AND abs(A.t - B.t) <= 6 AND abs(A.t - C.t) <= 6 AND abs(B.t - C.t) <= 6")
      .collect().map(_.mkString(",")).sorted.toSeq
    val got = sameAsTimeOrder("string, Spark's join")(WJoin("A" -> x, "B" -> y, "C" -> z).on("k").time("t").windows("WINDOW = 6").toDF)
    assert(expected.size > 50 && got == expected, s"${got.size} rows, Spark's join ${expected.size}")
  }

  test("the default: partitions whose windows would hold few rows keep the time order") {
    val Seq(a, b, c) = Seq(10, 11, 12).map(s => nullable(s, 400, 2000, 1000 * s))
    val (rows, node, grouped) = run(WJoinConf.KeyGroupRows.defaultValueString)(
      WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 6").toDF)
    assert(node.keyGroups.contains(100000L) && grouped == 0, s"$grouped partitions joined key by key")
    assert(node.partitioningText ==
      "hash(keys), key groups where a partition's windows would hold over 100000 rows (spark.wjoin.keyGroupRows)")
    val (all, _, allGrouped) = run("0")(WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 6").toDF)
    assert(rows == all && allGrouped > 0)
  }

  test("never planned: bands, ROWS windows, NLW-join, small inputs, the setting -1") {
    val Seq(a, b, c) = Seq(13, 14, 15).map(s => nullable(s, 150, 5, 1000 * s))
    def node(conf: Seq[(String, String)])(df: => DataFrame): WindowJoinExec =
      withConf(conf :+ (WJoinConf.KeyGroupRowsKey -> "0"): _*) { val d = df; d.collect(); execOf(d.queryExecution.executedPlan) }
    val band = node(shuffled)(WJoin("A" -> a, "B" -> b, "C" -> c).on("k")
      .on(abs(col("A.v") - col("B.v")) <= 40).time("t").windows("WINDOW = 6").toDF)
    val counted = node(shuffled)(WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("ROWS(B) = 5 AND WINDOW = 6").toDF)
    val nlw = node(shuffled)(WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 6").algorithm("nlw").toDF)
    val small = node(Seq(WJoinConf.SmallInputBytesKey -> "10MB", WJoinConf.BroadcastBytesKey -> "-1"))(
      WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 6").toDF)
    val off = withConf(shuffled :+ (WJoinConf.KeyGroupRowsKey -> "-1"): _*) {
      val d = WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 6").toDF
      d.collect(); execOf(d.queryExecution.executedPlan)
    }
    for ((what, n) <- Seq("band" -> band, "ROWS" -> counted, "nlw" -> nlw, "small" -> small, "off" -> off)) {
      assert(n.keyGroups.isEmpty && !n.partitioningText.contains("key groups"), s"$what: ${n.partitioningText}")
      assert(!n.metrics.contains("numKeyGroupedPartitions"), what)
    }
  }

  test("a key sort that spills merges its runs by key, then time: the same rows") {
    val Seq(a, b, c) = Seq(16, 17, 18).map(s => nullable(s, 400, 30, 1000 * s))
    val env = org.apache.spark.SparkEnv.get.conf
    val key = "spark.shuffle.spill.numElementsForceSpillThreshold"
    val old = env.getOption(key)
    env.set(key, "50") // every sorter created from here spills each 50 rows
    try assert(sameAsTimeOrder("spilled")(
      WJoin("A" -> a, "B" -> b, "C" -> c).on("k").time("t").windows("WINDOW = 8").how("left").toDF).nonEmpty)
    finally old.fold(env.remove(key))(env.set(key, _))
  }

  test("a wrong value of the setting fails naming its key") {
    val e = intercept[Exception](spark.conf.set(WJoinConf.KeyGroupRowsKey, "-2"))
    assert(e.getMessage.contains(WJoinConf.KeyGroupRowsKey), e.getMessage)
  }
}
