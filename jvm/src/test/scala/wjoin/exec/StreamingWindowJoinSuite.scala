package wjoin.exec

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.{col, window}
import org.apache.spark.sql.streaming.StreamingQueryException
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.{Ev, SharedSparkSession, StreamingHarness}
import wjoin.WJoin

class StreamingWindowJoinSuite extends AnyFunSuite with SharedSparkSession {
  import StreamingHarness.wjoin

  private val providers = StreamingHarness.providers

  private def harness(n: Int, delay: Int, build: Seq[(String, DataFrame)] => DataFrame): StreamingHarness = {
    val h = new StreamingHarness(spark, n, delay, build)
    h.start()
    h
  }

  test("eager (HW): each combination as soon as its last member arrives; watermark eviction; late rows counted") {
    val h = harness(2, 10, wjoin("WINDOW = 5 seconds", "hw"))
    try {
      assert(h.step(Seq(Ev(1, 10, 1)), Seq(Ev(1, 12, 2), Ev(2, 12, 3))) == Seq(Seq(1, 2)))
      assert(h.stateRows == 3)
      // Watermark becomes min(40, 41) - 10 = 30: rows with ts + 5 <= 30 leave the state.
      assert(h.step(Seq(Ev(1, 40, 4)), Seq(Ev(1, 41, 5))) == Seq(Seq(4, 5)))
      assert(h.stateRows == 2, "rows at 10 and 12 are evicted once the watermark passes 15 and 17")
      // 20 <= 30 is late: dropped and counted, never joined; 38 joins 40 (ts + 5 >= 40 - ...).
      assert(h.step(Seq(Ev(1, 20, 6)), Seq(Ev(1, 38, 7), Ev(1, 21, 8))) == Seq(Seq(4, 7)))
      assert(h.droppedByWatermark == 2)
      val progress = h.query.lastProgress.stateOperators.head
      assert(progress.operatorName == "windowJoin")
      assert(progress.customMetrics.keySet.containsAll(java.util.Set.of("numStateRows0", "numStateRows1",
        "numEvictedRows", "numComparisons")))
      // the next batch's planning reads these: rows each input brought (late ones included),
      // distinct keys among the rows each input's window held (state and arrivals; all key 1)
      assert(progress.customMetrics.get("numInputRows0") == 1L && progress.customMetrics.get("numInputRows1") == 2L)
      assert(progress.customMetrics.get("numStateKeys0") == 1L && progress.customMetrics.get("numStateKeys1") == 1L)
    } finally h.stop()
  }

  test("ordered (MW): a combination is emitted once the watermark passes its oldest member's reach") {
    val h = harness(2, 10, wjoin("WINDOW = 5 seconds", "mw"))
    try {
      assert(h.step(Seq(Ev(1, 10, 1)), Seq(Ev(1, 12, 2))) == Nil, "no watermark yet: nothing is final")
      assert(h.step(Seq(Ev(1, 30, 3)), Seq(Ev(1, 31, 4))) == Seq(Seq(1, 2)), "watermark 20 >= 10 + 5")
      assert(h.stateRows == 2)
      assert(h.flush() == Seq(Seq(3, 4)))
    } finally h.stop()
  }

  test("a conjunct over one input keeps that input's failing rows out of the state (not the anchor of a left W-join)") {
    for ((how, stateAfter) <- Seq("inner" -> 3, "left" -> 4)) {
      val h = harness(2, 10, inputs => WJoin(inputs: _*).time("ts").windows("WINDOW = 5 seconds").on("k")
        .on(col("A.id") > 1 && col("B.id") > 3).how(how).algorithm("hw").toDF)
      try {
        // A: ids 1 (fails), 2; B: ids 3 (fails), 4, 5. Only (2, 4) and (2, 5) join.
        val out = h.step(Seq(Ev(1, 10, 1), Ev(1, 11, 2)), Seq(Ev(1, 12, 3), Ev(1, 12, 4), Ev(1, 13, 5)))
        assert(out.map(_.head).distinct == Seq(2), s"$how: $out")
        // inner: A 2, B 4 and 5; left: both anchors (one failing is output unmatched), B 4
        // and 5. Without the filter: 5.
        assert(h.stateRows == stateAfter, how)
      } finally h.stop()
    }
  }

