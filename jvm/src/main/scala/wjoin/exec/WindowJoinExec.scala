package wjoin.exec

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, RowOrdering, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical._
import org.apache.spark.sql.execution.{SQLExecution, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.internal.SQLConf

import wjoin.core.{Algorithm, Durations, EnginePlan, RangeBinding, StreamRows, TimeBands}
import wjoin.core.cost.{AccessDecision, AccessPath, AccessPlanner, AccessRequest}
import wjoin.plan.{JoinConditionAnalysis, RangePredicates, WindowJoin, WindowSpec}

/**
 * Physical W-join of N inputs. Thin: it states what it needs from its children and hands
 * each partition to a [[WindowJoinEvaluator]].
 *
 * {{{
 *   WindowJoinExec
 *     ├─ Sort [ts_A]  <- Exchange hashpartitioning(key_A)   (or SinglePartition without a key)
 *     ├─ Sort [ts_B]  <- Exchange hashpartitioning(key_B)
 *     └─ ...
 * }}}
 *
 * With an equality key shared by all inputs, every child is clustered on its key into the
 * same partitioning, so all rows that can join meet in one partition. Each child is sorted by
 * its event time, and the evaluator merges the children into one arrival order (the papers'
 * streams).
 *
 * Without such a key the join is partitioned by event time into bands ([[TimeBands]]): the
 * children are taken as they are, and `doExecute` samples their times (one job), sends every
 * row to the bands its windows reach and sorts each band by time ([[TimeBandShuffle]]); the
 * evaluator of band b emits only the combinations whose earliest member lies in band b. With
 * `timeBands` = 1 (setting `spark.wjoin.timeBands`) all rows go to a single partition instead.
 *
 * @param inputNames  input names, for EXPLAIN and metrics
 * @param timeColumns each input's event-time column
 * @param keys        each input's hash-key expressions; empty when there is no shared key
 * @param residual    the conjuncts the engine tests (the keys guarantee the others)
 * @param windows     the window constraints and their closed matrix
 * @param algorithm   the chosen algorithm (never "auto" here)
 * @param access      access path per input, range predicates, probe orders, expiration interval
 * @param output      the output columns: some of the children's, in input order
 * @param children    the planned inputs
 * @param timeBands   without a key: the most time bands (= partitions) to use, >= 1; 1 means
 *                    one partition. Ignored with a key.
 */
case class WindowJoinExec(
    inputNames: Seq[String],
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    windows: WindowSpec,
    algorithm: Algorithm,
    access: WindowJoinExec.PlannedAccess,
    output: Seq[Attribute],
    children: Seq[SparkPlan],
    timeBands: Int = 1) extends SparkPlan {
  require(timeBands >= 1, s"the number of time bands must be at least 1, got $timeBands")

  private def hashed: Boolean = algorithm != Algorithm.NLW && keys.nonEmpty

  /**
   * Partitioned by event-time bands: no shared key, more than one band allowed, and no ROWS
   * window (a band does not see the rows before it, so it could not count them).
   */
  def banded: Boolean = keys.isEmpty && timeBands > 1 && !windows.counted

  @transient lazy val enginePlan: EnginePlan = access.enginePlan(windows, algorithm, hashed)


  override def requiredChildDistribution: Seq[Distribution] =
    if (windows.partitionedBy(keys)) keys.map(k => ClusteredDistribution(k))
    else if (banded) children.map(_ => UnspecifiedDistribution)
    else children.map(_ => AllTuples)

  override def requiredChildOrdering: Seq[Seq[SortOrder]] =
    if (banded) children.map(_ => Nil) // sorted after the band shuffle
    else WindowJoinExec.arrivalOrdering(timeColumns, windows, children.map(_.output))

  override def outputPartitioning: Partitioning = if (banded) UnknownPartitioning(timeBands) else {
    val partitionings = children.map(_.outputPartitioning)
    if (partitionings.map(_.numPartitions).distinct.size == 1) PartitioningCollection(partitionings)
    else UnknownPartitioning(partitionings.head.numPartitions)
  }

  override lazy val metrics: Map[String, SQLMetric] = Map(
    "numOutputRows" -> SQLMetrics.createMetric(sparkContext, "number of output rows"),
    "numInputRows" -> SQLMetrics.createMetric(sparkContext, "number of input rows"),
    "numNullRows" -> SQLMetrics.createMetric(sparkContext, "input rows with NULL time or key (never match)"),
    "numEvictedRows" -> SQLMetrics.createMetric(sparkContext, "rows evicted from windows"),
    "peakBufferedRows" -> SQLMetrics.createMetric(sparkContext, "peak buffered rows (sum over tasks)"),
    "numComparisons" -> SQLMetrics.createMetric(sparkContext, "time-stamp comparisons"),
    "numPredicateEvals" -> SQLMetrics.createMetric(sparkContext, "predicate evaluations"),
    "joinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "W-join time incl. downstream"),
    "numTimeBands" -> SQLMetrics.createMetric(sparkContext, "time bands"),
    "numReplicatedRows" -> SQLMetrics.createMetric(sparkContext, "row copies sent to a further time band"),
    "numForeignCombinations" -> SQLMetrics.createMetric(sparkContext,
      "combinations dropped: earliest member in a later band"),
    "numRefineRejections" -> SQLMetrics.createMetric(sparkContext,
      "candidates of the GCA / LCA periods rejected by the true windows"),
    "numExcludedCombinations" -> SQLMetrics.createMetric(sparkContext,
      "bidirectional: combinations left to the other direction"),
    "joinTime" -> SQLMetrics.createNanoTimingMetric(sparkContext, "W-join time incl. downstream")
  ) ++ inputNames.indices.map(i =>
    s"numInputRows$i" -> SQLMetrics.createMetric(sparkContext, s"input rows of ${inputNames(i)}"))

  override def simpleString(maxFields: Int): String =
    s"WindowJoin ${algorithm.name}${if (enginePlan.allHashed) " (hash)" else ""}, " +
      WindowJoinExec.describe(inputNames, timeColumns, keys, residual, windows, enginePlan, access) +
      s", partitioning=$partitioningText"

  /** EXPLAIN's partitioning: hash on the key, time bands (at most, and their least width), or one. */
  def partitioningText: String =
    if (windows.partitionedBy(keys)) "hash(keys)"
    else if (banded) s"time bands(<= $timeBands, width >= ${windows.render(TimeBands.minWidth(windows.matrix))})"
    else "single partition"

  override protected def doExecute(): RDD[InternalRow] = {
    val inputs = children.map(_.execute())
    if (!banded) {
      val evaluator = new WindowJoinEvaluator(children.map(_.output), timeColumns, keys, residual, output,
        enginePlan, metrics, rangeAttributes = access.rangeAttributes)
      return new ZippedPartitionsNRDD[InternalRow, InternalRow](inputs, evaluator.eval)
    }
    val times = children.indices.map(i => TimeColumn.of(children(i).output, timeColumns(i).asInstanceOf[Attribute]))
    val bands = TimeBandShuffle.bands(inputs, times, timeBands, windows.matrix)
    metrics("numTimeBands").set(bands.count.toLong)
    SQLMetrics.postDriverMetricUpdates(sparkContext,
      sparkContext.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), Seq(metrics("numTimeBands")))
    val sorted = children.indices.map(i => TimeBandShuffle.partition(inputs(i), i, children(i).output,
      timeColumns(i).asInstanceOf[Attribute], bands, timeBands, metrics))
    val evaluator = new WindowJoinEvaluator(children.map(_.output), timeColumns, keys, residual, output,
      enginePlan, metrics, bands = Some(bands), rangeAttributes = access.rangeAttributes)
    new ZippedPartitionsNRDD[InternalRow, InternalRow](sorted, evaluator.eval)
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[SparkPlan]): WindowJoinExec =
    copy(children = newChildren)
}

