package wjoin.exec

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.functions.expr
import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.{Ev, SharedSparkSession, StreamingHarness}
import wjoin.WJoin

/**
 * Keyless streaming W-joins partitioned by band cells (`plan/StreamPartitioning.ByCells`): the
 * union over all micro-batches is the batch W-join of the same rows at every partition count,
 * for integral, real (NULL, NaN, infinities), decimal and timestamp band attributes, on both
 * state store providers, for inner and anchored (left, left_anti) W-joins; exactly once across
 * a failing sink and a restart with another shuffle partition count; late rows counted once;
 * a condition without a range form stays in one partition and EXPLAIN says why.
 */
class StreamingCellsSuite extends AnyFunSuite with SharedSparkSession {
  private val providers = StreamingHarness.providers

  /** Band attributes of every kind, derived from the id (a spread of values, some shared). */
  private def withBandColumns(df: DataFrame): DataFrame = df
    .withColumn("x", expr("cast(pmod(id * 37, 61) as bigint)"))
    .withColumn("d", expr("""case when pmod(id, 11) = 0 then cast(null as double)
      when pmod(id, 13) = 0 then cast('NaN' as double)
      when pmod(id, 17) = 0 then cast('Infinity' as double)
      else pmod(id * 37, 61) / 2.0d end"""))
    .withColumn("m", expr("cast(pmod(id * 37, 61) / 4 as decimal(10, 2))"))
    .withColumn("s", expr("timestamp_seconds(pmod(id * 37, 61))"))

  private def build(n: Int, band: Seq[String] => Column, algorithm: String = "auto", how: String = "inner",
      windows: String = "WINDOW = 8 seconds")(inputs: Seq[(String, DataFrame)]): DataFrame =
    WJoin(inputs.map { case (name, df) => name -> withBandColumns(df) }: _*).time("ts").windows(windows)
      .algorithm(algorithm).how(how).on(band(inputs.map(_._1))).toDF

  private def chain(column: String, widths: Int*)(names: Seq[String]): Column =
    names.indices.tail.map(j => expr(s"abs(${names(j - 1)}.$column - ${names(j)}.$column) <= ${widths(j - 1)}"))
      .reduce(_ && _)

  private def explained(h: StreamingHarness): String = {
    val out = new java.io.ByteArrayOutputStream()
    Console.withOut(out)(h.query.explain())
    out.toString
  }

  private def run(n: Int, partitions: Int, build: Seq[(String, DataFrame)] => DataFrame, seed: Long,
      provider: String = providers.head._2, idColumns: Seq[String] = Nil, perInput: Int = 14,
      expectedPartitions: Int = -1, reference: Seq[(String, DataFrame)] => DataFrame = null): String =
    withConf("spark.sql.shuffle.partitions" -> partitions.toString,
        "spark.sql.streaming.stateStore.providerClass" -> provider) {
      // The delay covers the disorder, so no row is late: the answer is the batch W-join of all rows.
      val h = new StreamingHarness(spark, n, 40, build, idColumns)
      h.start()
      val events = Ev.random(n, perInput, seed)
      try {
        Ev.splits(events, 4, seed).foreach(batch => h.step(batch: _*))
        h.flush()
        val expected = h.batchAnswer(events, Option(reference).getOrElse(build))
        assert(expected.nonEmpty)
        assert(h.results.sortBy(_.mkString(",")) == expected, s"$partitions partitions")
        assert(h.query.lastProgress.stateOperators.head.numShufflePartitions ==
          (if (expectedPartitions < 0) partitions else expectedPartitions))
        assert(h.droppedByWatermark == 0)
        explained(h)
      } finally h.stop()
    }

  // hw, asked for: the cells are its key, as auto plans it. On the first provider auto and mw at
  // both widths, hw (3-way) and nlw (2-way) once; on the second, one plan per state mode (auto
  // 3-way: eager; mw 2-way: ordered): the store holds what the mode writes, whatever algorithm
  // produced it.
  private def cellCases(first: Boolean, n: Int): Seq[String] =
    if (first) Seq("auto", "mw") ++ (if (n == 3) Seq("hw") else Seq("nlw"))
    else if (n == 3) Seq("auto") else Seq("mw")
  for ((providerName, provider) <- providers; n <- 2 to 3; algorithm <- cellCases(provider == providers.head._2, n)) {
    // Two partition counts per cell (one task, several cells per task), three across the cells.
    val counts = if (n == 2) Seq(1, 5) else Seq(2, 5)
    test(s"$n-way $algorithm on $providerName, integral band: random micro-batches at ${counts.mkString(" and ")} " +
      "partitions = batch") {
      for (partitions <- counts) {
        // A batch W-join has no cells: hw's answer is the batch auto's.
        val plan = run(n, partitions, build(n, chain("x", 4, 8), algorithm), seed = 31 * n + algorithm.length + partitions,
          provider = provider, perInput = if (n == 3) 20 else 14,
          reference = if (algorithm == "hw") build(n, chain("x", 4, 8)) else null)
        if (algorithm == "hw") assert(plan.contains("StreamingWindowJoin hw (hash)"), plan)
        assert(plan.contains("partitioning=band cells of [A.x, B.x"), plan)
        assert(plan.contains("BandCells"), plan)
      }
    }
  }

