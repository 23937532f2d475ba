package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.{SimpleMode, SparkPlan}
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.{BroadcastExchangeLike, ShuffleExchangeLike}
import org.apache.spark.sql.functions.{abs, col}
import org.apache.spark.sql.wjoin.WJoinConf
import org.scalatest.funsuite.AnyFunSuite

import wjoin.exec.batch.{BroadcastWindowCache, BroadcastWindowJoinExec, WindowJoinExec}
import wjoin.plan.physical.BroadcastFallback
import wjoin.testkit.{NullableRows, SharedSparkSession}
import wjoin.WJoin

/**
 * The broadcast plan (`spark.wjoin.broadcastBytes`): every input but the largest broadcast,
 * the largest streamed without a shuffle; exactly the rows of the shuffled plans (the setting
 * -1) and of Spark's own join, for keyed and keyless W-joins, window shapes, residuals, NULL
 * keys and times; the broadcast inputs indexed once per executor for all its tasks; the plans
 * it does not apply to keep the shuffle; EXPLAIN says which plan and why.
 */
class BroadcastWindowJoinSparkSuite extends AnyFunSuite with SharedSparkSession with AdaptiveSparkPlanHelper {

  override def afterAll(): Unit = {
    BroadcastWindowCache.clear() // the JVM's other suites count the storage memory reserved
    super.afterAll()
  }

  private def input(seed: Int, rows: Int, keys: Int, maxTime: Int, idBase: Int): DataFrame =
    NullableRows(spark, seed, rows, keys, maxTime, idBase)

  // A is the largest: the streamed input.
  private lazy val ins = Seq(input(1, 600, 5, 120, 0), input(2, 150, 5, 120, 1000), input(3, 150, 5, 120, 2000))

  /** The rows of `build` and its executed plan, planned and run with the setting `bytes` (-1: off). */
  private def run(bytes: String)(build: => DataFrame): (Seq[String], SparkPlan) =
    withConf(WJoinConf.BroadcastBytesKey -> bytes) {
      val df = build
      (df.collect().map(_.mkString(",")).sorted.toSeq, df.queryExecution.executedPlan)
    }

  private def broadcastOf(plan: SparkPlan): Option[BroadcastWindowJoinExec] =
    collect(plan) { case e: BroadcastWindowJoinExec => e }.headOption

  /** `build` broadcast and shuffled: the same rows; the broadcast plan streams A without a shuffle. */
  private def sameAsShuffled(what: String)(build: => DataFrame): Seq[String] = {
    val (broadcast, plan) = run("10MB")(build)
    val (shuffled, shuffledPlan) = run("-1")(build)
    assert(broadcast == shuffled, s"$what: the broadcast plan differs from the shuffled one")
    val exec = broadcastOf(plan).getOrElse(fail(s"$what: no broadcast plan\n$plan"))
    assert(exec.broadcast.streamed == 0, exec.partitioningText)
    assert(collect(plan) { case s: ShuffleExchangeLike => s }.isEmpty, s"$what: a shuffle\n$plan")
    assert(collect(plan) { case b: BroadcastExchangeLike => b }.size == exec.children.size - 1, s"$what\n$plan")
    assert(broadcastOf(shuffledPlan).isEmpty && collect(shuffledPlan) { case e: WindowJoinExec => e }.nonEmpty)
    broadcast
  }

