package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.expr
import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.{Ev, SharedSparkSession, StreamingHarness}
import wjoin.WJoin

/**
 * Streaming left outer, left semi and left anti W-joins: the union over all micro-batches is
 * the batch W-join of the same rows; per batch, the same rows as Spark's stream-stream left
 * outer and left semi joins; exactly once across a failing sink and restarts; late anchor
 * rows dropped and counted, never reported unmatched; undecided anchors in the metrics.
 */
class AnchoredStreamingSuite extends AnyFunSuite with SharedSparkSession {
  private def ids(how: String, n: Int): Seq[String] =
    if (how == "left") (0 until n).map(i => s"${('A' + i).toChar}.id") else Seq("A.id")

  private def wjoin(windows: String, algorithm: String, how: String, keyed: Boolean = true)(
      inputs: Seq[(String, DataFrame)]): DataFrame = {
    val b = WJoin(inputs: _*).time("ts").windows(windows).algorithm(algorithm).how(how)
    (if (keyed) b.on("k") else b).toDF
  }

  private def harness(n: Int, delay: Int, how: String, build: Seq[(String, DataFrame)] => DataFrame) = {
    val h = new StreamingHarness(spark, n, delay, build, ids(how, n))
    h.start()
    h
  }


  private def undecided(h: StreamingHarness): Long =
    h.query.lastProgress.stateOperators.head.customMetrics.get("numUndecidedAnchorRows")

  private val windowsOf = Map(
    2 -> "DWINDOW(A,B) = [-2 seconds, 6 seconds]",
    3 -> "WINDOW(A,B) = 5 seconds AND DWINDOW(B,C) = [1 second, 8 seconds]",
    4 -> "WINDOW = 10 seconds AND DWINDOW(A,D) = 10 seconds AND RANGE(B) = 9 seconds")

  // A Latin square over how x width x algorithm: every pair of the three meets in one test (nine
  // tests, not 27), each how with every width and every algorithm; the 3-way tests of nlw and mw
  // are keyless (hw needs a key).
  private val hows = Seq("left", "left_semi", "left_anti")
  private val algorithms = Seq("hw", "nlw", "mw")
  for ((how, h) <- hows.zipWithIndex; n <- 2 to 4; algorithm = algorithms((h + n) % 3)) {
    test(s"$how, $n-way $algorithm: random streams in random micro-batches = the batch W-join") {
      val keyed = n != 3 || algorithm == "hw"
      val build = wjoin(windowsOf(n), algorithm, how, keyed) _
      val h = harness(n, 40, how, build)
      try {
        val events = Ev.random(n, if (n == 4) 16 else 12, 7 * n + how.length)
        Ev.splits(events, 4, n).foreach(batch => h.step(batch: _*))
        h.flush()
        val expected = h.batchAnswer(events)
        assert(expected.nonEmpty)
        assert(h.results.sortBy(_.mkString(",")) == expected)
        // A's flush row: undecided unless the flush rows join each other (not with DWINDOW(B,C) = [1, 8])
        // and eager mode found that combination (ordered mode has not swept it yet).
        assert(undecided(h) == (if (algorithm == "mw" || n == 3) 1 else 0))
      } finally h.stop()
    }
  }

