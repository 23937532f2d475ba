package wjoin.core

/**
 * Filter-refine of the window strategies GCA and LCA (Hammad et al. Sec. 5.1) and the
 * exclusion of a bidirectional path query: the last step a complete candidate passes.
 *
 * {{{
 *   periods (GCA / LCA, looser) ──> ProbeEnumerator ──> candidate (r_0 .. r_N-1)
 *                                                          │ filter (join predicate)
 *                                                          v
 *                                    Refinement: true matrix on checkPairs, then exclude
 * }}}
 *
 * The enumeration bounds its periods, narrowing and horizons by the strategy's period matrix
 * P = `plan.periods` (P = M, the true matrix `plan.matrix`, for "exact"; GCA's single largest
 * window or LCA's local windows otherwise; P(i, j) >= M(i, j) everywhere). A candidate is
 * admitted iff
 * {{{
 *   ts_i - ts_j <= M(i, j)   for every pair (i, j) in checkPairs = { (i, j) : P(i, j) > M(i, j) }
 *   and not ( ts_i - ts_j <= X(i, j) for every i != j with X(i, j) finite )   (X = plan.exclude)
 * }}}
 * (bounds inclusive). The refinement runs after the join predicate, as in the paper's filter
 * step: a selective predicate spares most candidates the pair tests. Rejections are counted
 * in `stats.refineRejections` and `stats.excluded`. Nothing is evicted here.
 *
 * @param plan  the plan: `matrix` (true bounds), `checkPairs`, `exclude`
 * @param stats where the comparisons and rejections are counted
 */
final class Refinement(plan: EnginePlan, stats: JoinStats) {
  private val n = plan.n
  private val checkPairs = plan.checkPairs
  private val truth = Array.tabulate(n * n)(ij => plan.matrix.upper(ij / n, ij % n))
  private val excluded: Array[Long] =
    plan.exclude.map(m => Array.tabulate(n * n)(ij => m.upper(ij / n, ij % n))).orNull

  /** Does the complete candidate with member times `times` (indexed by input) pass? */
  def admits(times: Array[Long]): Boolean = {
    var k = 0
    while (k < checkPairs.length) {
      val ij = checkPairs(k)
      stats.comparisons += 1
      if (SaturatingTime.differenceExceeds(times(ij / n), times(ij % n), truth(ij))) { stats.refineRejections += 1; return false }
      k += 1
    }
    if (excluded != null) {
      var ij = 0
      var inside = true
      while (inside && ij < n * n) {
        val b = excluded(ij)
        if (ij / n != ij % n && b != WindowMatrix.Inf) {
          stats.comparisons += 1
          inside = !SaturatingTime.differenceExceeds(times(ij / n), times(ij % n), b)
        }
        ij += 1
      }
      if (inside) { stats.excluded += 1; return false }
    }
    true
  }
}
