package wjoin.exec

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.wjoin.StreamingClasses.{StatefulOperatorCustomMetric, StatefulOperatorCustomSumMetric}

import wjoin.core.{JoinStats, WJoinEngine}
import wjoin.exec.state.WindowJoinStateStore

/**
 * The SQL metrics of a W-join exec node, typed: one named [[SQLMetric]] field per metric, as
 * Spark's join evaluators take theirs (`SortMergeJoinEvaluatorFactory(numOutputRows: SQLMetric,
 * ...)`), over the node's `metrics` map, which is produced from the declarations in the
 * companion ([[WindowJoinMetrics.batchMetrics]], [[WindowJoinMetrics.streamingCustomMetrics]]).
 *
 * {{{
 *   MetricPlan (what the plan does) ──declared──> batch node: metrics map ─┐
 *                                             ──> streaming node: Spark's  ├─> WindowJoinMetrics: named fields
 *                                                 state metrics + custom ──┘   task: Publisher (live deltas)
 * }}}
 *
 * A node declares only the metrics its plan can move ([[WindowJoinMetrics.declared]]): time
 * bands' only when banded, the bidirectional one only with an excluded reverse path, the
 * resource limits' only with limits, and so on; the others would always read 0. The fields of
 * those are Options, None when not declared.
 *
 * Spark's names where Spark has the metric (`numOutputRows`, `numRowsDroppedByWatermark`,
 * `numUpdatedStateRows`, `numRemovedStateRows`, from `StateStoreWriter` for the streaming
 * node), ours for the rest.
 *
 * @param all       the node's metrics map
 * @param n         the number of inputs
 * @param streaming the node is the streaming one (per-input input rows count every row read)
 */
final class WindowJoinMetrics(val all: Map[String, SQLMetric], n: Int, streaming: Boolean) extends Serializable {
  import WindowJoinMetrics._

  private def opt(m: Declared): Option[SQLMetric] = all.get(m.key)

  // Every plan.
  val numOutputRows: SQLMetric = all(OutputRows.key)
  val numInputRows: SQLMetric = all(InputRows.key)
  val numNullRows: SQLMetric = all(NullRows.key)
  /** Every plan but the broadcast one, whose windows never evict. */
  val numEvictedRows: SQLMetric = all.getOrElse(EvictedRows.key, null)
  val numComparisons: SQLMetric = all(Comparisons.key)
  /** Per input, numInputRows<i>. */
  val numInputRowsOf: IndexedSeq[SQLMetric] = (0 until n).map(i => all(inputRowsMetric(i)))
  // Some plans.
  val numPredicateEvals: Option[SQLMetric] = opt(PredicateEvals)
  val numRefineRejections: Option[SQLMetric] = opt(RefineRejections)
  val numShedRows: Option[SQLMetric] = opt(ShedRows)
  val numShedProbes: Option[SQLMetric] = opt(ShedProbes)
  val numExcludedCombinations: Option[SQLMetric] = opt(ExcludedCombinations)
  // Batch only.
  val peakBufferedRows: Option[SQLMetric] = opt(PeakBufferedRows)
  val joinTime: Option[SQLMetric] = opt(JoinTime)
  val numForeignCombinations: Option[SQLMetric] = opt(ForeignCombinations)
  val numTimeBands: Option[SQLMetric] = opt(TimeBands)
  val numReplicatedRows: Option[SQLMetric] = opt(ReplicatedRows)
  /** Batch with a run-time access check: partitions that made it, and those whose paths or orders it changed. */
  val numCheckedPartitions: Option[SQLMetric] = opt(CheckedPartitions)
  val numRechosenPartitions: Option[SQLMetric] = opt(RechosenPartitions)
  val numKeyGroupedPartitions: Option[SQLMetric] = opt(KeyGroupedPartitions)
  /** Broadcast plan: the broadcast inputs indexed (once per executor and run), and the time it took. */
  val numBroadcastBuilds: Option[SQLMetric] = opt(BroadcastBuilds)
  /** Broadcast plan: 1 when the run took the shuffled plan instead (`BroadcastFallback`). */
  val numBroadcastFallbacks: Option[SQLMetric] = opt(BroadcastFallbacks)
  val broadcastBuildTime: Option[SQLMetric] = all.get(BroadcastBuildTime.key)
  // Streaming only.
  val numRowsDroppedByWatermark: Option[SQLMetric] = all.get("numRowsDroppedByWatermark")
  val numUpdatedStateRows: Option[SQLMetric] = all.get("numUpdatedStateRows")
  val numRemovedStateRows: Option[SQLMetric] = all.get("numRemovedStateRows")
  /** Per input, numStateRows<i> (streaming). */
  val numStateRowsOf: IndexedSeq[SQLMetric] = (0 until n).flatMap(i => all.get(stateRows(i)))
  /** Streaming left / left_semi / left_anti: first-input rows in the state not decided yet. */
  val numUndecidedAnchorRows: Option[SQLMetric] = opt(UndecidedAnchorRows)
  /** Streaming: rows read back from the state store to rebuild an engine (0 while engines are kept). */
  val numRestoredStateRows: Option[SQLMetric] = opt(RestoredStateRows)
  /** Per input, numStateKeys<i> (streaming, hashed plans). */
  val numStateKeysOf: IndexedSeq[SQLMetric] = (0 until n).flatMap(i => all.get(stateKeysMetric(i)))

