package wjoin.exec

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.{AnchorDecisions, WJoinEngine}

/**
 * One batch partition of a left outer, left semi or left anti W-join: the inner join's loop
 * ([[WindowJoinEvaluator]]) plus the [[AnchorDecisions]] of the how, which see every
 * combination, every eviction of a row of the first input (the anchor) and every anchor row
 * that never joins (NULL time or key, reported by the [[InputMerger]]).
 *
 * {{{
 *   InputMerger ──feed──> WJoinEngine ──tuple──> decisions.combination ──(left)──> combination row
 *        │                    └─onEvict(0, r)──> decisions.evicted ──┐
 *        └─ NULL anchors ─────────────────────> decisions.unjoinable ┴─> pending ──> anchor row
 *   end of input: finish(), drain, evictAll() (every anchor still buffered is decided)
 * }}}
 *
 * Decided anchors leave as soon as they are decided (at eviction, when their horizon passed),
 * so output streams out and the memory is the window's, not the partition's.
 *
 * @param merger        the partition's inputs in arrival order, reporting unjoinable anchors
 *                      to `decisions.unjoinable`
 * @param engine        the batch engine (any algorithm)
 * @param decisions     the how's decisions
 * @param combinationOut output row of a combination (left outer only)
 * @param anchorOut     output row of a decided anchor row
 * @param metrics       where the partition's counters go once it is done
 */
private[exec] final class AnchoredPartition(merger: InputMerger, engine: WJoinEngine, decisions: AnchorDecisions,
    combinationOut: Array[AnyRef] => InternalRow, anchorOut: AnyRef => InternalRow, metrics: WindowJoinMetrics) {
  engine.onEvict = (i, _, r) => if (i == 0) decisions.evicted(r)

  val rows: Iterator[InternalRow] = new Iterator[InternalRow] {
    private var combinationReady = false
    private var finished = false
    private var drained = false
    private var done = false
    private var published = false
    private var combinationsOut = 0L
    private val started = System.nanoTime()
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => publish()))

    def hasNext: Boolean = {
      while (!combinationReady && decisions.pending.isEmpty && !done) {
        if (engine.next()) combinationReady = decisions.combination(engine.tuple)
        else if (merger.hasNext) merger.feed(engine, merger.next())
        else if (!finished) { engine.finish(); finished = true }
        else if (!drained) { engine.evictAll(); drained = true }
        else { done = true; publish() }
      }
      combinationReady || !decisions.pending.isEmpty
    }

    def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException("W-join partition is exhausted")
      if (!decisions.pending.isEmpty) anchorOut(decisions.pending.poll())
      else {
        combinationReady = false
        combinationsOut += 1
        combinationOut(engine.tuple)
      }
    }

    private def publish(): Unit = if (!published) {
      published = true
      metrics.publish(engine.stats, merger, nanos = System.nanoTime() - started,
        outputRows = Some(combinationsOut + decisions.decidedOut))
    }
  }
}
