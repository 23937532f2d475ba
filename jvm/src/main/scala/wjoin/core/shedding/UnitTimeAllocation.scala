package wjoin.core.shedding

/**
 * The unit-time model of a resource-limited W-join and the splits of its budgets (Kang,
 * Naughton & Viglas Sec. 5.2, Eqs. 12-19), generalized from two inputs to N. The derivation
 * and where the paper stops are in docs/design/resource-limits.md.
 *
 * Per partition, input i arrives at lambda_i rows per second and its full window holds N_i
 * rows. With x_i of its arrivals probing per second (x_i <= lambda_i) and B_i of its window's
 * rows kept (a random subset, B_i <= N_i), the expected output per second is
 * {{{
 *   r(x, B) = sigma * sum_i x_i * prod_{j != i} (w_ij * B_j)          (N = 2: sigma (x_a B + x_b A), Eq. 17)
 * }}}
 * where w_ij = reach(i, j) = the part of j's retained window that an arrival of i probes (1 for
 * the paper's per-stream windows) and sigma the selectivity (a constant factor, left out here).
 * The budgets: sum_i B_i <= M (memory-limited, Eq. 15), sum_i x_i <= mu (CPU-limited, Eq. 13).
 *
 * [[auto]] maximizes r: the best probes for fixed windows are a fractional knapsack (fill the
 * directions by decreasing prod_{j != i} w_ij B_j); the best windows for fixed probes are found
 * by pairwise exchange (r restricted to B_j + B_k = s is a concave quadratic, or linear, in
 * B_j). Alternating the two from several starts reaches the paper's optima for N = 2 (all memory
 * to the slower stream's window, Eq. 16; every probe from the smaller window into the bigger,
 * Eq. 14; both: sigma mu M, Eq. 19) and a local optimum of the same model for N > 2.
 */
object UnitTimeAllocation {
  /**
   * One partition's workload.
   *
   * @param rates   lambda_i, rows per second of event time
   * @param windows N_i, the rows of input i's full window (lambda_i x its retention)
   * @param reach   reach(i)(j) in [0, 1]: the share of j's window an arrival of i probes
   */
  final case class Workload(rates: IndexedSeq[Double], windows: IndexedSeq[Double], reach: IndexedSeq[IndexedSeq[Double]]) {
    val n: Int = rates.size
    assert(n >= 2 && windows.size == n && reach.size == n && reach.forall(_.size == n), "one rate, window and reach row per input")
  }

  object Workload {
    /** The paper's two-stream setting: per-stream windows, every arrival probes all of the other's. */
    def streams(rates: IndexedSeq[Double], windows: IndexedSeq[Double]): Workload =
      Workload(rates, windows, rates.indices.map(_ => rates.indices.map(_ => 1.0)))
  }

  /**
   * A split of the budgets: B_i rows of memory and x_i probes per second per input (the
   * unlimited resource is the full window, the full rate).
   */
  final case class Budgets(state: IndexedSeq[Double], probes: IndexedSeq[Double])

  /** r(x, B) / sigma. */
  def outputRate(w: Workload, b: Budgets): Double = outputRate(w, b.state.toArray, b.probes.toArray)

  private def outputRate(w: Workload, state: Array[Double], probes: Array[Double]): Double = {
    var r = 0.0
    for (i <- 0 until w.n) r += probes(i) * coefficient(w, state, i)
    r
  }

  /** prod_{j != i} w_ij B_j: the output of one probe of input i. */
  private def coefficient(w: Workload, state: Array[Double], i: Int): Double = {
    var c = 1.0
    for (j <- 0 until w.n if j != i) c *= w.reach(i)(j) * state(j)
    c
  }

  /**
   * The budgets of `allocation` (None = that resource is unlimited). Fixed splits (equal,
   * proportional, shares) are taken as they are: a window's share may exceed its full window.
   */
  def allocate(w: Workload, stateRows: Option[Double], probeRate: Option[Double], allocation: Allocation): Budgets = {
    def split(total: Option[Double], full: IndexedSeq[Double], shares: IndexedSeq[Double]) =
      total.fold(full)(t => shares.map(_ * t))
    allocation match {
      case Allocation.Auto => auto(w, stateRows, probeRate)
      case Allocation.Equal =>
        val s = IndexedSeq.fill(w.n)(1.0 / w.n)
        Budgets(split(stateRows, w.windows, s), split(probeRate, w.rates, s))
      case Allocation.Proportional =>
        val s = Allocation.normalized(w.rates.map(r => math.max(r, 0.0) + 1e-300), "proportional")
        Budgets(split(stateRows, w.windows, s), split(probeRate, w.rates, s))
      case Allocation.Shares(state, probes) =>
        Budgets(split(stateRows, w.windows, state), split(probeRate, w.rates, probes))
    }
  }