  /**
   * One task's publisher of its engine's and inputs' counters: each [[Publisher.publish]] adds
   * what changed since the last one. SQL metrics are accumulators that executors send to the
   * driver with every heartbeat (`spark.executor.heartbeatInterval`), so a task that publishes
   * as it goes shows growing counts in the Spark UI and the REST API while it runs, not only
   * once it ends. Every counter is monotonic during one task (one micro-batch).
   *
   * @param s      the engine's counters
   * @param input  the merged inputs' counters
   * @param output the partition's output: rows out, and (banded) combinations left to a later band
   * @param banded batch, time bands: input rows were counted before the band shuffle
   */
  def publisher(s: JoinStats, input: InputMerger, output: JoinOutput, banded: Boolean = false): Publisher = {
    val inputs: Seq[(Option[SQLMetric], () => Long)] = if (banded) Nil else
      (Some(numInputRows), () => input.rowsRead) +: (0 until n).map { i =>
        // Streaming plans the next batch from every row an input brought; batch reports joinable rows.
        (Option(numInputRowsOf(i)), () => if (streaming) input.rowsReadOf(i) else input.offered(i))
      }
    val sources = Seq[(Option[SQLMetric], () => Long)](
      Some(numOutputRows) -> (() => output.rowsOut),
      Some(numNullRows) -> (() => input.nullRows),
      Option(numEvictedRows) -> (() => s.evicted),
      Some(numComparisons) -> (() => s.comparisons),
      numPredicateEvals -> (() => s.predicateEvals),
      numRefineRejections -> (() => s.refineRejections),
      numShedRows -> (() => s.shedRows),
      numShedProbes -> (() => s.shedProbes),
      numExcludedCombinations -> (() => s.excluded),
      (if (banded) numForeignCombinations else None) -> (() => output.foreign),
      numRowsDroppedByWatermark -> (() => input.lateRows),
      peakBufferedRows -> (() => s.peakBuffered)) ++ inputs
    val declared = sources.collect { case (Some(m), read) => (m, read) }
    new Publisher(declared.map(_._1).toArray, declared.map(_._2).toArray)
  }

  /**
   * A broadcast W-join task's publisher ([[batch.BroadcastWindowJoinEvaluator]]): its probes'
   * counters and its streamed rows (`streamed`: that input); the broadcast inputs' rows are
   * counted once, on the driver.
   */
  def streamedPublisher(s: JoinStats, rows: batch.StreamedRows, streamed: Int): Publisher = {
    val sources = Seq[(Option[SQLMetric], () => Long)](
      Some(numOutputRows) -> (() => rows.rowsOut),
      Some(numInputRows) -> (() => rows.rowsRead),
      Some(numInputRowsOf(streamed)) -> (() => rows.offered),
      Some(numNullRows) -> (() => rows.nullRows),
      Some(numComparisons) -> (() => s.comparisons),
      numPredicateEvals -> (() => s.predicateEvals),
      numRefineRejections -> (() => s.refineRejections),
      numExcludedCombinations -> (() => s.excluded))
    val declared = sources.collect { case (Some(m), read) => (m, read) }
    new Publisher(declared.map(_._1).toArray, declared.map(_._2).toArray)
  }

