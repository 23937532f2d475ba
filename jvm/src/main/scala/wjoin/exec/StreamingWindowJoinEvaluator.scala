package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

import wjoin.core.{AnchorDecisions, EngineRow, JoinHow, MicroBatchWJoin}

/**
 * Runs one micro-batch of one partition of a streaming W-join against its state store
 * ([[WindowJoinStateStore]]): the state's rows and the batch's arrivals (merged by the
 * [[InputMerger]], late rows dropped) go through a [[MicroBatchWJoin]], and every arrival is
 * added to the state as it is read.
 *
 * {{{
 *   state store ──WindowJoinStateStore.load──> state rows ─┐
 *   inputs ──InputMerger (time > WL)──> arrivals ──add─────┼─> MicroBatchWJoin(W) ──codec──> rows
 *                                                           └─ evicted rows ──> state (save)
 * }}}
 *
 * @param codec     rows of the inputs (stores time and key columns too, to rebuild from the state)
 * @param metrics   the exec node's metrics
 * @param lateBound WL: time (in the time column's unit) at or before which an input row is
 *                  late (inclusive)
 * @param watermark W, this batch's eviction watermark in the same unit
 * @param how       what is emitted. Left, left_semi and left_anti add [[AnchorDecisions]]: an
 *                  anchor row (first input) is decided when the engine evicts it, i.e. once
 *                  ts + horizon(0) <= W (left_semi: at its first combination); its matched mark
 *                  is kept in the state ([[WindowJoinStateStore]]), and anchors with a NULL time
 *                  or key are decided (unmatched) in the batch they arrive in
 * @see [[wjoin.core.MicroBatchWJoin]] for what a batch emits and evicts
 */
final class StreamingWindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, lateBound: Long,
    watermark: Long, how: JoinHow = JoinHow.Inner) extends Serializable {
  private def plan = codec.plan

  /** The engine of one micro-batch: the one place a streaming engine is built. */
  private def newBatch(partitionIndex: Int, combined: CombinedRow): MicroBatchWJoin =
    new MicroBatchWJoin(plan, codec.tupleFilter(partitionIndex, combined), watermark, codec.rangeValues())

  /**
   * Joins the batch's `inputs` with the state in `store`; the store is updated (not committed)
   * once the returned rows are consumed. `batchId` names this batch's chunks. Also returns the
   * number of rows the state holds after the batch (valid once the rows are consumed).
   */
  def evalBatch(partitionIndex: Int, batchId: Long, inputs: Seq[Iterator[InternalRow]],
      store: StateStore): (Iterator[InternalRow], () => Long) = {
    val state = new WindowJoinStateStore(store, batchId, codec, watermark, anchored = how.anchored)
    val combined = codec.combinedRow()
    val batch = newBatch(partitionIndex, combined)
    val emit = codec.outputWriter(combined)
    val decisions = if (how.anchored) JoinHow.decisions(how) else null
    if (decisions == null) batch.engine.onEvict = (i, t, _) => state.evicted(i, t)
    else {
      batch.engine.onEvict = (i, t, r) => { state.evicted(i, t); if (i == 0) decisions.evicted(r) }
      decisions.onFirstMatch = state.matched
    }
    val merger = new InputMerger(inputs.toArray, codec, lateBound = Some(lateBound),
      onUnjoinableAnchor = if (decisions == null) null else decisions.unjoinable)
    // Every arrival (count-only rows too: they keep their place in a ROWS window) joins the state.
    val arrivals = merger.map { (r: EngineRow) =>
      state.add(r.input, r.time, r.row.asInstanceOf[UnsafeRow], r.key)
      r
    }
    val loaded = state.load()
    if (decisions != null) state.restoredMatched.foreach(decisions.restoreMatched)
    val results = batch.results(loaded, arrivals)
    var published = false
    def publish(outputRows: Option[Long]): Unit = if (!published) {
      published = true
      state.save()
      metrics.publish(batch.engine.stats, merger, outputRows = outputRows)
      metrics.publishState(state, plan.hashed)
      if (decisions != null) metrics.numUndecidedAnchorRows.foreach(_ += state.live(0) - decisions.matchedInWindows)
    }
    val rows =
      if (decisions != null) anchoredRows(results, decisions, emit, codec.anchorWriter(how), publish)
      else new Iterator[InternalRow] {
        def hasNext: Boolean = results.hasNext || { publish(None); false }
        def next(): InternalRow = emit(results.next())
      }
    (rows, () => state.live.sum)
  }

  /** The combinations the how keeps and the decided anchor rows, in the order they come. */
  private def anchoredRows(results: Iterator[Array[AnyRef]], decisions: AnchorDecisions,
      emit: Array[AnyRef] => InternalRow, anchorOut: AnyRef => InternalRow,
      publish: Option[Long] => Unit): Iterator[InternalRow] = new Iterator[InternalRow] {
    private var tuple: Array[AnyRef] = null
    private var combinationsOut = 0L
    def hasNext: Boolean = {
      while (tuple == null && decisions.pending.isEmpty && results.hasNext) {
        val t = results.next()
        if (decisions.combination(t)) tuple = t
      }
      tuple != null || !decisions.pending.isEmpty || { publish(Some(combinationsOut + decisions.decidedOut)); false }
    }
    def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException("W-join micro-batch is exhausted")
      if (!decisions.pending.isEmpty) anchorOut(decisions.pending.poll())
      else { val t = tuple; tuple = null; combinationsOut += 1; emit(t) }
    }
  }
}
