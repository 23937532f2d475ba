package wjoin.exec

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.{JoinHow, TimeBands, WJoinEngine}
import wjoin.core.shedding.ShedPlan

/**
 * Runs one partition of a batch W-join: the [[InputMerger]] merges the N time-sorted inputs
 * into one arrival order, the [[WJoinEngine]] (Hammad et al. Sec. 3: NLW-, HW- or MW-join)
 * finds the combinations, and the [[RowCodec]] turns each into an output row. Everything
 * Spark-specific about rows is in the codec; the algorithms live in `wjoin.core`.
 *
 * {{{
 *   inputs ──InputMerger──> offer / countOnly ──WJoinEngine──> tuple ──codec.outputWriter──> row
 *                                                  (banded: drop tuples owned by a later band)
 * }}}
 *
 * @param codec   rows of the inputs: time, key, stored form, residual, output
 * @param metrics the exec node's metrics
 * @param bands   time bands, when partition b holds band b of every input ([[TimeBands]]):
 *                only combinations whose earliest member is in band b are emitted, and input
 *                rows were counted before the band shuffle
 * @param how     what is emitted; left, left_semi and left_anti run [[AnchoredPartition]]
 *                (never banded: an anchor row replicated to several bands would be decided
 *                in each), inner this class's own iterator
 * @param shed    resource limits: the budgets of each partition (its engine is the shedding
 *                variant, seeded with the partition index)
 */
class WindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, bands: Option[TimeBands] = None,
    how: JoinHow = JoinHow.Inner, shed: Option[ShedPlan] = None) extends Serializable {
  require(!(how.anchored && bands.isDefined), s"a '$how' W-join decides each anchor row in one partition: no time bands")
  private def plan = codec.plan

  /** The engine of one partition: the one place a batch engine is built. */
  private def newEngine(partitionIndex: Int, combined: CombinedRow): WJoinEngine =
    WJoinEngine.batch(plan, codec.tupleFilter(partitionIndex, combined), codec.rangeValues(), shed, partitionIndex)

  def eval(partitionIndex: Int, inputs: Seq[Iterator[InternalRow]]): Iterator[InternalRow] = {
    val combined = codec.combinedRow()
    val engine = newEngine(partitionIndex, combined)
    if (how.anchored) {
      val decisions = JoinHow.decisions(how)
      return new AnchoredPartition(new InputMerger(inputs.toArray, codec, onUnjoinableAnchor = decisions.unjoinable),
        engine, decisions, codec.outputWriter(combined), codec.anchorWriter(how), metrics).rows
    }
    new PartitionIterator(partitionIndex, new InputMerger(inputs.toArray, codec), engine, codec.outputWriter(combined))
  }

  private final class PartitionIterator(
      partitionIndex: Int,
      merger: InputMerger,
      engine: WJoinEngine,
      emit: Array[AnyRef] => InternalRow) extends Iterator[InternalRow] {
    private var ready = false
    private var engineFinished = false
    private var done = false
    private var published = false
    /** Band b owns the combinations whose earliest member is before this (and >= its start). */
    private val ownedBefore = bands.fold(Long.MaxValue)(_.upperOf(partitionIndex))
    private var foreign = 0L
    private val started = System.nanoTime()
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => publish()))

    override def hasNext: Boolean = {
      if (ready) return true
      while (!done) {
        if (engine.next()) {
          if (ownedBefore == Long.MaxValue || TimeBands.earliest(engine.times) < ownedBefore) { ready = true; return true }
          // Every member is a replica: a later band owns this combination. Forward evaluation
          // finds combinations in order of their earliest member, so all that follow are foreign too.
          foreign += 1
          if (plan.forward) { done = true; publish(); return false }
        } else if (merger.hasNext) merger.feed(engine, merger.next())
        else if (!engineFinished) {
          engine.finish()
          engineFinished = true
        } else {
          done = true
          publish()
        }
      }
      false
    }

    override def next(): InternalRow = {
      if (!hasNext) throw new NoSuchElementException("W-join partition is exhausted")
      ready = false
      emit(engine.tuple)
    }

    private def publish(): Unit = if (!published) {
      published = true
      metrics.publish(engine.stats, merger, foreign, banded = bands.isDefined, nanos = System.nanoTime() - started)
    }
  }
}
