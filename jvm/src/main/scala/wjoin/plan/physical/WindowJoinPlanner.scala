package wjoin.plan
package physical

import org.apache.spark.sql.catalyst.expressions.{EqualTo, Expression}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.core.cost.{AccessDecision, AccessPath, AccessPlanner, AccessRecheck, AccessRequest, PredicateGraph}
import wjoin.core.shedding.ShedPlan
import wjoin.core.{Algorithm, Durations, EnginePlan, RangeBinding, TimeBands}
import wjoin.plan.logical.WindowJoin
import wjoin.plan.logical.WindowSpec

/**
 * Every planning decision of a W-join, batch or streaming, made from the logical
 * [[WindowJoin]] alone (no exec node, no job): the algorithm, the hash keys and the residual,
 * the access path per input and the probe orders (the unit-time cost model of Kang et al.
 * Sec. 4, access paths as in its Sec. 4.2 and the ICEIS 2005 study), the expiration
 * interval, and how the rows are partitioned.
 *
 * {{{
 *   WindowJoin ──JoinConditionAnalysis──> keys, other conjuncts
 *              ──RangePredicates────────> range bindings (band / inequality conjuncts)
 *              ──InputStatistics / StreamingStatistics──> per-input statistics
 *              ──AccessPlanner──────────> paths, probe orders, tau, costs
 *              ──InputSize──────────────> one task without a shuffle (batch, small inputs)
 *              ──BroadcastPlan──────────> all but the largest input broadcast (batch, small enough)
 *              ──WJoinConf.timeBands────> time bands (batch, no shared key)
 *   = JoinChoice  ──> WindowJoinExec / StreamingWindowJoinExec (WindowJoinStrategy)
 *                 ──> the EXPLAIN COST suffix of the logical node
 * }}}
 *
 * Rules, in order:
 *  - algorithm: the one asked for; auto = MW-join for streams with a ROWS window (only the
 *    ordered mode counts rows in event-time order), the eager HW-join (key) or NLW-join for
 *    streams under resource limits (only the eager mode's state is bounded by the budget),
 *    else [[Algorithm.auto]] (HW-join with a shared key, MW-join without, Hammad et al. Sec. 3);
 *  - keys: the shared equality key, used unless the algorithm is NLW-join;
 *  - residual: every conjunct, minus the key equalities when every input is hashed (the
 *    buckets then guarantee them);
 *  - partitioning: batch, one task without a shuffle when the inputs are small
 *    ([[InputSize]], [[WJoinConf.SmallInputBytes]]); batch, every input but the largest
 *    broadcast when they are small enough ([[BroadcastPlan]]); hash on the keys when there are
 *    keys and no ROWS window; else, batch,
 *    event-time bands when the window matrix bounds every input's reach and
 *    [[WJoinConf.timeBands]] > 1; streaming, band cells when band predicates reach every
 *    input from the first ([[StreamPartitioning]]; the cell is then the key the join is
 *    planned with, see [[choose]]'s `cellKeys`); else one partition.
 */
