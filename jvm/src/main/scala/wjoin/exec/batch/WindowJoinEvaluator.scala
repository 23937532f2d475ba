package wjoin.exec
package batch

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.shedding.ShedPlan
import wjoin.core.{EngineDrive, EngineListener, EngineRow, FeedGroups, JoinHow, TimeBands, WJoinEngine}
import wjoin.exec.codec.RowCodec

/**
 * Runs one partition of a batch W-join: the [[InputMerger]] merges the N time-sorted inputs
 * into one arrival order, the [[WJoinEngine]] (Hammad et al. Sec. 3: NLW-, HW- or MW-join)
 * finds the combinations, and the partition's [[JoinOutput]] turns them into rows, all driven
 * by one [[PartitionDriver]] (the streaming evaluator plugs its micro-batch into the same
 * driver). Everything Spark-specific about rows is in the codec; the algorithms live in
 * `wjoin.core`.
 *
 * {{{
 *   inputs ──InputMerger──> EngineDrive (WJoinEngine; end: finish(), anchors: evictAll()) ──JoinOutput──> rows
 *                                              (banded: drop tuples owned by a later band)
 *   key groups: inputs ──KeyGroupSort (by key, where it pays)──> InputMerger ──> EngineDrive, one key at a time
 * }}}
 *
 * @param codec   rows of the inputs: time, key, stored form, residual, output
 * @param metrics the exec node's metrics
 * @param bands   time bands, when partition b holds band b of every input ([[TimeBands]]):
 *                only combinations whose earliest member is in band b are emitted, and input
 *                rows were counted before the band shuffle
 * @param how     what is emitted; left, left_semi and left_anti decide anchor rows
 *                (never banded: an anchor row replicated to several bands would be decided
 *                in each)
 * @param shed    resource limits: the budgets of each partition (its engine is the shedding
 *                variant, seeded with the partition index)
 * @param names   the inputs and windows an error names; the windows' memory is reserved from
 *                the task's ([[TaskWindowMemory]]) and released when the task ends
 * @param check   the run-time check of the partition's access paths ([[PartitionAccessCheck]]),
 *                made on its first rows before the engine is built; None: the planned paths
 * @param keyGroups where each partition may be joined key by key ([[FeedGroups.ByKey]]): the
 *                partition decides from its first rows and sorts its inputs by key
 *                ([[KeyGroupSort]]); then its access paths are not checked. Never with bands,
 *                limits or ROWS windows
 */
class WindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, bands: Option[TimeBands] = None,
    how: JoinHow = JoinHow.Inner, shed: Option[ShedPlan] = None, names: Option[WindowNames] = None,
    check: Option[PartitionAccessCheck] = None, keyGroups: Option[KeyGroupSort] = None) extends Serializable {
  assert(!(how.anchored && bands.isDefined), s"a '$how' W-join decides each anchor row in one partition: no time bands")
  assert(keyGroups.isEmpty || (bands.isEmpty && shed.isEmpty && codec.plan.hashed && !codec.plan.counting),
    "key groups: a hashed batch W-join without bands, limits or ROWS windows")

  def eval(partitionIndex: Int, inputs: Seq[Iterator[InternalRow]]): Iterator[InternalRow] = {
    val decisions = if (how.anchored) Some(JoinHow.decisions(how)) else None
    val listener = decisions.fold[EngineListener](EngineListener.Silent)(d => new EngineListener {
      override def evicted(input: Int, time: Long, row: AnyRef): Unit = if (input == 0) d.evicted(row)
    })
    val memory = TaskWindowMemory(names.getOrElse(WindowNames.numbered(codec.n)))
    val started = System.nanoTime()
    val sorted = keyGroups.fold(KeyGroupSort.Sorted(inputs, grouped = false))(_(inputs, codec, memory))
    if (sorted.grouped) metrics.numKeyGroupedPartitions.foreach(_ += 1)
    val merger = new InputMerger(sorted.inputs.toArray, codec, onUnjoinableAnchor = decisions.map(d => d.unjoinable _).orNull,
      windows = memory, keyOrder = if (sorted.grouped) keyGroups.get.order else null)
    // A key group's first rows are one key's: they show nothing of the partition's keys.
    val checked = if (sorted.grouped) None else check.map(_(partitionIndex, merger, codec, memory))
    checked.flatMap(_.outcome).foreach { o =>
      metrics.numCheckedPartitions.foreach(_ += 1)
      if (o.changed) metrics.numRechosenPartitions.foreach(_ += 1)
    }
    val plan = checked.fold(codec.plan)(_.plan)
    val planCodec = checked.fold(codec)(_.codec)
    val engine = WJoinEngine.batch(plan, planCodec.tupleFilter(partitionIndex), planCodec.rangeValues(), shed,
      partitionIndex, listener, memory)
    val emit = planCodec.outputWriter()
    // Anchors still buffered at the end of input are decided once every combination is out.
    val endSteps = Seq(() => engine.finish()) ++ decisions.map(_ => () => engine.evictAll())
    val output = decisions match {
      case Some(d) => new JoinOutput.Anchored(d, emit, codec.anchorWriter(how))
      case None => bands.fold[JoinOutput](new JoinOutput.Combinations(emit))(b =>
        new JoinOutput.BandCombinations(emit, b.lastOf(partitionIndex), engine.times, plan.forward))
    }
    val publisher = metrics.publisher(engine.stats, merger, output, banded = bands.isDefined)
    val feed = checked.fold[Iterator[EngineRow]](merger)(_.feed)
    val groups = if (sorted.grouped) new FeedGroups.ByKey(keyGroups.get.order) else FeedGroups.Whole
    val driver = new PartitionDriver(new EngineDrive(engine, feed, engine.feed, endSteps, groups), output, _ => {
      publisher.publish()
      metrics.joinTime.foreach(_ += System.nanoTime() - started)
    }, () => publisher.publish())
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => driver.finish()))
    driver
  }
}
