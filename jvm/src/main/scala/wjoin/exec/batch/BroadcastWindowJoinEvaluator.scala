package wjoin.exec
package batch

import org.apache.spark.TaskContext
import org.apache.spark.broadcast.Broadcast
import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.{BroadcastProbe, BroadcastWindow, BroadcastWindows}
import wjoin.exec.codec.{ContiguousRows, RowCodec}

/**
 * Runs one partition of a broadcast W-join ([[BroadcastWindowJoinExec]]): each broadcast
 * input's window comes from the executor's [[BroadcastWindowCache]] (built by one task of the
 * run on this executor, shared read-only by the others; task p starts at input p mod the
 * broadcast count, so the first tasks build different inputs in parallel), and each row of the
 * streamed input, in the order its partition gives them, is an origin of a [[BroadcastProbe]].
 *
 * {{{
 *   broadcasts ──(once per executor)──> BroadcastWindows ─────────────┐ shared, read-only
 *   streamed partition ── StreamedRows: NULL time / key -> nullRows ── probe ──> output rows
 * }}}
 *
 * @param codec      rows of the inputs: time, key, stored form, residual, output
 * @param metrics    the exec node's metrics
 * @param streamed   the streamed input
 * @param broadcasts the broadcast inputs: input, its fields, its rows ([[PackedRows]])
 * @param run        this run of the plan (one `doExecute`): what the executors' windows are kept under
 * @param names      the inputs and windows an error about the windows' memory names
 */
class BroadcastWindowJoinEvaluator(codec: RowCodec, metrics: WindowJoinMetrics, streamed: Int,
    broadcasts: Seq[(Int, Int, Broadcast[Array[InternalRow]])], run: String, names: WindowNames) extends Serializable {

  def eval(partitionIndex: Int, rows: Iterator[InternalRow]): Iterator[InternalRow] = {
    val started = System.nanoTime()
    // Each task starts at its own input, so an executor's first tasks build different inputs at once.
    val (later, first) = broadcasts.splitAt(partitionIndex % math.max(1, broadcasts.size))
    val windows = (first ++ later).map { case (i, fields, b) =>
      BroadcastWindowCache.window(run, i, b.id, () => {
        val from = System.nanoTime()
        val built = build(i, PackedRows.unpack(b.value, fields))
        metrics.numBroadcastBuilds.foreach(_ += 1)
        metrics.broadcastBuildTime.foreach(_ += System.nanoTime() - from)
        built
      })._1
    }
    probing(partitionIndex, rows, windows, started)
  }

  /**
   * The same partition run here, outside any Spark job and cache, over `broadcast` rows given
   * by input: [[wjoin.extension.FirstQueryWarmUp]] warms the broadcast plan's code with it.
   */
  private[wjoin] def evaluateHere(rows: Iterator[InternalRow], broadcast: Seq[(Int, Array[InternalRow])]): Iterator[InternalRow] =
    probing(0, rows, broadcast.map { case (i, values) => build(i, values) }, System.nanoTime())

  /** The streamed rows of one partition probing `windows` (one per broadcast input). */
  private def probing(partitionIndex: Int, rows: Iterator[InternalRow], windows: Seq[BroadcastWindow],
      started: Long): Iterator[InternalRow] = {
    val shared = new BroadcastWindows(codec.plan, streamed, windows)
    val probe = new BroadcastProbe(codec.plan, shared, codec.tupleFilter(partitionIndex), codec.rangeValues())
    val out = new StreamedRows(rows, probe, codec, streamed, codec.outputWriter())
    val publisher = metrics.streamedPublisher(probe.stats, out, streamed)
    out.onProgress = () => publisher.publish()
    out.onComplete = () => {
      publisher.publish()
      metrics.joinTime.foreach(_ += System.nanoTime() - started)
    }
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => out.finish()))
    out
  }

  /**
   * Input i's window from its broadcast `values`, charged to the running task's memory: its rows that
   * can join (time and, in a hashed plan, key not NULL), in the order they came; the window
   * orders them by time as its structure needs ([[BroadcastWindow]]).
   */
  private def build(i: Int, values: Array[InternalRow]): BroadcastWindow = {
    val store = codec.storedShared(i)
    val keyOf = codec.joinableKey(i)
    val timeOf = codec.time(i).reader
    val rows = new Array[AnyRef](values.length)
    val keys = new Array[AnyRef](values.length)
    val times = new Array[Long](values.length)
    var m = 0
    var k = 0
    while (k < values.length) { // a primitive loop: a generic foreach boxes every time
      val row = values(k)
      val key = keyOf(row)
      if (key ne RowCodec.Unjoinable) {
        rows(m) = store(row)
        keys(m) = key
        times(m) = timeOf(row)
        m += 1
      }
      k += 1
    }
    def joinable[T](a: Array[T]): Array[T] = if (m == a.length) a else a.slice(0, m)
    new BroadcastWindow(codec.plan, i, codec.rangeValues(), TaskWindowMemory.forBroadcast(names), joinable(keys), joinable(times),
      joinable(rows), ContiguousRows)
  }
}

/**
 * The output of one streamed partition: each row read, unless its time (or, hashed, its key)
 * is NULL, opens the probe's combinations, which come out one at a time. `onProgress` runs
 * every [[PartitionDriver.ProgressRows]] rows out, `onComplete` once, after the last one or
 * when [[finish]] is called first.
 *
 * @param rows     the streamed partition
 * @param probe    the task's probe of the shared windows
 * @param codec    time, key and stored form of the streamed rows
 * @param streamed the streamed input
 * @param emit     the output row of a combination
 */
final class StreamedRows(rows: Iterator[InternalRow], probe: BroadcastProbe, codec: RowCodec, streamed: Int,
    emit: Array[AnyRef] => InternalRow) extends Iterator[InternalRow] {
  private val time = codec.time(streamed)
  private val timeOf = time.reader
  private val keyOf = codec.keyReader(streamed)
  private val view = codec.storedView(streamed)
  private val hashed = codec.plan.hashed
  private var ready = false
  private var completed = false
  var onProgress: () => Unit = () => ()
  var onComplete: () => Unit = () => ()

  /** Streamed rows read, of every kind. */
  var rowsRead = 0L
  /** Rows with a NULL time, or a NULL key in a hashed plan. */
  var nullRows = 0L
  /** Rows that probed. */
  var offered = 0L
  /** Rows output. */
  var rowsOut = 0L

  override def hasNext: Boolean = ready || advance()

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException("the broadcast W-join partition is exhausted")
    ready = false
    rowsOut += 1
    if ((rowsOut & (PartitionDriver.ProgressRows - 1)) == 0) onProgress()
    emit(probe.tuple)
  }

  /** Runs `onComplete` once. */
  def finish(): Unit = if (!completed) { completed = true; onComplete() }

  private def advance(): Boolean = {
    while (!probe.next()) {
      if (!rows.hasNext) { finish(); return false }
      val r = rows.next()
      rowsRead += 1
      if (time.isNull(r)) nullRows += 1
      else {
        val key = keyOf(r)
        if (hashed && key == null) nullRows += 1
        else {
          offered += 1
          probe.start(timeOf(r), key, view(r))
        }
      }
    }
    ready = true
    true
  }
}
