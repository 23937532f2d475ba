package wjoin.bench

import java.io.PrintWriter

import wjoin.core._
import wjoin.core.shedding.{Allocation, ResourceLimits, ShedPlan, UnitTimeAllocation}

/**
 * Kang et al. Sec. 5.2, Figs. 5-7, on the engine: two streams with the paper's
 * rates, windows, selectivity and budget, each allocation strategy of the figure (and "auto")
 * run through the shedding engine (HW-join), the output counted per second of event time.
 * Counts under a simulated budget, so the run is deterministic (seeded arrivals and shedding).
 *
 * {{{
 *   stream i: Poisson arrivals at lambda_i rows/s, key uniform in [0, 1/sigma)   (selectivity sigma)
 *   window of i: RANGE(i) = rows_i / lambda_i seconds                            (the paper's physical
 *                                                                                 windows of rows_i rows)
 *   Fig. 5  CPU-limited     lambda = 800, 200   A = 100, B = 200 rows   sigma = 0.01   mu = 100/s
 *   Fig. 6  memory-limited  lambda = 10, 50     A = B = 200 s           sigma = 0.005  M = 1000 rows
 *   Fig. 7  both            lambda = 20, 30     A = B = 50 s            sigma = 0.01   mu = 10/s, M = 100
 * }}}
 * Fig. 6 gives sigma_a = 0.005 and sigma_b = 0.01, of which the paper's model takes the smaller
 * (Eq. 12); the rates of Fig. 7 are not legible in our copy of the paper, so we chose them (both
 * faster than mu, windows larger than M, as the figure's setting requires).
 *
 * Output, CSV: `figure,strategy,second,outputs` per second, then `summary` rows
 * (`figure,strategy,rate,model,shed_rows,shed_probes,peak_state`), rate = outputs per second
 * after the warm-up (the windows full), model = the unit-time model's rate (sigma r(x, B)).
 *
 * Run: `bin/sbt "bench/runMain wjoin.bench.ResourceLimitsBenchmark --out /tmp/limits.csv"`
 * (benchmarks/bench_limits.py runs it and draws the figures).
 */
object ResourceLimitsBenchmark {
  final case class Setting(figure: String, rates: IndexedSeq[Double], windowSeconds: IndexedSeq[Double], sigma: Double,
      stateRows: Option[Long], probeRate: Option[Double], seconds: Int, warmup: Int,
      strategies: Seq[(String, Allocation)])

  private def shares(a: Double, b: Double) = IndexedSeq(a / (a + b), b / (a + b))
  private def both(a: Double, b: Double) = Allocation.Shares(shares(a, b), shares(a, b))

  val settings: Seq[Setting] = Seq(
    Setting("fig5", IndexedSeq(800.0, 200.0), IndexedSeq(100.0 / 800, 200.0 / 200), 0.01, None, Some(100.0), 120, 10,
      Seq("MaxA" -> both(1, 0), "MaxB" -> both(0, 1), "Prop. to rates" -> both(800, 200),
        "Prop. to windows" -> both(100, 200), "Equal" -> Allocation.Equal, "auto" -> Allocation.Auto)),
    Setting("fig6", IndexedSeq(10.0, 50.0), IndexedSeq(200.0, 200.0), 0.005, Some(1000L), None, 1200, 400,
      Seq("MaxA" -> both(1, 0), "MaxB" -> both(0, 1), "Prop. to rates" -> both(10, 50),
        "Inv. prop. to rates" -> both(50, 10), "Equal" -> Allocation.Equal, "auto" -> Allocation.Auto)),
    Setting("fig7", IndexedSeq(20.0, 30.0), IndexedSeq(50.0, 50.0), 0.01, Some(100L), Some(10.0), 3000, 200,
      Seq("MaxA/Max lambda_b" -> Allocation.Shares(shares(1, 0), shares(0, 1)),
        "MaxB/Max lambda_a" -> Allocation.Shares(shares(0, 1), shares(1, 0)),
        "MaxA/Max lambda_a" -> Allocation.Shares(shares(1, 0), shares(1, 0)),
        "MaxB/Max lambda_b" -> Allocation.Shares(shares(0, 1), shares(0, 1)),
        "Equal" -> Allocation.Equal, "auto" -> Allocation.Auto)))

  private val Micros = 1000000L

