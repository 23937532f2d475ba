package wjoin.core

/** A row as the engine sees it: input index, event time, hash key (null if unhashed), payload. */
final case class EngineRow(input: Int, time: Long, key: AnyRef, row: AnyRef)

/**
 * One micro-batch of a streaming W-join in one partition, Spark-free: the rows kept in the
 * state from earlier batches plus the batch's new rows go through a fresh [[WJoinEngine]],
 * which yields the combinations this batch completes and reports (through
 * [[WJoinEngine.onEvict]]) the rows that leave the state.
 *
 * {{{
 *   state (earlier batches, any order) ─┐            ┌─> combinations completed now
 *                                       ├─ engine ───┤
 *   new rows (time order, none late) ───┘            └─> evicted rows (leave the state)
 * }}}
 *
 * W = `watermark`, the eviction watermark of this batch in time units (Long.MinValue while
 * there is none). Every future row has time > W (Spark drops rows with time <= W as late
 * in the next batch), which is what makes eviction and forward evaluation exact:
 *  - eager (NLW-join, HW-join; backward evaluation): the state is preloaded, every new row
 *    probes it and the new rows before it and emits every combination it completes. A state
 *    row of input j leaves once ts + horizon(j) <= W.
 *  - ordered (MW-join; forward evaluation): rows with time <= W, from the state and the batch
 *    merged in time order, are admitted to the Mode 1 / Mode 2 sweep; r_o at t is swept once
 *    t + horizon(o) <= W and then leaves. Rows newer than W stay in the state untouched.
 * Either way the union over all batches is the batch W-join of the non-late rows, each
 * combination once; the ordered mode only emits it later (after the watermark passes).
 *
 * @param plan      the engine plan (the algorithm decides the mode)
 * @param filter    the non-window predicate
 * @param watermark W: all rows with time <= W have arrived
 * @param ranges    range attributes of rows, for indexed inputs
 */
final class MicroBatchWJoin(plan: EnginePlan, filter: TupleFilter, watermark: Long,
    ranges: RangeValues = RangeValues.None) {
  val engine: WJoinEngine = WJoinEngine.streaming(plan, filter, watermark, ranges)

  /**
   * The combinations completed by this batch, as the engine's tuple array (valid until the
   * next call to hasNext). `state` is every row the state holds (ordered mode: not yet swept);
   * `arrivals` are the batch's rows in [[MicroBatchWJoin.ArrivalOrder]], late rows already
   * dropped; all of them are read by the time hasNext returns false.
   */
  def results(state: Seq[EngineRow], arrivals: Iterator[EngineRow]): Iterator[Array[AnyRef]] = {
    val sortedState = state.sorted(MicroBatchWJoin.ArrivalOrder)
    val feed: Iterator[EngineRow] =
      if (plan.forward) merge(sortedState.iterator, arrivals) // rows newer than W are read, not offered
      else {
        sortedState.foreach(r => engine.preload(r.input, r.time, r.key, r.row))
        arrivals
      }
    new Iterator[Array[AnyRef]] {
      private var ready = false
      private var finished = false
      def hasNext: Boolean = {
        while (!ready) {
          if (engine.next()) ready = true
          else if (feed.hasNext) {
            val r = feed.next()
            if (!plan.forward || r.time <= watermark) {
              if (plan.hashed && r.key == null) engine.countOnly(r.input, r.time) // kept for a ROWS window only
              else engine.offer(r.input, r.time, r.key, r.row)
            }
          }
          else if (!finished) { engine.finish(); finished = true }
          else return false
        }
        true
      }
      def next(): Array[AnyRef] = {
        if (!hasNext) throw new NoSuchElementException("micro-batch exhausted")
        ready = false
        engine.tuple
      }
    }
  }

  /** Merges two iterators in [[MicroBatchWJoin.ArrivalOrder]] (full ties: state first). */
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
