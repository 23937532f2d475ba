package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types._

import wjoin.core.{EnginePlan, EngineRow, MicroBatchWJoin, StreamRows, WindowMatrix}

/**
 * Runs one micro-batch of one partition of a streaming W-join against its state store.
 *
 * The state is stored in chunks: the rows one input contributed in one micro-batch, packed
 * into one value, so a batch costs one store write per input, not one per row:
 * {{{
 *   key (input: int, chunk: bigint = batch id) -> value (maxTime: bigint, rows: binary)
 *        rows = (time: bigint, size: int, UnsafeRow bytes)*
 *   key (-1, 0) -> (frontier time, frontier input as 4 bytes)    ordered mode: the sweep's progress
 * }}}
 * in the default store of the operator, so it works the same on the HDFS-backed and the
 * RocksDB provider and needs no column families. A chunk is removed once none of its rows
 * can join again: eager mode, when maxTime + horizon(input) <= W (its rows are then out of
 * reach of every future row, so the ones already expired inside a kept chunk are harmless
 * when reloaded); ordered mode, when every row is swept. Forward evaluation sweeps in
 * (time, input) order, so the swept rows are exactly those up to the frontier, and a reload
 * skips them.
 *
 * Every batch rebuilds the engine from the store (rows point into the chunks' bytes, no
 * copy). The store is the only state: a restarted batch reloads the version it started from
 * and computes the same output and the same chunks.
 *
 * @param lateBound time (in the time column's unit) at or before which an input row is late
 * @param watermark W, this batch's eviction watermark in the same unit
 * @see [[wjoin.core.MicroBatchWJoin]] for what a batch emits and evicts
 */
