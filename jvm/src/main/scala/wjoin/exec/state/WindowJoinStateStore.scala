package wjoin.exec.state

import scala.collection.mutable

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types.StructType
import org.apache.spark.unsafe.Platform

import wjoin.core.{EngineRow, SaturatingTime}
import wjoin.exec.codec.RowCodec

/**
 * The state of one partition of a streaming W-join in Spark's state store, kept apart from
 * the operator as Spark keeps `SymmetricHashJoinStateManager` apart from
 * `StreamingSymmetricHashJoinExec`. Rows are stored in chunks: the rows one input contributed
 * in one micro-batch, packed into one value, so a batch costs one store write per input, not
 * one per row. The records, in state format version 1 ([[StateRecordKind]] has the
 * encodings, [[StateRecordCodec]] writes and reads them, [[StateFormat]] versions them):
 * {{{
 *   RowChunk       (input i, batch id) -> (maxTime, rows of i)    rows = (time, size, UnsafeRow bytes)*
 *   SweepFrontier  (-1, 0)             -> (time, input)           ordered mode: the sweep's progress
 *   DecidedUpTo    (-1, 1)             -> (W, -)                  eager mode: the last batch's W
 *   AnchorMatches  (-2, batch id)      -> (0, bits)               anchored: matched rows of a chunk of input 0
 *   ShedBudgets    (-3, 0)             -> (0, rates and counts)   under resource limits
 * }}}
 * in the default store of the operator, so it works the same on the HDFS-backed and the
 * RocksDB provider and needs no column families. A chunk is removed once none of its rows
 * can join again: eager mode (backward evaluation, Hammad et al. Sec. 3), when
 * maxTime + horizon(input) <= W (inclusive: its rows are then out of reach of every future
 * row, which has time > W); the rows of a kept chunk that already left the windows are those
 * with ts + horizon(input) <= the last batch's W (DecidedUpTo), and a reload skips them, so
 * they are neither joined nor evicted (and counted) twice. Ordered mode (forward evaluation,
 * MW-join): when every row is swept. Forward evaluation sweeps in (time, input) order, so the
 * swept rows are exactly those up to the frontier, and a reload skips them.
 *
 * Anchored W-joins (left, left_semi, left_anti; [[wjoin.core.AnchorDecisions]]) keep two more
 * facts, so a restart neither reports a matched anchor as unmatched nor emits an anchor twice:
 * which rows of the first input's chunks took part in a combination (a bit per row, by its
 * place in its chunk, written for the chunks whose bits changed), and, in eager mode, the W up
 * to which anchors are decided: a row of input 0 with ts + horizon(0) <= that W was decided
 * (evicted) by an earlier batch and is not loaded again (ordered mode: the frontier says it).
 *
 * The store is the durable truth; this object is its index, kept in executor memory with the
 * engine across micro-batches ([[wjoin.exec.streaming.StreamingEngineCache]]): which chunks exist
 * ([[ChunkInfo]]) and until when they are needed, the sweep frontier, the anchors' bits. Each
 * batch ([[begin]]) writes only its changes: its new chunks, the chunks that expired, the bits
 * that changed. A new query run, a restart, a moved task or a version mismatch starts from a
 * fresh object that reads every chunk back ([[load]]: rows point into the chunks' bytes, no
 * copy), so a restarted batch reloads the version it started from and computes the same output
 * and the same chunks.
 *
 * Under resource limits (`wjoin.core.shedding`) the state holds only the rows the windows
 * keep: a row the engine sheds right after it was added is taken back ([[retract]]), and the
 * budgets' rates and probe counts are saved with the rows ([[budgets]]), so a rebuilt engine
 * sheds as the kept one would. (A chunk stays until its newest row expires, so the store may
 * also hold that chunk's expired rows, as without limits; the windows and `live` never exceed
 * the budget.)
 *
 * @param codec     the stored form of each input's rows (and their keys)
 * @param anchored  the W-join decides anchor rows (left, left_semi, left_anti)
 * @param budgets   under limits: the shedding budgets to save with the rows (asked at each save);
 *                  None: no limits
 */
