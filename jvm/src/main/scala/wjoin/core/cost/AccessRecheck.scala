package wjoin.core.cost

import wjoin.core.RangeBinding

/**
 * The run-time check of a batch partition's access paths and probe orders: Kang et al.'s
 * asymmetric choice (Sec. 4.2, the unit-time cost model of [[AccessPlanner]]) made once more
 * in each partition, from what its first rows show ([[SliceStatistics]]) instead of what the
 * planner could estimate without running a job.
 *
 * {{{
 *   driver:    AccessPlanner.plan(estimated stats) ──> planned paths + orders   (EXPLAIN)
 *   partition: first `sliceRows` merged rows ──> SliceStatistics ──> measured stats, selectivities
 *              fresh = plan(measured)     kept = the planned paths and orders, costed under the measured figures
 *              cost(fresh) < Gain x cost(kept)  ──> fresh, else the plan stands
 *   then the engine is built with the decision and offered the slice, then the rest
 * }}}
 *
 * Why: planning runs no job, so for an input that is not local rows and was never analyzed,
 * row counts, key counts and band selectivities are assumptions (Spark keeps no distinct
 * counts; [[wjoin.plan.physical.InputStatistics]]). A scan chosen over a tree on an assumed
 * small window, or a probe order built on an assumed selectivity, can turn linear work
 * quadratic; the partition checks before its engine holds a row, so nothing is rebuilt.
 * Every path and order gives the same combinations: the choice only steers the work.
 *
 * What may change: the paths among those the request allows each input (forced ones stay),
 * keeping every keyed input bucketed when the plan was (`bucketed`: its residual was planned
 * without the key equalities, which the buckets guarantee), the probe orders and the
 * expiration interval. The algorithm, keys, residual and partitioning are the planner's.
 *
 * @param names        the inputs' names
 * @param horizon      per input, how long its rows stay joinable
 * @param keyed        the plan hashes rows on the shared key
 * @param bindings     the band / inequality predicates indexed paths search by
 * @param stats        the planner's statistics (kept for an input the slice has no row of)
 * @param request      the user's access-path request (forced paths are never re-chosen)
 * @param scanOnly     NLW-join: every window is scanned
 * @param tau          the requested expiration interval, None for "auto"
 * @param forwardUpper MW-join's window matrix (see [[AccessPlanner.plan]]), None for backward
 * @param graph        the conjuncts between inputs and their planned selectivities; band and
 *                     key edges are re-measured, other conjuncts keep theirs
 * @param bucketed     every keyed input's window must stay bucketed by the key
 * @param planned      the planner's decision
 * @param sliceRows    rows of the partition's merged inputs the check reads first (> 0)
 */