  private def differential(n: Int, window: String, algorithm: String, keyed: Boolean, provider: String,
      seed: Long): Unit = withConf("spark.sql.streaming.stateStore.providerClass" -> provider) {
    val build = wjoin(window, algorithm, keyed) _
    // The delay covers the disorder, so no row is late: the answer is the batch W-join of all rows.
    val h = harness(n, 40, build)
    try {
      val events = Ev.random(n, 12, seed)
      Ev.splits(events, 4, seed).foreach(batch => h.step(batch: _*))
      h.flush()
      val expected = h.batchAnswer(events)
      assert(expected.nonEmpty)
      assert(h.results.sortBy(_.mkString(",")) == expected)
      assert(h.stateRows == n, "after the flush only the flush rows remain")
      assert(h.droppedByWatermark == 0)
    } finally h.stop()
  }

  for ((providerName, provider) <- providers; n <- 2 to 4; algorithm <- Seq("hw", "nlw", "mw")) {
    test(s"$n-way $algorithm on $providerName: random streams in random micro-batches = the batch W-join") {
      val window = n match {
        case 2 => "WINDOW = 6 seconds"
        case 3 => "WINDOW(A,B) = 5 seconds AND DWINDOW(B,C) = [1 second, 8 seconds]"
        case _ => "WINDOW = 10 seconds AND DWINDOW(A,D) = 10 seconds"
      }
      differential(n, window, algorithm, keyed = algorithm != "nlw" || n == 2, provider, seed = n * 7 + algorithm.length)
    }
  }

  test("string and composite keys (generated key projections run in the tasks)") {
    val build = (ins: Seq[(String, DataFrame)]) => WJoin(ins.map { case (name, df) =>
      name -> df.withColumn("s", col("k").cast("string")).withColumn("k2", col("k") % 2) }: _*)
      .on("s", "k2").time("ts").windows("WINDOW = 4 seconds").toDF
    val h = harness(3, 40, build)
    try {
      val events = Ev.random(3, 10, 5)
      Ev.splits(events, 3, 2).foreach(batch => h.step(batch: _*))
      h.flush()
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
      assert(h.results.nonEmpty)
    } finally h.stop()
  }

  test("without a key the join runs in one partition (NLW and MW)") {
    for (algorithm <- Seq("nlw", "mw")) {
      val h = harness(3, 40, wjoin("WINDOW = 3 seconds", algorithm, keyed = false))
      try {
        val events = Ev.random(3, 10, 99)
        Ev.splits(events, 3, 5).foreach(batch => h.step(batch: _*))
        h.flush()
        assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
        assert(h.query.lastProgress.stateOperators.head.numShufflePartitions == 1)
      } finally h.stop()
    }
  }

