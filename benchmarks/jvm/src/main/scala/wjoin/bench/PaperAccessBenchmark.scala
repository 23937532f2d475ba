package wjoin.bench

import wjoin.core._
import wjoin.core.cost._
import wjoin.core.cost.AccessPath._

/**
 * The papers' access-path figures on the real engine, one mode
 * per figure. Every cell is engine time (ns per input row, single thread, median of `--reps`
 * runs after the windows filled); the model columns are `AccessPlanner.plan`'s estimate of
 * each plan forced, with the bundled weight factors.
 *
 *  - `--eq` Kang et al. Figs. 2-3 at the paper's size: two inputs, A.k = B.k, 5000-row windows
 *    (`--window`), bucket size 10, node size 100, a share p of the rows from A; the eight
 *    asymmetric plans, measured vs model, Eq. 8-style crossovers, and what `AccessPlanner`
 *    picks in `auto` mode.
 *  - `--band` the same windows joined on `abs(A.x - B.x) <= d` (x uniform in [0, 5 x window),
 *    d = 2: one match per probe on average), where hash does not apply: N, T, B per window.
 *  - `--table8` Golab & Özsu Table 8: Table 5's four streams (rates 10, 1, 1, 3; T = 100, 100,
 *    200, 100; 50/500/40/5 values), best (heuristic) vs worst global order, NLJ and hash with 5
 *    buckets, eager and lazy tau = 5, 10; max input rate = 1e9 / ns per row.
 *  - `--fig4a` Golab & Özsu Fig. 4a: four streams, rate 1, T = 100, 50 values; NLJ and hash with
 *    2, 10, 30 buckets over tau.
 *
 * The workloads are symmetric in A and B (same window, same key distribution), so plan XY at
 * share p costs what YX costs at 1 - p; `--eq` and `--band` measure p >= 0.5 only.
 * The paper's b buckets are emulated by hashing on `value % b` with the equality tested in the
 * filter (our hash windows are per-key buckets), which reproduces the probe cost of a b-bucket
 * table exactly; expiration cost differs (see docs/design/access-paths.md).
 *
 * Run: `bin/sbt "bench/runMain wjoin.bench.PaperAccessBenchmark --eq --reps 3"` (or --band, --table8, --fig4a;
 * `--window 1000`, `--shares 0.5,0.9`, `--plans NT,TT`, `--forward` (band on MW-join), `--measured 20000` rows timed per run, `--d 2` band half-width).
 */
object PaperAccessBenchmark {
  private final class Row(val key: Int, val x: Long)

  val weights: WeightFactors = WeightFactors.default

  /** Kang et al.'s eight asymmetric plans of {hash, scan, T-tree} per window (A's path first; NN left out, as there). */
  val paperPlans: Seq[(AccessPath, AccessPath)] =
    Seq((TTree, Scan), (TTree, Hash), (Hash, Hash), (Hash, TTree), (Scan, TTree), (Hash, Scan), (Scan, Hash), (TTree, TTree))

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

  // ---------------------------------------------------------------- Kang et al., two inputs

