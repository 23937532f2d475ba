package wjoin.exec
package streaming

import wjoin.core.shedding.ShedPlan
import wjoin.core.{AnchorDecisions, EngineListener, JoinHow, MicroBatchWJoin}
import wjoin.core.window.WindowMemory
import wjoin.exec.codec.RowCodec
import wjoin.exec.state.WindowJoinStateStore

/**
 * One partition of a streaming W-join as it lives in executor memory between micro-batches:
 * the engine ([[MicroBatchWJoin]]), the index of its state store ([[WindowJoinStateStore]])
 * and, for left / left_semi / left_anti, the anchors' [[AnchorDecisions]], wired together
 * once, here. [[StreamingEngineCache]] keeps it from one batch to the next; without it (a new
 * run, a restart, a mismatch) a new one is built and [[restore]]d from the store.
 *
 * {{{
 *   engine ──listener.evicted(i, t, row)──> state index (chunk bookkeeping)
 *                                       └─> decisions (anchored: row of input 0 decided)
 *   decisions ──firstMatch──> state index (the anchor's bit, persisted)
 *   under limits: engine ──listener.shed(i, row)──> state index (the row is taken back)
 *                 state index ──save──> the budgets' rates and counts (persisted)
 * }}}
 *
 * The codec, its compiled predicate and its writers are the ones of the task that built the
 * partition; the cache hands the partition only to a batch planned the same way (same plan
 * fingerprint), so they are the ones that batch would compile.
 *
 * @param codec          rows of the inputs as stored, and the compiled residual and writers
 * @param partitionIndex the partition (initialises nondeterministic expressions)
 * @param how            what is emitted
 * @param shed           resource limits: the budgets of the batch that builds the partition
 *                       (each batch then [[retarget]]s them)
 * @param names          the inputs and windows an error about the windows' memory names
 */
final class StreamingPartition(val codec: RowCodec, partitionIndex: Int, how: JoinHow,
    shed: Option[ShedPlan] = None, names: Option[WindowNames] = None) {
  /**
   * The windows' memory: bound to each micro-batch's task while it runs (reserved from its
   * execution memory), unbound while the partition is kept between batches, when
   * [[StreamingEngineCache]] accounts for it.
   */
  val memory: WindowMemory = TaskWindowMemory.ledger(names.getOrElse(WindowNames.numbered(codec.n)))
  // The budgets the state saves are the engine's (under limits), built below.
  val state: WindowJoinStateStore = new WindowJoinStateStore(codec, anchored = how.anchored,
    budgets = shed.map(_ => () => join.shedder.get.budgets.save()))
  /** Anchored W-joins only. */
  val decisions: Option[AnchorDecisions] =
    if (how.anchored) Some(JoinHow.decisions(how, firstMatch = state.matched)) else None
  // Chosen once: an inner W-join's evictions only update the state's bookkeeping.
  private val listener: EngineListener = decisions match {
    case None => new EngineListener {
      override def evicted(input: Int, time: Long, row: AnyRef): Unit = state.evicted(input, time, row)
      override def shed(input: Int, row: AnyRef): Unit = state.retract(input, row)
    }
    case Some(d) => new EngineListener {
      override def evicted(input: Int, time: Long, row: AnyRef): Unit = {
        state.evicted(input, time, row)
        if (input == 0) d.evicted(row)
      }
      override def shed(input: Int, row: AnyRef): Unit = state.retract(input, row)
    }
  }
  val join: MicroBatchWJoin = new MicroBatchWJoin(codec.plan, codec.tupleFilter(partitionIndex),
    codec.rangeValues(), shed, partitionIndex, listener, memory)
  val emit: Array[AnyRef] => org.apache.spark.sql.catalyst.InternalRow = codec.outputWriter()

  /**
   * Under limits, before each micro-batch (after [[restore]]): batch `batchId` runs under
   * `plan`, its random choices seeded by the batch.
   */
  def retarget(plan: Option[ShedPlan], batchId: Long): Unit =
    for (s <- join.shedder; p <- plan) s.budgets.retarget(p, batchId)

  /** Rows the state holds (and the engine buffers, or keeps waiting). */
  def bufferedRows: Long = state.liveRows

  /** A new partition, after `state.begin`: every row of the store into the engine. */
  def restore(): Unit = {
    join.restore(state.load())
    for (s <- join.shedder; saved <- Option(state.restoredBudgets)) s.budgets.restore(saved)
    decisions.foreach(d => state.restoredMatched.foreach(d.restoreMatched))
  }
}
