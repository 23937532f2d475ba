package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.execution.streaming.state.StateStore
import org.apache.spark.sql.types._

import wjoin.core.{EnginePlan, EngineRow, MicroBatchWJoin}

/**
 * Runs one micro-batch of one partition of a streaming W-join against its state store.
 *
 * The state is a multiset of buffered input rows, stored as
 * {{{
 *   key   = (input: int, time: bigint, row: binary)   the row's UnsafeRow bytes
 *   value = (count: bigint)                            identical rows share one entry
 * }}}
 * in the default store of the operator, so it works the same on the HDFS-backed and the
 * RocksDB provider and needs no column families. Every batch rebuilds the engine from the
 * store: the rows left by earlier batches, then this batch's rows, which are added to the
 * store as they are read; every row the engine evicts is taken out of the store. The store
 * is the only state: a restarted batch reloads the version it started from and computes the
 * same output.
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
    watermark: Long)
  extends WindowJoinEvaluator(inputAttributes, timeColumns, keys, residual, output, plan, metrics,
    storeAlso = timeColumns.map(_.asInstanceOf[Attribute]) ++ keys.flatten.flatMap(_.references)) {

  /** Joins the batch's `inputs` with the state in `store`; the store is updated, not committed. */
  def evalBatch(partitionIndex: Int, inputs: Seq[Iterator[InternalRow]], store: StateStore): Iterator[InternalRow] = {
    val state = new StateRows(store)
    val combined = new CombinedRow(storedAttributes.map(_.size))
    val batch = new MicroBatchWJoin(plan, tupleFilter(partitionIndex, combined), watermark)
    batch.engine.onEvict = (i, t, row) => state.remove(i, t, row.asInstanceOf[UnsafeRow])
    val emit = outputWriter(combined)
    val arrivals = new Arrivals(inputs.toArray, state)
    val loaded = state.load()
    val results = batch.results(loaded, arrivals)
    var published = false
    new Iterator[InternalRow] {
      def hasNext: Boolean = results.hasNext || {
        if (!published) {
          published = true
          val s = batch.engine.stats
          metrics("numOutputRows") += s.results
          metrics("numInputRows") += arrivals.rowsRead
          metrics("numNullRows") += arrivals.nullRows
          metrics("numRowsDroppedByWatermark") += arrivals.lateRows
          metrics("numEvictedRows") += s.evicted
          metrics("numComparisons") += s.comparisons
          metrics("numPredicateEvals") += s.predicateEvals
          metrics("numUpdatedStateRows") += state.added
          metrics("numRemovedStateRows") += state.removed
          for (i <- 0 until n) metrics(s"numStateRows$i") += state.rowsOf(i)
        }
        false
      }
      def next(): InternalRow = emit(results.next())
    }
  }

  // Built in the task: key projections are generated code, not serializable.
  @transient private lazy val keyOfStored: Array[InternalRow => AnyRef] =
    Array.tabulate(n)(i => keyReader(i, storedAttributes(i)))

  /** The state store seen as a multiset of (input, time, stored row). */
  private final class StateRows(store: StateStore) {
    private val keyProjection = UnsafeProjection.create(Array[DataType](IntegerType, LongType, BinaryType))
    private val countProjection = UnsafeProjection.create(Array[DataType](LongType))
    private val keyFields = new GenericInternalRow(3)
    private val countField = new GenericInternalRow(1)
    private val perInput = new Array[Long](n)
    var added = 0L
    var removed = 0L

    def rowsOf(i: Int): Long = perInput(i)

    private def key(i: Int, t: Long, row: UnsafeRow): UnsafeRow = {
      keyFields.setInt(0, i)
      keyFields.setLong(1, t)
      keyFields.update(2, row.getBytes)
      keyProjection(keyFields)
    }

    private def count(c: Long): UnsafeRow = { countField.setLong(0, c); countProjection(countField) }

    /** Every buffered row, as often as it occurs. Copies: store iterators may reuse rows. */
    def load(): Seq[EngineRow] = {
      val rows = Vector.newBuilder[EngineRow]
      val it = store.iterator()
      while (it.hasNext) {
        val pair = it.next()
        val i = pair.key.getInt(0)
        val bytes = pair.key.getBinary(2)
        val row = new UnsafeRow(storedAttributes(i).size)
        row.pointTo(bytes, bytes.length)
        val r = EngineRow(i, pair.key.getLong(1), keyOfStored(i)(row), row)
        val c = pair.value.getLong(0)
        var k = 0L
        while (k < c) { rows += r; k += 1 }
        perInput(i) += c
      }
      rows.result()
    }

    def add(i: Int, t: Long, row: UnsafeRow): Unit = {
      val k = key(i, t, row)
      val old = store.get(k)
      store.put(k, count(if (old == null) 1 else old.getLong(0) + 1))
      perInput(i) += 1
      added += 1
    }

    def remove(i: Int, t: Long, row: UnsafeRow): Unit = {
      val k = key(i, t, row)
      val old = store.get(k)
      if (old == null) throw new IllegalStateException(s"W-join state lost a row of input $i at time $t")
      val c = old.getLong(0)
      if (c <= 1) store.remove(k) else store.put(k, count(c - 1))
      perInput(i) -= 1
      removed += 1
    }
  }

  /**
   * The batch's rows merged into time order across inputs. Rows with a NULL time or key never
   * match and late rows (time <= lateBound) are dropped; both are counted. Every other row is
   * added to the state as it is read.
   */
  private final class Arrivals(inputs: Array[Iterator[InternalRow]], state: StateRows) extends Iterator[EngineRow] {
    private val times = Array.tabulate(n)(timeReader)
    private val copiers = Array.tabulate(n)(storer)
    private val heads = new Array[EngineRow](n)
    var rowsRead = 0L
    var nullRows = 0L
    var lateRows = 0L
    (0 until n).foreach(fetch)

    private def fetch(i: Int): Unit = {
      heads(i) = null
      val in = inputs(i)
      while (heads(i) == null && in.hasNext) {
        val r = in.next()
        rowsRead += 1
        if (r.isNullAt(timeOrdinals(i))) nullRows += 1
        else {
          val t = times(i)(r)
          if (t <= lateBound) lateRows += 1
          else {
            val stored = copiers(i)(r)
            val key = keyOfStored(i)(stored)
            if (plan.hashed && key == null) nullRows += 1
            else heads(i) = EngineRow(i, t, key, stored)
          }
        }
      }
    }

    def hasNext: Boolean = heads.exists(_ != null)

    def next(): EngineRow = {
      var best = -1
      var i = 0
      while (i < n) {
        if (heads(i) != null && (best < 0 || heads(i).time < heads(best).time)) best = i
        i += 1
      }
      val r = heads(best)
      state.add(r.input, r.time, r.row.asInstanceOf[UnsafeRow])
      fetch(best)
      r
    }
  }
}
