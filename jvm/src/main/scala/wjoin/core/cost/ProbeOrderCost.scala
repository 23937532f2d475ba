package wjoin.core.cost

import wjoin.core.cost.CostOrdering.total

/**
 * One sliding window in Golab & Özsu's join-ordering model (Table 1).
 *
 * @param rate     lambda_i: rows per unit time
 * @param timeSize T_i: window length in time units (the window holds lambda_i x T_i rows)
 * @param distinct v_i: distinct values of the join attribute in the window
 * @param buckets  b_i: hash buckets of the window's index; 1 = no index (nested loops)
 */
final case class StreamStats(rate: Double, timeSize: Double, distinct: Double, buckets: Double = 1.0) {
  assert(rate >= 0 && timeSize >= 0 && distinct >= 1 && buckets >= 1, s"invalid stream statistics: $this")

  /** Rows in the window when it is expired every tau time units (Appendix A: T grows to T + tau). */
  def rows(tau: Double): Double = rate * (timeSize + tau)

  /** Rows one probe looks at: the whole window, or one hash bucket (Sec. 5.3: T_i / b_i). */
  def scanned(tau: Double): Double = rows(tau) / buckets
}

/**
 * Golab & Özsu's per-unit-time cost of a multi-way sliding-window join order (Appendix A) and
 * its join ordering heuristic (Sec. 5), for an equi-join on one common attribute.
 *
 * Model. A new row of stream i runs the nested loops of its join order; at each loop it
 * scans the next window (or one bucket of it), and only the partial results that survived
 * the previous loops go on. With uniform values and containment of value sets, the partial
 * results of one new S_i row after joining windows o_1..o_k number
 *
 * {{{
 *   m_0 = 1,  m_k = m_{k-1} x C_{o_k} / max(d_{k-1}, v_{o_k}),  d_0 = v_i, d_k = min(d_{k-1}, v_{o_k})
 * }}}
 *
 * where C_j = lambda_j x T_j rows. Scanning loop k costs m_{k-1} x scanned(o_k) (C_j for
 * nested loops, C_j / b_j for a hash bucket), so the cost per unit time of the rows of
 * stream i (C_i in Appendix A, with T_j + tau for lazy re-evaluation every tau, L_i) is
 *
 * {{{
 *   cost_i = lambda_i x sum_{k=1..n-1} m_{k-1} x scanned(o_k)
 * }}}
 *
 * and a global order S_a, S_b, ... (the Eager Multi-Way NLJ: the new row's window first,
 * the others in global order) costs sum_i cost_i. Insert and expire costs do not depend on
 * the order and are left out, as in the paper. Appendix B's example (Table 9, order
 * S1, S2, S3, S4) costs 3800 + 3800 + 2400 + 6000 = 16000 under this model.
 *
 * Orders are arrays of stream indices (0-based: S1 is 0).
 */
object ProbeOrderCost {

  /**
   * Expected result size of joining the windows in `members` (in that order, from a whole
   * window of the first, or from one row of it when `fromOneRow`): Appendix A's phi.
   */
  def joinSize(streams: Seq[StreamStats], members: Seq[Int], tau: Double = 0.0, fromOneRow: Boolean = false): Double = {
    var size = if (fromOneRow) 1.0 else streams(members.head).rows(tau)
    var distinct = streams(members.head).distinct
    for (j <- members.tail) {
      size = size * streams(j).rows(tau) / math.max(distinct, streams(j).distinct)
      distinct = math.min(distinct, streams(j).distinct)
    }
    size
  }

  /** cost_i: work per unit time for the new rows of `origin`, probing `others` in that order. */
  def originCost(streams: Seq[StreamStats], origin: Int, others: Seq[Int], tau: Double = 0.0): Double =
    streams(origin).rate * scansPerRow(streams, origin, others, tau).sum

  /** Rows scanned at each loop for one new row of `origin` (m_{k-1} x scanned(o_k)). */
  private def scansPerRow(streams: Seq[StreamStats], origin: Int, others: Seq[Int], tau: Double): Seq[Double] = {
    var partials = 1.0
    var distinct = streams(origin).distinct
    others.map { j =>
      val scan = partials * streams(j).scanned(tau)
      partials = partials * streams(j).rows(tau) / math.max(distinct, streams(j).distinct)
      distinct = math.min(distinct, streams(j).distinct)
      scan
    }
  }

  /** The per-origin probe orders a global order implies: the origin first, then the rest. */
  def perOrigin(order: Seq[Int]): IndexedSeq[Seq[Int]] = order.indices.map(i => order.filter(_ != i))

  /** Cost per unit time of a global join order (sum over the origins). */
  def globalOrderCost(streams: Seq[StreamStats], order: Seq[Int], tau: Double = 0.0): Double = {
    requirePermutation(streams.size, order)
    streams.indices.map(i => originCost(streams, i, order.filter(_ != i), tau)).sum
  }

  /**
   * Expected probes per unit time into each window under per-origin orders `orders(i)`: the
   * partial results that reach its loop. This is the probe rate the unit-time model of
   * Kang et al. needs for an N-way plan ([[InputLoad.probeRate]]).
   */
  def probesPerUnitTime(streams: Seq[StreamStats], orders: Seq[Seq[Int]], tau: Double = 0.0): IndexedSeq[Double] = {
    val probes = Array.fill(streams.size)(0.0)
    for (i <- streams.indices) {
      var partials = 1.0
      var distinct = streams(i).distinct
      for (j <- orders(i)) {
        probes(j) += streams(i).rate * partials
        partials = partials * streams(j).rows(tau) / math.max(distinct, streams(j).distinct)
        distinct = math.min(distinct, streams(j).distinct)
      }
    }
    probes.toIndexedSeq
  }

