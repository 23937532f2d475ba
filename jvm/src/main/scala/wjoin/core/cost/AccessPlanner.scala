package wjoin.core.cost

import java.util.Locale

import wjoin.core.{EnginePlan, RangeBinding}
import wjoin.errors.WJoinErrors

/**
 * Statistics of one input, as the planner gets them (batch: from the data or Spark's
 * statistics; streaming: assumed, see `wjoin.exec.InputStatistics`).
 *
 * @param rows        rows of the input
 * @param span        time units between its first and last row (> 0)
 * @param distinct    distinct values of the shared equality key (1 without one)
 * @param rangeWidths per range attribute of this input (numbered as in [[RangeBinding]]):
 *                    max - min + 1 of its values, the domain a band's selectivity is taken of
 * @param source      where the figures come from, for EXPLAIN ("data", "spark stats", "assumed")
 */
final case class InputStats(rows: Double, span: Double, distinct: Double = 1.0,
    rangeWidths: Map[Int, Double] = Map.empty, source: String = "assumed") {
  assert(rows >= 0 && span > 0 && distinct >= 1, s"invalid input statistics: $this")
  def rate: Double = rows / span
}

/**
 * What the user asked for: per input a forced path (None = the cost model chooses among every
 * path the input allows: scan, hash where it has the shared key, the trees where a band or
 * inequality binds it). `"cost"` is accepted as a synonym of `"auto"`: before the weight
 * factors were calibrated on the engine, `auto` kept hash on keyed inputs and only `cost` let
 * scan compete with it. An explicit algorithm nlw scans every window.
 */
final case class AccessRequest(forced: Seq[Option[AccessPath]])

object AccessRequest {
  def none(n: Int): AccessRequest = AccessRequest(Seq.fill(n)(None))

  /**
   * Parses `"A:hash, B:ttree"` (or `"auto"` / `"cost"`, optionally followed by per-input
   * entries: `"auto, C:scan"`); names are matched case-insensitively. Paths: scan (nlj),
   * hash, ttree (t-tree), bplustree (btree, b+tree), hash+ttree, hash+bplustree (hash+btree).
   */
  def parse(text: String, names: Seq[String]): AccessRequest = {
    val forced = Array.fill[Option[AccessPath]](names.size)(None)
    val entries = Option(text).map(_.trim).filter(_.nonEmpty).toSeq.flatMap(_.split(",").map(_.trim)).filter(_.nonEmpty)
    for (entry <- entries) entry.toLowerCase(Locale.ROOT) match {
      case "auto" | "cost" => ()
      case _ =>
        val parts = entry.split("[:=]", 2).map(_.trim)
        WJoinErrors.check(parts.length == 2, "WJOIN_INVALID_ACCESS_PATHS", Seq("entry" -> entry))
        val i = names.indexWhere(_.equalsIgnoreCase(parts(0)))
        WJoinErrors.check(i >= 0, "WJOIN_UNKNOWN_INPUT", Seq("what" -> "access_paths:", "names" -> parts(0),
          "inputs" -> names))
        WJoinErrors.check(forced(i).isEmpty, "WJOIN_DUPLICATE_ACCESS_PATH", Seq("input" -> names(i)))
        forced(i) = Some(AccessPath.parse(parts(1)).getOrElse(WJoinErrors.raise("WJOIN_UNKNOWN_ACCESS_PATH",
          "value" -> parts(1), "input" -> names(i), "choices" -> AccessPath.choices.map(_.name))))
    }
    AccessRequest(forced.toSeq)
  }
}

/**
 * The planner's decision for one W-join: access path per input, probe order per origin, the
 * expiration interval, and the unit-time costs behind them (for EXPLAIN).
 */
final case class AccessDecision(paths: Seq[AccessPath], orders: Seq[Seq[Int]], cost: Double,
    runnerUp: Option[(Seq[AccessPath], Double)], tau: Long, statsSource: String, windowKeys: Seq[Double] = Nil) {
  def describe(names: Seq[String]): String = {
    def plan(ps: Seq[AccessPath]) = names.zip(ps).map { case (nm, p) => s"$nm=${p.name}" }.mkString(", ")
    val hashed = paths.indices.filter(j => paths(j).bucketsByKey && j < windowKeys.size)
    val buckets = if (hashed.isEmpty) "" else hashed.map(j => f"${names(j)} ~${windowKeys(j)}%.0f").mkString(", hash buckets=[", ", ", "]")
    f"cost=$cost%.4g [${plan(paths)}]" + runnerUp.map { case (ps, c) => f", runner-up=$c%.4g [${plan(ps)}]" }
      .getOrElse(", runner-up=none") + buckets + s" (unit-time cost, Kang et al.; stats: $statsSource)"
  }
}