  /**
   * The streaming state's counters (see [[WindowJoinStateStore]]), once per micro-batch; the
   * distinct keys come from the engine's windows after the batch (hash buckets: exact, no
   * per-row cost).
   */
  def publishState(state: WindowJoinStateStore, engine: WJoinEngine, hashed: Boolean): Unit = {
    numUpdatedStateRows.foreach(_ += state.added)
    numRemovedStateRows.foreach(_ += state.removed)
    numRestoredStateRows.foreach(_ += state.restored)
    for (i <- numStateRowsOf.indices) numStateRowsOf(i) += state.live(i)
    if (hashed) for (i <- numStateKeysOf.indices) numStateKeysOf(i) += math.max(0L, engine.distinctKeys(i))
  }
}

object WindowJoinMetrics {
  /** Per-input metric names of the operator (numInputRows0, ...; numStateKeys0, ...), read back by the planner. */
  def inputRowsMetric(i: Int): String = s"numInputRows$i"
  def stateKeysMetric(i: Int): String = s"numStateKeys$i"
  def stateRows(i: Int): String = s"numStateRows$i"

  /** One metric: its key in the node's map and what the UI shows. */
  final case class Declared(key: String, description: String)

  val OutputRows = Declared("numOutputRows", "number of output rows")
  val InputRows = Declared("numInputRows", "number of input rows")
  val NullRows = Declared("numNullRows", "input rows with NULL time or key (never match)")
  val EvictedRows = Declared("numEvictedRows", "rows evicted from windows")
  val Comparisons = Declared("numComparisons", "time-stamp comparisons")
  val PredicateEvals = Declared("numPredicateEvals", "residual predicate evaluations")
  val RefineRejections =
    Declared("numRefineRejections", "candidates of the GCA / LCA periods rejected by the true windows")
  val ShedRows = Declared("numShedRows", "resource limits: arriving rows not kept in their window")
  val ShedProbes = Declared("numShedProbes", "resource limits: arriving rows that did not probe")
  val PeakBufferedRows = Declared("peakBufferedRows", "peak buffered rows (sum over tasks)")
  val JoinTime = Declared("joinTime", "W-join time incl. downstream")
  val TimeBands = Declared("numTimeBands", "time bands")
  val ReplicatedRows = Declared("numReplicatedRows", "row copies sent to a further time band")
  val ForeignCombinations =
    Declared("numForeignCombinations", "combinations dropped: earliest member in a later band")
  val ExcludedCombinations =
    Declared("numExcludedCombinations", "bidirectional: combinations left to the other direction")
  val UndecidedAnchorRows = Declared("numUndecidedAnchorRows",
    "first-input rows in the state not decided yet (left, left_semi, left_anti)")
  val CheckedPartitions = Declared("numCheckedPartitions", "partitions that checked their access paths at run time")
  val RechosenPartitions = Declared("numRechosenPartitions",
    "partitions that re-chose access paths or probe orders at run time")
  val KeyGroupedPartitions = Declared("numKeyGroupedPartitions", "partitions joined key by key (spark.wjoin.keyGroupRows)")
  val BroadcastBuilds = Declared("numBroadcastBuilds", "broadcast inputs indexed (each once per executor)")
  val BroadcastFallbacks = Declared("numBroadcastFallbacks", "runs of the shuffled plan instead (index over a task's memory)")
  val BroadcastBuildTime = Declared("broadcastBuildTime", "time to index the broadcast inputs")
  val RestoredStateRows = Declared("numRestoredStateRows",
    "state rows read back from the state store to rebuild an engine (0 while engines are kept in memory)")