  /** Every global order with its cost, cheapest first (n! orders: small n only). */
  def allGlobalOrders(streams: Seq[StreamStats], tau: Double = 0.0): Seq[(Seq[Int], Double)] = {
    assert(streams.size <= 9, s"exhaustive search over ${streams.size}! orders is too large")
    streams.indices.permutations.map(o => (o.toSeq, globalOrderCost(streams, o, tau))).toSeq.sortBy(_._2)
  }

  /** The optimal global order by exhaustive search. */
  def optimalGlobalOrder(streams: Seq[StreamStats], tau: Double = 0.0): (Seq[Int], Double) =
    allGlobalOrders(streams, tau).head

  /**
   * The optimal order per origin by exhaustive search over (n-1)! orders each. Since the
   * total is a sum of per-origin terms, this is at least as good as any global order; the
   * engine can use a different probe order per origin.
   */
  def optimalPerOrigin(streams: Seq[StreamStats], tau: Double = 0.0): IndexedSeq[(Seq[Int], Double)] = {
    assert(streams.size <= 10, s"exhaustive search over ${streams.size - 1}! orders is too large")
    streams.indices.map { i =>
      streams.indices.filter(_ != i).permutations.map(o => (o.toSeq, originCost(streams, i, o, tau))).minBy(_._2)
    }
  }

  /**
   * What the heuristic did: the orders it started from, every candidate it costed, and the
   * chosen (cheapest) one.
   */
  final case class HeuristicResult(order: Seq[Int], cost: Double, initial: Seq[Seq[Int]],
      candidates: Seq[(Seq[Int], Double)], fast: Seq[Int])

  /**
   * Golab & Özsu Sec. 5.1-5.3, as a small candidate search costed with `globalOrderCost`:
   *
   *  1. Most selective join first (ascending intermediate result size): start with the pair
   *     of windows whose join is smallest, then repeatedly append the window that keeps the
   *     partial result smallest. With equal distinct counts this is the paper's "ascending
   *     window size (or expected bucket size)". Ties go to the window with fewer rows per
   *     probe, then the faster stream, then the lower index. The first pair is tried in
   *     both orders: the paper leaves that to "the tie-breaking procedure" (Table 5:
   *     S1, S2, S3, S4 or S2, S1, S3, S4).
   *  2. Fast streams (rate above the mean rate) are moved up the order, each to any earlier
   *     position except the top ("moved up, but not all the way to the top"): on the order
   *     of n^f candidates for f fast streams.
   *  3. The cheapest candidate wins.
   * Reproduces the optimum of the paper's Tables 5, 6 and 7 (see the tests).
   */
  def heuristic(streams: Seq[StreamStats], tau: Double = 0.0): HeuristicResult = {
    val n = streams.size
    assert(n >= 1, "no streams")
    val initial = if (n == 1) Seq(Seq(0)) else {
      val pairs = for (a <- 0 until n; b <- a + 1 until n) yield (a, b)
      val (a, b) = pairs.minBy { case (x, y) => (joinSize(streams, Seq(x, y), tau), Seq(tieBreak(streams, x, tau), tieBreak(streams, y, tau)).min) }
      val first = Seq(a, b).sortBy(tieBreak(streams, _, tau))
      Seq(first, first.reverse).map(greedyExtend(streams, _, tau)).distinct
    }
    val meanRate = streams.map(_.rate).sum / n
    val fast = streams.indices.filter(streams(_).rate > meanRate).sortBy(i => -streams(i).rate)
    val candidates = initial.flatMap(moveUp(_, fast)).distinct.map(o => (o, globalOrderCost(streams, o, tau)))
    // Equal costs (up to rounding) keep the earliest candidate: the unmoved, first-built order.
    val cheapest = candidates.map(_._2).min
    val (order, cost) = candidates.find(_._2 <= cheapest * (1 + 1e-9)).get
    HeuristicResult(order, cost, initial, candidates, fast)
  }

  /** Tie-break key: rows per probe ascending, then rate descending, then index. */
  private def tieBreak(streams: Seq[StreamStats], i: Int, tau: Double): (Double, Double, Int) =
    (streams(i).scanned(tau), -streams(i).rate, i)

  private def greedyExtend(streams: Seq[StreamStats], start: Seq[Int], tau: Double): Seq[Int] = {
    var order = start
    while (order.size < streams.size) {
      val next = streams.indices.filterNot(order.contains).minBy(j => (joinSize(streams, order :+ j, tau), tieBreak(streams, j, tau)))
      order = order :+ next
    }
    order
  }

  /** The order itself plus every placement of the fast streams at earlier positions >= 1. */
  private def moveUp(order: Seq[Int], fast: Seq[Int]): Seq[Seq[Int]] =
    if (fast.isEmpty) Seq(order)
    else {
      val f = fast.head
      val at = order.indexOf(f)
      val placements = order +: (1 until at).map(p => order.take(p) ++ (f +: order.drop(p).filter(_ != f)))
      placements.flatMap(moveUp(_, fast.tail))
    }

  private def requirePermutation(n: Int, order: Seq[Int]): Unit =
    assert(order.sorted == (0 until n), s"$order is not an order of $n streams")
}
