package wjoin.core.cost

import wjoin.core.cost.CostOrdering.total

/**
 * What the cost model needs to know about one input window.
 *
 * @param rows            B: rows in the window (a time window holds rate x length rows)
 * @param bucketSize      B/|B|: rows per hash bucket, i.e. rows with the probe's key
 *                        (rows / distinct keys for our per-key buckets)
 * @param nodeSize        N: entries per T-tree node or B+tree leaf
 * @param matchesPerProbe rows a range probe returns; the tree walks them after its descent.
 *                        Kang et al. studies equality probes, where this is ~0 (its default);
 *                        a band `abs(A.x - B.x) <= d` returns about rows x (2d + 1) / domain
 * @param scannedRows     rows a scan probe examines when it is not the whole window: forward
 *                        evaluation (MW-join) binary-searches the probe's time slice first
 * @param keys            distinct keys among the rows (>= 1): a keyed range path holds one tree
 *                        per key, of rows / keys rows, whose probe returns matches / keys rows
 */
final case class WindowShape(rows: Double, bucketSize: Double = 1.0, nodeSize: Int = 100,
    matchesPerProbe: Double = 0.0, scannedRows: Option[Double] = None, keys: Double = 1.0) {
  assert(keys >= 1, s"a window has at least one key: $this")
  /** One key's tree of a keyed range path: rows and matches of the probe's key only. */
  def keyBucket: WindowShape =
    WindowShape(rows / keys, rows / keys, math.min(nodeSize, AccessPath.KeyedNodeSize), matchesPerProbe / keys)
  assert(rows >= 0 && bucketSize >= 0 && matchesPerProbe >= 0 && scannedRows.forall(_ >= 0), s"negative window shape: $this")
  /** Rows a scan probe examines: the whole window, unless a time slice is searched first. */
  def scanned: Double = scannedRows.getOrElse(rows)
  assert(nodeSize >= 2, s"node size must be at least 2, got $nodeSize")
}

/**
 * One input of an N-way window join, for the unit-time cost model.
 *
 * @param rate      lambda: rows arriving per unit time
 * @param window    the window's shape
 * @param probeRate probes into this window per unit time; by default every row of every
 *                  other input probes it once (our N-input extension of Kang et al.'s
 *                  two-way model). [[ProbeOrderCost.probesPerUnitTime]] gives the exact
 *                  count for a multi-way plan, where only partial results reach inner loops.
 */
final case class InputLoad(rate: Double, window: WindowShape, probeRate: Option[Double] = None)

/**
 * Kang et al.'s unit-time cost model (Kang et al., Sec. 4): the work per unit of
 * time, split into independent join directions (Eq. 2). The direction into window W costs
 *
 * {{{
 *   C(W) = probeRate x probe(W) + ownRate x (insert(W) + invalidate(W))
 * }}}
 *
 * where each term is the number of tuples touched times the access path's weight factor
 * (P_d for a search, I_d for an update). Tuples touched per operation, for a window of
 * B rows, bucket size B/|B| and node size N (all ceilings as in the paper; logs of
 * arguments below 1 count as 0):
 *
 * {{{
 *   path       probe                                   insert + invalidate
 *   Scan  (3)  B                                       2
 *   Hash  (4)  B/|B|                                   2
 *   B+tree(5)  h_B x ceil(log2 N) (+ matches)          2 x h_B x ceil(log2 N)
 *              with h_B = ceil(log_{N+1} ceil(B/N)) + 1, the B+tree height
 *   T-tree(6)  s_T = 1.5 x (ceil(log2 ceil(B/N)) - 1)  2 x s_T
 *                  + ceil(log2 N)  (+ matches)
 * }}}
 *
 * A keyed range path (hash buckets on the shared key, each a tree on the range attribute; ours,
 * not the paper's) is a hash lookup followed by the tree's search in the key's bucket:
 *
 * {{{
 *   hash+tree  1 x P_h + (search(B/|B|) + matches/|B|) x P_tree      probe
 *              2 x I_h + 2 x search(B/|B|) x I_tree                  insert + invalidate
 * }}}
 *
 * with search() the tree's term above over a bucket of B/|B| rows. Its probe never examines
 * rows outside the band, so an assumed |B| only moves it between logarithmic terms, where the
 * hash path's B/|B| turns a wrong |B| into a scan of the whole window.
 *
 * Reading of Eq. 6 (the OCR text is garbled there): the update term is
 * `2 x (1.5 x (ceil(log2 ceil(B/N)) - 1) + ceil(log2 N))`, an insert and an invalidation each
 * paying a full search. This is the reading under which the model reproduces every T-tree
 * entry of the paper's Table 3 (e.g. TT = 9.56 for A = 9500, B = 500, rates 2 and 998); the
 * printed Eqs. 9-10 carry `ceil(log2 2N)` terms that follow from neither reading, so the
 * crossovers here are derived from Eqs. 6-7 instead (see `crossover`).
 *
 * A two-input plan is the sum of its two directions, chosen independently (the asymmetric
 * joins of Kang et al.). For N inputs the model stays separable: each input's window costs
 * its probe rate x probe + its own rate x maintenance, so the cheapest plan picks each
 * input's access path on its own (see `choose`).
 */