object WindowJoinExec {
  /**
   * What planning decides for a logical W-join, batch or streaming alike.
   *
   * @param keys      each input's hash-key expressions; empty when there is no shared key
   * @param algorithm the algorithm ("auto": [[Algorithm.auto]])
   * @param residual  the conjuncts the engine tests (hash buckets guarantee the key equalities)
   */
  final case class JoinChoice(keys: Seq[Seq[Expression]], algorithm: Algorithm, residual: Seq[Expression],
      access: PlannedAccess)

  /**
   * The access-path part of the planning choice (issue 5), see [[AccessPlanner]].
   *
   * @param paths           access path per input
   * @param bindings        band / inequality predicates usable to search an input's tree
   * @param rangeAttributes per input, the range attributes the bindings number
   * @param orders          probe order per origin (made valid through the join graph)
   * @param tau             lazy expiration interval in time units (0: eager)
   * @param decision        the costs behind the choice
   * @param integralTime    time columns are plain numbers (for rendering tau)
   */
  final case class PlannedAccess(paths: Seq[AccessPath], bindings: Seq[RangeBinding],
      rangeAttributes: Seq[Seq[Expression]], orders: Seq[Seq[Int]], tau: Long, decision: AccessDecision,
      integralTime: Boolean) {
    def enginePlan(windows: WindowSpec, algorithm: Algorithm, hashed: Boolean): EnginePlan =
      new EnginePlan(windows.matrix, algorithm, hashed, paths, bindings, orders,
        expirationInterval = if (algorithm == Algorithm.MW) 0L else tau, requestedStrategy = windows.strategy,
        exclude = windows.excluding.map(_.matrix), rowLimits = windows.rowLimits)

    /** "A=hash, B=ttree(B.x)", the expiration interval, and the costs. */
    def describe(names: Seq[String], forward: Boolean = false): String = {
      val ps = paths.indices.map { j =>
        val attr = bindings.find(_.target == j).map(b => rangeAttributes(j)(b.targetAttr).sql)
        s"${names(j)}=${paths(j).name}" + (if (paths(j).answersRanges && paths(j) != AccessPath.Scan) attr.fold("")(a => s"($a)") else "")
      }
      s"access paths=[${ps.mkString(", ")}], expiration=" +
        (if (forward) "after sweep" else if (tau == 0) "eager" else s"every ${Durations.render(tau, integralTime)}") +
        s", ${decision.describe(names)}"
    }
  }