object WindowJoinPlanner {
  /**
   * The access-path part of the choice (Kang et al. Sec. 4.2), see [[AccessPlanner]].
   *
   * @param paths           access path per input
   * @param bindings        band / inequality predicates usable to search an input's tree
   * @param rangeAttributes per input, the range attributes the bindings number
   * @param orders          probe order per origin (made valid through the join graph)
   * @param tau             lazy expiration interval in time units (0: eager; Kang et al. Appendix A)
   * @param decision        the costs behind the choice
   * @param integralTime    time columns are plain numbers (for rendering tau)
   * @param predicates      the conjuncts between inputs and their selectivities, which the
   *                        probe orders follow (EXPLAIN shows them)
   * @param recheck         batch: each partition checks these paths and orders on its first rows
   *                        and may re-choose them ([[AccessRecheck]]); None: they are final
   */
  final case class PlannedAccess(paths: Seq[AccessPath], bindings: Seq[RangeBinding],
      rangeAttributes: Seq[Seq[Expression]], orders: Seq[Seq[Int]], tau: Long, decision: AccessDecision,
      integralTime: Boolean, predicates: PredicateGraph, recheck: Option[AccessRecheck] = None) {
    /** The engine's plan for these paths (MW-join sweeps, so it never expires lazily). */
    def enginePlan(windows: WindowSpec, algorithm: Algorithm, hashed: Boolean): EnginePlan =
      new EnginePlan(windows.matrix, algorithm, hashed, paths, bindings, orders,
        expirationInterval = if (algorithm == Algorithm.MW) 0L else tau, requestedStrategy = windows.strategy,
        exclude = windows.excluding.map(_.matrix), rowLimits = windows.rowLimits)

    /** "A=hash, B=ttree(B.x)", the expiration interval, the costs, the predicates' selectivities. */
    def describe(names: Seq[String], forward: Boolean = false): String = {
      val ps = paths.indices.map { j =>
        val attr = bindings.find(_.target == j).map(b => rangeAttributes(j)(b.targetAttr).sql)
        s"${names(j)}=${paths(j).name}" +
          (if (paths(j).answersRanges && paths(j) != AccessPath.Scan) attr.fold("")(a => s"($a)") else "")
      }
      s"access paths=[${ps.mkString(", ")}], expiration=" +
        (if (forward) "after sweep" else if (tau == 0) "eager" else s"every ${Durations.render(tau, integralTime)}") +
        s", ${decision.describe(names)}" +
        (if (predicates.edges.isEmpty) "" else s", selectivities=[${predicates.describe(names)}]") +
        recheckText.fold("")(t => s", run-time check=$t")
    }

    /** EXPLAIN's words for the run-time check, None without one. */
    def recheckText: Option[String] = recheck.map(r =>
      s"each partition re-chooses paths and probe orders from its first ${r.sliceRows} rows (${WJoinConf.AccessCheckRowsKey})")
  }

  /**
   * What planning decides for a logical W-join.
   *
   * @param keys      each input's hash-key expressions; empty when there is no shared key
   * @param algorithm the algorithm (never auto)
   * @param residual  the conjuncts the engine tests (hash buckets guarantee the key equalities)
   * @param access    access paths, range predicates, probe orders, expiration interval
   * @param timeBands batch without a hash partitioning: the most time bands (partitions), >= 1;
   *                  1 = one partition. Always 1 for streams and with hash partitioning.
   * @param shed      with resource limits: each partition's budgets ([[ShedPlanning]])
   * @param inputSize batch: the inputs' estimated size against [[WJoinConf.SmallInputBytes]]
   *                  (None: the setting is -1); small inputs run in one task, no shuffle
   * @param broadcast batch: every input but the largest broadcast, the largest streamed
   *                  without a shuffle ([[BroadcastPlan]])
   * @param keyGroups batch, hash-partitioned: a partition whose windows would hold over this many
   *                  rows is joined key by key ([[keyGroupsApply]]); None: never
   */
  final case class JoinChoice(keys: Seq[Seq[Expression]], algorithm: Algorithm, residual: Seq[Expression],
      access: PlannedAccess, timeBands: Int = 1, shed: Option[ShedPlan] = None, inputSize: Option[InputSize] = None,
      broadcast: Option[BroadcastPlan] = None, keyGroups: Option[Long] = None) {
    assert(timeBands >= 1, s"the number of time bands must be at least 1, got $timeBands")
    assert(!(singleTask && timeBands > 1), s"a single-task W-join has no time bands, got $timeBands")
    assert(!(broadcast.isDefined && (singleTask || timeBands > 1)), "a broadcast W-join is neither one task nor banded")
    /** Batch with small inputs: one task reads every input, no shuffle ([[InputSize]]). */
    def singleTask: Boolean = inputSize.exists(_.small)
    /** Rows are put into per-key buckets: a key exists and the algorithm is not NLW-join. */
    def hashed: Boolean = algorithm != Algorithm.NLW && keys.nonEmpty
  }