object UnitTimeCost {

  /** Tuples touched by one probe of the window (before weighting; a keyed path: its tree's part). */
  def probeAccesses(path: AccessPath, w: WindowShape): Double = path match {
    case AccessPath.Scan => w.scanned
    case AccessPath.Hash => w.bucketSize
    case AccessPath.BPlusTree => bplusSearch(w) + w.matchesPerProbe
    case AccessPath.TTree => ttreeSearch(w) + w.matchesPerProbe
    case keyed => probeAccesses(keyed.tree.get, w.keyBucket)
  }

  /** Tuples touched by one insert plus one invalidation (before weighting; a keyed path: its tree's part). */
  def updateAccesses(path: AccessPath, w: WindowShape): Double = path match {
    case AccessPath.Scan | AccessPath.Hash => 2.0
    case AccessPath.BPlusTree => 2.0 * bplusSearch(w)
    case AccessPath.TTree => 2.0 * ttreeSearch(w)
    case keyed => updateAccesses(keyed.tree.get, w.keyBucket)
  }

  /** Eq. 5's search: the height ceil(log_{N+1} ceil(B/N)) + 1 times a binary search per node. */
  def bplusSearch(w: WindowShape): Double =
    (ceilLog(w.nodeSize + 1L, leafCount(w)) + 1) * ceilLog(2L, w.nodeSize.toLong).toDouble

  /** Eq. 6's search: 1.5 comparisons per node above the bounding one, then a binary search in it. */
  def ttreeSearch(w: WindowShape): Double =
    1.5 * math.max(0, ceilLog(2L, leafCount(w)) - 1) + ceilLog(2L, w.nodeSize.toLong)

  /** ceil(B / N), at least 1: the nodes of a T-tree, the leaves of a B+tree. */
  private def leafCount(w: WindowShape): Long = math.max(1L, math.ceil(w.rows / w.nodeSize).toLong)

  /** Smallest k with base^k >= x, computed exactly in integers (0 for x <= 1). */
  def ceilLog(base: Long, x: Long): Int = {
    assert(base >= 2, s"log base $base")
    var k = 0
    var power = 1L
    while (power < x) { power = if (power > Long.MaxValue / base) Long.MaxValue else power * base; k += 1 }
    k
  }

  /** A keyed range path adds its hash lookup (one touch at P_h) to the tree's search in the bucket. */
  def probeCost(path: AccessPath, w: WindowShape, weights: WeightFactors): Double =
    probeAccesses(path, w) * weights.probe(path) + (if (path.tree.isDefined) weights.hashProbe else 0.0)

  /** A keyed range path adds the bucket's insert and invalidation (2 touches at I_h) to its tree's. */
  def maintenanceCost(path: AccessPath, w: WindowShape, weights: WeightFactors): Double =
    updateAccesses(path, w) * weights.update(path) + (if (path.tree.isDefined) 2.0 * weights.hashUpdate else 0.0)

  /**
   * One join direction (Eq. 2): the work per unit time of the window that `path` holds,
   * probed `probeRate` times and updated by `ownRate` arrivals (each inserted and, in steady
   * state, one expired).
   */
  def direction(path: AccessPath, w: WindowShape, probeRate: Double, ownRate: Double, weights: WeightFactors): Double =
    probeRate * probeCost(path, w, weights) + ownRate * maintenanceCost(path, w, weights)

