package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore

import wjoin.core.{EngineRow, MicroBatchWJoin}

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
 * @see [[wjoin.core.MicroBatchWJoin]] for what a batch emits and evicts
 */
final class StreamingWindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, lateBound: Long,
    watermark: Long) extends Serializable {
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
    val state = new WindowJoinStateStore(store, batchId, codec, watermark)
    val combined = codec.combinedRow()
    val batch = newBatch(partitionIndex, combined)
    batch.engine.onEvict = (i, t, _) => state.evicted(i, t)
    val emit = codec.outputWriter(combined)
    val merger = new InputMerger(inputs.toArray, codec, lateBound = Some(lateBound))
    // Every arrival (count-only rows too: they keep their place in a ROWS window) joins the state.
    val arrivals = merger.map { (r: EngineRow) =>
      state.add(r.input, r.time, r.row.asInstanceOf[UnsafeRow], r.key)
      r
    }
    val results = batch.results(state.load(), arrivals)
    var published = false
    val rows = new Iterator[InternalRow] {
      def hasNext: Boolean = results.hasNext || {
        if (!published) {
          published = true
          state.save()
          metrics.publish(batch.engine.stats, merger)
          metrics.publishState(state, plan.hashed)
        }
        false
      }
      def next(): InternalRow = emit(results.next())
    }
    (rows, () => state.live.sum)
  }
}