final class WindowJoinStateStore(codec: RowCodec, anchored: Boolean = false,
    budgets: Option[() => Array[Byte]] = None) {
  private val n = codec.n
  private val plan = codec.plan
  private val keyOfStored: Array[InternalRow => AnyRef] =
    Array.tabulate(n)(i => codec.keyReader(i, codec.storedAttributes(i)))
  private val records = new StateRecordCodec
  private val frontierKey = records.singleKey(StateRecordKind.SweepFrontier).copy()
  private val decidedKey = records.singleKey(StateRecordKind.DecidedUpTo).copy()
  private val budgetsKey = records.singleKey(StateRecordKind.ShedBudgets).copy()
  /** The chunks the store holds. */
  private var chunks = Vector.empty[ChunkInfo]
  private val packers = Array.fill(n)(new WindowJoinStateStore.ChunkBytes)
  private val packed = packers.map(new java.io.DataOutputStream(_))
  private val newMax = Array.fill(n)(Long.MinValue)
  private val newRows = new Array[Long](n)
  private val copyBuffer = new Array[Byte](4096)
  /** Ordered mode: the last swept (time, input); rows up to it are gone. */
  // A flag, not a sentinel time: a row at Long.MinValue may be the frontier.
  private var hasFrontier = false
  private var frontierTime = Long.MinValue
  private var frontierInput = Int.MaxValue
  /** Per input, the rows the state holds now. */
  val live = new Array[Long](n)
  /**
   * Eager mode: the W of the last batch saved. Rows of input i with ts + horizon(i) <= it left
   * the windows in that batch or before (anchored: input 0's were decided then), so a reload
   * skips them: they can join no future row, and were counted as evicted once already.
   */
  private var evictedUpTo = Long.MinValue
  /** Whether the store holds that W (DecidedUpTo). */
  private var decidedStored = false
  /** Anchored: per chunk of input 0, its matched rows; the chunks whose bits changed. */
  private val matchedBits = mutable.HashMap.empty[Long, java.util.BitSet]
  private val changedBits = mutable.HashSet.empty[Long]
  /** Anchored: each anchor row in the state (by identity) -> (chunk, place in the chunk). */
  private val placeOf = new java.util.IdentityHashMap[AnyRef, (Long, Int)]()
  /** Anchored: the loaded anchor rows matched in earlier batches (filled by [[load]]). */
  val restoredMatched: mutable.ArrayBuffer[AnyRef] = mutable.ArrayBuffer.empty
  /** Per input, the last row added, and the chunk's size and max time before it (for [[retract]]). */
  private val lastRow = new Array[AnyRef](n)
  private val sizeBefore = new Array[Int](n)
  private val maxBefore = new Array[Long](n)
  /** Under limits: the budgets [[load]] found (null when none were saved). */
  var restoredBudgets: Array[Byte] = _

  // The micro-batch being run (set by begin).
  private var store: StateStore = _
  private var batchId = -1L
  private var watermark = Long.MinValue
  /** Rows written by this batch. */
  var added = 0L
  /** Rows dropped by this batch (whole chunks, or new rows already out of reach). */
  var removed = 0L
  /** Rows read back from the store by this batch ([[load]]; 0 when the engine was kept). */
  var restored = 0L

  /** Starts micro-batch `batchId` on `store` (updated, not committed, by [[save]]) with eviction watermark W. */
  def begin(store: StateStore, batchId: Long, watermark: Long): Unit = {
    this.store = store
    this.batchId = batchId
    this.watermark = watermark
    added = 0; removed = 0; restored = 0
    java.util.Arrays.fill(newMax, Long.MinValue)
    java.util.Arrays.fill(newRows, 0L)
    packers.foreach(_.reset())
    java.util.Arrays.fill(lastRow, null)
    changedBits.clear()
    restoredMatched.clear()
  }

  /** Rows the state holds now, all inputs. */
  def liveRows: Long = live.sum

  private def evictedEarlier(t: Long, i: Int): Boolean =
    !plan.forward && SaturatingTime.reached(t, plan.horizon(i), evictedUpTo)

  private def swept(t: Long, i: Int): Boolean =
    hasFrontier && (t < frontierTime || (t == frontierTime && i <= frontierInput))

  /** The rows of every stored chunk, minus (ordered mode) those already swept: once, on a fresh object. */
  def load(): Seq[EngineRow] = {
    assert(chunks.isEmpty && live.sum == 0, "the state is loaded once, into a fresh index")
    val found = mutable.ArrayBuffer.empty[StateRecord.Chunk]
    val it = store.iterator()
    while (it.hasNext) {
      val pair = it.next()
      records.decode(pair.key, pair.value) match {
        case c: StateRecord.Chunk => found += c
        case StateRecord.Frontier(time, input) => hasFrontier = true; frontierTime = time; frontierInput = input
        case StateRecord.Decided(w) => evictedUpTo = w; decidedStored = true
        case StateRecord.Matches(chunk, bits) => matchedBits(chunk) = bits
        case StateRecord.Budgets(bytes) => restoredBudgets = bytes
      }
    }
    val rows = Vector.newBuilder[EngineRow]
    for (StateRecord.Chunk(i, chunk, maxTime, bytes) <- found) {
      val in = java.nio.ByteBuffer.wrap(bytes)
      val width = codec.storedAttributes(i).size
      var count = 0L
      val anchors = anchored && i == 0
      val bits = if (anchors) matchedBits.get(chunk).orNull else null
      while (in.hasRemaining) {
        val t = in.getLong()
        val size = in.getInt()
        if (!(plan.forward && swept(t, i)) && !evictedEarlier(t, i)) {
          val row = new UnsafeRow(width)
          row.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET + in.position(), size)
          val key = keyOfStored(i)(row)
          rows += EngineRow(i, t, key, row)
          if (anchors) {
            placeOf.put(row, (chunk, count.toInt))
            if (bits != null && bits.get(count.toInt)) restoredMatched += row
          }
          live(i) += 1
          restored += 1
        }
        in.position(in.position() + size)
        count += 1
      }
      chunks :+= ChunkInfo(i, chunk, maxTime, count)
    }
    rows.result()
  }

  /** A new row of input i: packed into this batch's chunk of i. */
  def add(i: Int, t: Long, row: UnsafeRow, key: AnyRef): Unit = {
    if (anchored && i == 0) placeOf.put(row, (batchId, newRows(0).toInt))
    lastRow(i) = row
    sizeBefore(i) = packers(i).size
    maxBefore(i) = newMax(i)
    val out = packed(i)
    out.writeLong(t)
    out.writeInt(row.getSizeInBytes)
    row.writeToStream(out, copyBuffer)
    if (t > newMax(i)) newMax(i) = t
    newRows(i) += 1
    live(i) += 1
    added += 1
  }

  /**
   * Under limits: the engine did not keep `row`, the last row [[add]]ed of input i (it sheds a
   * row as it is offered, right after the add), so the state does not keep it either.
   */
  def retract(i: Int, row: AnyRef): Unit = {
    assert(lastRow(i) eq row, s"only the last row added of input $i can be taken back")
    assert(!(anchored && i == 0), "anchor rows are never shed")
    lastRow(i) = null
    packers(i).truncate(sizeBefore(i))
    newMax(i) = maxBefore(i)
    newRows(i) -= 1
    live(i) -= 1
    added -= 1
  }

  /** Anchored: the anchor row `row` (loaded or added by this batch) took part in its first combination. */
  def matched(row: AnyRef): Unit = {
    val (chunk, place) = placeOf.get(row)
    matchedBits.getOrElseUpdate(chunk, new java.util.BitSet()).set(place)
    changedBits += chunk
  }

  /** The engine dropped `row` of input i at t (eager: out of reach; ordered: swept). */
  def evicted(i: Int, t: Long, row: AnyRef): Unit = {
    live(i) -= 1
    if (anchored && i == 0) placeOf.remove(row)
    if (plan.forward && (!hasFrontier || t > frontierTime || (t == frontierTime && i > frontierInput))) {
      hasFrontier = true
      frontierTime = t
      frontierInput = i
    }
  }

  private def done(i: Int, maxTime: Long): Boolean =
    if (plan.forward) swept(maxTime, i)
    else SaturatingTime.reached(maxTime, plan.horizon(i), watermark)

  /** Writes this batch's chunks, drops the chunks no row of which can join again. */
  def save(): Unit = {
    val (gone, kept) = chunks.partition(c => done(c.input, c.maxTime))
    for (ChunkInfo(i, chunk, _, count) <- gone) {
      store.remove(records.chunkKey(i, chunk))
      removed += count
      if (anchored && i == 0 && matchedBits.remove(chunk).isDefined) {
        store.remove(records.matchesKey(chunk))
        changedBits -= chunk
      }
    }
    chunks = kept
    for (i <- 0 until n if newRows(i) > 0) {
      packed(i).flush()
      val value = records.chunkValue(newMax(i), packers(i).toByteArray)
      if (done(i, newMax(i))) { removed += newRows(i); if (anchored && i == 0) matchedBits.remove(batchId) }
      else { store.put(records.chunkKey(i, batchId), value); chunks :+= ChunkInfo(i, batchId, newMax(i), newRows(i)) }
    }
    if (anchored) {
      val keptAnchors = chunks.collect { case ChunkInfo(0, chunk, _, _) => chunk }.toSet
      for (chunk <- changedBits if keptAnchors(chunk))
        store.put(records.matchesKey(chunk).copy(), records.matchesValue(matchedBits(chunk)))
    }
    // Needed while a chunk is kept (only its rows are reloaded); an empty state holds no record.
    if (!plan.forward && watermark != Long.MinValue && chunks.nonEmpty) {
      store.put(decidedKey, records.decidedValue(watermark))
      decidedStored = true
    } else if (decidedStored && chunks.isEmpty) {
      store.remove(decidedKey)
      decidedStored = false
    }
    budgets.foreach(saved => store.put(budgetsKey, records.budgetsValue(saved())))
    if (plan.forward && hasFrontier)
      store.put(frontierKey, records.frontierValue(frontierTime, frontierInput))
  }

  /** The chunks the store holds after the last [[load]] or [[save]] (in no particular order). */
  def storedChunks: Seq[ChunkInfo] = chunks
}

object WindowJoinStateStore {
  /** A chunk being packed: bytes that can be cut back to an earlier size. */
  private final class ChunkBytes extends java.io.ByteArrayOutputStream(4096) {
    def truncate(size: Int): Unit = { assert(size <= count, "a chunk is only cut back"); count = size }
  }

  /** Key schema of the store: (input, chunk) ([[StateFormat.keySchema]]). */
  val keySchema: StructType = StateFormat.keySchema
  /** Value schema of the store: (max time of the chunk, packed rows) ([[StateFormat.valueSchema]]). */
  val valueSchema: StructType = StateFormat.valueSchema
}
