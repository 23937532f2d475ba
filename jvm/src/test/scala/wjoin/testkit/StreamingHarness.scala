package wjoin.testkit

import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.wjoin.StreamingTestClasses.{memoryStream, MemoryStream}
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.streaming.{StreamingQuery, StreamingQueryException}

import wjoin.WJoin

/** An event of a test stream: key, event time in seconds, id unique within the test. */
final case class Ev(k: Int, t: Long, id: Int)

object Ev {
  /** n inputs of `perInput` events each: keys 0..2, times 0..59 s, ids unique. */
  def random(n: Int, perInput: Int, seed: Long): Seq[Seq[Ev]] = {
    val rnd = new scala.util.Random(seed)
    var id = 0
    (0 until n).map(_ => Seq.fill(perInput) { id += 1; Ev(rnd.nextInt(3), rnd.nextInt(60).toLong, id) })
  }

  /** The events split into micro-batches: batch b holds the rows of time slot b, plus a few of
   * the next slot (out of order). */
  def splits(events: Seq[Seq[Ev]], batches: Int, seed: Long): Seq[Seq[Seq[Ev]]] = {
    val rnd = new scala.util.Random(seed)
    val slot = 60 / batches + 1
    val tagged = events.map(_.map(e => (math.min(batches - 1, e.t.toInt / slot + (if (rnd.nextInt(4) == 0) 1 else 0)), e)))
    (0 until batches).map(b => tagged.map(_.filter(_._1 == b).map(_._2)))
  }
}

/**
 * Scripted streaming tests in the style of Spark's StreamingJoinSuite, without Spark's test
 * jars: N memory streams with a watermark, the W-join over them, a foreachBatch sink that
 * keeps each batch's rows by batch id (a re-run batch replaces its rows, which is what an
 * idempotent sink sees), and start / stop from one checkpoint.
 *
 * Output rows are reduced to the ids of their members, in input order (`idColumns`; a NULL id,
 * of a left W-join's unmatched row, reads as [[StreamingHarness.NullId]]).
 */