/**
 * Chooses per-input access paths and per-origin probe orders, from Kang et al.'s
 * unit-time cost model extended to N inputs ([[UnitTimeCost]]) and Golab & Özsu's ordering
 * heuristic ([[ProbeOrderCost.heuristic]]):
 *
 *  1. per input i: rate lambda_i = rows / span, window time size T_i = horizon(i) (how long a
 *     row stays joinable), window rows B_i = min(rows, lambda_i x (T_i + tau)), distinct keys
 *     v_i; a band probe into i returns about B_i x width / domain rows (width of the band from
 *     its offsets, domain from the range attribute's values; one-sided: half the window);
 *  2. probe order: the heuristic over [[StreamStats]] with b_i = rows per probe of the
 *     current paths (hash: B/v buckets; tree: B / matches), turned into per-origin orders and
 *     made valid through the join graph (an indexed input after a source of its range);
 *  3. probe rates: [[ProbeOrderCost.probesPerUnitTime]] under those orders; paths:
 *     [[UnitTimeCost.choose]] among each input's allowed paths (forced ones alone);
 *  4. steps 2-3 once more with the chosen paths (the order depends on them only through rows
 *     per probe).
 *
 * Forward evaluation (MW-join, `forwardUpper`) changes what a probe sees: the origin is the
 * combination's *oldest* member, so a row of o probes input j over [t, t + upper(j, o)], and
 * every row waits for the sweep of the oldest buffered row, so each window holds about
 * lambda_j x max_i horizon(i) rows. A scan or hash probe binary-searches its time slice and
 * examines lambda_j x S_j rows (S_j: upper(j, o) averaged over the origins o, weighted by
 * their rates); a tree probe walks the band's matches among all held rows, and a tree's
 * updates pay for a descent through them. With a slow and a fast input this makes a scan of
 * the fast one far dearer than under backward evaluation (the slow row's window spans many
 * fast rows), which the backward model alone got 46x wrong (docs/design/access-paths.md).
 *
 * Hash buckets (Golab & Özsu Sec. 6.5: more buckets for larger windows): a hash window keeps one
 * ring-buffer bucket per key it holds, created with the key's first row and dropped with its
 * last, so its bucket count follows the window's rows and key count as they are, and a probe
 * touches only its key's rows. EXPLAIN shows the expected count, v (1 - (1 - 1/v)^B) for B
 * window rows of v keys. A fixed, smaller table pays off in the paper only because its
 * expiration swept every bucket; ours pops the oldest row through the arrival ring.
 *
 * tau ("auto"): Golab & Özsu Fig. 4a: the best re-evaluation/expiration interval grows with the
 * number of hash buckets an expiration pass visits (about 4, 15 and 30 time units for 2, 10 and
 * 30 buckets in a 100-unit window), i.e. roughly T x (1 + b) / 100; taken per input and the
 * minimum over inputs, since one interval serves all windows. See [[expirationBuckets]] for b.
 */
object AccessPlanner {

  /**
   * Buckets one expiration pass over a window visits (Golab & Özsu's b for Fig. 4a). The paper's
   * hash tables sweep every bucket for old rows; all of our windows find their oldest row in
   * O(1) through the arrival ring (a hash window's ring points at the bucket to pop, a tree
   * window's at the entry to delete), so a pass visits one place per window whatever the
   * structure: b = 1, tau = T / 50. Measured (`PaperAccessBenchmark --fig4a`, T = 100, four
   * streams, scan and 2 to 50 buckets): the rate is flat in tau (within about 10% from 0 to
   * 60), so no larger tau pays, and a small one keeps the windows smallest.
   */
  def expirationBuckets(path: AccessPath): Double = 1.0

