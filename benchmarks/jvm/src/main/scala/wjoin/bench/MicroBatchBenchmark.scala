package wjoin.bench

import wjoin.core.{Algorithm, EnginePlan, EngineRow, MicroBatchWJoin, TupleFilter, WindowMatrix}

/**
 * The streaming engine's part of a micro-batch, without Spark: an engine kept across
 * micro-batches against one rebuilt from the state rows every batch (what a task pays when
 * the engine is not kept, minus reading the state store, which only adds to it). Inputs at
 * unequal rates in files of equal row counts, Spark's watermark (min over inputs of the max
 * time seen, minus the delay), HW-join (eager) or MW-join (ordered) on a key.
 *
 * {{{
 *   bin/sbt "bench/runMain wjoin.bench.MicroBatchBenchmark"            # 3 x 120k rows, 20 batches
 *   bin/sbt "bench/runMain wjoin.bench.MicroBatchBenchmark 600000 10"
 * }}}
 */
object MicroBatchBenchmark {
  final case class Row(key: Int, time: Long)

  def main(args: Array[String]): Unit = {
    val rows = if (args.length > 0) args(0).toInt else 120000
    val batches = if (args.length > 1) args(1).toInt else 20
    val rates = Seq(300, 900, 600)
    val keys = 400
    val n = rates.size
    val rnd = new scala.util.Random(7)
    val perBatch = rows / batches
    // batch b of input i: rows b * perBatch until (b + 1) * perBatch at rates(i), in time order.
    val data = (0 until batches).map { b =>
      (0 until n).flatMap { i =>
        val step = 1000000L / rates(i)
        (b * perBatch until (b + 1) * perBatch).map(r => EngineRow(i, r * step + rnd.nextInt(step.toInt),
          Integer.valueOf(rnd.nextInt(keys)), Row(0, 0)))
      }.sortBy(r => (r.time, r.input))
    }
    val delay = 3000000L
    val matrix = WindowMatrix.uniform(n, 1000000L)
    for (algorithm <- Seq(Algorithm.HW, Algorithm.MW)) {
      val plan = new EnginePlan(matrix, algorithm, hashed = true)
      val timings = Map("kept" -> Seq.newBuilder[Long], "rebuilt" -> Seq.newBuilder[Long])
      for (round <- 0 until 7; mode <- Seq("kept", "rebuilt")) {
        val (nanos, out) = run(plan, data, delay, rebuild = mode == "rebuilt")
        if (round > 1) timings(mode) += nanos
        if (round == 6) println(f"${algorithm.name} $mode%-8s results $out%,d")
      }
      val med = timings.map { case (m, b) => val s = b.result().sorted; m -> s(s.size / 2) }
      println(f"${algorithm.name}: kept ${med("kept") / 1e6}%.0f ms, rebuilt ${med("rebuilt") / 1e6}%.0f ms " +
        f"(median of 5, ${batches} batches of ${n} x ${perBatch} rows)")
    }
  }

  /** All batches through one engine (kept) or a new engine per batch restored from the state rows. */
  private def run(plan: EnginePlan, data: Seq[Seq[EngineRow]], delay: Long, rebuild: Boolean): (Long, Long) = {
    val started = System.nanoTime()
    val state = new java.util.LinkedHashSet[EngineRow]()
    var join: MicroBatchWJoin = null
    val maxSeen = Array.fill(3)(Long.MinValue)
    var out = 0L
    for (batch <- data :+ Nil) {
      val w = if (batch.isEmpty) Long.MaxValue / 4 else if (maxSeen.contains(Long.MinValue)) Long.MinValue
        else maxSeen.min - delay
      if (join == null || rebuild) {
        join = new MicroBatchWJoin(plan, TupleFilter.AcceptAll)
        if (rebuild) {
          val rows = new java.util.ArrayList[EngineRow](state)
          join.restore(scala.jdk.CollectionConverters.ListHasAsScala(rows).asScala.toSeq)
        }
      }
      val results = join.results(w, batch.iterator)
      while (results.hasNext) { results.next(); out += 1 }
      if (rebuild) {
        // the state the evaluator would store: every row not yet out of reach
        batch.foreach(state.add)
        state.removeIf(r => if (plan.forward) r.time + plan.horizon.max <= w else r.time + plan.horizon(r.input) <= w)
      }
      batch.foreach(r => maxSeen(r.input) = math.max(maxSeen(r.input), r.time))
    }
    (System.nanoTime() - started, out)
  }
}