final case class AccessRecheck(names: Seq[String], horizon: Seq[Long], keyed: Boolean, bindings: Seq[RangeBinding],
    stats: Seq[InputStats], request: AccessRequest, scanOnly: Boolean, tau: Option[Long],
    forwardUpper: Option[Seq[Seq[Long]]], graph: PredicateGraph, bucketed: Boolean, planned: AccessDecision,
    sliceRows: Int) {
  assert(sliceRows > 0, s"a run-time check reads at least one row, got $sliceRows")

  /**
   * Some input could take another path, or some origin another probe order: else the check
   * has nothing to decide and reads no slice. Beyond [[AccessRecheck.MaxInputs]] inputs the
   * exhaustive order search costs too much to repeat in every partition: the plan stands.
   */
  def canChange: Boolean = names.size <= AccessRecheck.MaxInputs && (names.size > 2 || names.indices.exists { j =>
    AccessPlanner.allowed(j, keyed, bindings, request, scanOnly, names, bucketed).size > 1
  })

  /**
   * The decision for a partition whose first rows showed `slice`; `partitions`: how many
   * partitions share the input (the planned rows of each, for an input the slice does not
   * exhaust).
   */
  def decide(slice: SliceStatistics, partitions: Int): AccessRecheck.Outcome = {
    if (slice.total == 0) return AccessRecheck.Outcome(planned, pathsChanged = false, ordersChanged = false, graph,
      "no rows", planned.cost)
    val share = stats.map(_.rows / math.max(1, partitions))
    val measured = slice.stats(stats, share, bindings)
    val g = remeasured(slice, measured)
    def solve(req: AccessRequest, orders: Option[Seq[Seq[Int]]]) = AccessPlanner.plan(names, horizon, keyed, bindings,
      measured, req, scanOnly, tau, forwardUpper = forwardUpper, graph = Some(g), bucketed = bucketed, fixedOrders = orders)
    val fresh = solve(request, None)
    val kept = solve(AccessRequest(planned.paths.map(Some(_))), Some(planned.orders))
    val chosen = if (fresh.cost < AccessRecheck.Gain * kept.cost) fresh else planned
    AccessRecheck.Outcome(chosen, chosen.paths != planned.paths, chosen.orders != planned.orders, g,
      slice.describe(names, bindings), kept.cost)
  }

  /** The graph with the slice's selectivities for bands and key equalities. */
  private def remeasured(slice: SliceStatistics, measured: Seq[InputStats]): PredicateGraph =
    graph.copy(edges = PredicateGraph.keyCountedOnce(graph.edges.map { e =>
      val sel = e.kind match {
        case "band" if e.binding >= 0 && !slice.selectivity(e.binding).isNaN => Some(slice.selectivity(e.binding))
        case "key" if keyed && e.inputs.forall(slice.rows(_) > 0) => Some(1.0 / e.inputs.map(measured(_).distinct).max)
        case _ => None
      }
      sel.fold(e)(s => e.copy(selectivity = math.min(1.0, math.max(s, 1e-12)), source = "run time"))
    }, e => e.source == "run time"))
}

object AccessRecheck {
  /**
   * Other paths or orders are taken only when they promise at most this share of the planned
   * ones' unit-time cost under the same measured figures (as a streaming re-plan,
   * `WindowJoinPlanner.ReplanGain`): a near tie keeps the plan EXPLAIN showed.
   */
  val Gain = 0.8

  /**
   * The most inputs a partition re-plans: the order search tries (n - 1)! orders per origin
   * ([[PredicateGraph.orders]]), 120 at 6 inputs, 5040 at 8, in each of 200 partitions.
   */
  val MaxInputs = 6

  /**
   * A partition's decision.
   *
   * @param decision    the paths, probe orders and expiration interval the engine is built with
   * @param pathsChanged the paths differ from the planned ones
   * @param ordersChanged some probe order differs from the planned ones
   * @param graph       the selectivities it was made with
   * @param observed    what the slice showed, in words
   * @param plannedCost the planned paths and orders' unit-time cost under the measured figures
   */
  final case class Outcome(decision: AccessDecision, pathsChanged: Boolean, ordersChanged: Boolean,
      graph: PredicateGraph, observed: String, plannedCost: Double) {
    def changed: Boolean = pathsChanged || ordersChanged

    /** One line for the task's log. */
    def describe(names: Seq[String], planned: AccessDecision): String = {
      def paths(d: AccessDecision) = names.indices.map(j => s"${names(j)}=${d.paths(j).name}").mkString(", ")
      def orders(d: AccessDecision) = names.indices.map(o => s"${names(o)}: ${d.orders(o).map(names).mkString("->")}")
        .mkString("; ")
      val what = if (!changed) f"kept [${paths(planned)}] (cost $plannedCost%.4g measured)"
        else f"re-chose [${paths(decision)}] orders [${orders(decision)}] at cost ${decision.cost}%.4g over planned " +
          f"[${paths(planned)}] orders [${orders(planned)}] at $plannedCost%.4g"
      s"$what; measured: $observed; selectivities [${graph.describe(names)}]"
    }
  }
}
