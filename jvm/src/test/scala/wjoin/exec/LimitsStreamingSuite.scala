package wjoin.exec

import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.wjoin.StreamingTestClasses.memoryStream
import org.apache.spark.sql.streaming.StreamingQuery
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.{SharedSparkSession, StreamingHarness}
import wjoin.WJoin

/**
 * Resource limits on streams (Kang et al. Sec. 5.2): the eager shedding engine across
 * micro-batches. The inputs come from one memory stream (a column says which input a row is
 * of), so one `addData` puts every input's rows into the same micro-batch, and two queries
 * see the same batches: with the same seed they must shed the same rows in every batch,
 * whether the engines are kept in memory, rebuilt from the state store every batch, or the
 * query is restarted in the middle.
 */
class LimitsStreamingSuite extends AnyFunSuite with SharedSparkSession {
  import spark.implicits._

  private val names = Seq("A", "B", "C")

  /** Per batch: rows (input, key, time in seconds, id). */
  private def batches(seed: Int, count: Int, perBatch: Int, keys: Int): Seq[Seq[(Int, Int, Long, Int)]] = {
    val rnd = new scala.util.Random(seed)
    var id = 0
    (0 until count).map { b =>
      Seq.fill(perBatch) { id += 1; (rnd.nextInt(3), rnd.nextInt(keys), b * 10L + rnd.nextInt(10), id) }
    }
  }

  private def inputs(source: DataFrame): Seq[(String, DataFrame)] = {
    val events = source.selectExpr("_1 as input", "_2 as k", "timestamp_seconds(_3) as ts", "_4 as id")
      .withWatermark("ts", "3 seconds")
    names.indices.map(i => names(i) -> events.filter(s"input = $i").drop("input"))
  }

  private def join(keyed: Boolean, limits: Map[String, Any], algorithm: String = "auto", allocation: String = "auto")(
      ins: Seq[(String, DataFrame)]): DataFrame = {
    val b = WJoin(ins: _*).time("ts").windows("WINDOW = 8 seconds").algorithm(algorithm).limits(limits)
      .allocation(allocation).seed(5)
    (if (keyed) b.on("k") else b).toDF.selectExpr("A.id", "B.id", "C.id")
  }

  /** One query over `data` (restarted from its checkpoint before batch `restartAt`); per batch id, its rows. */
  private def run(data: Seq[Seq[(Int, Int, Long, Int)]], build: Seq[(String, DataFrame)] => DataFrame,
      restartAt: Int = -1): (Map[Long, Seq[String]], Seq[org.apache.spark.sql.streaming.StreamingQueryProgress]) = {
    val source = memoryStream[(Int, Int, Long, Int)](spark)
    val df = build(inputs(source.toDF()))
    val checkpoint = Files.createTempDirectory("wjoin-limits").toString
    val out = new java.util.concurrent.ConcurrentHashMap[Long, Seq[String]]()
    var progress = Seq.empty[org.apache.spark.sql.streaming.StreamingQueryProgress]
    def start(): StreamingQuery = df.writeStream.option("checkpointLocation", checkpoint)
      .foreachBatch { (batch: DataFrame, id: Long) =>
        out.put(id, batch.collect().map((r: Row) => r.mkString(",")).toSeq.sorted); ()
      }.start()
    var q = start()
    try {
      for ((rows, b) <- data.zipWithIndex) {
        if (b == restartAt) { progress ++= q.recentProgress; q.stop(); q = start() }
        source.addData(rows)
        q.processAllAvailable()
      }
      progress ++= q.recentProgress
    } finally q.stop()
    (out.asScala.toMap, progress)
  }

  private def bag(rows: Seq[String]): Map[String, Int] = rows.groupBy(identity).map { case (k, v) => k -> v.size }

  /** The exact batch W-join of the same rows. */
  private def exact(data: Seq[Seq[(Int, Int, Long, Int)]], keyed: Boolean): Map[String, Int] = {
    val all = data.flatten.toDF()
    val b = WJoin(inputs(all).map { case (nm, df) => nm -> df }: _*).time("ts").windows("WINDOW = 8 seconds")
    bag((if (keyed) b.on("k") else b).toDF.selectExpr("A.id", "B.id", "C.id").collect().map(_.mkString(",")).toSeq)
  }

  private def metric(progress: Seq[org.apache.spark.sql.streaming.StreamingQueryProgress], name: String): Seq[Long] =
    progress.flatMap(_.stateOperators.headOption).map(_.customMetrics.get(name).longValue)

