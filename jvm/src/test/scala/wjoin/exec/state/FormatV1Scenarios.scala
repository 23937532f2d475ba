package wjoin.exec.state

import java.io.File
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, StandardCopyOption}
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.wjoin.StreamingTestClasses.memoryStream
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryProgress}

import wjoin.testkit.StreamingHarness
import wjoin.WJoin

/**
 * Streaming W-joins whose checkpoints, written by spark-wjoin before its state format had a
 * version (the layout that is now format version 1), are kept as test resources under
 * `checkpoints/<name>/` ([[FormatV1CheckpointGenerator]] wrote them,
 * [[StateFormatCompatibilitySuite]] restarts them):
 * {{{
 *   checkpoints/<name>/checkpoint/          the query's checkpoint after the first `checkpointed` batches
 *   checkpoints/<name>/input.csv            batch,input,k,t,id: every batch the query gets (the last: a flush)
 *   checkpoints/<name>/output-before.txt    the rows the checkpointed batches emitted
 *   checkpoints/<name>/output-expected.txt  the rows of an uninterrupted run over every batch
 * }}}
 * Output rows are `A.id,B.id,C.id` (`null` for a left W-join's missing members; `A.id` of
 * left_semi / left_anti), sorted; rows of the flush batch (negative ids) are left out.
 *
 * All inputs come from one memory stream (a column names the input), so one `addData` is one
 * micro-batch of every input; a restart re-adds the checkpointed batches to a fresh stream
 * (as Spark's own checkpoint-compatibility tests do), so its offsets are the recorded ones.
 */
object FormatV1Scenarios {
  /**
   * One query: `provider` of the state store, the W-join's algorithm, how and windows, and
   * resource limits (empty: exact). 3 inputs A, B, C keyed on k, watermark delay 3 s.
   */
  final case class Scenario(name: String, provider: String, algorithm: String, how: String,
      limits: Map[String, Any] = Map.empty, windows: String = "WINDOW = 8 seconds", handmade: Boolean = false) {
    def exact: Boolean = limits.isEmpty
    /** Its input: [[anchorBatches]] when `handmade`, else random rows from `seed`. */
    def data(seed: Int): Seq[Seq[In]] = if (handmade) anchorBatches else generate(seed)
    /** The output's columns: the members' ids (left_semi / left_anti: the anchor's). */
    def ids: Seq[String] = if (how == "left_semi" || how == "left_anti") Seq("A.id") else Seq("A.id", "B.id", "C.id")
  }

  private val hdfs = StreamingHarness.providers.head._2
  private val rocksdb = StreamingHarness.providers.last._2

  /**
   * The checkpoints: each record kind of the format (row chunks; eager anchored: matched bits
   * and decided-up-to; ordered: the sweep frontier and matched bits; limits: shedding budgets),
   * on the HDFS-backed provider, and an inner W-join on RocksDB. The left_anti W-join runs on
   * [[anchorBatches]], whose kept chunks hold decided unmatched anchors and undecided matched
   * ones: a restart that lost the decided-up-to or the bits would emit an anchor twice or
   * wrongly.
   */
  val all: Seq[Scenario] = Seq(
    Scenario("format-v1-hdfs-hw-left", hdfs, "hw", "left"),
    Scenario("format-v1-hdfs-mw-left", hdfs, "mw", "left"),
    Scenario("format-v1-hdfs-hw-limits", hdfs, "hw", "inner", Map("state_rows" -> 6, "probe_rate" -> 1.0)),
    Scenario("format-v1-rocksdb-hw-inner", rocksdb, "hw", "inner"),
    Scenario("format-v1-hdfs-hw-anti", hdfs, "hw", "left_anti", windows = "WINDOW = 2 seconds", handmade = true))

  /** Batches in the checkpoint; the rest (the last one a flush) come after the restart. */
  val checkpointed = 3

  /** Settings of every run: few state partitions keep the checkpoints small. */
  def conf(s: Scenario): Seq[(String, String)] = Seq(
    "spark.sql.shuffle.partitions" -> "2",
    "spark.sql.streaming.stateStore.providerClass" -> s.provider)

  /** One input row: (input, key, event time in seconds, id). */
  type In = (Int, Int, Long, Int)

  /** 5 batches of 18 rows (batch b in [10 b, 10 b + 9] s, keys 0-2), then a flush batch far ahead. */
  def generate(seed: Int): Seq[Seq[In]] = {
    val rnd = new scala.util.Random(seed)
    var id = 0
    val data = (0 until 5).map { b =>
      Seq.fill(18) { id += 1; (rnd.nextInt(3), rnd.nextInt(3), b * 10L + rnd.nextInt(10), id) }
    }
    data :+ (0 until 3).map(i => (i, 0, 1000L, -1 - i))
  }

