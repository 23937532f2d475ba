package wjoin.request

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.wjoin.SparkBridge
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.Durations
import wjoin.errors.WJoinAnalysisException
import wjoin.plan.logical.WindowJoinBuilder
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/** The W-join from plain-data arguments (what the Python package sends): every check is the JVM's. */
class RequestCodecSuite extends AnyFunSuite with SharedSparkSession {
  private lazy val a = spark.range(0, 20).selectExpr("id % 3 AS k", "id AS ts", "id AS at")
  private lazy val b = spark.range(0, 20).selectExpr("id % 3 AS k", "id AS seen", "id * 2 AS v")
  private def error(f: => Any): String = intercept[WJoinAnalysisException](f).getMessage

  /** The W-join of a and b from the map `entries`, as the Python package asks for it. */
  private def joined(entries: (String, AnyRef)*): DataFrame =
    WJoin.fromArguments(java.util.Arrays.asList(a, b), entries.toMap.asJava)

  test("a map of plain data builds the same W-join as the builder") {
    val args = java.util.Map.of[String, AnyRef]("names", java.util.Arrays.asList("P", "Q"), "on", java.util.Arrays.asList("k"),
      "time", java.util.Map.of("q", "seen", "P", "ts"), "windows", java.util.Arrays.asList("DWINDOW(P,Q) = [1, 3]"),
      "algorithm", "MW", "bidirectional", java.lang.Boolean.FALSE)
    val joined = WJoin.fromArguments(java.util.Arrays.asList(a, b), args)
    val built = WJoin("P" -> a, "Q" -> b).on("k").time("ts", "seen").windows("DWINDOW(P,Q) = [1, 3]")
      .algorithm("mw").toDF
    assert(joined.collect().toSeq.map(_.toString).sorted == built.collect().toSeq.map(_.toString).sorted)
    assert(joined.count() > 0)
  }

  test("limits, allocation and seed as plain data (java maps and boxed numbers, as py4j sends them)") {
    val limits = java.util.Map.of[String, AnyRef]("state_rows", Integer.valueOf(4), "probe_rate", java.lang.Double.valueOf(0.5))
    val perBudget = java.util.Map.of[String, AnyRef]("state_rows", java.util.Map.of("A", Integer.valueOf(1)),
      "probe_rate", java.util.Map.of("b", java.lang.Double.valueOf(2.0)))
    val entries = Seq("on" -> java.util.Arrays.asList("k"), "time" -> java.util.Arrays.asList("ts", "seen"), "window" -> "3",
      "limits" -> limits, "allocation" -> perBudget, "seed" -> java.lang.Long.valueOf(9))
    val request = RequestCodec.fromMap(Nil, entries.toMap[String, AnyRef].asJava, _ => None)
    val resolved = request.limits.resolve(Seq("A", "B")).get
    assert(resolved.stateRows.contains(4L) && resolved.probeRate.contains(0.5) && resolved.seed == 9L)
    assert(resolved.allocation == wjoin.core.shedding.Allocation.Shares(IndexedSeq(1.0, 0.0), IndexedSeq(0.0, 1.0)))
    val df = joined(entries: _*)
    val exact = joined("on" -> java.util.Arrays.asList("k"), "time" -> java.util.Arrays.asList("ts", "seen"), "window" -> "3")
    assert(df.count() <= exact.count())
    assert(error(joined("limits" -> limits, "allocation" -> java.lang.Integer.valueOf(3), "window" -> "3",
      "time" -> java.util.Arrays.asList("ts", "seen"))).contains("allocation: expected \"auto\""))
  }

  test("time per input: by position or by input name, every input once") {
    def build(time: TimeColumns, names: Seq[String] = Seq("A", "B")): DataFrame =
      SparkBridge.toDataFrame(spark, WindowJoinBuilder.build(WJoinRequest(Seq(a, b).map(SparkBridge.analyzedPlan),
        Some(names), Seq("k"), time = time, window = Some("2"))))
    assert(build(TimeColumns.PerInput(Seq("ts", "seen"))).count() == build(TimeColumns.ByInput(
      Seq("B" -> "seen", "a" -> "ts"))).count())
    assert(error(build(TimeColumns.PerInput(Seq("ts")))).contains("time: got 1 columns for 2 inputs"))
    assert(error(build(TimeColumns.ByInput(Seq("A" -> "ts", "Z" -> "ts")))).contains(
      "time: unknown input(s) Z; the inputs are A, B"))
    assert(error(build(TimeColumns.ByInput(Seq("A" -> "ts")))).contains("time: no time column for input(s) B"))
    assert(error(build(TimeColumns.ByInput(Seq("A" -> "ts", "a" -> "at", "B" -> "seen")))).contains(
      "time: input A is given twice"))
  }

  test("values are checked once, in the JVM, naming the argument") {
    def build(entries: (String, AnyRef)*): DataFrame =
      joined(Seq("on" -> java.util.Arrays.asList("k"), "time" -> java.util.Arrays.asList("ts", "seen")) ++ entries: _*)
    assert(error(build("window" -> "2.5")).contains("window: the time column is integral, so give a whole number"))
    assert(error(build("window" -> "1", "algorithm" -> "fast")).contains("unknown algorithm 'fast'"))
    assert(error(build("windows" -> java.util.Collections.emptyList[String]())).contains("the window constraints are empty"))
    assert(error(build("window" -> "1", "access_paths" -> "fastest")).contains("access path entry 'fastest'"))
    assert(error(build("window" -> "1", "names" -> java.util.Arrays.asList("x", "X"))).contains("x / X is used twice"))
    assert(error(joined("windowz" -> "1")).contains("unknown W-join arguments windowz"))
    assert(error(joined("time" -> Integer.valueOf(3))).contains("time: expected a column name"))
    assert(error(build("window" -> "1", "how" -> "full")).contains(
      "unknown how 'full'; use one of inner, left, left_semi, left_anti"))
    assert(error(build("window" -> "1", "how" -> Integer.valueOf(1))).contains("how: expected a string"))
    assert(build("window" -> "1", "how" -> "LEFT_ANTI").columns.toSeq == Seq("k", "ts", "at"),
      "the anchor's columns only (the key once, first)")
  }

  test("lengths: a bare number on timestamps names the number; errors quote the text") {
    assert(error(Durations.parse("5", integralTime = false, "window")).contains(
      "window: the time columns are timestamps, so the bare number 5 needs a unit"))
    assert(error(Durations.parse("1 month", integralTime = false, "window")).contains(
      "unknown unit 'month' (use microseconds .. weeks; months and years have no fixed length), got '1 month'"))
    assert(Durations.parse("1e3", integralTime = true, "window") == 1000)
  }

  test("choices") {
    assert(WJoin.choices("algorithm").asScala == Seq("auto", "nlw", "hw", "mw"))
    assert(WJoin.choices("window_strategy").asScala == Seq("auto", "exact", "gca", "lca"))
    assert(WJoin.choices("access_paths").asScala == Seq("scan", "hash", "ttree", "bplustree", "hash+ttree", "hash+bplustree"))
    assert(WJoin.choices("how").asScala == Seq("inner", "left", "left_semi", "left_anti"))
  }
}