  /**
   * @param recent streaming: what the query's recent micro-batches showed of this W-join
   *               ([[StreamingStatistics]]); empty = the assumed statistics
   */
  def choose(w: WindowJoin, recent: Seq[StreamingStatistics.Sample] = Nil): JoinChoice = {
    val names = w.inputNames
    val inputs = w.children.map(_.outputSet)
    val analysis = JoinConditionAnalysis(inputs, w.condition)
    // Streams with ROWS windows need the ordered mode (forward evaluation), see WindowJoinChecks.
    val algorithm = Algorithm.parse(w.algorithm).getOrElse(
      if (w.isStreaming && w.windows.counted) Algorithm.MW else Algorithm.auto(analysis.hasKey))
    val keyed = algorithm != Algorithm.NLW && analysis.hasKey
    val ranges = RangePredicates(inputs, analysis.otherConjuncts)
    val request = AccessRequest.parse(w.access.paths, names)
    val horizon = names.indices.map(w.windows.matrix.horizon)
    val tau = w.access.expirationInterval(w.windows.integralTime)
    val planned = names.indices.map { i =>
      InputStatistics.of(w.children(i), w.timeColumns(i), if (keyed) analysis.keys(i) else Nil,
        ranges.attributes(i), horizon(i), w.isStreaming)
    }
    // Streaming time columns are timestamps (microseconds).
    val stats = if (w.isStreaming) StreamingStatistics.derive(horizon, keyed, recent, planned, names = names) else planned
    val matrix = w.windows.matrix
    val forwardUpper = if (algorithm == Algorithm.MW) Some(names.indices.map(j => names.indices.map(matrix.upper(j, _)))) else None
    val decision = AccessPlanner.plan(names, horizon, keyed, ranges.bindings, stats, request,
      scanOnly = algorithm == Algorithm.NLW, tau, forwardUpper = forwardUpper)
    val allHashed = keyed && decision.paths.forall(_ == AccessPath.Hash)
    JoinChoice(analysis.keys, algorithm, if (allHashed) analysis.otherConjuncts else analysis.allConjuncts,
      PlannedAccess(decision.paths, ranges.bindings, ranges.attributes, decision.orders, decision.tau, decision,
        w.windows.integralTime))
  }