final class StreamingHarness(spark: SparkSession, n: Int, delaySeconds: Int,
    build: Seq[(String, DataFrame)] => DataFrame, idColumns: Seq[String] = Nil) {
  import spark.implicits._

  val names: Seq[String] = (0 until n).map(i => ('A' + i).toChar.toString)
  val streams: Seq[MemoryStream[(Int, Long, Int)]] = names.map(_ => memoryStream[(Int, Long, Int)](spark))
  val checkpoint: String = Files.createTempDirectory("wjoin-stream").toString
  private val batches = new ConcurrentHashMap[Long, Seq[Seq[Int]]]()
  val runs = new ConcurrentHashMap[Long, Int]()
  /** The next batch the sink sees fails once (after its rows were computed and the state committed). */
  @volatile var failNext = false
  var query: StreamingQuery = _

  def inputs: Seq[(String, DataFrame)] = names.zip(streams).map { case (name, m) =>
    name -> m.toDF().selectExpr("_1 as k", "timestamp_seconds(_2) as ts", "_3 as id")
      .withWatermark("ts", s"$delaySeconds seconds")
  }

  private val ids = if (idColumns.nonEmpty) idColumns else names.map(nm => s"$nm.id")
  private def idsOf(r: Row): Seq[Int] = ids.indices.map(j => if (r.isNullAt(j)) StreamingHarness.NullId else r.getInt(j))

  def joined: DataFrame = build(inputs).select(ids.map(col): _*)

  def start(): Unit = {
    query = joined.writeStream.option("checkpointLocation", checkpoint).foreachBatch { (df: DataFrame, id: Long) =>
      val rows = df.collect().map(idsOf).toSeq
      runs.merge(id, 1, Integer.sum)
      if (failNext) { failNext = false; throw new IllegalStateException(s"sink fails in batch $id") }
      batches.put(id, rows)
      ()
    }.start()
  }

  def add(events: Seq[Seq[Ev]]): Unit =
    streams.zip(events).foreach { case (m, es) => if (es.nonEmpty) m.addData(es.map(e => (e.k, e.t, e.id))) }

  /** Adds the events and waits until every batch they cause (incl. no-data batches) ran. */
  def step(events: Seq[Ev]*): Seq[Seq[Int]] = {
    val before = results
    add(events)
    query.processAllAvailable()
    awaitLastProgress()
    diff(results, before)
  }

  /**
   * Waits until `lastProgress` is the progress of the last batch the sink saw: on a loaded
   * machine `processAllAvailable` can return before the query reports that batch's progress, and
   * tests read the state operator's metrics from it.
   */
  private def awaitLastProgress(): Unit = {
    val last = if (runs.isEmpty) -1L else runs.keySet.asScala.max
    val deadline = System.nanoTime() + 60L * 1000 * 1000 * 1000
    while ((query.lastProgress == null || query.lastProgress.batchId < last) && System.nanoTime() < deadline)
      Thread.sleep(10)
  }

  def stop(): Unit = { query.stop(); query = null }

  /**
   * As [[step]], with the query stopped while the events are added: a running query may
   * start a micro-batch between two inputs' `addData`, so only this way does one micro-batch
   * get every input's events (for per-batch comparisons between two queries).
   */
  def stepAtOnce(events: Seq[Ev]*): Seq[Seq[Int]] = {
    val before = results
    stop()
    add(events)
    start()
    query.processAllAvailable()
    diff(results, before)
  }

  /**
   * Starts the query with a sink that fails once in the batch of `events` (after the state was
   * committed), then restarts it from the checkpoint: the restart reads those rows again.
   */
  def failOnceAndRestart(events: Seq[Seq[Ev]]): Unit = {
    failNext = true
    start()
    val failure = try { step(events: _*); None } catch { case e: StreamingQueryException => Some(e) }
    if (!failure.exists(_.getMessage.contains("sink fails")))
      throw new AssertionError(s"the sink should have failed in that batch: $failure")
    stop()
    start()
    query.processAllAvailable()
  }

  def results: Seq[Seq[Int]] = batches.asScala.toSeq.sortBy(_._1).flatMap(_._2).filter(_.head >= 0)

  /** Each batch's rows (ids >= 0 only), by batch id. */
  def perBatch: Seq[(Long, Seq[Seq[Int]])] = batches.asScala.toSeq.sortBy(_._1)
    .map { case (id, rows) => id -> rows.filter(_.head >= 0).sortBy(_.mkString(",")) }

  def progress: Seq[org.apache.spark.sql.streaming.StreamingQueryProgress] = query.recentProgress.toSeq

  def stateRows: Long = query.lastProgress.stateOperators.head.numRowsTotal

  def droppedByWatermark: Long = progress.flatMap(_.stateOperators).map(_.numRowsDroppedByWatermark).sum

  /** Rows far in the future (negative ids, key -1) that move every watermark past the data. */
  def flush(): Seq[Seq[Int]] = step(names.indices.map(i => Seq(Ev(-1, 100000L, -1 - i))): _*)

  private def diff(after: Seq[Seq[Int]], before: Seq[Seq[Int]]): Seq[Seq[Int]] = {
    val left = scala.collection.mutable.ArrayBuffer(after: _*)
    before.foreach(b => left -= b)
    left.toSeq.sortBy(_.mkString(","))
  }

  /** The batch W-join of the same events (the oracle). */
  def batchAnswer(events: Seq[Seq[Ev]], batchBuild: Seq[(String, DataFrame)] => DataFrame = build): Seq[Seq[Int]] = {
    val dfs = names.zip(events).map { case (name, es) =>
      name -> es.map(e => (e.k, e.t, e.id)).toDF("_1", "_2", "_3")
        .selectExpr("_1 as k", "timestamp_seconds(_2) as ts", "_3 as id")
    }
    batchBuild(dfs).select(ids.map(col): _*).collect().map(idsOf).toSeq.sortBy(_.mkString(","))
  }
}

object StreamingHarness {
  /** Spark's two state store providers, by short name. */
  val providers: Seq[(String, String)] = Seq(
    "hdfs" -> "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb" -> "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider")

  /** How a NULL id reads (a left W-join's unmatched row). */
  val NullId: Int = Int.MinValue

  def wjoin(window: String, algorithm: String, keyed: Boolean = true)(inputs: Seq[(String, DataFrame)]): DataFrame = {
    val b = WJoin(inputs: _*).time("ts").windows(window).algorithm(algorithm)
    (if (keyed) b.on("k") else b).toDF
  }
}
