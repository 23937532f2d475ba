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
 *   declarations (companion) ──> batch node: metrics map ─┐
 *                            ──> streaming node: Spark's   ├─> WindowJoinMetrics(map, n): named fields
 *                                state metrics + custom ───┘     publish(JoinStats, InputMerger, ...)
 * }}}
 *
 * Spark's names where Spark has the metric (`numOutputRows`, `numRowsDroppedByWatermark`,
 * `numUpdatedStateRows`, `numRemovedStateRows`, from `StateStoreWriter` for the streaming
 * node), ours for the rest. A metric of the other mode (e.g. `peakBufferedRows` of a
 * streaming node) is absent from the map and never updated.
 *
 * @param all       the node's metrics map
 * @param n         the number of inputs
 * @param streaming the node is the streaming one (per-input input rows count every row read)
 */
final class WindowJoinMetrics(val all: Map[String, SQLMetric], n: Int, streaming: Boolean) extends Serializable {
  import WindowJoinMetrics._

  private def opt(m: Declared): Option[SQLMetric] = all.get(m.key)

  // Both modes.
  val numOutputRows: SQLMetric = all(OutputRows.key)
  val numInputRows: SQLMetric = all(InputRows.key)
  val numNullRows: SQLMetric = all(NullRows.key)
  val numEvictedRows: SQLMetric = all(EvictedRows.key)
  val numComparisons: SQLMetric = all(Comparisons.key)
  val numPredicateEvals: SQLMetric = all(PredicateEvals.key)
  val numRefineRejections: SQLMetric = all(RefineRejections.key)
  val numShedRows: SQLMetric = all(ShedRows.key)
  val numShedProbes: SQLMetric = all(ShedProbes.key)
  /** Per input, numInputRows<i>. */
  val numInputRowsOf: IndexedSeq[SQLMetric] = (0 until n).map(i => all(inputRowsMetric(i)))
  // Batch only.
  val peakBufferedRows: Option[SQLMetric] = opt(PeakBufferedRows)
  val joinTime: Option[SQLMetric] = opt(JoinTime)
  val numExcludedCombinations: Option[SQLMetric] = opt(ExcludedCombinations)
  val numForeignCombinations: Option[SQLMetric] = opt(ForeignCombinations)
  val numTimeBands: Option[SQLMetric] = opt(TimeBands)
  val numReplicatedRows: Option[SQLMetric] = opt(ReplicatedRows)
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
   * The one place a task's engine counters and input counters become metrics.
   *
   * @param s       the engine's counters
   * @param input   the merged inputs' counters
   * @param foreign banded batch: combinations left to a later band (not output here)
   * @param banded  batch, time bands: input rows were counted before the band shuffle
   * @param nanos   batch: time spent in the task's join, downstream included
   * @param outputRows anchored W-joins: the rows output (combinations and decided anchor
   *                rows); None: every combination not left to another band
   */
  def publish(s: JoinStats, input: InputMerger, foreign: Long = 0L, banded: Boolean = false, nanos: Long = 0L,
      outputRows: Option[Long] = None): Unit = {
    numOutputRows += outputRows.getOrElse(s.results - foreign)
    numNullRows += input.nullRows
    numEvictedRows += s.evicted
    numComparisons += s.comparisons
    numPredicateEvals += s.predicateEvals
    numRefineRejections += s.refineRejections
    numShedRows += s.shedRows
    numShedProbes += s.shedProbes
    if (!banded) {
      numInputRows += input.rowsRead
      // Streaming plans the next batch from every row an input brought; batch reports joinable rows.
      for (i <- 0 until n) numInputRowsOf(i) += (if (streaming) input.rowsReadOf(i) else input.offered(i))
    }
    if (banded) numForeignCombinations.foreach(_ += foreign)
    numRowsDroppedByWatermark.foreach(_ += input.lateRows)
    peakBufferedRows.foreach(_ += s.peakBuffered)
    numExcludedCombinations.foreach(_ += s.excluded)
    joinTime.foreach(_ += nanos)
  }

  /**
   * The streaming state's counters (see [[WindowJoinStateStore]]); the distinct keys come from
   * the engine's windows after the batch (hash buckets: exact, no per-row cost).
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

  /** One metric: its key in the node's map and what the UI shows. */
  final case class Declared(key: String, description: String)

  val OutputRows = Declared("numOutputRows", "number of output rows")
  val InputRows = Declared("numInputRows", "number of input rows")
  val NullRows = Declared("numNullRows", "input rows with NULL time or key (never match)")
  val EvictedRows = Declared("numEvictedRows", "rows evicted from windows")
  val Comparisons = Declared("numComparisons", "time-stamp comparisons")
  val PredicateEvals = Declared("numPredicateEvals", "predicate evaluations")
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
  val RestoredStateRows = Declared("numRestoredStateRows",
    "state rows read back from the state store to rebuild an engine (0 while engines are kept in memory)")
  def stateRows(i: Int): String = s"numStateRows$i"

  /** The counters both modes have, besides numOutputRows (Spark's own in streaming). */
  private val common = Seq(InputRows, NullRows, EvictedRows, Comparisons, PredicateEvals, RefineRejections, ShedRows,
    ShedProbes)
  /** The batch-only counters (joinTime is a timing). */
  private val batchOnly = Seq(PeakBufferedRows, TimeBands, ReplicatedRows, ForeignCombinations, ExcludedCombinations)

  private def inputRows(names: Seq[String]): Seq[Declared] =
    names.indices.map(i => Declared(inputRowsMetric(i), s"input rows of ${names(i)}"))

  /** The batch node's metrics map. */
  def batchMetrics(sc: SparkContext, names: Seq[String]): Map[String, SQLMetric] =
    ((OutputRows +: (common ++ batchOnly ++ inputRows(names))).map(m => m.key -> SQLMetrics.createMetric(sc, m.description))
      :+ (JoinTime.key -> SQLMetrics.createNanoTimingMetric(sc, JoinTime.description))).toMap

  /**
   * The streaming node's own metrics, added by Spark's `StateStoreWriter` to its state
   * metrics (which hold numOutputRows, numRowsDroppedByWatermark, numUpdatedStateRows, ...).
   */
  def streamingCustomMetrics(names: Seq[String], hashed: Boolean,
      anchored: Boolean = false): Seq[StatefulOperatorCustomMetric] =
    (common ++ Seq(RestoredStateRows) ++ (if (anchored) Seq(UndecidedAnchorRows) else Nil) ++ names.indices.map(i => Declared(stateRows(i), s"state rows of ${names(i)}")) ++ inputRows(names) ++
      (if (hashed) names.indices.map(i => Declared(stateKeysMetric(i),
        s"distinct keys of ${names(i)} in the state after the batch")) else Nil))
      .map(m => StatefulOperatorCustomSumMetric(m.key, m.description))

  /** The metrics of a [[BandCellsExec]] (streaming W-join partitioned by band cells). */
  val CellInputRows = Declared("numInputRows", "input rows")
  val CellCopies = Declared("numOutputRows", "row copies sent to cells")

  def cellMetrics(sc: SparkContext): Map[String, SQLMetric] =
    Seq(CellInputRows, CellCopies).map(m => m.key -> SQLMetrics.createMetric(sc, m.description)).toMap
}