  /**
   * Each input's order: event time. An input with a ROWS window also orders rows of equal
   * time by its other (orderable) columns, so which of them "arrived" last, and so which are
   * in the window, does not depend on how Spark shuffled them; identical rows are
   * interchangeable, so the result is deterministic.
   */
  def arrivalOrdering(timeColumns: Seq[Expression], windows: WindowSpec,
      inputs: Seq[Seq[Attribute]]): Seq[Seq[SortOrder]] = {
    val limits = windows.rowLimits
    timeColumns.indices.map { i =>
      val tieBreak = if (limits(i) == StreamRows.NoLimit) Nil
        else inputs(i).filter(a => a.semanticHash() != timeColumns(i).semanticHash() &&
          RowOrdering.isOrderable(a.dataType)).map(a => SortOrder(a, Ascending))
      SortOrder(timeColumns(i), Ascending) +: tieBreak
    }
  }

  /**
   * Session setting: the most time bands a batch W-join without a shared key is split into
   * (default `spark.sql.shuffle.partitions`); 1 runs it in a single partition.
   */
  val TimeBandsConf = "spark.wjoin.timeBands"

  /** The most time bands to use, from [[TimeBandsConf]]; fails on a value that is not an integer >= 1. */
  def maxTimeBands(conf: SQLConf): Int = {
    val text = conf.getConfString(TimeBandsConf, conf.numShufflePartitions.toString).trim
    val value = scala.util.Try(text.toInt).getOrElse(0)
    require(value >= 1, s"$TimeBandsConf must be an integer >= 1 (1 = one partition), got '$text'")
    value
  }

  def apply(w: WindowJoin, children: Seq[SparkPlan]): WindowJoinExec = {
    val choice = choose(w)
    val bands = if (choice.keys.isEmpty && TimeBands.applicable(w.windows.matrix)) maxTimeBands(SQLConf.get) else 1
    new WindowJoinExec(w.inputNames, w.timeColumns, choice.keys, choice.residual, w.windows, choice.algorithm,
      choice.access, w.output, children, bands)
  }

  /** The part of EXPLAIN's node line that batch and streaming W-joins share. */
  def describe(inputNames: Seq[String], timeColumns: Seq[Expression], keys: Seq[Seq[Expression]],
      residual: Seq[Expression], windows: WindowSpec, enginePlan: EnginePlan, access: PlannedAccess): String = {
    val keyText = if (keys.isEmpty) "none" else keys.map(_.map(_.sql).mkString("(", ", ", ")")).mkString(" = ")
    s"inputs=[${inputNames.mkString(", ")}], time=[${timeColumns.map(_.sql).mkString(", ")}], keys=$keyText, " +
      s"windows=${windows.describe(inputNames)}" +
      (if (residual.isEmpty) "" else s", residual=${residual.map(_.sql).mkString(" AND ")}") +
      s", window strategy=${enginePlan.describeStrategy(inputNames, windows.render)}" +
      s", probe order=[${enginePlan.describe(inputNames)}], " + access.describe(inputNames, enginePlan.forward)
  }
}