  /**
   * The planner's decisions an exec node carries besides its expressions (which stay fields
   * of the node, so Catalyst sees them: subqueries, canonicalization).
   *
   * @param inputNames input names, for EXPLAIN and metrics
   * @param windows    the window constraints and their closed matrix
   * @param algorithm  the chosen algorithm (never auto)
   * @param access     access path per input, range predicates, probe orders, expiration interval
   * @param shed       with resource limits: each partition's budgets
   * @param algorithmReason why the algorithm was chosen, for EXPLAIN ([[algorithmReason]])
   */
  final case class PlannedJoin(inputNames: Seq[String], windows: WindowSpec, algorithm: Algorithm,
      access: PlannedAccess, shed: Option[ShedPlan] = None, algorithmReason: String = "")

  /** What an exec node of `w` carries for `choice`. */
  def planned(w: WindowJoin, choice: JoinChoice): PlannedJoin =
    PlannedJoin(w.inputNames, w.windows, choice.algorithm, choice.access, choice.shed,
      algorithmReason(w, hasKey = choice.keys.nonEmpty))

  /** Why [[algorithmOf]] gives what it gives, in the rule's words (EXPLAIN FORMATTED). */
  def algorithmReason(w: WindowJoin, hasKey: Boolean): String = w.algorithm match {
    case Some(a) => s"asked for (algorithm=${a.name})"
    case None if w.isStreaming && w.windows.counted =>
      "auto: a ROWS window counts rows in event-time order, which only the ordered mode (MW-join) does"
    case None if w.isStreaming && w.limits.isDefined =>
      "auto: under resource limits only the eager mode's state is bounded by the budget"
    case None if hasKey => "auto: every input shares a hash key (an equality key, or streaming band cells): HW-join"
    case None => "auto: no key shared by every input: MW-join"
  }

  /** The algorithm of `w`: the one asked for, else the auto rule (see the object comment). */
  def algorithmOf(w: WindowJoin, hasKey: Boolean): Algorithm =
    w.algorithm.getOrElse {
      if (w.isStreaming && w.windows.counted) Algorithm.MW
      else if (w.isStreaming && w.limits.isDefined) (if (hasKey) Algorithm.HW else Algorithm.NLW) // eager: see ShedBudgets
      else Algorithm.auto(hasKey)
    }

  /**
   * Keys, algorithm, residual and access paths of `w`, batch or streaming alike (one
   * partition; see [[batch]] for time bands).
   *
   * @param recent streaming: what the query's recent micro-batches showed of this W-join
   *               ([[StreamingStatistics]]); empty = the assumed statistics
   * @param cellKeys streaming by band cells ([[StreamPartitioning.ByCells]]): per input, its cell
   *               column; the join is then planned as keyed on them (the algorithm, access
   *               paths and residual as for any shared key; auto is HW-join); empty otherwise
   * @param partitions the shuffle partitions the rows are spread over (resource limits budget
   *               one; a small batch W-join runs as one)
   */
  def choose(w: WindowJoin, recent: Seq[StreamingStatistics.Sample] = Nil, cellKeys: Seq[Expression] = Nil,
      partitions: Int = SQLConf.get.numShufflePartitions, sliceRows: Int = 0): JoinChoice = {
    val names = w.inputNames
    val inputs = w.children.map(_.outputSet)
    val analysis = JoinConditionAnalysis(inputs, w.condition, realKeys = !w.isStreaming) match {
      case a if cellKeys.isEmpty => a
      case a => JoinConditionAnalysis(cellKeys.map(Seq(_)), cellKeys.tail.map(EqualTo(cellKeys.head, _)), a.allConjuncts)
    }
    val algorithm = algorithmOf(w, analysis.hasKey)
    val keyed = algorithm != Algorithm.NLW && analysis.hasKey
    val ranges = RangePredicates(inputs, analysis.otherConjuncts)
    val horizon = names.indices.map(w.windows.matrix.horizon)
    val planned = names.indices.map { i =>
      InputStatistics.of(w.children(i), w.timeColumns(i), if (keyed) analysis.keys(i) else Nil,
        ranges.attributes(i), horizon(i), w.isStreaming)
    }
    // Streaming time columns are timestamps (microseconds).
    val stats = if (w.isStreaming) StreamingStatistics.derive(horizon, keyed, recent, planned, names = names) else planned
    val matrix = w.windows.matrix
    val forwardUpper =
      if (algorithm == Algorithm.MW) Some(names.indices.map(j => names.indices.map(matrix.upper(j, _)))) else None
    val graph = PredicateSelectivity.graph(w.children, w.isStreaming, analysis, ranges, stats, keyed)
    val decision = AccessPlanner.plan(names, horizon, keyed, ranges.bindings, stats, w.access.request,
      scanOnly = algorithm == Algorithm.NLW, w.access.expiration.interval, forwardUpper = forwardUpper,
      graph = Some(graph))
    // Buckets guarantee the key equalities only when every window is bucketed by the key.
    val allHashed = keyed && decision.paths.forall(_.bucketsByKey)
    val shed = w.limits.map(ShedPlanning.plan(w, _, stats, w.windows.partitionedBy(analysis.keys), partitions))
    // Batch without limits (a shedding plan budgets the planned paths): partitions check the choice.
    val recheck = if (sliceRows <= 0 || w.isStreaming || shed.isDefined) None
      else Some(AccessRecheck(names, horizon, keyed, ranges.bindings, stats, w.access.request,
        scanOnly = algorithm == Algorithm.NLW, w.access.expiration.interval, forwardUpper, graph, allHashed, decision,
        sliceRows)).filter(_.canChange)
    JoinChoice(analysis.keys, algorithm, if (allHashed) analysis.otherConjuncts else analysis.allConjuncts,
      PlannedAccess(decision.paths, ranges.bindings, ranges.attributes, decision.orders, decision.tau, decision,
        w.windows.integralTime, graph, recheck), shed = shed)
  }

