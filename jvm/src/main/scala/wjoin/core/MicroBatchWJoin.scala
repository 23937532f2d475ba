package wjoin.core

import wjoin.core.shedding.{ShedPlan, SheddingEngine}
import wjoin.core.window.WindowMemory

/** A row as the engine sees it: input index, event time, hash key (null if unhashed), payload. */
final case class EngineRow(input: Int, time: Long, key: AnyRef, row: AnyRef)

/**
 * The micro-batches of a streaming W-join in one partition, Spark-free: one [[WJoinEngine]]
 * kept across batches. Each batch offers its new rows to the engine, which yields the
 * combinations the batch completes and reports (to its [[EngineListener]]) the rows
 * that leave the state. The engine starts from the rows of the state store once
 * ([[restore]]: a new query run, a restart, a moved task, a version mismatch); after that the
 * windows already hold them.
 *
 * {{{
 *   restore(state rows) ─ once ─┐               ┌─> combinations completed by the batch
 *                               ├─ engine ──────┤
 *   results(W, new rows) ───────┘  (kept)       └─> evicted rows (leave the state)
 *      time order, none late
 * }}}
 *
 * W = the batch's eviction watermark in time units (Long.MinValue while there is none). Every
 * future row has time > W (Spark drops rows with time <= W as late in the next batch), which
 * is what makes eviction and forward evaluation exact:
 *  - eager (NLW-join, HW-join; backward evaluation): the windows hold the state, every new
 *    row probes it and the new rows before it and emits every combination it completes. A row
 *    of input j leaves once ts + horizon(j) <= W.
 *  - ordered (MW-join; forward evaluation): rows with time <= W, waiting ones and the batch's
 *    merged in time order, are admitted to the Mode 1 / Mode 2 sweep; r_o at t is swept once
 *    t + horizon(o) <= W and then leaves. Rows newer than W wait (here and in the state) for
 *    a later batch; a batch's new rows are all newer than the last W, so the merge order of
 *    the admitted rows never goes back.
 * Either way the union over all batches is the batch W-join of the non-late rows, each
 * combination once; the ordered mode only emits it later (after the watermark passes). A
 * rebuilt engine (restore, then the batch) emits exactly what the kept one would.
 *
 * Under resource limits (`shed`) the engine is the eager shedding one
 * ([[shedding.SheddingBackwardEvaluation]]); [[shedding]] says what changes: the state keeps
 * only the rows the windows keep, and each batch runs under its own [[shedding.ShedPlan]].
 *
 * @param plan      the engine plan (the algorithm decides the mode)
 * @param filter    the non-window predicate
 * @param ranges    range attributes of rows, for indexed inputs
 * @param shed      resource limits: the first batch's budgets; None: exact
 * @param partition the partition (seeds the shedding's random choices)
 * @param listener  hears of the rows that leave the state (evicted, or shed under limits)
 * @param memory    the windows' memory account (bound to each micro-batch's task by the caller)
 */
final class MicroBatchWJoin(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues = RangeValues.None,
    shed: Option[ShedPlan] = None, partition: Int = 0, listener: EngineListener = EngineListener.Silent,
    memory: WindowMemory = WindowMemory.Unaccounted) {
  val engine: WJoinEngine = WJoinEngine(plan, filter, EngineMode.Streaming(Long.MinValue), ranges, shed, partition,
    listener = listener, memory = memory)
  /** Under limits, the engine's budgets and shed rows; else None. */
  val shedder: Option[SheddingEngine] = engine match {
    case s: SheddingEngine => Some(s)
    case _ => None
  }
  /** Ordered mode: rows newer than the last W, in [[MicroBatchWJoin.ArrivalOrder]]. */
  private var waiting: IndexedSeq[EngineRow] = Vector.empty
  private var started = false

  /**
   * Before the first batch: every row the state holds (ordered mode: not yet swept), in any
   * order. Eager mode loads them into the windows without probing (they were joined before).
   */
  def restore(state: Seq[EngineRow]): Unit = {
    assert(!started, "the state is restored before the first micro-batch")
    val sorted = state.sorted(MicroBatchWJoin.ArrivalOrder)
    if (plan.forward) waiting = sorted.toVector
    else sorted.foreach(r => engine.preload(r.input, r.time, r.key, r.row))
  }

  /**
   * The combinations completed by a batch with eviction watermark `watermark`, as the
   * engine's tuple array (valid until the next call to hasNext). `arrivals` are the batch's
   * rows in [[MicroBatchWJoin.ArrivalOrder]], late rows already dropped; all of them are read
   * by the time hasNext returns false, and only then may the next batch start.
   */
  def results(watermark: Long, arrivals: Iterator[EngineRow]): EngineDrive = {
    started = true
    engine.startMicroBatch(watermark)
    if (!plan.forward) new EngineDrive(engine, arrivals, engine.feed, Seq(() => engine.finish()))
    else {
      // Rows newer than W are read, not offered: they wait for a later batch.
      val stillWaiting = Vector.newBuilder[EngineRow]
      new EngineDrive(engine, merge(waiting.iterator, arrivals),
        r => if (r.time > watermark) stillWaiting += r else engine.feed(r),
        Seq(() => { engine.finish(); waiting = stillWaiting.result() }))
    }
  }

  /** Merges two iterators in [[MicroBatchWJoin.ArrivalOrder]] (full ties: waiting rows first). */
  private def merge(a: Iterator[EngineRow], b: Iterator[EngineRow]): Iterator[EngineRow] =
    new Iterator[EngineRow] {
      private val left = a.buffered
      private val right = b.buffered
      def hasNext: Boolean = left.hasNext || right.hasNext
      def next(): EngineRow =
        if (!right.hasNext || (left.hasNext && MicroBatchWJoin.ArrivalOrder.lteq(left.head, right.head))) left.next()
        else right.next()
    }
}

object MicroBatchWJoin {
  /**
   * The order rows are processed in: event time, then input index. Forward evaluation sweeps
   * in this order, so the swept rows are always a prefix of it: every row up to a
   * (time, input) frontier, which is all the state must remember about the sweep.
   */
  val ArrivalOrder: Ordering[EngineRow] = new Ordering[EngineRow] {
    def compare(a: EngineRow, b: EngineRow): Int = {
      val c = java.lang.Long.compare(a.time, b.time)
      if (c != 0) c else Integer.compare(a.input, b.input)
    }
  }
}