  /** A two-input workload: equality on a key (`band` = None) or `abs(A.x - B.x) <= band`. */
  final case class TwoWay(window: Int, band: Option[Int], only: Option[Seq[String]] = None, forward: Boolean = false) {
    require(!forward || band.isDefined, "--forward is for the band join (no key)")
    val keys: Int = math.max(1, window / 10)
    val domain: Long = 5L * window
    val d: Long = band.getOrElse(0).toLong
    val bindings: Seq[RangeBinding] = Seq(RangeBinding(0, 0, 1, 0, -d, d), RangeBinding(1, 0, 0, 0, -d, d))
    /** Rows a tree probe returns: 10 for the equality (bucket size), window x (2d + 1) / domain for the band. */
    val matches: Double = if (band.isEmpty) window.toDouble / keys else window * (2.0 * d + 1) / domain
    val plans: Seq[(AccessPath, AccessPath)] =
      if (band.isEmpty) paperPlans
      else for (a <- Seq(Scan, TTree, BPlusTree); b <- Seq(Scan, TTree, BPlusTree)) yield (a, b)
    /** The plans to run (`--plans NT,TT`: a subset, e.g. to skip the slow scan plans at very skewed ratios). */
    val runPlans: Seq[(AccessPath, AccessPath)] = only.fold(plans)(names => plans.filter(pl => names.contains(s"${pl._1.letter}${pl._2.letter}")))
    def name: String = band.fold(s"A.k = B.k, $keys keys")(b => s"abs(A.x - B.x) <= $b, x in [0, $domain)")
    def matrix(p: Double): WindowMatrix = WindowMatrix.close(
      Seq(StreamRange(0, math.ceil(window / p).toLong, "RANGE(A)"), StreamRange(1, math.ceil(window / (1 - p)).toLong, "RANGE(B)")),
      Seq("A", "B"))
    /** The window shape behind the printed crossovers: equality as in the paper (no matches counted), the band with its matches. */
    val shape: WindowShape = WindowShape(window, bucketSize = if (band.isEmpty) 10 else window, nodeSize = 100,
      matchesPerProbe = if (band.isEmpty) 0.0 else matches)
  }