  /**
   * Paths input j may take: the forced one, else by key and range bindings. An input with both
   * the shared key and a band or inequality binding gets only the keyed range paths (hash
   * buckets, each a tree): with hash, the band would be tested on every row of the key's
   * bucket, and a bucket is the whole window when the key has one value, which an assumed
   * distinct count (Spark has none for an un-analyzed input) cannot rule out; a scan is
   * quadratic in any case. A keyed tree costs a hash lookup more than a plain one and never
   * examines rows outside the band of the probe's key.
   */
  def allowed(j: Int, keyed: Boolean, bindings: Seq[RangeBinding], request: AccessRequest,
      scanOnly: Boolean, names: Seq[String], bucketed: Boolean = false): Seq[AccessPath] = {
    val hasRange = bindings.exists(_.target == j)
    request.forced(j) match {
      case Some(p) =>
        WJoinErrors.check(!scanOnly || p == AccessPath.Scan, "WJOIN_ACCESS_PATH_NOT_SCAN",
          Seq("input" -> names(j), "path" -> p.name))
        WJoinErrors.check(!p.bucketsByKey || keyed, "WJOIN_ACCESS_PATH_NEEDS_KEY", Seq("input" -> names(j)))
        WJoinErrors.check(!p.indexed || hasRange, "WJOIN_ACCESS_PATH_NEEDS_BAND",
          Seq("input" -> names(j), "path" -> p.name))
        Seq(p)
      case None if scanOnly => Seq(AccessPath.Scan)
      case None if keyed && hasRange => AccessPath.keyedRanges
      case None if keyed && bucketed => Seq(AccessPath.Hash)
      case None => // the input's traditional path first: it wins ties
        val trees = if (hasRange) Seq(AccessPath.TTree, AccessPath.BPlusTree) else Nil
        (if (keyed) Seq(AccessPath.Hash, AccessPath.Scan) else Seq(AccessPath.Scan)) ++ trees
    }
  }