  test("access paths are planned per micro-batch from the recent progress: observed skewed rates, same result") {
    val band = (inputs: Seq[(String, DataFrame)]) => WJoin(inputs: _*).time("ts").windows("WINDOW = 10 seconds")
      .on(org.apache.spark.sql.functions.abs(col("A.k") - col("B.k")) <= 2).toDF
    val h = harness(2, 5, band)
    def explained(): String = {
      val out = new java.io.ByteArrayOutputStream()
      Console.withOut(out)(h.query.explain())
      out.toString
    }
    try {
      val rnd = new scala.util.Random(5)
      var id = 0
      def ev(t: Long) = { id += 1; Ev(rnd.nextInt(30), t, id) }
      // A: 30 rows per 10 s of event time, B: 1 row per 10 s
      val batches = (0 until 4).map(b => Seq(Seq.fill(30)(ev(b * 10L + rnd.nextInt(10))), Seq(ev(b * 10L + 5))))
      batches.foreach(b => h.step(b: _*))
      val plan = explained()
      val Rates = """stats: recent micro-batch(?:es \d+-| )\d+ \(rows/s: A ([0-9.e+-]+), B ([0-9.e+-]+)\)""".r
      val (a, b) = Rates.findFirstMatchIn(plan).map(m => (m.group(1).toDouble, m.group(2).toDouble))
        .getOrElse(fail(s"no observed statistics in the executed plan:\n$plan"))
      info(plan.linesIterator.find(_.contains("stats:")).getOrElse("").trim)
      // Watermarks in the session time zone, not epoch milliseconds.
      val zone = spark.conf.get("spark.sql.session.timeZone")
      assert(s"watermarks=\\[late \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} ${java.util.regex.Pattern.quote(zone)}, ".r
        .findFirstIn(plan).isDefined, plan)
      assert(a > 10 * b, plan)
      assert(!plan.contains("stats: assumed"), plan)
      h.flush()
      val events = (0 until 2).map(i => batches.flatMap(_(i)))
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
      assert(h.results.nonEmpty)
    } finally h.stop()
  }