  /**
   * A two-input plan (Eq. 1 = sum of the directions of Eq. 2): window A in `pathA`, window B
   * in `pathB`. Kang et al. names the plan by the two letters, A's first ("TN": T-tree on A).
   */
  def twoWay(pathA: AccessPath, a: WindowShape, rateA: Double, pathB: AccessPath, b: WindowShape, rateB: Double,
      weights: WeightFactors): Double =
    direction(pathA, a, rateB, rateA, weights) + direction(pathB, b, rateA, rateB, weights)

  /**
   * Where two access paths for the same window cost the same: the ratio
   * probeRate / ownRate at which `first` and `second` cross (Eq. 8 for Scan vs Hash, whose
   * closed form with the paper's factors and bucket size 10 is 13.6 / (3B - 55)). For the
   * direction A to B this is lambda_a / lambda_b. None when they never cross at a positive
   * ratio (one path is cheaper for every workload).
   */
  def crossover(first: AccessPath, second: AccessPath, w: WindowShape, weights: WeightFactors): Option[Double] = {
    val probeGap = probeCost(first, w, weights) - probeCost(second, w, weights)
    val updateGap = maintenanceCost(second, w, weights) - maintenanceCost(first, w, weights)
    if (probeGap == 0) None
    else Some(updateGap / probeGap).filter(_ > 0)
  }

  /** Probes per unit time into input i: the given rate, else one per row of every other input. */
  def probeRateOf(inputs: Seq[InputLoad], i: Int): Double =
    inputs(i).probeRate.getOrElse(inputs.indices.filter(_ != i).map(inputs(_).rate).sum)

  /** The work per unit time of input i's window held in `path` (the N-input extension). */
  def inputCost(inputs: Seq[InputLoad], i: Int, path: AccessPath, weights: WeightFactors): Double =
    direction(path, inputs(i).window, probeRateOf(inputs, i), inputs(i).rate, weights)

  /** Total work per unit time of a plan that holds input i in `paths(i)`. */
  def planCost(inputs: Seq[InputLoad], paths: Seq[AccessPath], weights: WeightFactors): Double = {
    assert(paths.size == inputs.size, s"${paths.size} access paths for ${inputs.size} inputs")
    inputs.indices.map(i => inputCost(inputs, i, paths(i), weights)).sum
  }

  /**
   * The chosen plan and the runner-up (for EXPLAIN): the cheapest plan, and the cheapest one
   * that differs from it in at least one input. `perInput(i)` ranks input i's candidate paths.
   */
  final case class Choice(paths: Seq[AccessPath], cost: Double, runnerUp: Option[(Seq[AccessPath], Double)],
      perInput: Seq[Seq[(AccessPath, Double)]]) {
    def letters: String = paths.map(_.letter).mkString
  }

  /**
   * Picks an access path per input among `allowed(i)` (a single path forces it; hash only
   * where the input has an equality key, trees only with a range attribute: the caller
   * knows). The cost is a sum of per-input terms, so the minimum takes each input's
   * cheapest path, and the runner-up swaps the one input whose second choice costs least.
   */
  def choose(inputs: Seq[InputLoad], allowed: Seq[Seq[AccessPath]], weights: WeightFactors): Choice = {
    assert(allowed.size == inputs.size && allowed.forall(_.nonEmpty), "every input needs at least one access path")
    val ranked = inputs.indices.map(i => allowed(i).distinct.map(p => p -> inputCost(inputs, i, p, weights)).sortBy(_._2))
    val best = ranked.map(_.head._1)
    val cost = ranked.map(_.head._2).sum
    val swaps = inputs.indices.filter(ranked(_).size > 1).map(i => i -> (ranked(i)(1)._2 - ranked(i).head._2))
    val runnerUp = if (swaps.isEmpty) None else {
      val (i, extra) = swaps.minBy(_._2)
      Some((best.updated(i, ranked(i)(1)._1), cost + extra))
    }
    Choice(best, cost, runnerUp, ranked)
  }
}
