package wjoin.exec

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types._

import wjoin.core.{EnginePlan, RangeValues, TimeBands, TupleFilter, WJoinEngine}

/**
 * Runs one partition of a W-join: merges the N time-sorted inputs into one arrival order,
 * feeds the [[WJoinEngine]] and turns each combination into an output row. Everything
 * Spark-specific about rows lives here (time and key extraction, the compiled predicate,
 * the output projection); the algorithms live in `wjoin.core`.
 *
 * @param inputAttributes each input's columns, in input order
 * @param timeColumns     each input's event-time column
 * @param keys            each input's hash-key expressions (empty when not hashed)
 * @param residual        conjuncts the engine must test (window bounds are not among them)
 * @param output          the node's output columns
 * @param plan            the engine plan (matrix, algorithm, probe orders)
 * @param metrics         the exec node's SQL metrics
 * @param storeAlso       columns to buffer besides those of the output and the residual
 *                        (streaming keeps time and key columns, to rebuild from the state)
 * @param bands           time bands, when partition b holds band b of every input
 *                        ([[TimeBands]]): only combinations whose earliest member is in band b
 *                        are emitted, and input rows were counted before the band shuffle
 * @param rangeAttributes per input, the range attributes of the plan's range bindings
 */
class WindowJoinEvaluator(
    inputAttributes: Seq[Seq[Attribute]],
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    plan: EnginePlan,
    metrics: Map[String, SQLMetric],
    storeAlso: Seq[Attribute] = Nil,
    bands: Option[TimeBands] = None,
    rangeAttributes: Seq[Seq[Expression]] = Nil) extends Serializable {

  protected val n = inputAttributes.size

  /**
   * What the engine buffers of each input row: the columns of the output and of the residual
   * predicate, nothing else (time and key are read before). A count buffers empty rows.
   */
  protected val storedAttributes: Seq[Seq[Attribute]] = {
    val needed = AttributeSet(output) ++ AttributeSet(residual.flatMap(_.references)) ++ AttributeSet(storeAlso) ++
      AttributeSet(rangeAttributes.flatten.flatMap(_.references))
    inputAttributes.map(_.filter(needed.contains))
  }

  /** The depth of `origin`'s probe order at which all of a conjunct's inputs are bound. */
  private def depthOf(origin: Int, conjunct: Expression): Int = {
    val inputs = (0 until n).filter(i => conjunct.references.exists(a => inputAttributes(i).exists(_.exprId == a.exprId)))
    (inputs.map(i => if (i == origin) 0 else plan.probeOrder(origin).indexOf(i)) :+ 0).max
  }

  /** Ordinal of each input's time column in its rows. */
  protected val timeOrdinals: Array[Int] = Array.tabulate(n) { i =>
    val ordinal = inputAttributes(i).indexWhere(_.exprId == timeColumns(i).asInstanceOf[Attribute].exprId)
    require(ordinal >= 0, s"time column ${timeColumns(i)} is not a column of input $i")
    ordinal
  }

  protected def timeReader(i: Int): InternalRow => Long = {
    val ordinal = timeOrdinals(i)
    timeColumns(i).dataType match {
      case IntegerType => r => r.getInt(ordinal).toLong
      case ShortType => r => r.getShort(ordinal).toLong
      case ByteType => r => r.getByte(ordinal).toLong
      case _ => r => r.getLong(ordinal) // TimestampType, TimestampNTZType, LongType: microseconds or units
    }
  }

  /** Key of a row of `attributes` as a hashable object, or null when any key column is NULL. */
  protected def keyReader(i: Int, attributes: Seq[Attribute] = Nil): InternalRow => AnyRef = {
    if (!plan.hashed) return _ => null
    val bound = keys(i).map(BindReferences.bindReference(_, if (attributes.isEmpty) inputAttributes(i) else attributes))
    bound match {
      case Seq(single) if Seq(ByteType, ShortType, IntegerType, LongType, DateType, TimestampType, TimestampNTZType)
          .contains(single.dataType) =>
        r => single.eval(r) match {
          case null => null
          case v: java.lang.Number => java.lang.Long.valueOf(v.longValue())
          case other => throw new IllegalStateException(s"unexpected key value $other")
        }
      case _ =>
        val project = UnsafeProjection.create(bound)
        r => { val k = project(r); if (k.anyNull) null else k.copy() }
    }
  }

  def eval(partitionIndex: Int, inputs: Seq[Iterator[InternalRow]]): Iterator[InternalRow] = {
    val times = Array.tabulate(n)(timeReader)
    val keyOf = Array.tabulate(n)(keyReader(_))

    val combined = new CombinedRow(storedAttributes.map(_.size))
    val engine = WJoinEngine.batch(plan, tupleFilter(partitionIndex, combined), rangeValues())
    new PartitionIterator(partitionIndex, inputs.toArray, times, keyOf, engine, outputWriter(combined))
  }

  /**
   * The range attributes of buffered rows (indexed inputs). A NULL reads as Long.MinValue:
   * its band conjunct, which stays in the residual, is never true, so where such a row lands
   * in an index or which range it opens only costs candidates, never results.
   */
  protected def rangeValues(): RangeValues = {
    if (!plan.indexed.exists(identity)) return RangeValues.None
    val bound: Array[Array[Expression]] = Array.tabulate(n) { i =>
      rangeAttributes.lift(i).getOrElse(Nil).map(BindReferences.bindReference(_, storedAttributes(i))).toArray
    }
    new RangeValues {
      def value(input: Int, attr: Int, row: AnyRef): Long = bound(input)(attr).eval(row.asInstanceOf[InternalRow]) match {
        case null => Long.MinValue
        case v: java.lang.Number => v.longValue()
        case other => throw new IllegalStateException(s"unexpected range value $other")
      }
    }
  }

  /** The residual predicate, compiled per (origin, depth) where its inputs are first bound. */
  protected def tupleFilter(partitionIndex: Int, combined: CombinedRow): TupleFilter = {
    val allAttributes = storedAttributes.flatten
    val predicates: Array[BasePredicate] = Array.tabulate(n * n) { od =>
      val (origin, depth) = (od / n, od % n)
      val due = residual.filter(c => depthOf(origin, c) == depth)
      if (depth >= n - 1 || due.isEmpty) null
      else {
        val p = Predicate.create(due.reduce(And), allAttributes)
        p.initialize(partitionIndex)
        p
      }
    }
    new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = predicates(origin * n + depth) != null
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        predicates(origin * n + depth).eval(combined.of(tuple))
    }
  }

  /**
   * The output row of a combination. When the output is exactly the buffered columns (no
   * column kept for the predicate alone) it is the buffered rows side by side, concatenated
   * by Spark's generated UnsafeRowJoiner, which copies bytes instead of going field by field;
   * otherwise a projection over the combined row.
   */
  protected def outputWriter(combined: CombinedRow): Array[AnyRef] => InternalRow = {
    if (output.map(_.exprId) != storedAttributes.flatten.map(_.exprId)) {
      val project = UnsafeProjection.create(output, storedAttributes.flatten)
      return tuple => project(combined.of(tuple))
    }
    val schemas = storedAttributes.map(DataTypeUtils.fromAttributes)
    val joiners = (1 until n).map(k =>
      GenerateUnsafeRowJoiner.create(DataTypeUtils.fromAttributes(storedAttributes.take(k).flatten), schemas(k))).toArray
    tuple => {
      var row = tuple(0).asInstanceOf[UnsafeRow]
      var k = 1
      while (k < n) { row = joiners(k - 1).join(row, tuple(k).asInstanceOf[UnsafeRow]); k += 1 }
      row
    }
  }

  /** The buffered form of an input row: an UnsafeRow copy of its stored columns. */
  protected def storer(i: Int): InternalRow => UnsafeRow = {
    if (storedAttributes(i).map(_.exprId) == inputAttributes(i).map(_.exprId)) {
      val toUnsafe = UnsafeProjection.create(inputAttributes(i).map(_.dataType).toArray)
      (row: InternalRow) => row match {
        case u: UnsafeRow => u.copy()
        case r => toUnsafe(r).copy()
      }
    } else {
      val project = UnsafeProjection.create(storedAttributes(i), inputAttributes(i))
      (row: InternalRow) => project(row).copy()
    }
  }

  private final class PartitionIterator(
      partitionIndex: Int,
      inputs: Array[Iterator[InternalRow]],
      times: Array[InternalRow => Long],
      keyOf: Array[InternalRow => AnyRef],
      engine: WJoinEngine,
      emit: Array[AnyRef] => InternalRow) extends Iterator[InternalRow] {
    private val timeColumnNullable = timeColumns.map(_.nullable).toArray
    private val copiers = Array.tabulate(n)(storer)
    private val heads = new Array[InternalRow](n)
    private val headTimes = new Array[Long](n)
    private var nullRows = 0L
    private var ready = false
    private var engineFinished = false
    private var done = false
    private var published = false
    /** Band b owns the combinations whose earliest member is before this (and >= its start). */
    private val ownedBefore = bands.fold(Long.MaxValue)(_.upperOf(partitionIndex))
    private var foreign = 0L
    private val started = System.nanoTime()
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => publish()))
    (0 until n).foreach(fetch)

    private def fetch(i: Int): Unit = {
      heads(i) = null
      val in = inputs(i)
      while (heads(i) == null && in.hasNext) {
        val r = in.next()
        if (timeColumnNullable(i) && r.isNullAt(timeOrdinals(i))) nullRows += 1
        else { heads(i) = r; headTimes(i) = times(i)(r) }
      }
    }

    override def hasNext: Boolean = {
      if (ready) return true
      while (!done) {
        if (engine.next()) {
          if (ownedBefore == Long.MaxValue || TimeBands.earliest(engine.times) < ownedBefore) { ready = true; return true }
          // Every member is a replica: a later band owns this combination. Forward evaluation
          // finds combinations in order of their earliest member, so all that follow are foreign too.
          foreign += 1
          if (plan.forward) { done = true; publish(); return false }
        } else {
          var best = -1
          var i = 0
          while (i < n) {
            if (heads(i) != null && (best < 0 || headTimes(i) < headTimes(best))) best = i
            i += 1
          }
          if (best >= 0) {
            val row = heads(best)
            val key = keyOf(best)(row)
            if (plan.hashed && key == null) {
              nullRows += 1
              if (plan.counting) engine.countOnly(best, headTimes(best)) // still one of the input's last k rows
            } else engine.offer(best, headTimes(best), key, copiers(best)(row))
            fetch(best)
          } else if (!engineFinished) {
            engine.finish()
            engineFinished = true
          } else {
            done = true
            publish()
          }
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
      val s = engine.stats
      metrics("numOutputRows") += s.results - foreign
      if (bands.isEmpty) { // banded: rows were counted once each before the band shuffle
        metrics("numInputRows") += s.rowsIn.sum + nullRows
        for (i <- 0 until n) metrics(s"numInputRows$i") += s.rowsIn(i)
      } else metrics("numForeignCombinations") += foreign
      metrics("numNullRows") += nullRows
      metrics("numEvictedRows") += s.evicted
      metrics("peakBufferedRows") += s.peakBuffered
      metrics("numComparisons") += s.comparisons
      metrics("numPredicateEvals") += s.predicateEvals
      metrics("numRefineRejections") += s.refineRejections
      metrics("numExcludedCombinations") += s.excluded
      metrics("joinTime") += System.nanoTime() - started
    }
  }
}

/**
 * The current combination as one row over all inputs' columns (nested JoinedRows), for the
 * compiled predicate. Inputs not bound yet
 * read as all-NULL rows of the right width (the predicate never looks at them).
 */
private[exec] final class CombinedRow(widths: Seq[Int]) {
  private val n = widths.size
  private val placeholders: Array[InternalRow] = widths.map(w => new GenericInternalRow(w): InternalRow).toArray
  private val joins = Array.fill(math.max(1, n - 1))(new JoinedRow)
  for (k <- 1 until n - 1) joins(k).withLeft(joins(k - 1))
  private val top: InternalRow = joins(n - 2)

  final def of(tuple: Array[AnyRef]): InternalRow = {
    joins(0).withLeft(at(tuple, 0)).withRight(at(tuple, 1))
    var k = 1
    while (k < n - 1) { joins(k).withRight(at(tuple, k + 1)); k += 1 }
    top
  }

  private def at(tuple: Array[AnyRef], i: Int): InternalRow =
    if (tuple(i) == null) placeholders(i) else tuple(i).asInstanceOf[InternalRow]
}