  /**
   * A re-planned micro-batch keeps the last batch's access paths unless the new ones promise
   * at most this share of their unit-time cost under the same (new) statistics.
   */
  val ReplanGain = 0.8

  /**
   * A streaming W-join's micro-batch: [[choose]] from what the recent batches showed, but
   * stable. Each partition's engine is kept in memory from one batch to the next and must be
   * rebuilt from the state store when its plan changes, so a plan changes only for a clear
   * gain: with the `previous` batch's access paths and probe orders,
   *  - if the fresh choice has the same paths, the previous probe orders and expiration
   *    interval are kept (near-equal rates would otherwise reorder probes on noise);
   *  - if it has other paths, it is taken only when its cost is at most [[ReplanGain]] x the
   *    cost of the previous paths under the new statistics; else the previous plan stays.
   * `cellKeys`: as for [[choose]] (a keyless band join partitioned by band cells).
   */
  def chooseStreaming(w: WindowJoin, recent: Seq[StreamingStatistics.Sample],
      previous: Option[PlannedAccess], cellKeys: Seq[Expression] = Nil): JoinChoice = {
    val fresh = choose(w, recent, cellKeys)
    previous match {
      case None => fresh
      case Some(prev) =>
        val samePaths = fresh.access.paths == prev.paths
        val kept = if (samePaths) fresh
          else choose(w.copy(access = w.access.copy(request = AccessRequest(prev.paths.map(Some(_))))), recent, cellKeys)
        if (!samePaths && fresh.access.decision.cost < ReplanGain * kept.access.decision.cost) fresh
        else kept.copy(access = kept.access.copy(orders = prev.orders, tau = prev.tau))
    }
  }