  /**
   * @param horizon      per input, how long its rows stay joinable (the window's time size)
   * @param tau          the expiration interval, or None for "auto"
   * @param forwardUpper forward evaluation (MW-join): the window matrix, `upper(j)(o)` = how far
   *                     a member of j may follow one of o; None for backward evaluation
   * @param graph        the conjuncts between inputs with their selectivities: probe orders
   *                     follow them ([[PredicateGraph.orders]]: never a cross product while a
   *                     connected input is left); None: Golab & Özsu's equi-join heuristic
   * @param bucketed     keep every keyed input bucketed by the key (a re-choice at run time,
   *                     [[AccessRecheck]]: the residual was planned without the key equalities)
   * @param fixedOrders  cost these probe orders instead of choosing them (each valid for the
   *                     forced paths): what a plan already made costs under new statistics
   */
  def plan(names: Seq[String], horizon: Seq[Long], keyed: Boolean, bindings: Seq[RangeBinding], stats: Seq[InputStats],
      request: AccessRequest, scanOnly: Boolean, tau: Option[Long], weights: WeightFactors = WeightFactors.default,
      nodeSize: Int = 100, forwardUpper: Option[Seq[Seq[Long]]] = None,
      graph: Option[PredicateGraph] = None, bucketed: Boolean = false,
      fixedOrders: Option[Seq[Seq[Int]]] = None): AccessDecision = {
    val n = names.size
    assert(stats.size == n && horizon.size == n && request.forced.size == n, "one statistic, horizon and request per input")
    assert(forwardUpper.forall(u => u.size == n && u.forall(_.size == n)), "forward evaluation needs an n x n window matrix")
    val allowedPaths = (0 until n).map(allowed(_, keyed, bindings, request, scanOnly, names, bucketed))
    val timeSize = horizon.map(h => math.max(1.0, h.toDouble))
    val distinct = stats.map(s => if (keyed) math.max(1.0, s.distinct) else 1.0)
    val forward = forwardUpper.isDefined
    // Forward evaluation: rows wait for the oldest row's sweep, and probes search time slices.
    val heldSpan = timeSize.max
    val sliceSpan: Seq[Double] = forwardUpper.fold(timeSize) { upper =>
      (0 until n).map { j =>
        val origins = (0 until n).filter(_ != j)
        val weight = origins.map(o => math.max(stats(o).rate, 1e-12)).sum
        math.max(1.0, origins.map(o => math.max(stats(o).rate, 1e-12) * math.min(upper(j)(o).toDouble, heldSpan)).sum / weight)
      }
    }

    /** Rows input j's window holds (what a tree indexes and updates). */
    def windowRows(j: Int, t: Double): Double =
      math.min(stats(j).rows, stats(j).rate * ((if (forward) heldSpan else timeSize(j)) + t))
    /** Rows a scan probe of j examines (the whole window, or forward evaluation's slice). */
    def scannedRows(j: Int, t: Double): Double =
      if (forward) math.min(stats(j).rows, stats(j).rate * sliceSpan(j)) else windowRows(j, t)
    def matches(j: Int, t: Double): Double = {
      val b = windowRows(j, t)
      val widths = bindings.filter(_.target == j).map { bd =>
        val domain = stats(j).rangeWidths.getOrElse(bd.targetAttr, Double.PositiveInfinity)
        if (!bd.bounded) 0.5 else math.min(1.0, bd.width / domain)
      }
      if (widths.isEmpty) scannedRows(j, t) else b * widths.min
    }
    def rowsPerProbe(j: Int, p: AccessPath, t: Double): Double = p match {
      case AccessPath.Scan => scannedRows(j, t)
      case AccessPath.Hash => scannedRows(j, t) / distinct(j)
      case keyedTree if keyedTree.bucketsByKey => matches(j, t) / distinct(j)
      case _ => matches(j, t)
    }
    def sources(paths: Seq[AccessPath])(j: Int): Seq[Int] =
      if (paths(j).indexed) bindings.filter(_.target == j).map(_.source) else Nil

    def round(paths: Seq[AccessPath], t: Double): (Seq[Seq[Int]], UnitTimeCost.Choice) = {
      val streams = (0 until n).map { j =>
        val b = scannedRows(j, 0)
        val perProbe = math.max(1e-9, rowsPerProbe(j, paths(j), 0))
        StreamStats(stats(j).rate, sliceSpan(j), distinct(j), buckets = math.max(1.0, b / perProbe))
      }
      val (orders, probes) = graph match {
        case Some(g) =>
          val described = (0 until n).map { j =>
            val narrowed = rowsPerProbe(j, paths(j), t)
            val src = sources(paths)(j)
            PredicateGraph.Probe(if (src.isEmpty) narrowed else scannedRows(j, t), narrowed, src, scannedRows(j, t))
          }
          val os = fixedOrders.getOrElse(PredicateGraph.orders(g, described))
          (os, PredicateGraph.probesPerUnitTime(g, described, os, stats.map(_.rate)))
        case None =>
          val global = ProbeOrderCost.heuristic(streams, t).order
          val os = fixedOrders.getOrElse((0 until n).map(o => EnginePlan.validOrder(o, global.filter(_ != o), sources(paths))))
          (os, ProbeOrderCost.probesPerUnitTime(streams, os, t))
      }
      val loads = (0 until n).map { j =>
        InputLoad(stats(j).rate, WindowShape(windowRows(j, t), math.max(1.0, scannedRows(j, t) / distinct(j)), nodeSize,
          matches(j, t), if (forward) Some(scannedRows(j, t)) else None, distinct(j)), Some(probes(j)))
      }
      (orders, UnitTimeCost.choose(loads, allowedPaths, weights))
    }

    // Round 0 with eager expiration picks the paths tau "auto" is sized for (Fig. 4a: buckets).
    // Forward evaluation drops each row right after its sweep: there is no interval to choose.
    val (_, eager) = round(allowedPaths.map(_.head), 0.0)
    val chosenTau: Long = if (forward) 0L else tau.getOrElse {
      (0 until n).map(j => math.floor(timeSize(j) * (1 + expirationBuckets(eager.paths(j))) / 100).toLong).min
    }
    val t = chosenTau.toDouble
    val (_, first) = if (t == 0) (Nil, eager) else round(eager.paths, t)
    val (orders0, second) = round(first.paths, t)
    // The order is recomputed for the final paths; an order valid for them is required.
    val orders = (0 until n).map(o => EnginePlan.validOrder(o, orders0(o), sources(second.paths)))
    // A hash window has one bucket per key it holds: v (1 - (1 - 1/v)^B) for B rows of v uniform keys.
    val windowKeys = (0 until n).map { j =>
      val (v, b) = (distinct(j), windowRows(j, t))
      if (v <= 1) math.min(1.0, b) else v * -math.expm1(b * math.log1p(-1 / v))
    }
    AccessDecision(second.paths, orders, second.cost, second.runnerUp, chosenTau, stats.map(_.source).distinct.mkString("/"),
      windowKeys)
  }
}
