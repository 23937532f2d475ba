package wjoin.bench

import wjoin.core._
import wjoin.core.cost.{AccessPath, UnitTimeCost, WeightFactors, WindowShape}
import wjoin.core.cost.AccessPath._

/**
 * Paper 003 Figs. 2-3 on the real engine: a two-input equi-join A.k = B.k whose windows hold
 * `window` rows each (per-stream RANGE windows of window / rate time units), keys uniform in
 * window / 10 values (bucket size 10), one row per time unit in total, a fraction p of them
 * from A. For each asymmetric plan of {hash, scan, T-tree} per window (the paper's eight; NN
 * left out as there) it measures the engine's nanoseconds per time unit and prints the
 * unit-time model's estimate (bundled weight factors, node size 100, matches not counted, as
 * in the paper) next to it; the last columns name the winner of each.
 *
 * The T-tree is searched with the equality as a zero-width band (`RangeBinding(.., 0, 0)`), so
 * every plan joins through the same engine (backward evaluation, HW-join's protocol); scan and
 * tree windows test the key in the filter, like the paper's NJ/TJ.
 *
 * Run: `bin/sbt "runMain wjoin.bench.AccessPathBenchmark"` (optional `--window 1000 --reps 3`).
 * `--tau` instead runs paper 001's Fig. 4a setting: four streams, one row per time unit each,
 * windows of 100 units, 50 distinct values, every input scanned (NLW-join) or hashed
 * (HW-join), ns per time unit against the expiration interval tau.
 * Timings are wall-clock medians on a shared machine: rough.
 * [[PaperAccessBenchmark]] runs the paper-sized versions (5000-row windows, the band variant,
 * the planner's auto/cost choice, paper 001 Table 8 and Fig. 4a with 2/10/30 buckets).
 */
object AccessPathBenchmark {
  /**
   * Offers rows 0 until `total` (`offer(k)` offers row k), draining the engine after each, and
   * times the rows from `fill` on (the windows are full by then): (ns per timed row, results).
   * With `finish`, the engine is finished after the timing and its last results counted too.
   */
  def timedOffers(engine: WJoinEngine, total: Int, fill: Int, finish: Boolean = false)(offer: Int => Unit): (Double, Long) = {
    var results = 0L
    var started = 0L
    var k = 0
    while (k < total) {
      if (k == fill) started = System.nanoTime()
      offer(k)
      while (engine.next()) results += 1
      k += 1
    }
    val elapsed = System.nanoTime() - started
    if (finish) { engine.finish(); while (engine.next()) results += 1 }
    (elapsed.toDouble / (total - fill), results)
  }

  private final class Row(val key: Int)

  val plans: Seq[(AccessPath, AccessPath)] =
    Seq((TTree, Scan), (TTree, Hash), (Hash, Hash), (Hash, TTree), (Scan, TTree), (Hash, Scan), (Scan, Hash), (TTree, TTree))

  def letters(p: (AccessPath, AccessPath)): String = s"${p._1.letter}${p._2.letter}"