final class StreamingWindowJoinEvaluator(
    inputAttributes: Seq[Seq[Attribute]],
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    plan: EnginePlan,
    metrics: Map[String, SQLMetric],
    lateBound: Long,
    watermark: Long,
    rangeAttributes: Seq[Seq[Expression]] = Nil)
  extends WindowJoinEvaluator(inputAttributes, timeColumns, keys, residual, output, plan, metrics,
    storeAlso = timeColumns.map(_.asInstanceOf[Attribute]) ++ keys.flatten.flatMap(_.references),
    rangeAttributes = rangeAttributes) {

  /**
   * Joins the batch's `inputs` with the state in `store`; the store is updated (not committed)
   * once the returned rows are consumed. `batchId` names this batch's chunks. Also returns the
   * number of rows the state holds after the batch (valid once the rows are consumed).
   */
  def evalBatch(partitionIndex: Int, batchId: Long, inputs: Seq[Iterator[InternalRow]],
      store: StateStore): (Iterator[InternalRow], () => Long) = {
    val state = new ChunkedState(store, batchId)
    val combined = new CombinedRow(storedAttributes.map(_.size))
    val batch = new MicroBatchWJoin(plan, tupleFilter(partitionIndex, combined), watermark, rangeValues())
    batch.engine.onEvict = (i, t, _) => state.evicted(i, t)
    val emit = outputWriter(combined)
    val arrivals = new Arrivals(inputs.toArray, state)
    val results = batch.results(state.load(), arrivals)
    var published = false
    val rows = new Iterator[InternalRow] {
      def hasNext: Boolean = results.hasNext || {
        if (!published) {
          published = true
          state.save()
          val s = batch.engine.stats
          metrics("numOutputRows") += s.results
          metrics("numInputRows") += arrivals.rowsRead
          metrics("numNullRows") += arrivals.nullRows
          metrics("numRowsDroppedByWatermark") += arrivals.lateRows
          metrics("numEvictedRows") += s.evicted
          metrics("numComparisons") += s.comparisons
          metrics("numPredicateEvals") += s.predicateEvals
          metrics("numRefineRejections") += s.refineRejections
          metrics("numUpdatedStateRows") += state.added
          metrics("numRemovedStateRows") += state.removed
          for (i <- 0 until n) {
            metrics(s"numStateRows$i") += state.live(i)
            metrics(StreamingStatistics.inputRowsMetric(i)) += arrivals.rowsReadOf(i)
            if (plan.hashed) metrics(StreamingStatistics.stateKeysMetric(i)) += state.keysSeen(i).size
          }
        }
        false
      }
      def next(): InternalRow = emit(results.next())
    }
    (rows, () => state.live.sum)
  }

  // Built in the task: key projections are generated code, not serializable.
  @transient private lazy val keyOfStored: Array[InternalRow => AnyRef] =
    Array.tabulate(n)(i => keyReader(i, storedAttributes(i)))

  /** The state store seen as chunks of buffered rows (see the class comment). */
  private final class ChunkedState(store: StateStore, batchId: Long) {
    private val keyProjection = UnsafeProjection.create(Array[DataType](IntegerType, LongType))
    private val valueProjection = UnsafeProjection.create(Array[DataType](LongType, BinaryType))
    private val keyFields = new GenericInternalRow(2)
    private val frontierKey = key(-1, 0L).copy()
    /** Per chunk still stored: (input, chunk id, max time, rows). */
    private val chunks = scala.collection.mutable.ArrayBuffer.empty[(Int, Long, Long, Long)]
    private val packers = Array.fill(n)(new java.io.ByteArrayOutputStream(4096))
    private val packed = packers.map(new java.io.DataOutputStream(_))
    private val newMax = Array.fill(n)(Long.MinValue)
    private val newRows = new Array[Long](n)
    private val copyBuffer = new Array[Byte](4096)
    /** Ordered mode: the last swept (time, input); rows up to it are gone. */
    private var frontierTime = Long.MinValue
    private var frontierInput = Int.MaxValue
    val live = new Array[Long](n)
    /**
     * Hashed plans: per input, the distinct keys among the rows this batch held (loaded and
     * arrived), for the next batch's planning ([[StreamingStatistics]]).
     */
    val keysSeen: Array[scala.collection.mutable.HashSet[AnyRef]] =
      Array.fill(n)(scala.collection.mutable.HashSet.empty[AnyRef])
    var added = 0L
    var removed = 0L

    private def key(i: Int, chunk: Long): UnsafeRow = {
      keyFields.setInt(0, i)
      keyFields.setLong(1, chunk)
      keyProjection(keyFields)
    }

    private def swept(t: Long, i: Int): Boolean =
      frontierTime != Long.MinValue && (t < frontierTime || (t == frontierTime && i <= frontierInput))

    /** The rows of every stored chunk, minus (ordered mode) those already swept. */
    def load(): Seq[EngineRow] = {
      val found = scala.collection.mutable.ArrayBuffer.empty[(Int, Long, Array[Byte], Long)]
      val it = store.iterator()
      while (it.hasNext) {
        val pair = it.next()
        if (pair.key.getInt(0) < 0) {
          frontierTime = pair.value.getLong(0)
          frontierInput = java.nio.ByteBuffer.wrap(pair.value.getBinary(1)).getInt()
        } else found += ((pair.key.getInt(0), pair.key.getLong(1), pair.value.getBinary(1), pair.value.getLong(0)))
      }
      val rows = Vector.newBuilder[EngineRow]
      for ((i, chunk, bytes, maxTime) <- found) {
        val in = java.nio.ByteBuffer.wrap(bytes)
        val width = storedAttributes(i).size
        var count = 0L
        while (in.hasRemaining) {
          val t = in.getLong()
          val size = in.getInt()
          if (!(plan.forward && swept(t, i))) {
            val row = new UnsafeRow(width)
            row.pointTo(bytes, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + in.position(), size)
            val key = keyOfStored(i)(row)
            rows += EngineRow(i, t, key, row)
            if (plan.hashed && key != null) keysSeen(i) += key
            live(i) += 1
          }
          in.position(in.position() + size)
          count += 1
        }
        chunks += ((i, chunk, maxTime, count))
      }
      rows.result()
    }

    /** A new row of input i: packed into this batch's chunk of i. */
    def add(i: Int, t: Long, row: UnsafeRow, key: AnyRef): Unit = {
      if (plan.hashed && key != null) keysSeen(i) += key
      val out = packed(i)
      out.writeLong(t)
      out.writeInt(row.getSizeInBytes)
      row.writeToStream(out, copyBuffer)
      if (t > newMax(i)) newMax(i) = t
      newRows(i) += 1
      live(i) += 1
      added += 1
    }

    /** The engine dropped a row (eager: out of reach; ordered: swept). */
    def evicted(i: Int, t: Long): Unit = {
      live(i) -= 1
      if (plan.forward && (frontierTime == Long.MinValue || t > frontierTime ||
          (t == frontierTime && i > frontierInput))) {
        frontierTime = t
        frontierInput = i
      }
    }

    private def done(i: Int, maxTime: Long): Boolean =
      if (plan.forward) swept(maxTime, i)
      else WindowMatrix.add(maxTime, plan.horizon(i)) <= watermark

    /** Writes this batch's chunks, drops the chunks no row of which can join again. */
    def save(): Unit = {
      for (i <- 0 until n if newRows(i) > 0) {
        packed(i).flush()
        val value = valueProjection(new GenericInternalRow(Array[Any](newMax(i), packers(i).toByteArray)))
        if (done(i, newMax(i))) removed += newRows(i)
        else { store.put(key(i, batchId), value); chunks += ((i, batchId, newMax(i), newRows(i))) }
      }
      for ((i, chunk, maxTime, count) <- chunks if chunk != batchId && done(i, maxTime)) {
        store.remove(key(i, chunk))
        removed += count
      }
      if (plan.forward && frontierTime != Long.MinValue)
        store.put(frontierKey, valueProjection(new GenericInternalRow(
          Array[Any](frontierTime, java.nio.ByteBuffer.allocate(4).putInt(frontierInput).array()))))
    }
  }

  /**
   * The batch's rows merged into time order across inputs. Rows with a NULL time or key never
   * match and late rows (time <= lateBound) are dropped; both are counted. Every other row is
   * added to the state as it is read.
   */
  private final class Arrivals(inputs: Array[Iterator[InternalRow]], state: ChunkedState) extends Iterator[EngineRow] {
    private val times = Array.tabulate(n)(timeReader)
    private val copiers = Array.tabulate(n)(storer)
    private val heads = new Array[EngineRow](n)
    var rowsRead = 0L
    /** Per input, the rows read (late and NULL ones included). */
    val rowsReadOf = new Array[Long](n)
    var nullRows = 0L
    var lateRows = 0L
    (0 until n).foreach(fetch)

    private def fetch(i: Int): Unit = {
      heads(i) = null
      val in = inputs(i)
      while (heads(i) == null && in.hasNext) {
        val r = in.next()
        rowsRead += 1
        rowsReadOf(i) += 1
        if (r.isNullAt(timeOrdinals(i))) nullRows += 1
        else {
          val t = times(i)(r)
          if (t <= lateBound) lateRows += 1
          else {
            val stored = copiers(i)(r)
            val key = keyOfStored(i)(stored)
            if (plan.hashed && key == null) {
              nullRows += 1
              // It never matches, but takes its place in a ROWS window: kept for counting.
              if (plan.rowLimit(i) != StreamRows.NoLimit) heads(i) = EngineRow(i, t, null, stored)
            } else heads(i) = EngineRow(i, t, key, stored)
          }
        }
      }
    }

    def hasNext: Boolean = {
      var i = 0
      while (i < n && heads(i) == null) i += 1
      i < n
    }

    def next(): EngineRow = {
      var best = -1
      var i = 0
      while (i < n) {
        if (heads(i) != null && (best < 0 || heads(i).time < heads(best).time)) best = i
        i += 1
      }
      val r = heads(best)
      state.add(r.input, r.time, r.row.asInstanceOf[UnsafeRow], r.key)
      fetch(best)
      r
    }
  }
}