  /**
   * A batch W-join: [[choose]], then how its rows are partitioned.
   *  - Small inputs ([[InputSize]]: Spark's size estimates sum to at most
   *    [[WJoinConf.SmallInputBytes]]): one task reads every input without a shuffle. It is
   *    planned as one shuffle partition, so resource limits budget the whole input.
   *  - Else every input but the largest broadcast, when they are small enough and the W-join
   *    allows it ([[BroadcastPlan]]): the largest input streams without a shuffle. Its access
   *    paths are the planned ones (no run-time check: no partition holds a slice of every input).
   *    Should the collected inputs not fit a task's memory, it runs the shuffled plan below
   *    instead ([[BroadcastFallback]]).
   *  - Else without a shared key, when the matrix bounds every input's reach
   *    ([[TimeBands.applicable]]) and no ROWS window counts over the whole input, rows are split
   *    into at most [[WJoinConf.timeBands]] bands.
   *  - Else, hash-partitioned on a key: key groups where they apply ([[keyGroupsApply]]).
   * A bad setting fails here, naming the key.
   */
  def batch(w: WindowJoin, conf: SQLConf = SQLConf.get): JoinChoice = {
    val size = InputSize.of(w, conf)
    val sliceRows = WJoinConf.accessCheckRows(conf)
    def oneTask = choose(w, partitions = 1, sliceRows = sliceRows).copy(inputSize = size)
    // One task first where its inputs are in memory; a computed one is better broadcast (InputSize).
    if (size.exists(s => s.small && s.computed.isEmpty)) return oneTask
    val choice = choose(w, partitions = conf.numShufflePartitions, sliceRows = sliceRows)
    val bands = if (choice.keys.isEmpty && TimeBands.applicable(w.windows.matrix) && !w.windows.counted)
      WJoinConf.timeBands(conf) else 1
    val keyGroups = Some(WJoinConf.keyGroupRows(conf)).filter(_ => keyGroupsApply(w, choice, conf))
    // The shuffled plan's own choices go with the broadcast plan, for its fallback.
    val broadcast = BroadcastPlan.of(w, choice.access, conf).map(_.copy(shuffledBands = bands, overOneTask = size.filter(_.small),
      shuffledAccess = Some(choice.access), shuffledKeyGroups = keyGroups))
    if (broadcast.isDefined)
      return choice.copy(access = BroadcastPlan.accessOf(choice.access, broadcast.get, w.access.request.forced).copy(recheck = None),
        inputSize = size.filterNot(_.small), broadcast = broadcast)
    if (size.exists(_.small)) return oneTask
    choice.copy(timeBands = bands, inputSize = size, keyGroups = keyGroups)
  }

  /**
   * Whether partitions of a shuffled batch choice may be joined key by key
   * ([[wjoin.core.FeedGroups.ByKey]], each decides from its first rows,
   * [[wjoin.exec.batch.KeyGroupSort]]; setting [[WJoinConf.KeyGroupRows]]): every input hashed
   * on the key (of any type: Spark's radix sort orders its value, [[wjoin.exec.codec.KeyOrder]]); no ROWS
   * window (it counts rows of every key), no resource limits (their budgets are the
   * partition's) and no band predicate (a group's rows all share its key, so only a band decides
   * how many of them a probe reads, and whether its index pays is the run-time check's, which
   * reads a time-ordered prefix of the partition).
   */
  def keyGroupsApply(w: WindowJoin, choice: JoinChoice, conf: SQLConf): Boolean =
    WJoinConf.keyGroupRows(conf) >= 0 && choice.hashed && w.windows.partitionedBy(choice.keys) &&
      choice.shed.isEmpty && choice.access.bindings.isEmpty

  /** How the rows of streaming W-join `w` are partitioned ([[StreamPartitioning]]). */
  def streaming(w: WindowJoin): StreamPartitioning = StreamPartitioning.of(w)

  /**
   * The state stores (= partitions) of a streaming W-join: the checkpoint's count when rows
   * are hash-partitioned on the key (or on band cells), else one (every row meets in one
   * partition).
   */
  def statePartitions(w: WindowJoin, choice: JoinChoice, numStateStores: Int): Int =
    if (w.windows.partitionedBy(choice.keys)) numStateStores else 1

  /**
   * EXPLAIN COST's suffix of the logical node: the algorithm, access paths, probe orders'
   * expiration and costs. Planning errors are not hidden: they are the errors the query
   * would fail with.
   */
  def describe(w: WindowJoin): String = {
    val choice = choose(w)
    s", algorithm=${choice.algorithm.name}, " + choice.access.describe(w.inputNames, forward = choice.algorithm == Algorithm.MW) +
      choice.shed.fold("")(s => s", limits=[${s.describe(w.inputNames)}]")
  }
}