  /** Nanoseconds per time unit (= per row) over the measured half, after the windows filled. */
  def measure(paths: (AccessPath, AccessPath), p: Double, window: Int, seed: Long): (Double, Long) = {
    val ta = math.ceil(window / p).toLong
    val tb = math.ceil(window / (1 - p)).toLong
    val fill = math.max(ta, tb).toInt
    val total = 2 * fill
    val rnd = new scala.util.Random(seed)
    val keys = math.max(1, window / 10)
    val inputs = Array.fill(total)(if (rnd.nextDouble() < p) 0 else 1)
    val rows = Array.fill(total)(new Row(rnd.nextInt(keys)))
    val matrix = WindowMatrix.close(Seq(StreamRange(0, ta, "RANGE(A)"), StreamRange(1, tb, "RANGE(B)")), Seq("A", "B"))
    val plan = new EnginePlan(matrix, Algorithm.HW, hashed = true, Seq(paths._1, paths._2),
      Seq(RangeBinding(0, 0, 1, 0, 0, 0), RangeBinding(1, 0, 0, 0, 0, 0)), nodeSize = 100)
    val filter = if (plan.allHashed) TupleFilter.AcceptAll else new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        tuple(0).asInstanceOf[Row].key == tuple(1).asInstanceOf[Row].key
    }
    val ranges = new RangeValues { def value(input: Int, attr: Int, row: AnyRef): Long = row.asInstanceOf[Row].key }
    val engine = new WJoinEngine(plan, filter, ranges = ranges)
    timedOffers(engine, total, fill)(k => engine.offer(inputs(k), k.toLong, Integer.valueOf(rows(k).key), rows(k)))
  }

  /** The model's cost per time unit: rates p and 1 - p, windows of `window` rows, bucket size 10. */
  def estimate(paths: (AccessPath, AccessPath), p: Double, window: Int, weights: WeightFactors): Double = {
    val shape = WindowShape(window, bucketSize = 10, nodeSize = 100)
    UnitTimeCost.twoWay(paths._1, shape, p, paths._2, shape, 1 - p, weights)
  }

  /** Paper 001 Fig. 4a: ns per time unit of a 4-way join with expiration every tau units. */
  def measureTau(algorithm: Algorithm, tau: Long, units: Int, seed: Long): (Double, Long, Long) = {
    val n = 4
    val rnd = new scala.util.Random(seed)
    val plan = new EnginePlan(WindowMatrix.uniform(n, 100), algorithm, hashed = algorithm != Algorithm.NLW,
      expirationInterval = tau)
    val filter = if (plan.allHashed) TupleFilter.AcceptAll else new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        tuple(plan.probeOrder(origin)(depth)).asInstanceOf[Row].key == tuple(origin).asInstanceOf[Row].key
    }
    val engine = new WJoinEngine(plan, filter)
    val rows = Array.fill(units * n)(new Row(rnd.nextInt(50)))
    var results = 0L
    var started = 0L
    var k = 0
    while (k < rows.length) {
      if (k == rows.length / 4) started = System.nanoTime()
      val r = rows(k)
      engine.offer(k % n, (k / n).toLong, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      while (engine.next()) results += 1
      k += 1
    }
    ((System.nanoTime() - started).toDouble / (units - units / 4), results, engine.stats.peakBuffered)
  }

  def main(args: Array[String]): Unit = {
    def arg(name: String, default: Int): Int = args.sliding(2).collectFirst { case Array(`name`, v) => v.toInt }.getOrElse(default)
    if (args.contains("--tau")) {
      val reps = arg("--reps", 3)
      println("paper 001 Fig. 4a: 4 streams, 1 row per time unit each, windows 100, 50 values; ns per time unit (peak rows)")
      println("| tau | NLW (scan) | HW (hash) |")
      for (algo <- Seq(Algorithm.NLW, Algorithm.HW); tau <- Seq(0L, 30L)) measureTau(algo, tau, 4000, 1L) // JIT warm-up
      for (tau <- Seq(0L, 1L, 2L, 4L, 8L, 15L, 30L, 60L)) {
        val cells = Seq(Algorithm.NLW, Algorithm.HW).map { algo =>
          val runs = (1 to reps).map(r => measureTau(algo, tau, 4000, 31L * r))
          f"${runs.map(_._1).sorted.apply(reps / 2)}%.0f (${runs.head._3})"
        }
        println(s"| $tau | ${cells.mkString(" | ")} |")
      }
      return
    }
    val window = arg("--window", 1000)
    val reps = arg("--reps", 3)
    val weights = WeightFactors.default
    val shares = Seq(0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.95)
    println(s"windows of $window rows, bucket size 10, node size 100; ns per time unit measured / model (weights $weights)")
    println(("p(A)" +: plans.map(letters) :+ "best measured" :+ "best model").mkString("| ", " | ", " |"))
    for (p <- shares) {
      val cells = plans.map { pl =>
        val runs = (1 to reps).map(r => measure(pl, p, window, 17L * r))
        val median = runs.map(_._1).sorted.apply(reps / 2)
        (pl, median, estimate(pl, p, window, weights), runs.head._2)
      }
      require(cells.map(_._4).distinct.size == 1, s"plans disagree on the result count at p = $p: ${cells.map(_._4)}")
      val bestMeasured = letters(cells.minBy(_._2)._1)
      val bestModel = letters(cells.minBy(_._3)._1)
      println((f"$p%.2f" +: cells.map { case (_, m, e, _) => f"$m%.0f / $e%.0f" } :+ bestMeasured :+ bestModel)
        .mkString("| ", " | ", " |"))
    }
  }
}
