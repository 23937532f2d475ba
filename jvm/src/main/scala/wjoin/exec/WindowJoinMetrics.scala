package wjoin.exec

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.execution.streaming.operators.stateful.{StatefulOperatorCustomMetric,
  StatefulOperatorCustomSumMetric}

import wjoin.core.JoinStats
import wjoin.plan.StreamingStatistics

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

  private def opt(name: String): Option[SQLMetric] = all.get(name)

  // Both modes.
  val numOutputRows: SQLMetric = all(OutputRows)
  val numInputRows: SQLMetric = all(InputRows)
  val numNullRows: SQLMetric = all(NullRows)
  val numEvictedRows: SQLMetric = all(EvictedRows)
  val numComparisons: SQLMetric = all(Comparisons)
  val numPredicateEvals: SQLMetric = all(PredicateEvals)
  val numRefineRejections: SQLMetric = all(RefineRejections)
  /** Per input, numInputRows<i>. */
  val numInputRowsOf: IndexedSeq[SQLMetric] = (0 until n).map(i => all(StreamingStatistics.inputRowsMetric(i)))
  // Batch only.
  val peakBufferedRows: Option[SQLMetric] = opt(PeakBufferedRows)
  val joinTime: Option[SQLMetric] = opt(JoinTime)
  val numExcludedCombinations: Option[SQLMetric] = opt(ExcludedCombinations)
  val numForeignCombinations: Option[SQLMetric] = opt(ForeignCombinations)
  val numTimeBands: Option[SQLMetric] = opt(TimeBands)
  val numReplicatedRows: Option[SQLMetric] = opt(ReplicatedRows)
  // Streaming only.
  val numRowsDroppedByWatermark: Option[SQLMetric] = opt("numRowsDroppedByWatermark")
  val numUpdatedStateRows: Option[SQLMetric] = opt("numUpdatedStateRows")
  val numRemovedStateRows: Option[SQLMetric] = opt("numRemovedStateRows")
  /** Per input, numStateRows<i> (streaming). */
  val numStateRowsOf: IndexedSeq[SQLMetric] = (0 until n).flatMap(i => opt(stateRows(i)))
  /** Per input, numStateKeys<i> (streaming, hashed plans). */
  val numStateKeysOf: IndexedSeq[SQLMetric] = (0 until n).flatMap(i => opt(StreamingStatistics.stateKeysMetric(i)))

  /**
   * The one place a task's engine counters and input counters become metrics.
   *
   * @param s       the engine's counters
   * @param input   the merged inputs' counters
   * @param foreign banded batch: combinations left to a later band (not output here)
   * @param banded  batch, time bands: input rows were counted before the band shuffle
   * @param nanos   batch: time spent in the task's join, downstream included
   */
  def publish(s: JoinStats, input: InputMerger, foreign: Long = 0L, banded: Boolean = false, nanos: Long = 0L): Unit = {
    numOutputRows += s.results - foreign
    numNullRows += input.nullRows
    numEvictedRows += s.evicted
    numComparisons += s.comparisons
    numPredicateEvals += s.predicateEvals
    numRefineRejections += s.refineRejections
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

  /** The streaming state's counters (see [[WindowJoinStateStore]]). */
  def publishState(state: WindowJoinStateStore, hashed: Boolean): Unit = {
    numUpdatedStateRows.foreach(_ += state.added)
    numRemovedStateRows.foreach(_ += state.removed)
    for (i <- numStateRowsOf.indices) numStateRowsOf(i) += state.live(i)
    if (hashed) for (i <- numStateKeysOf.indices) numStateKeysOf(i) += state.keysSeen(i).size
  }
}

object WindowJoinMetrics {
  val OutputRows = "numOutputRows"
  val InputRows = "numInputRows"
  val NullRows = "numNullRows"
  val EvictedRows = "numEvictedRows"
  val Comparisons = "numComparisons"
  val PredicateEvals = "numPredicateEvals"
  val RefineRejections = "numRefineRejections"
  val PeakBufferedRows = "peakBufferedRows"
  val JoinTime = "joinTime"
  val TimeBands = "numTimeBands"
  val ReplicatedRows = "numReplicatedRows"
  val ForeignCombinations = "numForeignCombinations"
  val ExcludedCombinations = "numExcludedCombinations"
  def stateRows(i: Int): String = s"numStateRows$i"

  /** (name, description) of the counters both modes have, besides numOutputRows. */
  private val common: Seq[(String, String)] = Seq(
    InputRows -> "number of input rows",
    NullRows -> "input rows with NULL time or key (never match)",
    EvictedRows -> "rows evicted from windows",
    Comparisons -> "time-stamp comparisons",
    PredicateEvals -> "predicate evaluations",
    RefineRejections -> "candidates of the GCA / LCA periods rejected by the true windows")

  /** (name, description) of the batch-only counters. */
  private val batchOnly: Seq[(String, String)] = Seq(
    PeakBufferedRows -> "peak buffered rows (sum over tasks)",
    TimeBands -> "time bands",
    ReplicatedRows -> "row copies sent to a further time band",
    ForeignCombinations -> "combinations dropped: earliest member in a later band",
    ExcludedCombinations -> "bidirectional: combinations left to the other direction")

  private def inputRows(names: Seq[String]): Seq[(String, String)] =
    names.indices.map(i => StreamingStatistics.inputRowsMetric(i) -> s"input rows of ${names(i)}")

  /** The batch node's metrics map. */
  def batchMetrics(sc: SparkContext, names: Seq[String]): Map[String, SQLMetric] =
    ((OutputRows -> "number of output rows") +: (common ++ batchOnly ++ inputRows(names))).map { case (k, d) =>
      k -> SQLMetrics.createMetric(sc, d)
    }.toMap + (JoinTime -> SQLMetrics.createNanoTimingMetric(sc, "W-join time incl. downstream"))

  /**
   * The streaming node's own metrics, added by Spark's `StateStoreWriter` to its state
   * metrics (which hold numOutputRows, numRowsDroppedByWatermark, numUpdatedStateRows, ...).
   */
  def streamingCustomMetrics(names: Seq[String], hashed: Boolean): Seq[StatefulOperatorCustomMetric] =
    (common ++ names.indices.map(i => stateRows(i) -> s"state rows of ${names(i)}") ++ inputRows(names) ++
      (if (hashed) names.indices.map(i => StreamingStatistics.stateKeysMetric(i) ->
        s"distinct keys of ${names(i)} in the batch's window (state and arrivals)") else Nil))
      .map { case (k, d) => StatefulOperatorCustomSumMetric(k, d) }
}
