package wjoin.exec
package batch

import org.apache.spark.{SparkEnv, TaskContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.UnsafeExternalRowSorter
import org.apache.spark.sql.types.{StructField, StructType}
import org.apache.spark.util.collection.unsafe.sort.PrefixComparators

import wjoin.core.FeedGroups
import wjoin.core.FeedGroups.InputPrefix
import wjoin.core.window.WindowMemory
import wjoin.exec.codec.{KeyOrder, RowCodec}

/**
 * A partition's run-time choice between the time order and key groups
 * ([[FeedGroups.ByKey]]), and the second sort key groups take. The inputs come sorted by time
 * (as the node requires); their first rows show how many rows the windows would hold
 * ([[FeedGroups.byKeyPays]]), and only where that pays is each input sorted again, by key
 * (in the [[KeyOrder]] of the keys' types: an integral key's value, else the key's hash).
 *
 * {{{
 *   input i (time order) ──first prefixRows rows──> prefix (copies, charged to the window memory)
 *        │                                            └─> InputPrefix: rows, time span, distinct keys
 *   byKeyPays ──no──> prefix ++ rest                          time order, as planned
 *             ──yes─> Spark's sorter (prefix ++ rest), radix on KeyOrder's value v: (v, time) order
 * }}}
 *
 * The second sort keeps time order within a key without comparing times: the rows go in in
 * time order, Spark's in-memory radix sort is stable, and the key's value ([[KeyOrder]]) is its
 * whole 64-bit prefix. Should it spill, its sorted runs are merged by that value, then time (the
 * record ordering), so the order holds there too. Its pages are Spark's execution memory; it
 * spills as Spark's own sorts do.
 *
 * @param heldRows   rows of time-ordered windows above which key groups pay (`spark.wjoin.keyGroupRows`)
 * @param prefixRows rows of each input read to decide
 * @param horizon    per input, how long its rows stay in its window
 * @param order      the order of the keys' values, which the merge of the sorted inputs keeps
 */
final class KeyGroupSort(heldRows: Long, prefixRows: Int, horizon: Seq[Long], val order: KeyOrder) extends Serializable {

  /** `inputs` (each in time order), in (key, time) order where key groups pay. */
  def apply(inputs: Seq[Iterator[InternalRow]], codec: RowCodec, memory: WindowMemory): KeyGroupSort.Sorted = {
    // One account per input for the prefix's rows, charged as read and given back as passed on.
    val accounts = inputs.indices.map(memory.account(_))
    val prefixes = inputs.indices.map { i =>
      val account = accounts(i)
      val time = codec.time(i)
      val timeOf = time.reader
      val keyOf = codec.keyReader(i)
      val toUnsafe = KeyGroupSort.unsafe(codec, i)
      val rows = new scala.collection.mutable.ArrayBuffer[UnsafeRow](math.min(prefixRows, 1024))
      val keys = new java.util.HashSet[AnyRef]()
      var (joinable, first, last) = (0, Long.MaxValue, Long.MinValue)
      while (rows.size < prefixRows && inputs(i).hasNext) {
        val r = toUnsafe(inputs(i).next()).copy()
        account.rowIn(account.rowBytes(r))
        rows += r
        val k = keyOf(r)
        if (k != null && !time.isNull(r)) {
          val t = timeOf(r)
          joinable += 1
          first = math.min(first, t)
          last = math.max(last, t)
          keys.add(k)
        }
      }
      (rows, InputPrefix(joinable, first, last, keys.size, exhausted = !inputs(i).hasNext))
    }
    val pays = FeedGroups.byKeyPays(prefixes.map(_._2), horizon, heldRows)
    val sorted = inputs.indices.map { i =>
      val account = accounts(i)
      val prefix = prefixes(i)._1.iterator.map { r => account.rowOut(account.rowBytes(r)); r }
      if (pays) KeyGroupSort.byKey(prefix ++ inputs(i), codec, i, order) else prefix ++ inputs(i)
    }
    KeyGroupSort.Sorted(sorted, pays)
  }
}

object KeyGroupSort {
  /** Rows of each input a partition reads to decide: enough for a rate and a key count. */
  val PrefixRows = 4096

  /**
   * The inputs a partition joins.
   *
   * @param inputs  each input's rows
   * @param grouped in (key, time) order, to be joined key by key; else in time order
   */
  final case class Sorted(inputs: Seq[Iterator[InternalRow]], grouped: Boolean)

  /** Input i's rows as UnsafeRows (as Spark's sorts give them: then as they are). */
  private def unsafe(codec: RowCodec, i: Int): InternalRow => UnsafeRow = {
    lazy val project = UnsafeProjection.create(codec.inputAttributes(i).map(_.dataType).toArray)
    (r: InternalRow) => r match {
      case u: UnsafeRow => u
      case other => project(other)
    }
  }

  /** Input i's rows (in time order) sorted by their keys' values, stably: (value, time) order. */
  private def byKey(rows: Iterator[InternalRow], codec: RowCodec, i: Int, order: KeyOrder): Iterator[InternalRow] = {
    // A NULL key's value is Long.MinValue (KeyOrder); rows with a NULL key never join, so the
    // merge drops them wherever they are.
    val key = order.prefix(codec, i)
    val time = codec.time(i)
    val timeOf = time.reader
    val attributes = codec.inputAttributes(i)
    val schema = StructType(attributes.map(a => StructField(a.name, a.dataType, a.nullable, a.metadata)))
    // Spilled runs merge by the key's value, then time (NULL times first, as the time order puts them).
    val ordering = new Ordering[InternalRow] {
      def compare(a: InternalRow, b: InternalRow): Int = {
        val c = java.lang.Long.compare(key(a), key(b))
        if (c != 0) c
        else if (time.isNull(a) || time.isNull(b)) java.lang.Boolean.compare(time.isNull(b), time.isNull(a))
        else java.lang.Long.compare(timeOf(a), timeOf(b))
      }
    }
    val prefixOf = new UnsafeExternalRowSorter.PrefixComputer {
      private val prefix = new UnsafeExternalRowSorter.PrefixComputer.Prefix
      override def computePrefix(row: InternalRow): UnsafeExternalRowSorter.PrefixComputer.Prefix = {
        prefix.isNull = false
        prefix.value = key(row)
        prefix
      }
    }
    val sorter = UnsafeExternalRowSorter.create(schema, ordering, PrefixComparators.LONG, prefixOf,
      SparkEnv.get.memoryManager.pageSizeBytes, true)
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => sorter.cleanupResources()))
    val toUnsafe = unsafe(codec, i)
    rows.foreach(r => sorter.insertRow(toUnsafe(r)))
    sorter.sort()
  }
}