  /**
   * ns per row over at most `maxMeasured` rows after the windows filled, and the result count.
   * Backward evaluation (HW-join's protocol) for every plan; the band joins carry one constant
   * key so HW-join accepts them (no hash window is used then).
   */
  def measure(w: TwoWay, paths: (AccessPath, AccessPath), p: Double, seed: Long, maxMeasured: Int): (Double, Long) = {
    val fill = math.max(math.ceil(w.window / p), math.ceil(w.window / (1 - p))).toInt
    val total = fill + math.min(fill, maxMeasured)
    val rnd = new scala.util.Random(seed)
    val inputs = Array.fill(total)(if (rnd.nextDouble() < p) 0 else 1)
    val rows = Array.fill(total) {
      if (w.band.isEmpty) { val k = rnd.nextInt(w.keys); new Row(k, k) } else new Row(0, (rnd.nextDouble() * w.domain).toLong)
    }
    val keyObjects = Array.tabulate(w.keys)(Integer.valueOf)
    // --forward: MW-join without a key, what Spark runs for a keyless band join.
    val plan = new EnginePlan(w.matrix(p), if (w.forward) Algorithm.MW else Algorithm.HW, hashed = !w.forward,
      Seq(paths._1, paths._2), w.bindings, nodeSize = 100)
    val d = w.d
    val filter = if (plan.allHashed) TupleFilter.AcceptAll else new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        math.abs(tuple(0).asInstanceOf[Row].x - tuple(1).asInstanceOf[Row].x) <= d
    }
    val ranges = new RangeValues { def value(input: Int, attr: Int, row: AnyRef): Long = row.asInstanceOf[Row].x }
    val engine = WJoinEngine.batch(plan, filter, ranges)
    // Forward evaluation: rows still waiting for their sweep are finished after the timing.
    timedOffers(engine, total, fill, finish = w.forward) { k =>
      engine.offer(inputs(k), k.toLong, if (w.forward) null else keyObjects(rows(k).key), rows(k))
    }
  }

  /**
   * `AccessPlanner.plan` on this workload from data-like statistics (the same call
   * `WindowJoinPlanner.choose` makes from `InputStatistics`): with `forced` paths, the planner's
   * estimate of that plan (the model column); without, what `auto` picks.
   */
  def decide(w: TwoWay, p: Double, forced: Option[(AccessPath, AccessPath)]): AccessDecision = {
    val m = w.matrix(p)
    val span = 10.0 * w.window / math.min(p, 1 - p) // a run long enough that windows are full
    val stats = Seq(p, 1 - p).map(share => InputStats(span * share, span, if (w.band.isEmpty) w.keys else 1.0,
      Map(0 -> (if (w.band.isEmpty) w.keys.toDouble else w.domain.toDouble)), "data"))
    val request = AccessRequest(forced.fold(Seq[Option[AccessPath]](None, None))(f => Seq(Some(f._1), Some(f._2))))
    val forwardUpper = if (w.forward) Some((0 until 2).map(j => (0 until 2).map(m.upper(j, _)))) else None
    AccessPlanner.plan(Seq("A", "B"), Seq(m.horizon(0), m.horizon(1)), keyed = w.band.isEmpty, w.bindings,
      stats, request, scanOnly = false, tau = Some(0L), weights = weights, nodeSize = 100, forwardUpper = forwardUpper)
  }

  def estimate(w: TwoWay, paths: (AccessPath, AccessPath), p: Double): Double = decide(w, p, Some(paths)).cost

  def planner(w: TwoWay, p: Double): (AccessPath, AccessPath) = {
    val d = decide(w, p, None)
    (d.paths(0), d.paths(1))
  }

  def letters(p: (AccessPath, AccessPath)): String = s"${p._1.letter}${p._2.letter}"

  def median(xs: Seq[Double]): Double = { val s = xs.sorted; s(s.size / 2) }

  def twoWay(w: TwoWay, shares: Seq[Double], reps: Int, maxMeasured: Int): Unit = {
    println(s"${w.name}${if (w.forward) " (MW-join, forward evaluation)" else ""}; windows of ${w.window} rows, node size 100, ${w.matches} rows per tree probe; " +
      s"ns per row measured / model; weights $weights")
    // Model crossovers (Eq. 8 generalised): window A's path d1 -> d2 where lambda_b / lambda_a = r, i.e. p = 1 / (1 + r).
    val pairs = if (w.band.isEmpty) Seq((Scan, Hash), (Scan, TTree), (Scan, BPlusTree), (Hash, TTree), (Hash, BPlusTree))
      else Seq((Scan, TTree), (Scan, BPlusTree), (TTree, BPlusTree))
    for ((a, b) <- pairs) {
      val r = UnitTimeCost.crossover(a, b, w.shape, weights)
      println(s"model crossover ${a.letter}/${b.letter}: " + r.fold("none (one path cheaper at every ratio)")(x =>
        f"probes per own arrival $x%.4g: on window A at p = ${1 / (1 + x)}%.3f, on window B at p = ${x / (1 + x)}%.3f"))
    }
    // JIT warm-up over every plan, so the call sites have seen all window types before any timing.
    for (pl <- w.runPlans) measure(w, pl, 0.5, 99L, maxMeasured)
    println(("p(A)" +: w.runPlans.map(letters) :+ "best measured" :+ "best model" :+ "auto" :+ "auto/best").mkString("| ", " | ", " |"))
    for (p <- shares) {
      // Rounds run every plan once in a shuffled order, so load bursts spread over all plans.
      val runs = (1 to reps).flatMap(r => new scala.util.Random(r).shuffle(w.runPlans).map(pl => pl -> measure(w, pl, p, 17L * r, maxMeasured)))
      val cells = w.runPlans.map { pl =>
        val mine = runs.filter(_._1 == pl).map(_._2)
        (pl, median(mine.map(_._1)), estimate(w, pl, p), mine.head._2)
      }
      require(cells.map(_._4).distinct.size == 1, s"plans disagree on the result count at p = $p: ${cells.map(_._4)}")
      val time = cells.map(c => c._1 -> c._2).toMap
      val best = cells.minBy(_._2)
      val auto = planner(w, p)
      val autoT = time.getOrElse(auto, median((1 to reps).map(r => measure(w, auto, p, 17L * r, maxMeasured)._1)))
      val ratio = { val x = autoT / best._2; f"$x%.2f" + (if (x > 1.1) " **" else "") }
      println((f"$p%.2f" +: cells.map { case (_, m, e, _) => f"$m%.0f / $e%.0f" } :+ letters(best._1) :+
        letters(cells.minBy(_._3)._1) :+ letters(auto) :+ ratio).mkString("| ", " | ", " |"))
    }
    println("** = more than 10% slower than the best fixed plan; p < 0.5 is the mirror (plan XY at p = plan YX at 1 - p)")
  }

  // ---------------------------------------------------------------- Golab & Özsu, four inputs

  /**
   * ns per row of a four-way equi-join on one attribute: per loop iteration one row from stream
   * i with probability rate_i / sum, timestamp = iteration (so T time units are T x sum
   * iterations and stream i's window holds rate_i x T_i rows, as in the model); values uniform
   * in [1, v_i]; `buckets` = 0 scans (NLW-join), else hash on value % buckets.
   */
  def measureFour(rates: Seq[Double], sizes: Seq[Long], values: Seq[Int], orders: Seq[Seq[Int]], buckets: Int,
      tau: Long, measured: Int, seed: Long): (Double, Long) = {
    val sum = rates.sum
    val scale = math.round(sum) // iterations per time unit
    val matrix = WindowMatrix.close(sizes.indices.map(i => StreamRange(i, sizes(i) * scale, s"RANGE(S${i + 1})")),
      sizes.indices.map(i => s"S${i + 1}"))
    val hashed = buckets > 0
    val plan = new EnginePlan(matrix, if (hashed) Algorithm.HW else Algorithm.NLW, hashed, orders = orders,
      expirationInterval = tau * scale)
    val order = plan.probeOrder
    val filter = new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        tuple(order(origin)(depth)).asInstanceOf[Row].key == tuple(origin).asInstanceOf[Row].key
    }
    val engine = WJoinEngine.batch(plan, filter)
    val rnd = new scala.util.Random(seed)
    val fill = (sizes.max * scale * 2).toInt
    val total = fill + measured
    val cumulative = rates.scanLeft(0.0)(_ + _).tail.map(_ / sum)
    val inputs = Array.fill(total) { val u = rnd.nextDouble(); cumulative.indexWhere(u < _) max 0 }
    val rows = inputs.map(i => new Row(1 + rnd.nextInt(values(i)), 0))
    val keyObjects = Array.tabulate(math.max(1, buckets))(Integer.valueOf)
    timedOffers(engine, total, fill) { k =>
      engine.offer(inputs(k), k.toLong, if (hashed) keyObjects(rows(k).key % buckets) else null, rows(k))
    }
  }

  def table8(reps: Int, measured: Int): Unit = {
    val rates = Seq(10.0, 1, 1, 3)
    val sizes = Seq(100L, 100, 200, 100)
    val values = Seq(500, 50, 40, 5)
    val paper = Map(("NLJ", 0L) -> (1614, 333), ("NLJ", 5L) -> (1446, 296), ("NLJ", 10L) -> (1332, 274),
      ("hash", 0L) -> (11540, 2524), ("hash", 5L) -> (8420, 2041), ("hash", 10L) -> (7947, 1848))
    println("Golab & Özsu Table 8 (Table 5 streams); max input rate = rows per second = 1e9 / ns per row; model = Appendix A cost per time unit")
    println("| algorithm | tau | best order | worst order | model best / worst | measured best | measured worst | measured ratio | paper best | paper worst | paper ratio |")
    for ((alg, buckets) <- Seq(("NLJ", 0), ("hash", 5)); tau <- Seq(0L, 5L, 10L)) {
      val streams = rates.indices.map(i => StreamStats(rates(i), sizes(i).toDouble, values(i), if (buckets > 0) buckets.toDouble else 1.0))
      val all = ProbeOrderCost.allGlobalOrders(streams, tau.toDouble)
      val best = ProbeOrderCost.heuristic(streams, tau.toDouble)
      val worst = all.last
      measureFour(rates, sizes, values, ProbeOrderCost.perOrigin(best.order), buckets, tau, measured / 4, 5L) // warm-up
      // Best and worst alternate within each round, so load bursts hit both alike.
      val runs = (1 to reps).map(r => Seq(best.order, worst._1).map(o =>
        measureFour(rates, sizes, values, ProbeOrderCost.perOrigin(o), buckets, tau, measured, 7L * r)._1))
      val (tb, tw) = (median(runs.map(_(0))), median(runs.map(_(1))))
      def name(o: Seq[Int]) = o.map(i => s"S${i + 1}").mkString(",")
      val (pb, pw) = paper((alg, tau))
      val optimal = if (math.abs(best.cost - all.head._2) < 1e-6 * all.head._2) "" else f" (optimum ${all.head._2}%.0f)"
      println(f"| $alg | $tau | ${name(best.order)} | ${name(worst._1)} | ${best.cost}%.0f / ${worst._2}%.0f$optimal | " +
        f"${1e9 / tb}%.0f | ${1e9 / tw}%.0f | ${tw / tb}%.2f | $pb | $pw | ${pb.toDouble / pw}%.2f |")
    }
  }

  def fig4a(reps: Int, units: Int): Unit = {
    val configs = Seq(("NLJ", 0), ("HASH2", 2), ("HASH10", 10), ("HASH30", 30), ("HASH50", 50))
    val rates = Seq.fill(4)(1.0)
    val sizes = Seq.fill(4)(100L)
    val values = Seq.fill(4)(50)
    println("Golab & Özsu Fig. 4a: 4 streams, rate 1, T = 100, 50 values; max input rate (rows per second); b buckets = hash on value % b")
    println(configs.map(_._1).mkString("| tau | ", " | ", " |"))
    def rowsFor(b: Int): Int = units * math.max(1, b / 2) // about the same time per run for every config
    for ((_, b) <- configs) measureFour(rates, sizes, values, null, b, 5, rowsFor(b) / 4, 3L) // warm-up
    val taus = Seq(0L, 1L, 2L, 4L, 8L, 15L, 30L, 60L)
    // Rounds interleave every (tau, config) cell in a shuffled order, so load bursts spread over all cells.
    val cellsOf = for (tau <- taus; (_, b) <- configs) yield (tau, b)
    val times = scala.collection.mutable.Map[(Long, Int), Seq[Double]]().withDefaultValue(Nil)
    for (r <- 1 to reps; (tau, b) <- new scala.util.Random(r).shuffle(cellsOf))
      times((tau, b)) = times((tau, b)) :+ measureFour(rates, sizes, values, null, b, tau, rowsFor(b), 31L * r)._1
    for (tau <- taus)
      println(configs.map { case (_, b) => f"${1e9 / median(times((tau, b)))}%.0f" }.mkString(s"| $tau | ", " | ", " |"))
  }

  def main(args: Array[String]): Unit = {
    def arg(name: String, default: Int): Int = args.sliding(2).collectFirst { case Array(`name`, v) => v.toInt }.getOrElse(default)
    val reps = arg("--reps", 3)
    val only = args.sliding(2).collectFirst { case Array("--plans", v) => v.split(",").toSeq.map(_.trim.toUpperCase) }
    def shares(default: Seq[Double]): Seq[Double] =
      args.sliding(2).collectFirst { case Array("--shares", v) => v.split(",").toSeq.map(_.trim.toDouble) }.getOrElse(default)
    println(f"load average at start: ${java.lang.management.ManagementFactory.getOperatingSystemMXBean.getSystemLoadAverage}%.2f")
    if (args.contains("--eq"))
      twoWay(TwoWay(arg("--window", 5000), None, only), shares(Seq(0.5, 0.65, 0.8, 0.9, 0.95)), reps, arg("--measured", 20000))
    if (args.contains("--band"))
      twoWay(TwoWay(arg("--window", 5000), Some(arg("--d", 2)), only, args.contains("--forward")), shares(Seq(0.5, 0.7, 0.8, 0.85, 0.9, 0.95)), reps, arg("--measured", 20000))
    if (args.contains("--table8")) table8(reps, arg("--measured", 30000))
    if (args.contains("--fig4a")) fig4a(reps, arg("--measured", 20000))
    println(f"load average at end: ${java.lang.management.ManagementFactory.getOperatingSystemMXBean.getSystemLoadAverage}%.2f")
  }
}