  /**
   * 5 batches for WINDOW = 2 seconds (then a flush), batch b at base = 10 b seconds:
   * {{{
   *   A  k=0: base+1 (no B, C within 2 s: unmatched), base+9 (matched)
   *      k=1: base+2 (matched), base+5 (unmatched)
   *   B  k=0: base+9    k=1: base+2
   *   C  k=0: base+8    k=1: base+3
   * }}}
   * W after batch b is base+6 (delay 3 s): anchors up to base+4 are decided, but both keys'
   * chunks of A are kept (their newest rows, base+9 and base+5, are still in reach).
   */
  def anchorBatches: Seq[Seq[In]] = {
    val data = (0 until 5).map { b =>
      val base = 10L * b
      val id = 100 * (b + 1)
      Seq((0, 0, base + 1, id), (0, 0, base + 9, id + 1), (0, 1, base + 2, id + 2), (0, 1, base + 5, id + 3),
        (1, 0, base + 9, id + 4), (1, 1, base + 2, id + 5), (2, 0, base + 8, id + 6), (2, 1, base + 3, id + 7))
    }
    data :+ (0 until 3).map(i => (i, 0, 1000L, -1 - i))
  }

  def writeInput(data: Seq[Seq[In]], file: File): Unit = write(file,
    for ((rows, b) <- data.zipWithIndex; (i, k, t, id) <- rows) yield s"$b,$i,$k,$t,$id")

  def readInput(file: File): Seq[Seq[In]] = {
    val rows = read(file).map(_.split(",").map(_.trim)).map(f => (f(0).toInt, (f(1).toInt, f(2).toInt, f(3).toLong, f(4).toInt)))
    (0 to rows.map(_._1).max).map(b => rows.filter(_._1 == b).map(_._2))
  }

  def write(file: File, lines: Seq[String]): Unit = {
    file.getParentFile.mkdirs()
    Files.write(file.toPath, lines.map(_ + "\n").mkString.getBytes(StandardCharsets.UTF_8))
  }

  def read(file: File): Seq[String] =
    Files.readAllLines(file.toPath, StandardCharsets.UTF_8).asScala.toSeq.filter(_.nonEmpty)

  /** The W-join of scenario `s` over the rows of `source`, as `A.id, B.id, C.id`. */
  def query(s: Scenario, source: DataFrame): DataFrame = {
    val events = source.selectExpr("_1 as input", "_2 as k", "timestamp_seconds(_3) as ts", "_4 as id")
      .withWatermark("ts", "3 seconds")
    val inputs = Seq("A", "B", "C").zipWithIndex.map { case (nm, i) => nm -> events.filter(s"input = $i").drop("input") }
    val b = WJoin(inputs: _*).on("k").time("ts").windows(s.windows).algorithm(s.algorithm).how(s.how)
    val limited = if (s.exact) b else b.limits(s.limits).allocation("equal").seed(5)
    limited.toDF.selectExpr(s.ids: _*)
  }

  /** What a run emitted: per batch id its rows (flush rows left out), and its progress. */
  final case class Outcome(rows: Map[Long, Seq[String]], progress: Seq[StreamingQueryProgress]) {
    def all: Seq[String] = rows.values.flatten.toSeq.sorted
  }

  /**
   * A streaming run of scenario `s` on `checkpoint`: first the batches `replayed` are added to
   * the memory stream without running (they are in the checkpoint already), then the query
   * starts and gets `batches`, one micro-batch each. The sink also puts each batch's rows into
   * `out` as they come (to see what ran when the run fails).
   */
  def runQuery(spark: SparkSession, s: Scenario, checkpoint: String, replayed: Seq[Seq[In]], batches: Seq[Seq[In]],
      out: ConcurrentHashMap[Long, Seq[String]] = new ConcurrentHashMap()): Outcome = {
    import spark.implicits._
    val source = memoryStream[In](spark)
    replayed.foreach(b => source.addData(b))
    val q: StreamingQuery = query(s, source.toDF()).writeStream.option("checkpointLocation", checkpoint)
      .foreachBatch { (batch: DataFrame, id: Long) =>
        out.put(id, batch.collect().map((r: Row) => r.mkString(",")).toSeq.filterNot(_.contains("-")).sorted); ()
      }.start()
    try {
      q.processAllAvailable()
      for (b <- batches) { source.addData(b); q.processAllAvailable() }
      Outcome(out.asScala.toMap, q.recentProgress.toSeq)
    } finally q.stop()
  }

  /** Copies directory `from` into `to` (created). */
  def copyDir(from: Path, to: Path): Unit = {
    val files = Files.walk(from)
    try files.iterator().asScala.toSeq.foreach { p =>
      val target = to.resolve(from.relativize(p).toString)
      if (Files.isDirectory(p)) Files.createDirectories(target)
      else Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING)
    } finally files.close()
  }
}
