package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{CoalesceExec, SimpleMode, SortExec, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike
import org.apache.spark.sql.functions.{abs, col}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.exec.batch.WindowJoinExec
import wjoin.testkit.{NullableRows, SharedSparkSession}
import wjoin.WJoin

/**
 * The small-input plan (`spark.wjoin.smallInputBytes`): one task, no Exchange, exactly the
 * rows of the shuffled plans (the setting -1) for keyed and keyless W-joins, every algorithm
 * and `how`, ROWS windows and resource limits, with NULL keys and times; EXPLAIN says which
 * plan and why; large inputs are still shuffled; bad values fail naming the key.
 */
class SmallInputSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {

  /** Rows (k, t, v, id) with some NULL keys and NULL times; in two partitions (local data). */
  private def input(seed: Int, rows: Int, keys: Int, maxTime: Int, idBase: Int): DataFrame =
    NullableRows(spark, seed, rows, keys, maxTime, idBase)

  private val ins = Seq(input(1, 120, 4, 80, 0), input(2, 120, 4, 80, 1000), input(3, 120, 4, 80, 2000))

  /** The rows of `build` and the plan that gave them, planned and run under `small` (-1: off). */
  private def run(small: String)(build: => DataFrame): (Seq[String], SparkPlan) =
    withConf(WJoinConf.SmallInputBytesKey -> small) {
      val df = build
      (df.collect().map(_.mkString(",")).sorted.toSeq, df.queryExecution.executedPlan)
    }

  private def exchanges(plan: SparkPlan): Seq[SparkPlan] = collect(plan) { case e: ShuffleExchangeLike => e }
  private def execOf(plan: SparkPlan): WindowJoinExec = collect(plan) { case e: WindowJoinExec => e }.head

  /** `build` small and shuffled: the same rows; no Exchange in one task, one when shuffled. */
  private def sameAsShuffled(what: String)(build: => DataFrame): Seq[String] = {
    val (small, smallPlan) = run("10MB")(build)
    val (shuffled, shuffledPlan) = run("-1")(build)
    assert(small == shuffled, s"$what: the single task differs from the shuffled plan")
    val exec = execOf(smallPlan)
    assert(exchanges(smallPlan).isEmpty, s"$what: an Exchange in the small-input plan\n$smallPlan")
    assert(exec.singleTask && exec.partitioningText.startsWith("single task (inputs "), exec.partitioningText)
    val coalesced = collect(smallPlan) { case c: CoalesceExec => c }
    assert(coalesced.size == exec.children.size && coalesced.forall(_.numPartitions == 1),
      s"$what: each input under a Coalesce 1\n$smallPlan")
    assert(exec.children.forall(_.exists(_.isInstanceOf[SortExec])), s"$what: each input sorted in the task")
    // Time bands shuffle inside the node (TimeBandShuffle); every other plan through an Exchange.
    val shuffledExec = execOf(shuffledPlan)
    assert(exchanges(shuffledPlan).nonEmpty || shuffledExec.banded, s"$what: no shuffle with the setting -1\n$shuffledPlan")
    assert(!shuffledExec.singleTask && shuffledExec.inputSize.isEmpty)
    small
  }

  test("keyed: every algorithm and how, NULL keys and times, WINDOW and DWINDOW: one task = shuffled plan") {
    for (windows <- Seq("WINDOW = 6", "DWINDOW(A,B) = [-2, 5] AND WINDOW(B,C) = 4");
         how <- Seq("inner", "left", "left_semi", "left_anti"); algorithm <- Seq("auto", "hw", "mw", "nlw")) {
      val rows = sameAsShuffled(s"$windows $how $algorithm") {
        WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).on("k").time("t").windows(windows)
          .algorithm(algorithm).how(how).toDF
      }
      assert(rows.nonEmpty, s"$windows $how $algorithm")
      // Anchor rows with a NULL key or time never match: left and left_anti keep them.
      assert(rows.exists(_.contains("null")) == (how != "left_semi" && how != "inner"), s"$how: $rows")
    }
  }

  test("keyless: time bands, or one partition for how != inner, and a residual: one task = shuffled plan") {
    withConf(WJoinConf.TimeBandsKey -> "4") {
      for (how <- Seq("inner", "left", "left_semi", "left_anti"); algorithm <- Seq("mw", "nlw")) {
        val rows = sameAsShuffled(s"keyless $how $algorithm") {
          WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).on(abs(col("A.v") - col("B.v")) <= 300)
            .time("t").windows("WINDOW = 4").algorithm(algorithm).how(how).toDF
        }
        assert(rows.nonEmpty, s"keyless $how $algorithm")
      }
      val (_, banded) = run("-1")(WJoin("A" -> ins(0), "B" -> ins(1)).time("t").window("4").algorithm("mw").toDF)
      assert(execOf(banded).banded, "the shuffled keyless inner join is banded: the comparison covers the bands")
    }
  }

  test("ROWS windows (counted over the whole input) and keys: one task = shuffled plan") {
    for (algorithm <- Seq("hw", "mw")) {
      val rows = sameAsShuffled(s"rows $algorithm") {
        WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).on("k").time("t")
          .windows("WINDOW = 8 AND ROWS(B) = 3").algorithm(algorithm).toDF
      }
      assert(rows.nonEmpty)
    }
  }

  test("resource limits budget the one task as one partition: the shuffled plan in one partition, same rows") {
    for (keyed <- Seq(true, false)) {
      def build: DataFrame = {
        val b = WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).time("t").window("6").algorithm("mw")
          .limits(Map("state_rows" -> 30, "probe_rate" -> 3.0)).allocation("equal").seed(5)
        (if (keyed) b.on("k") else b).toDF
      }
      val (small, plan) = run("10MB")(build)
      // Without AQE: after the shuffle, AQE re-plans the W-join from the shuffle's statistics (no
      // longer the local rows), so its budgets would rest on other estimates.
      val (onePartition, _) = withConf("spark.sql.shuffle.partitions" -> "1", "spark.sql.adaptive.enabled" -> "false")(
        run("-1")(build))
      assert(small == onePartition, s"keyed=$keyed")
      val (exact, _) = run("10MB") {
        val b = WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).time("t").window("6").algorithm("mw")
        (if (keyed) b.on("k") else b).toDF
      }
      assert(small.nonEmpty && small.size < exact.size && small.forall(exact.contains),
        s"keyed=$keyed: ${small.size} of ${exact.size} rows: not a shed sub-bag")
      val budgets = execOf(plan).planned.shed.get
      val (_, sevenPlan) = run("-1")(build)
      if (keyed) assert(budgets != execOf(sevenPlan).planned.shed.get, "7 hash partitions budget each one less")
    }
  }

  test("many input partitions are read by the one task; an empty input too") {
    val cached = ins.map(_.repartition(4).cache())
    try {
      cached.foreach(_.count())
      val rows = sameAsShuffled("cached, 4 partitions each") {
        WJoin("A" -> cached(0), "B" -> cached(1), "C" -> cached(2)).on("k").time("t").window("6").toDF
      }
      val (_, plan) = run("10MB")(WJoin("A" -> cached(0), "B" -> cached(1)).on("k").time("t").window("6").toDF)
      assert(plan.execute().getNumPartitions == 1)
      assert(rows.nonEmpty)
      val (none, _) = run("10MB")(WJoin("A" -> cached(0), "B" -> cached(1).filter("v < 0")).on("k").time("t")
        .window("6").how("left").toDF)
      assert(none.size == ins(0).count(), "left W-join with an empty input: every anchor row once")
    } finally cached.foreach(_.unpersist())
  }

  test("EXPLAIN says which plan and why; large inputs and the setting -1 are shuffled") {
    def explain(small: String, a: DataFrame, b: DataFrame): String = withConf(WJoinConf.SmallInputBytesKey -> small) {
      WJoin("A" -> a, "B" -> b).on("k").time("t").window("6").toDF.queryExecution.explainString(SimpleMode)
    }
    val one = explain("10MB", ins(0), ins(1))
    assert("partitioning=single task \\(inputs [0-9.]+ KiB <= spark.wjoin.smallInputBytes 10.0 MiB\\)".r
      .findFirstIn(one).isDefined, one)
    assert(one.contains("Coalesce 1") && !one.contains("Exchange"), one)
    val over = explain("1k", ins(0), ins(1))
    assert("partitioning=hash\\(keys\\) \\(inputs [0-9.]+ KiB > spark.wjoin.smallInputBytes 1024.0 B\\)".r
      .findFirstIn(over).isDefined, over)
    assert(over.contains("Exchange hashpartitioning"), over)
    val off = explain("-1", ins(0), ins(1))
    assert(off.contains("partitioning=hash(keys), key groups where a partition's windows would hold over 100000 rows " +
      "(spark.wjoin.keyGroupRows)"), off)
    // 2 x 2M generated rows: Spark estimates tens of MiB, over the default. Planned, not run.
    val big = spark.range(0, 2000000, 1, 4).select((col("id") % 100).as("k"), col("id").as("t"), col("id").as("v"))
    val large = withConf(WJoinConf.SmallInputBytesKey -> "10MB")(WJoin("A" -> big, "B" -> big).on("k").time("t").window("6").toDF
      .queryExecution.explainString(SimpleMode))
    assert(large.contains("> spark.wjoin.smallInputBytes 10.0 MiB)") && large.contains("Exchange hashpartitioning"),
      large)
    // An RDD-backed input has no size estimate (Spark's default size): never small.
    val rdd = spark.createDataFrame(ins(0).rdd, ins(0).schema)
    val unsized = explain("10MB", rdd, ins(1))
    assert(unsized.contains("partitioning=hash(keys) (input size unknown to Spark > spark.wjoin.smallInputBytes " +
      "10.0 MiB)") && unsized.contains("Exchange hashpartitioning"), unsized)
  }

  test("adaptive execution decides again after the shuffle, from its real size: a filtered large input, same rows") {
    // Spark estimates a Filter at its child's size (tens of MiB here); 4,000 rows remain.
    val big = spark.range(0, 4000000, 1, 4).filter("id % 1000 = 0")
      .select((col("id") % 7).as("k"), (col("id") / 1000).cast("long").as("t"))
    def build = WJoin("A" -> big, "B" -> big).on("k").time("t").window("20").toDF
    val (rows, plan) = run("10MB")(build)
    val (shuffled, _) = run("-1")(build)
    assert(rows.nonEmpty && rows == shuffled)
    val exec = execOf(plan)
    assert(exec.singleTask && exec.partitioningText.startsWith("single task (inputs "), exec.partitioningText)
    assert(exchanges(plan).nonEmpty, s"the shuffle ran before the re-planning\n$plan")
  }

  test("a bad spark.wjoin.smallInputBytes fails when set, naming the key") {
    for (bad <- Seq("-5", "lots")) {
      val e = intercept[Exception](spark.conf.set(WJoinConf.SmallInputBytesKey, bad))
      assert(e.getMessage.contains(WJoinConf.SmallInputBytesKey), e.getMessage)
    }
    val e = intercept[Exception](spark.conf.set(WJoinConf.SmallInputBytesKey, "-5"))
    assert(e.getMessage.contains("must be a size in bytes >= 0 (e.g. 10MB), or -1"), e.getMessage)
  }
}