  // allocation auto follows the recent micro-batches' rates, which a restarted query has not
  // seen yet (its first batch runs on the assumed rates): only an equal split is independent
  // of them, so only then does a restart shed exactly the rows of an uninterrupted run.
  // Each (keyed, allocation) pair runs once, and each provider sees both keyed and keyless
  // state and both allocations: the shedding reads the same state on either provider.
  private val cells = {
    val Seq(first, second) = StreamingHarness.providers.take(2)
    Seq((first, true, "equal"), (second, true, "auto"), (second, false, "equal"), (first, false, "auto"))
  }
  for (((providerName, provider), keyed, allocation) <- cells) {
    test(s"${if (keyed) "keyed" else "keyless"}, $allocation, on $providerName: the same seed sheds the same rows in " +
      s"every micro-batch, kept, rebuilt every batch${if (allocation == "equal") " or restarted" else ""}; a sub-bag " +
      "of the exact W-join within the budget") {
      val data = batches(seed = 3, count = 8, perBatch = 60, keys = if (keyed) 2 else 1)
      val limits = Map[String, Any]("state_rows" -> 12, "probe_rate" -> 1.5)
      val ways = Seq(("50000000", -1), ("0", -1)) ++ (if (allocation == "equal") Seq(("50000000", 4)) else Nil)
      val runs = for ((kept, restartAt) <- ways) yield withConf(
          "spark.sql.streaming.stateStore.providerClass" -> provider, "spark.wjoin.streaming.keptEngineRows" -> kept) {
        run(data, join(keyed, limits, allocation = allocation), restartAt)
      }
      val (first, progress) = runs.head
      for (((other, _), k) <- runs.zipWithIndex.tail)
        assert(other == first, s"run $k (${if (k == 1) "rebuilt every batch" else "restarted"}) shed other rows")
      val got = bag(first.values.flatten.toSeq)
      val truth = exact(data, keyed)
      assert(got.forall { case (row, c) => truth.getOrElse(row, 0) >= c }, "not a sub-bag of the exact W-join")
      assert(got.values.sum < truth.values.sum && got.nonEmpty)
      assert(metric(progress, "numShedRows").sum > 0 && metric(progress, "numShedProbes").sum > 0)
      // The state keeps only what the windows keep: at most 12 rows per partition.
      val partitions = if (keyed) 7 else 1
      val stateRows = progress.flatMap(_.stateOperators.headOption).map(_.numRowsTotal)
      assert(stateRows.nonEmpty && stateRows.forall(_ <= 12L * partitions), s"state rows $stateRows")
      // Kept engines read nothing back; rebuilt ones read their state.
      assert(metric(progress, "numRestoredStateRows").sum == 0)
      assert(metric(runs(1)._2, "numRestoredStateRows").sum > 0)
    }
  }

  test("without limits, one stream split into three inputs gives the exact W-join (their columns stay apart)") {
    val data = batches(seed = 4, count = 5, perBatch = 40, keys = 2)
    val (out, _) = run(data, ins => WJoin(ins: _*).on("k").time("ts").windows("WINDOW = 8 seconds").toDF
      .selectExpr("A.id", "B.id", "C.id"))
    val truth = exact(data, keyed = true)
    assert(truth.nonEmpty && bag(out.values.flatten.toSeq) == truth)
  }

  test("EXPLAIN of a streaming W-join shows the shares; auto runs the eager mode (HW-join, NLW-join without key)") {
    val source = memoryStream[(Int, Int, Long, Int)](spark)
    val limits = Map[String, Any]("state_rows" -> 30)
    for ((keyed, algorithm) <- Seq((true, "hw"), (false, "nlw"))) {
      val df = join(keyed, limits)(inputs(source.toDF()))
      val q = df.writeStream.format("noop").option("checkpointLocation",
        Files.createTempDirectory("wjoin-limits").toString).start()
      try {
        source.addData(batches(1, 1, 30, 2).head)
        q.processAllAvailable()
        val text = q.asInstanceOf[org.apache.spark.sql.wjoin.StreamingTestClasses.StreamingQueryWrapper]
          .streamingQuery.lastExecution.executedPlan.toString
        assert(text.contains(s"StreamingWindowJoin $algorithm") && text.contains("eager"), text)
        assert(text.contains("limits=[state_rows=30 [A=") && text.contains("seed=5]"), text)
      } finally q.stop()
    }
  }

  test("limits refuse the ordered mode and ROWS windows on streams, before any job runs") {
    val source = memoryStream[(Int, Int, Long, Int)](spark)
    val ins = inputs(source.toDF())
    val limits = Map[String, Any]("state_rows" -> 10)
    val mw = intercept[WJoinAnalysisException](join(keyed = true, limits, "mw")(ins))
    assert(mw.getMessage.contains("limits: a streaming W-join sheds load in the eager mode"), mw.getMessage)
    val rows = intercept[WJoinAnalysisException](
      WJoin(ins: _*).on("k").time("ts").windows("WINDOW = 8 seconds AND ROWS(B) = 5").limits(limits).toDF)
    assert(rows.getMessage.contains("limits: ROWS windows of a streaming W-join"), rows.getMessage)
    // The same query over batch inputs is fine.
    val batch = inputs(batches(2, 1, 30, 2).head.toDF())
    assert(join(keyed = true, limits, "mw")(batch).count() >= 0)
  }
}
