package wjoin.exec

import org.apache.spark.memory.SparkOutOfMemoryError
import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.{EngineRow, StreamRows}
import wjoin.core.window.WindowMemory
import wjoin.exec.codec.RowCodec

/**
 * The N time-sorted inputs of one partition merged into one arrival order (the papers'
 * streams, Hammad et al. Sec. 3), with the rules for rows that cannot join written once, for
 * batch and streaming alike:
 *
 * {{{
 *   input 0 ─┐  read row r of input i (counted: rowsRead, rowsReadOf(i))
 *   input 1 ─┼─> time NULL                      -> dropped, nullRows
 *   ...      │   time <= lateBound (streaming)   -> dropped, lateRows
 *   input N ─┘   key NULL (hashed plan)          -> nullRows; kept as a count-only row when
 *                                                   input i has a ROWS window, else dropped
 *                else                            -> EngineRow(i, t, key, stored copy), offered(i)
 *   emitted in order of (time, input): the smallest head time first, ties to the lower input;
 *   key groups: in order of (key, time, input), each input sorted by key, then time
 * }}}
 *
 * A count-only row is an [[EngineRow]] whose key is null in a hashed plan: it never matches
 * but takes its place among input i's last k rows (Golab & Özsu Sec. 3.6: count-based windows, the
 * ROWS form), so a ROWS window holds the last k rows of the input, not of its joinable rows.
 * Only inputs with a ROWS window keep such rows: elsewhere they change no result.
 *
 * Each input must be sorted by time (the exec node requires it); the merge then yields the
 * rows in [[wjoin.core.MicroBatchWJoin.ArrivalOrder]]. Every emitted row is a copy
 * ([[RowCodec.storer]]): inputs may reuse their row objects.
 *
 * @param inputs    the inputs' rows, each sorted by event time
 * @param codec     time, key and stored form of each input's rows
 * @param lateBound streaming: time (in the time column's unit) at or before which a row is
 *                  late (Spark's watermark of the previous batch); None for batch
 * @param onUnjoinableAnchor anchored W-joins (left, left_semi, left_anti): gets a stored copy
 *                  of every row of the first input that can never join (NULL time, or NULL
 *                  key in a hashed plan), which is then decided unmatched
 *                  ([[wjoin.core.AnchorDecisions]]); late rows are not reported. Null for the
 *                  inner join (only rows with a NULL time or key test it)
 * @param windows   the windows' memory in this task: an input whose sort Spark's memory manager
 *                  refuses while they hold memory fails with their refusal
 *                  ([[WindowMemory.refusedElsewhere]], Spark's error its cause), not Spark's
 *                  generic one; null: Spark's error as it is
 * @param keyOrder  batch, key groups ([[wjoin.core.FeedGroups.ByKey]]): every input is sorted by
 *                  its key (ascending, in this order of the keys as [[RowCodec.keyReader]] reads
 *                  them), then time, and the merge keeps that order; null: time order
 */
final class InputMerger(inputs: Array[Iterator[InternalRow]], codec: RowCodec, lateBound: Option[Long] = None,
    onUnjoinableAnchor: InternalRow => Unit = null, windows: WindowMemory = null,
    keyOrder: java.util.Comparator[AnyRef] = null) extends Iterator[EngineRow] {

  private val n = inputs.length
  assert(n == codec.n, s"${inputs.length} inputs for a W-join of ${codec.n}")
  private val plan = codec.plan
  private val timeColumns = codec.time.toArray
  private val times = timeColumns.map(_.reader)
  private val keyOf = Array.tabulate(n)(codec.keyReader(_))
  private val copiers = Array.tabulate(n)(codec.storer)
  private val keepCountOnly = Array.tabulate(n)(i => plan.hashed && plan.rowLimit(i) != StreamRows.NoLimit)
  private val late = lateBound.getOrElse(Long.MinValue)
  // Long.MinValue is "no watermark yet" (a row at that time is not late then).
  private val hasLateBound = lateBound.exists(_ != Long.MinValue)
  private val heads = new Array[EngineRow](n)
  private val order = if (keyOrder == null) InputMerger.ByTime else new InputMerger.ByKeyThenTime(keyOrder)

  /** Rows read, of every kind. */
  var rowsRead = 0L
  /** Per input, the rows read (late and NULL ones included). */
  val rowsReadOf = new Array[Long](n)
  /** Rows with a NULL time, or a NULL key in a hashed plan: they never match. */
  var nullRows = 0L
  /** Streaming: rows at or before the late bound, dropped. */
  var lateRows = 0L
  /** Per input, the rows emitted that can join (not count-only). */
  val offered = new Array[Long](n)

  (0 until n).foreach(fetch)

  private def unjoinable(i: Int, r: InternalRow): Unit = {
    nullRows += 1
    if (i == 0 && onUnjoinableAnchor != null) onUnjoinableAnchor(copiers(0)(r))
  }

  private def fetch(i: Int): Unit =
    try read(i)
    catch {
      case e: SparkOutOfMemoryError if windows != null && windows.reservedBytes > 0 =>
        try windows.refusedElsewhere(InputMerger.askedBytes(e))
        catch { case refusal: Throwable if refusal.getCause == null => refusal.initCause(e); throw refusal }
    }

  private def read(i: Int): Unit = {
    heads(i) = null
    val in = inputs(i)
    val time = timeColumns(i)
    while (heads(i) == null && in.hasNext) {
      val r = in.next()
      rowsRead += 1
      rowsReadOf(i) += 1
      if (time.isNull(r)) unjoinable(i, r)
      else {
        val t = times(i)(r)
        if (hasLateBound && t <= late) lateRows += 1
        else {
          val key = keyOf(i)(r)
          if (plan.hashed && key == null) {
            unjoinable(i, r)
            if (keepCountOnly(i)) heads(i) = EngineRow(i, t, null, copiers(i)(r))
          } else {
            offered(i) += 1
            heads(i) = EngineRow(i, t, key, copiers(i)(r))
          }
        }
      }
    }
  }

  def hasNext: Boolean = {
    var i = 0
    while (i < n && heads(i) == null) i += 1
    i < n
  }

  /** The row of least time, or (key, time) with key groups (ties: least input index). */
  def next(): EngineRow = {
    var best = -1
    var i = 0
    while (i < n) {
      if (heads(i) != null && (best < 0 || order.before(heads(i), heads(best)))) best = i
      i += 1
    }
    if (best < 0) throw new NoSuchElementException("all W-join inputs are exhausted")
    val r = heads(best)
    fetch(best)
    r
  }
}

object InputMerger {
  /** The merge's order of two heads of different inputs. */
  private abstract class HeadOrder { def before(a: EngineRow, b: EngineRow): Boolean }

  private object ByTime extends HeadOrder {
    def before(a: EngineRow, b: EngineRow): Boolean = a.time < b.time
  }

  private final class ByKeyThenTime(keys: java.util.Comparator[AnyRef]) extends HeadOrder {
    def before(a: EngineRow, b: EngineRow): Boolean = {
      val c = keys.compare(a.key, b.key)
      c < 0 || c == 0 && a.time < b.time
    }
  }

  private val Asked = "acquire (\\d+) bytes".r

  /** The bytes a refused Spark consumer asked for, as its error says ("Unable to acquire 65536 bytes"); 0 if it does not. */
  def askedBytes(e: SparkOutOfMemoryError): Long =
    Option(e.getMessage).flatMap(Asked.findFirstMatchIn).fold(0L)(_.group(1).toLong)
}
