package wjoin.exec
package streaming

import java.util.UUID

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.{StateStore, StateStoreProviderId}

import wjoin.core.shedding.ShedPlan
import wjoin.core.{EngineRow, JoinHow}
import wjoin.exec.codec.RowCodec

/**
 * Runs one micro-batch of one partition of a streaming W-join against its state store: the
 * partition's engine, kept in executor memory from the last batch ([[StreamingEngineCache]])
 * or rebuilt from the store, gets the batch's arrivals (merged by the [[InputMerger]], late
 * rows dropped); every arrival is added to the state as it is read, and only the changes are
 * written to the store.
 *
 * {{{
 *   cache (store version v, same plan) ──or── state store ──load──> StreamingPartition
 *   inputs ──InputMerger (time > WL)──> arrivals ──add to state──> engine(W) ──codec──> rows
 *   after the store's commit (version v'): the partition back into the cache
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
 *                  is kept in the state ([[wjoin.exec.state.WindowJoinStateStore]]), and
 *                  anchors with a NULL time or key are decided (unmatched) in the batch they
 *                  arrive in
 * @param planFingerprint what the engine was built from (algorithm, access paths, probe
 *                  orders, residual, stored columns); a kept engine is reused only for the same
 * @param keptRows  most buffered rows this executor keeps in engines between batches; 0: none
 *                  (every batch rebuilds from the store)
 * @param shed      resource limits: this batch's budgets per partition (the eager shedding
 *                  engine; shed rows are not kept in the state); None: exact
 * @param keptMemoryFraction the most of Spark's memory kept engines may hold together
 *                  ([[StreamingEngineCache]]); while a batch runs, the engine's windows are its
 *                  task's execution memory ([[TaskWindowMemory]])
 * @param names     the inputs and windows an error about the windows' memory names
 * @see [[wjoin.core.MicroBatchWJoin]] for what a batch emits and evicts
 */
final class StreamingWindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, lateBound: Long,
    watermark: Long, how: JoinHow = JoinHow.Inner, planFingerprint: String = "", keptRows: Long = 0L,
    shed: Option[ShedPlan] = None, keptMemoryFraction: Double = 1.0, names: Option[WindowNames] = None)
    extends Serializable {

  /** One partition's micro-batch: its output rows, then (once they are consumed and the store committed) [[committed]]. */
  final class Run(val rows: Iterator[InternalRow], partition: StreamingPartition, cacheId: StateStoreProviderId) {
    /** Rows the state holds after the batch (valid once the rows are consumed). */
    def liveRows: Long = partition.bufferedRows
    /** The store committed `version`: the engine now reflects it and may serve the next batch. */
    def committed(version: Long): Unit =
      if (keptRows > 0) StreamingEngineCache.keep(cacheId, version, planFingerprint, partition, keptRows, keptMemoryFraction)
  }

  /**
   * Joins the batch's `inputs` with the state in `store` (of query run `runId`); the store is
   * updated (not committed) once the returned rows are consumed. `batchId` names this batch's
   * chunks.
   */
  def evalBatch(partitionIndex: Int, batchId: Long, inputs: Seq[Iterator[InternalRow]], store: StateStore,
      runId: UUID): Run = {
    val cacheId = StateStoreProviderId(store.id, runId)
    val kept = if (keptRows > 0) StreamingEngineCache.checkOut(cacheId, store.version, planFingerprint) else None
    val p = kept.getOrElse(new StreamingPartition(codec, partitionIndex, how, shed, names))
    // The windows (a kept engine's at once) are this task's memory until it ends or keeps the engine.
    TaskWindowMemory.bindToTask(p.memory)
    val state = p.state
    state.begin(store, batchId, watermark)
    if (kept.isEmpty) p.restore()
    p.retarget(shed, batchId)
    val decisions = p.decisions
    val merger = new InputMerger(inputs.toArray, p.codec, lateBound = Some(lateBound),
      onUnjoinableAnchor = decisions.map(d => d.unjoinable _).orNull, windows = p.memory)
    // Every arrival (count-only rows too: they keep their place in a ROWS window) joins the state.
    val arrivals = merger.map { (r: EngineRow) =>
      state.add(r.input, r.time, r.row.asInstanceOf[UnsafeRow], r.key)
      r
    }
    val output = decisions.fold[JoinOutput](new JoinOutput.Combinations(p.emit))(
      d => new JoinOutput.Anchored(d, p.emit, p.codec.anchorWriter(how)))
    // The drive starts the engine's micro-batch (its counters from 0) before the publisher reads them.
    val drive = p.join.results(watermark, arrivals)
    val publisher = metrics.publisher(p.join.engine.stats, merger, output)
    val rows = new PartitionDriver(drive, output, _ => {
      state.save()
      publisher.publish()
      metrics.publishState(state, p.join.engine, p.codec.plan.hashed)
      decisions.foreach(d => metrics.numUndecidedAnchorRows.foreach(_ += state.live(0) - d.matchedInWindows))
    }, () => publisher.publish())
    new Run(rows, p, cacheId)
  }

}