  test("restart from the checkpoint with other shuffle partitions, and a failing sink: exactly the same output") {
    for (algorithm <- Seq("hw", "mw")) {
      val events = Ev.random(3, 15, 3)
      val batches = Ev.splits(events, 6, 8)
      val h = withConf("spark.sql.shuffle.partitions" -> "3")(harness(3, 40, wjoin("WINDOW = 5 seconds", algorithm)))
      batches.take(2).foreach(b => h.step(b: _*))
      h.stop()
      withConf("spark.sql.shuffle.partitions" -> "5") {
        h.failOnceAndRestart(batches(2)) // batch 2's rows are read again after the restart
        batches.drop(3).foreach(b => h.step(b: _*))
        h.flush()
        assert(h.query.lastProgress.stateOperators.head.numShufflePartitions == 3, "the checkpoint's count is kept")
        h.stop()
      }
      assert(h.runs.values().stream().anyMatch(_ > 1), "a batch was run twice")
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events), s"$algorithm after restarts")
    }
  }

  test("the state's origin is checked once per query run: a metadata file spoiled mid-run is found at the next run") {
    val events = Ev.random(2, 12, 4)
    val batches = Ev.splits(events, 3, 4)
    val h = harness(2, 40, wjoin("WINDOW = 5 seconds", "hw"))
    h.step(batches(0): _*)
    val files = java.nio.file.Files.walk(java.nio.file.Paths.get(h.checkpoint)).toArray.toSeq
      .map(_.asInstanceOf[java.nio.file.Path])
      .filter(p => p.toString.endsWith("/_wjoin/metadata") && java.nio.file.Files.isRegularFile(p))
    assert(files.size == 1, s"the first micro-batch writes the operator's metadata: $files")
    val file = files.head
    java.nio.file.Files.write(file, "{}".getBytes("UTF-8"))
    java.nio.file.Files.deleteIfExists(file.resolveSibling(".metadata.crc")) // Hadoop's checksum of the old text
    h.step(batches(1): _*) // the same run: not read again (a read per micro-batch would fail here)
    h.stop()
    h.add(batches(2))
    val e = intercept[StreamingQueryException] { h.start(); h.query.processAllAvailable() }
    val causes = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
    val refused = causes.collectFirst { case w: WJoinAnalysisException => w }.getOrElse(throw e)
    assert(refused.condition == "WJOIN_STATE_METADATA_UNREADABLE", refused.getMessage)
    if (h.query != null) h.stop()
  }

  test("a stalled input blocks nothing: state grows under the min watermark policy, stays bounded under max") {
    for (policy <- Seq("min", "max")) withConf("spark.sql.streaming.multipleWatermarkPolicy" -> policy) {
      val h = harness(2, 5, wjoin("WINDOW = 2 seconds", "hw"))
      try {
        h.step(Seq(Ev(1, 10, 1)), Seq(Ev(1, 11, 2))) // then B stalls
        val sizes = (1 to 6).map { k =>
          assert(h.step(Seq(Ev(1, 10 + 20 * k, 10 + k)), Nil) == Nil)
          h.stateRows
        }
        if (policy == "min") assert(sizes.last >= 7, s"the watermark waits for B: state grows, $sizes")
        else assert(sizes.last <= 3, s"A drives the watermark: state stays bounded, $sizes")
        // B resumes with an old row: joinable (min) or late, dropped and counted (max).
        val resumed = h.step(Nil, Seq(Ev(1, 51, 3)))
        if (policy == "min") assert(resumed == Seq(Seq(12, 3)))
        else assert(resumed == Nil && h.droppedByWatermark == 1)
      } finally h.stop()
    }
  }

  test("the output carries one event-time column: a windowed aggregation downstream works") {
    val h = new StreamingHarness(spark, 2, 10, wjoin("WINDOW = 5 seconds", "hw"))
    val counts = h.inputs match { case ins =>
      wjoin("WINDOW = 5 seconds", "hw")(ins).groupBy(window(col("A.ts"), "10 seconds")).count()
    }
    val sink = s"wjoin_counts_${System.nanoTime()}"
    val q = counts.writeStream.format("memory").queryName(sink).outputMode("append")
      .option("checkpointLocation", h.checkpoint).start()
    try {
      h.add(Seq(Seq(Ev(1, 1, 1), Ev(1, 3, 2)), Seq(Ev(1, 4, 3))))
      q.processAllAvailable()
      h.add(Seq(Seq(Ev(1, 100, 4)), Seq(Ev(1, 100, 5))))
      q.processAllAvailable()
      h.add(Seq(Seq(Ev(1, 200, 6)), Seq(Ev(1, 200, 7))))
      q.processAllAvailable()
      val got = spark.table(sink).collect().map(r => r.getLong(1)).toSeq
      assert(got.contains(2L), s"window [0, 10) holds the 2 combinations: $got")
    } finally q.stop()
  }

  test("misuse fails before the query runs, naming the input") {
    val h = new StreamingHarness(spark, 2, 10, wjoin("WINDOW = 5 seconds", "hw"))
    val Seq((_, a), (_, b)) = h.inputs
    val noWatermark = h.streams(1).toDF().selectExpr("_1 as k", "timestamp_seconds(_2) as ts", "_3 as id")
    val e1 = intercept[WJoinAnalysisException](WJoin("A" -> a, "B" -> noWatermark).on("k").time("ts").window("1 second").toDF)
    assert(e1.getMessage.contains("streaming input B has no watermark"))
    val static = spark.range(3).selectExpr("cast(id as int) as k", "timestamp_seconds(id) as ts")
    val e2 = intercept[WJoinAnalysisException](WJoin("A" -> a, "S" -> static).on("k").time("ts").window("1 second").toDF)
    assert(e2.getMessage.contains("A are streaming and S are not"))
    val joined = WJoin("A" -> a, "B" -> b).on("k").time("ts").window("1 second").toDF
    val e3 = intercept[StreamingQueryException] {
      val q = joined.groupBy().count().writeStream.outputMode("complete").format("memory").queryName("wjoin_bad")
        .option("checkpointLocation", h.checkpoint).start()
      try { h.add(Seq(Seq(Ev(1, 1, 1)), Nil)); q.processAllAvailable() } finally q.stop()
    }
    assert(e3.getMessage.contains("supports output mode append only"))
    val explained = new java.io.ByteArrayOutputStream()
    Console.withOut(explained)(joined.explain())
    assert(explained.toString.contains("StreamingWindowJoin hw (hash) eager"), explained.toString)
    assert(explained.toString.contains("no state (not running)"), "explain works on an unstarted stream")
  }
}