  test("RocksDB state store: matched marks and decided anchors survive a restart") {
    withConf("spark.sql.streaming.stateStore.providerClass" ->
        "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider") {
      // Each state mode once (hw: eager, mw: ordered), each with its own kind of anchor decision.
      for ((how, algorithm) <- Seq("left" -> "hw", "left_anti" -> "mw")) {
        val events = Ev.random(3, 14, 11)
        val batches = Ev.splits(events, 5, 3)
        val h = harness(3, 40, how, wjoin(windowsOf(3), algorithm, how))
        batches.take(2).foreach(b => h.step(b: _*))
        h.stop()
        h.start()
        batches.drop(2).foreach(b => h.step(b: _*))
        h.flush()
        h.stop()
        assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events), s"$how $algorithm")
      }
    }
  }

  test("exactly once: a failing sink and restarts give each anchor row once, matched or not") {
    // Every how, the state modes alternating (the per-batch property tests above run every pair).
    for ((how, algorithm) <- Seq("left" -> "mw", "left_semi" -> "hw", "left_anti" -> "mw")) {
      val events = Ev.random(3, 15, 3)
      val batches = Ev.splits(events, 6, 8)
      val h = harness(3, 40, how, wjoin(windowsOf(3), algorithm, how))
      batches.take(2).foreach(b => h.step(b: _*))
      h.stop()
      h.failOnceAndRestart(batches(2)) // batch 2's rows are read again after the restart
      batches.drop(3).foreach(b => h.step(b: _*))
      h.flush()
      h.stop()
      assert(h.runs.values().stream().anyMatch(_ > 1), "a batch was run twice")
      val expected = h.batchAnswer(events)
      assert(expected.nonEmpty)
      assert(h.results.sortBy(_.mkString(",")) == expected, s"$how $algorithm after restarts")
    }
  }

  test("late anchor rows are dropped and counted, never reported unmatched; the horizon decides") {
    val h = harness(2, 5, "left_anti", wjoin("DWINDOW(A,B) = [0 seconds, 4 seconds]", "hw", "left_anti"))
    try {
      // W = min over inputs of (max event time - 5 s). A@10 is decided once W >= 14.
      assert(h.step(Seq(Ev(1, 10, 1)), Seq(Ev(9, 10, 2))) == Nil)
      assert(undecided(h) == 1)
      assert(h.step(Seq(Ev(7, 25, 3)), Seq(Ev(8, 25, 4))) == Seq(Seq(1)), "W = 20: A@10 decided, unmatched")
      assert(h.step(Seq(Ev(1, 3, 5)), Nil) == Nil, "A@3 is late")
      assert(h.droppedByWatermark == 1)
      // A@30 is matched by B@33: never output by left_anti. W = 25 leaves A@25 undecided.
      assert(h.step(Seq(Ev(5, 30, 6)), Seq(Ev(5, 33, 7))) == Nil)
      assert(undecided(h) == 1)
      assert(h.step(Seq(Ev(9, 60, 8)), Seq(Ev(9, 60, 9))) == Seq(Seq(3)), "W = 55: A@25 decided, A@30 matched")
      assert(h.results == Seq(Seq(1), Seq(3)))
    } finally h.stop()
  }

  test("per batch, the same rows as Spark's stream-stream left outer and left semi joins") {
    // Spark evicts a left row only once the watermark is past its last joinable time by 1 ms
    // (ours: at it, the bound being inclusive), and takes rows at time 0 as late before any
    // watermark: times avoid both (A at 0 mod 3, B at 1 mod 3, bounds and delay at 2 / 0 mod 3).
    // Each how with one sign of the lower bound: eviction follows the bounds the same way for both.
    for ((how, sparkHow, lo) <- Seq(("left", "left_outer", -4), ("left_semi", "left_semi", 2))) {
      val raw = Ev.random(2, 20, 5 + lo)
      val events = Seq(raw(0).map(e => e.copy(t = 3 * (e.t / 3) + 3)), raw(1).map(e => e.copy(t = 3 * (e.t / 3) + 1)))
      val batches = Ev.splits(events, 6, 2)
      val ours = harness(2, 9, how, wjoin(s"DWINDOW(A,B) = [$lo seconds, 8 seconds]", "hw", how))
      val spark = harness(2, 9, how, inputs => {
        val Seq((_, a), (_, b)) = inputs
        a.alias("A").join(b.alias("B"),
          expr(s"A.k = B.k AND B.ts BETWEEN A.ts + INTERVAL $lo SECONDS AND A.ts + INTERVAL 8 SECONDS"), sparkHow)
      })
      try {
        batches.foreach { b => ours.stepAtOnce(b: _*); spark.stepAtOnce(b: _*) }
        val flush = ours.names.indices.map(i => Seq(Ev(-1, 100000L, -1 - i)))
        ours.stepAtOnce(flush: _*); spark.stepAtOnce(flush: _*)
        assert(ours.results.nonEmpty)
        assert(ours.perBatch.map(_._2).filter(_.nonEmpty) == spark.perBatch.map(_._2).filter(_.nonEmpty),
          s"$how, lo = $lo")
      } finally { ours.stop(); spark.stop() }
    }
  }
}