  /**
   * What decides a node's metrics.
   *
   * @param names         the inputs' names
   * @param streaming     the streaming node (state metrics; Spark declares numOutputRows)
   * @param hashed        rows in per-key buckets (streaming: distinct keys in the state)
   * @param anchored      left, left_semi, left_anti (streaming: undecided anchor rows)
   * @param banded        batch, time bands (bands, replicas, combinations left to a later band)
   * @param bidirectional an excluded reverse path (combinations left to the other direction)
   * @param limits        resource limits (shed rows and probes)
   * @param refined       GCA / LCA periods looser than the windows (refinement rejections)
   * @param residual      a residual condition the engine evaluates (predicate evaluations)
   * @param rechecked     batch: partitions check their access paths at run time (checked and re-chosen partitions)
   * @param broadcast     batch, broadcast plan: windows built once per executor, never evicted
   *                      (builds and their time; no evictions, no buffered peak)
   * @param keyGroups     batch: partitions may be joined key by key (how many were)
   */
  final case class MetricPlan(names: Seq[String], streaming: Boolean, hashed: Boolean, anchored: Boolean,
      banded: Boolean, bidirectional: Boolean, limits: Boolean, refined: Boolean, residual: Boolean,
      rechecked: Boolean = false, broadcast: Boolean = false, keyGroups: Boolean = false)

  /**
   * The counters `plan` declares, besides the timing joinTime (batch) and Spark's state metrics
   * (streaming, which hold numOutputRows).
   */
  def declared(plan: MetricPlan): Seq[Declared] = {
    import plan._
    def when(c: Boolean)(ms: Declared*): Seq[Declared] = if (c) ms else Nil
    val perInput = names.indices.map(i => Declared(inputRowsMetric(i), s"input rows of ${names(i)}"))
    when(!streaming)(OutputRows) ++ Seq(InputRows, NullRows) ++ when(!broadcast)(EvictedRows) ++ Seq(Comparisons) ++
      perInput ++
      when(residual)(PredicateEvals) ++ when(refined)(RefineRejections) ++ when(limits)(ShedRows, ShedProbes) ++
      when(bidirectional)(ExcludedCombinations) ++ when(!streaming && !broadcast)(PeakBufferedRows) ++
      when(broadcast)(BroadcastBuilds, BroadcastFallbacks) ++
      when(banded)(TimeBands, ReplicatedRows, ForeignCombinations) ++
      when(!streaming && rechecked)(CheckedPartitions, RechosenPartitions) ++
      when(!streaming && keyGroups)(KeyGroupedPartitions) ++
      when(streaming)(RestoredStateRows) ++ when(streaming && anchored)(UndecidedAnchorRows) ++
      when(streaming)(names.indices.map(i => Declared(stateRows(i), s"state rows of ${names(i)}")): _*) ++
      when(streaming && hashed)(names.indices.map(i => Declared(stateKeysMetric(i),
        s"distinct keys of ${names(i)} in the state after the batch")): _*)
  }

  /** The batch node's metrics map. */
  def batchMetrics(sc: SparkContext, plan: MetricPlan): Map[String, SQLMetric] =
    (declared(plan).map(m => m.key -> SQLMetrics.createMetric(sc, m.description)) :+
      (JoinTime.key -> SQLMetrics.createNanoTimingMetric(sc, JoinTime.description))).toMap ++
      (if (plan.broadcast) Map(BroadcastBuildTime.key -> SQLMetrics.createNanoTimingMetric(sc, BroadcastBuildTime.description))
        else Map.empty)

  /**
   * The streaming node's own metrics, added by Spark's `StateStoreWriter` to its state
   * metrics (which hold numOutputRows, numRowsDroppedByWatermark, numUpdatedStateRows, ...).
   */
  def streamingCustomMetrics(plan: MetricPlan): Seq[StatefulOperatorCustomMetric] =
    declared(plan).map(m => StatefulOperatorCustomSumMetric(m.key, m.description))

  /** The metrics of a [[BandCellsExec]] (streaming W-join partitioned by band cells). */
  val CellInputRows = Declared("numInputRows", "input rows")
  val CellCopies = Declared("numOutputRows", "row copies sent to cells")

  def cellMetrics(sc: SparkContext): Map[String, SQLMetric] =
    Seq(CellInputRows, CellCopies).map(m => m.key -> SQLMetrics.createMetric(sc, m.description)).toMap
}

/**
 * Adds to `metrics(i)` what `read(i)` gained since the last call (one task's; see
 * [[WindowJoinMetrics.publisher]]).
 */
final class Publisher(metrics: Array[SQLMetric], read: Array[() => Long]) {
  private val last = new Array[Long](metrics.length)

  def publish(): Unit = {
    var i = 0
    while (i < metrics.length) {
      val v = read(i)()
      if (v > last(i)) { metrics(i) += v - last(i); last(i) = v }
      i += 1
    }
  }
}