  test("keyed and keyless, window shapes, residuals, NULL keys and times: broadcast = shuffled plan") {
    withConf(WJoinConf.TimeBandsKey -> "4") {
      for (windows <- Seq("WINDOW = 6", "DWINDOW(A,B) = [-2, 5] AND WINDOW(B,C) = 4", "WINDOW(A,B) = 3 AND WINDOW(A,C) = 9");
           keyed <- Seq(true, false); residual <- Seq(false, true)) {
        val rows = sameAsShuffled(s"$windows keyed=$keyed residual=$residual") {
          val b = WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).time("t").windows(windows)
          val on = Seq(if (keyed) Some(col("A.k") === col("B.k") && col("B.k") === col("C.k")) else None,
            // Not a band: a band gets keyed trees, which a broadcast does not take (a test below).
            if (residual) Some((col("A.v") + col("B.v") + col("C.v")) % 3 =!= 0) else None).flatten
          (if (on.isEmpty) b else b.on(on.reduce(_ && _))).toDF
        }
        assert(rows.nonEmpty, s"$windows keyed=$keyed residual=$residual")
      }
    }
  }

  test("two inputs: the rows of Spark's own join") {
    val (rows, plan) = run("10MB")(WJoin("A" -> ins(0), "B" -> ins(1)).on("k").time("t").window("5").toDF)
    assert(broadcastOf(plan).isDefined, plan.toString)
    val ids = rows.map(_.split(",")).map(r => s"${r(3)},${r(6)}").sorted // k, A's t v id, B's t v id
    val a = ins(0).as("A")
    val b = ins(1).as("B")
    val builtIn = a.join(b, col("A.k") === col("B.k") && abs(col("A.t") - col("B.t")) <= 5)
      .select(col("A.id"), col("B.id")).collect().map(_.mkString(",")).sorted.toSeq
    assert(ids == builtIn && ids.nonEmpty)
  }

  test("the streamed input's tasks share one index per executor: built once, whatever the partitions") {
    val big = spark.range(0, 40000, 1, 6).select((col("id") % 50).as("k"), (col("id") / 4).cast("long").as("t"), col("id").as("v"))
    val small = spark.range(0, 2000, 1, 2).select((col("id") % 50).as("k"), (col("id") * 5).as("t"), col("id").as("w"))
    def build = WJoin("A" -> big, "B" -> small).on("k").time("t").window("20").toDF
    BroadcastWindowCache.clear()
    val (rows, plan) = run("10MB")(build)
    val (shuffled, _) = run("-1")(build)
    val count = rows.size.toLong
    assert(rows == shuffled && count > 0)
    val exec = broadcastOf(plan).get
    assert(exec.metrics("numBroadcastBuilds").value == 1, "six tasks, one local executor, one broadcast input: one build")
    assert(exec.metrics("numInputRows1").value == 2000)
    assert(exec.metrics("numInputRows0").value == 40000)
    assert(exec.metrics("numOutputRows").value == count)
    assert(BroadcastWindowCache.size >= 1 && BroadcastWindowCache.sharedBytes > 0, "the index is storage memory")
    // Two broadcast inputs, six tasks: each input indexed once (by the first tasks, in parallel).
    def three = WJoin("A" -> big, "B" -> small, "C" -> small.withColumnRenamed("w", "u")).on("k").time("t").window("20").toDF
    val (rows3, plan3) = run("10MB")(three)
    assert(rows3 == run("-1")(three)._1 && rows3.nonEmpty)
    assert(broadcastOf(plan3).get.metrics("numBroadcastBuilds").value == 2)
  }

  test("inputs over the setting, anchors, ROWS windows, limits and requested algorithms keep the shuffle") {
    def planned(bytes: String)(df: => DataFrame): Boolean = withConf(WJoinConf.BroadcastBytesKey -> bytes) {
      broadcastOf(df.queryExecution.executedPlan).isDefined
    }
    val j = WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).on("k").time("t")
    assert(planned("10MB")(j.window("6").toDF))
    assert(!planned("1k")(j.window("6").toDF), "the broadcast inputs are over 1 KiB")
    assert(!planned("-1")(j.window("6").toDF))
    for (how <- Seq("left", "left_semi", "left_anti")) assert(!planned("10MB")(j.window("6").how(how).toDF), how)
    assert(!planned("10MB")(j.windows("WINDOW = 6 AND ROWS(B) = 3").toDF))
    assert(!planned("10MB")(j.window("6").algorithm("mw").toDF))
    assert(!planned("10MB")(j.window("6").limits(Map("state_rows" -> 30)).toDF))
    // A band searched by a tree would index a whole broadcast input, not its window.
    val band = WJoin("A" -> ins(0), "B" -> ins(1)).on(abs(col("A.v") - col("B.v")) <= 2).time("t").window("100")
    assert(!planned("10MB")(band.accessPaths("auto, B:ttree").toDF))
    // Spark's threshold is the default.
    withConf("spark.sql.autoBroadcastJoinThreshold" -> "-1") {
      spark.conf.unset(WJoinConf.BroadcastBytesKey)
      assert(broadcastOf(j.window("6").toDF.queryExecution.executedPlan).isEmpty)
    }
  }

  test("EXPLAIN names the plan, the broadcast inputs and the sizes") {
    val text = withConf(WJoinConf.BroadcastBytesKey -> "10MB") {
      WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(2)).on("k").time("t").window("6").toDF
        .queryExecution.explainString(SimpleMode)
    }
    assert(text.contains("BroadcastWindowJoin hw (hash)"), text)
    assert("partitioning=broadcast B, C \\([0-9.]+ KiB in all, each <= spark.wjoin.broadcastBytes 10.0 MiB\\), A streamed \\([0-9.]+ KiB\\) without a shuffle"
      .r.findFirstIn(text).isDefined, text)
    assert(text.contains("BroadcastExchange") && !text.contains("Exchange hashpartitioning"), text)
  }

  test("the shuffled plan it falls back to gives the broadcast plan's rows, with and without adaptive execution; " +
      "it is the plan made without the broadcast (access paths, run-time check, key groups, bands)") {
    def rowsOf(p: SparkPlan): Seq[String] =
      p.executeCollect().map(_.toSeq(p.output.map(_.dataType)).mkString(",")).sorted.toSeq
    for (adaptive <- Seq("true", "false"); keyed <- Seq(true, false))
      withConf("spark.sql.adaptive.enabled" -> adaptive, WJoinConf.TimeBandsKey -> "4") {
        val b = WJoin("A" -> ins(0), "B" -> ins(1), "C" -> ins(1)).time("t").window("6")
        val (rows, plan) = run("10MB")((if (keyed) b.on("k") else b).toDF)
        val exec = broadcastOf(plan).getOrElse(fail(plan.toString))
        val fallback = BroadcastFallback.shuffled(exec)
        val what = s"adaptive=$adaptive keyed=$keyed\n$fallback"
        val shuffled = collect(fallback) { case e: WindowJoinExec => e }.head
        assert(shuffled.hashPartitioned == keyed && shuffled.banded == !keyed, what)
        val direct = collect(run("-1")((if (keyed) b.on("k") else b).toDF)._2) { case e: WindowJoinExec => e }.head
        // Adaptive execution plans the broadcast one again from the collected rows: other statistics.
        if (adaptive == "false") assert(shuffled.planned == direct.planned, s"$what\nplanned without the broadcast:\n$direct")
        assert(shuffled.planned.access.paths == direct.planned.access.paths && shuffled.keyGroups == direct.keyGroups &&
          shuffled.timeBands == direct.timeBands, s"$what\nplanned without the broadcast:\n$direct")
        assert(shuffled.keyGroups.isDefined == keyed && shuffled.planned.access.recheck.isDefined, what)
        // B twice: adaptive execution reuses its broadcast, read again below the reuse.
        assert(collect(fallback) { case s: ShuffleExchangeLike => s }.size == (if (keyed) 3 else 0), what)
        val fromBroadcast = rowsOf(exec)
        assert(fromBroadcast.size == rows.size && rows.nonEmpty, what)
        assert(rowsOf(fallback) == fromBroadcast, what)
      }
  }

  test("it falls back when the collected inputs' index is over half a task's share of the smallest executor") {
    val mib = 1L << 20
    assert(BroadcastFallback.share(Nil, 4).isEmpty, "no executor registered: nothing to check")
    assert(BroadcastFallback.share(Seq(400 * mib), 2).contains(100 * mib), "local[2]: pool / (2 x 2)")
    assert(BroadcastFallback.share(Seq(400 * mib, 300 * mib), 8).contains(300 * mib / 8), "4 slots each")
    assert(BroadcastFallback.share(Seq(300 * mib, 300 * mib), 3).contains(300 * mib / 4), "slots rounded up")
    assert(BroadcastFallback.Check(10 * mib, 10 * mib).fits && !BroadcastFallback.Check(10 * mib + 1, 10 * mib).fits)
    assert(BroadcastFallback.Check(229 * mib, 46 * mib).describe == "index 229.0 MiB > task share 46.0 MiB")
    // This session's one local executor: a share, and small inputs keep the broadcast plan.
    val check = BroadcastFallback.check(spark.sparkContext, 1000)
    assert(check.exists(_.fits), check.toString)
  }
}