  /** The two streams' arrivals (time in microseconds, input, key), in merge order. */
  def arrivals(s: Setting, seed: Long): Array[(Long, Int, Int)] = {
    val keys = math.round(1 / s.sigma).toInt
    val rnd = new java.util.SplittableRandom(seed)
    val all = for (i <- s.rates.indices) yield {
      val out = Array.newBuilder[(Long, Int, Int)]
      var t = 0.0
      while (t < s.seconds) {
        t += -math.log(1 - rnd.nextDouble()) / s.rates(i)
        if (t < s.seconds) out += ((math.floor(t * Micros).toLong, i, rnd.nextInt(keys)))
      }
      out.result()
    }
    all.flatten.sortBy(r => (r._1, r._2)).toArray
  }

  final case class Outcome(perSecond: Array[Long], rate: Double, model: Double, shedRows: Long, shedProbes: Long,
      peakState: Long)

  def run(s: Setting, allocation: Allocation, rows: Array[(Long, Int, Int)], seed: Long): Outcome = {
    val names = IndexedSeq("A", "B")
    val ranges = s.windowSeconds.map(w => math.round(w * Micros))
    val matrix = WindowMatrix.close(Seq(StreamRange(0, ranges(0), "RANGE(A)"), StreamRange(1, ranges(1), "RANGE(B)")), names)
    val plan = new EnginePlan(matrix, Algorithm.HW, hashed = true)
    val workload = UnitTimeAllocation.Workload.streams(s.rates, s.rates.indices.map(i => s.rates(i) * s.windowSeconds(i)))
    val shed = ShedPlan.of(ResourceLimits(s.stateRows, s.probeRate, allocation, seed), workload, Micros)
    val engine = WJoinEngine.batch(plan, TupleFilter.AcceptAll, RangeValues.None, Some(shed))
    val perSecond = new Array[Long](s.seconds + 1)
    var peak = 0L
    def drain(): Unit = while (engine.next()) {
      val newest = math.max(engine.times(0), engine.times(1))
      perSecond((newest / Micros).toInt) += 1
    }
    for ((t, i, k) <- rows) {
      val key = Integer.valueOf(k)
      engine.offer(i, t, key, key)
      peak = math.max(peak, engine.bufferedRows)
      drain()
    }
    engine.finish()
    drain()
    val measured = perSecond.slice(s.warmup, s.seconds).sum.toDouble / (s.seconds - s.warmup)
    val budgets = UnitTimeAllocation.allocate(workload, s.stateRows.map(_.toDouble), s.probeRate, allocation)
    val effective = UnitTimeAllocation.Budgets(budgets.state.zip(workload.windows).map(p => math.min(p._1, p._2)),
      budgets.probes.zip(s.rates).map(p => math.min(p._1, p._2)))
    Outcome(perSecond, measured, s.sigma * UnitTimeAllocation.outputRate(workload, effective), engine.stats.shedRows,
      engine.stats.shedProbes, peak)
  }

  def main(args: Array[String]): Unit = {
    val out = args.sliding(2).collectFirst { case Array("--out", path) => path }
    val seed = args.sliding(2).collectFirst { case Array("--seed", v) => v.toLong }.getOrElse(42L)
    val csv = new PrintWriter(out.getOrElse("/dev/stdout"))
    csv.println("kind,figure,strategy,second,outputs,rate,model,shed_rows,shed_probes,peak_state")
    for (s <- settings) {
      val rows = arrivals(s, seed)
      val results = s.strategies.map { case (name, allocation) => name -> run(s, allocation, rows, seed) }
      val equal = results.find(_._1 == "Equal").get._2.rate
      for ((name, o) <- results) {
        for (sec <- 0 until s.seconds) csv.println(s"series,${s.figure},$name,$sec,${o.perSecond(sec)},,,,,")
        csv.println(f"summary,${s.figure},$name,,,${o.rate}%.3f,${o.model}%.3f,${o.shedRows},${o.shedProbes},${o.peakState}")
        System.err.println(f"${s.figure} ${name}%-20s output ${o.rate}%8.2f/s  model ${o.model}%8.2f/s  " +
          f"x equal ${o.rate / equal}%5.2f  shed rows ${o.shedRows}%8d  shed probes ${o.shedProbes}%8d  peak state ${o.peakState}")
      }
    }
    csv.flush()
    if (out.isDefined) csv.close()
  }
}
