package wjoin.bench

import wjoin.core.{Algorithm, EnginePlan, TupleFilter, WJoinEngine, WindowMatrix}

/**
 * The papers' per-algorithm measurements (Hammad et al. Figs. 7-9) on the Spark-free engine:
 * N synthetic streams with exponential inter-arrival times, a uniform window, keys from a
 * small domain; per algorithm the time-stamp comparisons and the service time per input row.
 * Called from benchmarks/bench_algorithms.py through py4j (with the jar of `bin/sbt bench/package`).
 */
object EngineBenchmark {
  final case class Row(key: Int, time: Long)

  /** Streams merged in time order: (input, row). Variable rate alternates rate/4 and 4*rate. */
  def streams(n: Int, rowsPerInput: Int, ratePerSecond: Double, keys: Int, variable: Boolean,
      seed: Long): Array[(Int, Row)] = {
    val rnd = new scala.util.Random(seed)
    val all = (0 until n).flatMap { i =>
      var t = 0.0
      (0 until rowsPerInput).map { k =>
        val rate = if (!variable) ratePerSecond else if ((k / 1000) % 2 == 0) ratePerSecond / 4 else ratePerSecond * 4
        t += -math.log(1 - rnd.nextDouble()) / rate
        (i, Row(rnd.nextInt(keys), (t * 1e6).toLong))
      }
    }
    all.sortBy(_._2.time).toArray
  }

  /**
   * Runs one algorithm; returns (results, comparisons, predicate evaluations, nanoseconds,
   * peak buffered rows) as a java.util.Map for Python.
   */
  def run(n: Int, rowsPerInput: Int, ratePerSecond: Double, keys: Int, windowMicros: Long,
      algorithm: String, variable: Boolean, seed: Long): java.util.Map[String, java.lang.Long] = {
    val data = streams(n, rowsPerInput, ratePerSecond, keys, variable, seed)
    val algo = Algorithm.parse(algorithm).getOrElse(throw new IllegalArgumentException(algorithm))
    val hashed = algo != Algorithm.NLW
    val matrix = WindowMatrix.uniform(n, windowMicros)
    val plan = new EnginePlan(matrix, algo, hashed)
    val m = measure(data, plan)
    val out = new java.util.LinkedHashMap[String, java.lang.Long]()
    out.put("results", m.results)
    out.put("comparisons", m.comparisons)
    out.put("predicate_evals", m.predicateEvals)
    out.put("nanos", m.nanos)
    out.put("peak_buffered", m.peakBuffered)
    out
  }

  final case class Measure(results: Long, comparisons: Long, predicateEvals: Long, rejections: Long, nanos: Long,
      peakBuffered: Long)

  /**
   * Runs the engine over merged rows, single-threaded. Without hash buckets the key equality is
   * the join predicate, tested after each bound member, as in the papers.
   */
  def measure(data: Array[(Int, Row)], plan: EnginePlan): Measure = {
    val filter = if (plan.hashed) TupleFilter.AcceptAll else new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        tuple(plan.probeOrder(origin)(depth)).asInstanceOf[Row].key == tuple(origin).asInstanceOf[Row].key
    }
    val engine = WJoinEngine.batch(plan, filter)
    val started = System.nanoTime()
    var results = 0L
    var k = 0
    while (k < data.length) {
      val (i, row) = data(k)
      engine.offer(i, row.time, if (plan.hashed) Integer.valueOf(row.key) else null, row)
      while (engine.next()) results += 1
      k += 1
    }
    engine.finish()
    while (engine.next()) results += 1
    val s = engine.stats
    Measure(results, s.comparisons, s.predicateEvals, s.refineRejections, System.nanoTime() - started, s.peakBuffered)
  }
}