  /**
   * The split with the most output under the model (see the object comment); what a budget
   * has beyond the full windows (or full rates) is spread in proportion to them, so an
   * underestimated workload is not shed for nothing.
   */
  def auto(w: Workload, stateRows: Option[Double], probeRate: Option[Double]): Budgets = {
    val n = w.n
    val fullState = w.windows.toArray
    val fullProbes = w.rates.toArray
    val starts: Seq[Array[Double]] = stateRows match {
      case None => Seq(fullState)
      case Some(m) =>
        val even = Array.fill(n)(m / n)
        val prop = Allocation.normalized(w.rates.map(_ + 1e-300), "rates").map(_ * m).toArray
        val allOne = (0 until n).map(i => Array.tabulate(n)(j => if (j == i) m else 0.0))
        val allOthers = (0 until n).map(i => Array.tabulate(n)(j => if (j == i) 0.0 else m / (n - 1)))
        (even +: prop +: (allOne ++ allOthers)).map(s => clampState(s, fullState, m))
    }
    var best: (Double, Array[Double], Array[Double]) = (-1.0, null, null)
    for (start <- starts) {
      var state = start
      var probes = probeRate.fold(fullProbes)(mu => bestProbes(w, state, mu))
      var r = outputRate(w, state, probes)
      var round = 0
      var improved = true
      while (improved && round < 100) {
        round += 1
        val s2 = stateRows.fold(state)(m => bestState(w, state, probes, m))
        val p2 = probeRate.fold(fullProbes)(mu => bestProbes(w, s2, mu))
        val r2 = outputRate(w, s2, p2)
        improved = r2 > r * (1 + 1e-12) + 1e-300
        if (improved) { state = s2; probes = p2; r = r2 }
      }
      if (r > best._1) best = (r, state, probes)
    }
    val state = stateRows.fold(fullState)(m => spread(best._2, fullState, m))
    val probes = probeRate.fold(fullProbes)(mu => spread(best._3, fullProbes, mu))
    Budgets(state.toIndexedSeq, probes.toIndexedSeq)
  }

  /** Fractional knapsack: mu probes to the directions of largest coefficient, each up to its rate. */
  private def bestProbes(w: Workload, state: Array[Double], mu: Double): Array[Double] = {
    val x = new Array[Double](w.n)
    var left = mu
    for (i <- (0 until w.n).sortBy(i => -coefficient(w, state, i)) if left > 0) {
      x(i) = math.min(w.rates(i), left)
      left -= x(i)
    }
    x
  }

  /**
   * Pairwise exchange over the windows and the unused memory (index n) until no move gains:
   * with B_j + B_k = s fixed, r(B_j) = a B_j (s - B_j) + b B_j + c, maximized in closed form.
   */
  private def bestState(w: Workload, start: Array[Double], probes: Array[Double], m: Double): Array[Double] = {
    val n = w.n
    val b = java.util.Arrays.copyOf(start, n + 1)
    b(n) = math.max(0.0, m - start.sum)
    val cap = Array.tabulate(n + 1)(j => if (j == n) m else math.min(w.windows(j), m))
    def rate(v: Array[Double]) = outputRate(w, v, probes)
    var pass = 0
    var moved = true
    while (moved && pass < 200) {
      pass += 1
      moved = false
      for (j <- 0 until n; k <- j + 1 to n) {
        val s = b(j) + b(k)
        val lo = math.max(0.0, s - cap(k))
        val hi = math.min(cap(j), s)
        if (hi > lo) {
          def at(v: Double) = { val c = b.clone(); c(j) = v; c(k) = s - v; rate(c) }
          // r is quadratic in B_j on [lo, hi], q u^2 + d u + c with u = B_j - lo: three points give it.
          val (f0, f1, fm) = (at(lo), at(hi), at((lo + hi) / 2))
          val h = hi - lo
          val q = 2 * (f0 + f1 - 2 * fm) / (h * h)
          val d = (f1 - f0) / h - q * h // the derivative at lo
          val vertex = if (q < 0) lo - d / (2 * q) else Double.NaN
          val candidates = Seq(lo, hi) ++ (if (!vertex.isNaN && vertex > lo && vertex < hi) Seq(vertex) else Nil)
          val bestV = candidates.maxBy(at)
          if (at(bestV) > rate(b) * (1 + 1e-12) + 1e-300) { b(j) = bestV; b(k) = s - bestV; moved = true }
        }
      }
    }
    java.util.Arrays.copyOf(b, n)
  }

  private def clampState(s: Array[Double], full: Array[Double], m: Double): Array[Double] = {
    val c = s.indices.map(j => math.min(s(j), math.min(full(j), m))).toArray
    c
  }

  /** The budget `total` beyond sum(x) spread over the inputs in proportion to `full`. */
  private def spread(x: Array[Double], full: Array[Double], total: Double): Array[Double] = {
    val left = total - x.sum
    val weight = full.sum
    if (left <= 0 || weight <= 0) x else x.indices.map(i => x(i) + left * full(i) / weight).toArray
  }
}