  test("real (NULL, NaN, infinities), decimal and timestamp band attributes = batch, at 1 or 3 partitions") {
    val bands: Seq[(String, Seq[String] => Column)] = Seq(
      "double" -> chain("d", 2, 3),
      "double BETWEEN" -> ((ns: Seq[String]) => expr(s"${ns(0)}.d BETWEEN ${ns(1)}.d - 1.5 AND ${ns(1)}.d + 2") &&
        expr(s"${ns(2)}.d >= ${ns(1)}.d - 2 AND ${ns(2)}.d <= ${ns(1)}.d + 2")),
      "decimal" -> chain("m", 2, 3),
      "timestamp" -> ((ns: Seq[String]) => expr(s"${ns(0)}.s BETWEEN ${ns(1)}.s - INTERVAL 3 SECONDS AND ${ns(1)}.s") &&
        expr(s"${ns(2)}.s BETWEEN ${ns(1)}.s - INTERVAL 4 SECONDS AND ${ns(1)}.s + INTERVAL 4 SECONDS")),
      "long vs double" -> ((ns: Seq[String]) => expr(s"abs(${ns(0)}.x - ${ns(1)}.d) <= 2.5") &&
        expr(s"abs(${ns(1)}.d - ${ns(2)}.d) <= 1")))
    for (((kind, band), i) <- bands.zipWithIndex; partitions = if (i % 2 == 0) 3 else 1) {
      withClue(kind) {
        val plan = run(3, partitions, build(3, band), seed = kind.length * 3 + partitions, perInput = 20)
        assert(plan.contains("partitioning=band cells"), plan)
      }
    }
  }

  test("left and left_anti W-joins by cells: each anchor row decided once (NULL and NaN anchors unmatched)") {
    for (how <- Seq("left", "left_anti"); algorithm <- Seq("auto", "mw")) {
      val ids = if (how == "left") Seq("A.id", "B.id") else Seq("A.id")
      run(2, 3, build(2, chain("d", 2), algorithm, how), seed = how.length + algorithm.length, idColumns = ids,
        perInput = 20)
    }
  }

  test("restart from the checkpoint with another partition count and a failing sink: the same total output") {
    val events = Ev.random(3, 18, 21)
    val batches = Ev.splits(events, 6, 4)
    val h = new StreamingHarness(spark, 3, 40, build(3, chain("x", 4, 2)))
    withConf("spark.sql.shuffle.partitions" -> "3")(h.start())
    batches.take(2).foreach(b => h.step(b: _*))
    h.stop()
    withConf("spark.sql.shuffle.partitions" -> "6") {
      h.failOnceAndRestart(batches(2)) // batch 2's rows are read again after the restart
      batches.drop(3).foreach(b => h.step(b: _*))
      h.flush()
      assert(h.query.lastProgress.stateOperators.head.numShufflePartitions == 3, "the checkpoint's count is kept")
      h.stop()
    }
    assert(h.runs.values().stream().anyMatch(_ > 1), "a batch was run twice")
    val expected = h.batchAnswer(events)
    assert(expected.nonEmpty)
    assert(h.results.sortBy(_.mkString(",")) == expected)
  }

  test("late rows are dropped and counted once, not once per copy; state is evicted by the watermark") {
    withConf("spark.sql.shuffle.partitions" -> "4") {
      val h = new StreamingHarness(spark, 2, 10, build(2, chain("x", 30), windows = "WINDOW = 5 seconds"))
      h.start()
      try {
        // ids 1, 2: x = 37 and 13, within 30 of each other
        assert(h.step(Seq(Ev(0, 10, 1)), Seq(Ev(0, 12, 2))) == Seq(Seq(1, 2)))
        h.step(Seq(Ev(0, 40, 3)), Seq(Ev(0, 41, 4))) // watermark 30
        // B's row at 20 is late: x = 37 * 5 % 61 = 2 reaches 2 cells, yet it is counted once
        h.step(Nil, Seq(Ev(0, 20, 5)))
        assert(h.droppedByWatermark == 1)
        h.flush()
        assert(h.stateRows <= 4, "only the flush rows (and their copies) remain")
      } finally h.stop()
    }
  }

  test("a condition without a range form stays in one partition, and EXPLAIN says why") {
    val noRange = (ns: Seq[String]) => expr(s"${ns(0)}.x * ${ns(1)}.x < 100")
    val plan = run(2, 4, build(2, noRange), seed = 5, expectedPartitions = 1)
    assert(plan.contains("partitioning=one partition (no shared key and no band predicate"), plan)
    assert(!plan.contains("BandCells"), plan)
    val oneSided = (ns: Seq[String]) => expr(s"${ns(0)}.x < ${ns(1)}.x")
    val plan2 = run(2, 4, build(2, oneSided), seed = 6, expectedPartitions = 1)
    assert(plan2.contains("partitioning=one partition (no band predicate bounds B relative to A)"), plan2)
  }
}
