package wjoin.core

import wjoin.errors.WJoinErrors

/**
 * How the engine bounds its periods when the windows differ per pair (Form 2, Form 3,
 * directed / path windows): Hammad et al. Sec. 5.1 (filter-refine) and Sec. 5.2 (Path W-join).
 *
 * Every strategy runs the same engine loop. It only chooses the '''period matrix''' P the
 * engine uses for periods, period narrowing, probe orders and eviction horizons, while the
 * true closed matrix C decides what is emitted. P is conservative, P(i, j) >= C(i, j) for
 * every pair, so every combination of the W-join is a candidate of P; a candidate is emitted
 * only if it passes the '''refinement''': ts_i - ts_j <= C(i, j) for every pair with
 * P(i, j) > C(i, j) (the other pairs hold already, since the engine enforces every bound of P).
 * Refinement rejections are counted in [[JoinStats.refineRejections]].
 *
 * With S(i, j) = max(C(i, j), C(j, i)), the closed matrix made symmetric (a directed window
 * DWINDOW(A,B) = [lo, hi] counts as abs(ts_B - ts_A) <= hi after closure; this is the paper's
 * conservative route for path queries, "reconstructing the complete window constraints"):
 *  - [[WindowStrategy.Exact]]: P = C, nothing to refine. Periods are one-sided where C is
 *    (DWINDOW): this is the paper's ''modified NLW/HW-join'' of Sec. 5.2, whose period after
 *    joining B is [ts_B, ts_B + w_BC] on the path ABCD. MW-join narrows a pair's periods only
 *    where the origin's period does not already imply the pair's bounds ([[EnginePlan.refine]]).
 *  - [[WindowStrategy.GCA]] (global conservative approach): the largest window as the single
 *    window, P(i, j) = W = max over i != j of S(i, j), then refine every pair.
 *  - [[WindowStrategy.LCA]] (local conservative approach, Hammad et al. Fig. 10): each input's
 *    maximum local window L_j = max over i != j of S(i, j) (how much later than a row of j any
 *    partner may be), P(i, j) = L_j. MW-join's Mode 1 thus builds every period around an origin
 *    row of input o (the combination's oldest member, at t) as [t, t + L_o] from the origin's
 *    maximum local window, and Mode 2 narrows input j's period after binding a row of m at t_m
 *    to [t_m - L_j, t_m + L_m] where that is tighter; NLW/HW-join probe input j within
 *    [t - L_j, t] of the newest row. Then refine.
 *  - [[WindowStrategy.Auto]]: resolved per plan by [[WindowStrategy.resolve]].
 *
 * P is closed whenever C is: S(i, k) + S(k, j) >= max(C(i, j), C(j, i)), and L_k + L_j >= L_j.
 * Eviction uses P's horizons, max over i of P(i, j) >= C's: rows stay at least as long as
 * the true constraints need them (longer with GCA / LCA, which is their memory cost).
 */
sealed abstract class WindowStrategy(name: String) extends Named(name)

object WindowStrategy extends NamedValues[WindowStrategy] {
  case object Auto extends WindowStrategy("auto")
  case object Exact extends WindowStrategy("exact")
  case object GCA extends WindowStrategy("gca")
  case object LCA extends WindowStrategy("lca")

  val all: Seq[WindowStrategy] = Seq(Auto, Exact, GCA, LCA)

  def parse(text: String): Option[WindowStrategy] = byName(Option(text).map(_.trim).orNull)

  /** Fails with the accepted values unless `text` names a strategy. */
  def parseOrFail(text: String): WindowStrategy = parse(text).getOrElse(WJoinErrors.raise("WJOIN_UNKNOWN_CHOICE",
    "option" -> "window strategy", "value" -> text, "choices" -> all.map(_.name)))

  /**
   * The rule behind "auto": [[Exact]]. It is never looser than LCA or GCA (its periods are
   * those of LCA narrowed by every pair's own window, P = C <= LCA's P <= GCA's P entry by
   * entry), needs no refinement, and its horizons (state size, streaming output delay) are
   * the smallest; the engine-level benchmark in docs/benchmarks.md ("Window forms") measures
   * it against both. GCA and LCA stay selectable to reproduce Hammad et al. Figs. 13-14.
   */
  def resolve(requested: WindowStrategy): WindowStrategy = if (requested == Auto) Exact else requested

  /**
   * GCA and LCA widen windows to the largest one, and a ROWS window leaves some pairs without a
   * time bound: with both, nothing would ever leave the state. Fails unless `strategy` is
   * exact or auto when the W-join has a ROWS window (`counted`).
   */
  def requireExactWithRows(strategy: WindowStrategy, counted: Boolean): Unit =
    WJoinErrors.check(!counted || strategy == Auto || strategy == Exact, "WJOIN_ROWS_NEED_EXACT_STRATEGY",
      Seq("strategy" -> strategy))

  /** S: the closed matrix made symmetric, S(i, j) = max(C(i, j), C(j, i)). */
  def symmetric(c: WindowMatrix): WindowMatrix = {
    val n = c.n
    new WindowMatrix(n, Array.tabulate(n * n) { ij =>
      val (i, j) = (ij / n, ij % n)
      if (i == j) 0L else math.max(c.upper(i, j), c.upper(j, i))
    })
  }

  /** L_j = max over i != j of S(i, j): input j's maximum local window. */
  def localWindows(c: WindowMatrix): Array[Long] = {
    val s = symmetric(c)
    Array.tabulate(c.n)(j => (0 until c.n).filter(_ != j).map(s.upper(_, j)).max)
  }

  /** The period matrix P of `strategy` (not Auto) for the closed matrix `c`. */
  def periodMatrix(strategy: WindowStrategy, c: WindowMatrix): WindowMatrix = {
    val n = c.n
    strategy match {
      case Exact => c
      case GCA =>
        val w = localWindows(c).max
        new WindowMatrix(n, Array.tabulate(n * n)(ij => if (ij / n == ij % n) 0L else w))
      case LCA =>
        val l = localWindows(c)
        new WindowMatrix(n, Array.tabulate(n * n)(ij => if (ij / n == ij % n) 0L else l(ij % n)))
      case Auto => throw new AssertionError("resolve the window strategy 'auto' first")
    }
  }
}
