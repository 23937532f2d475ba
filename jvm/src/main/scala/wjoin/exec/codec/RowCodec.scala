package wjoin.exec
package codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero
import org.apache.spark.sql.types._

import wjoin.core.{EnginePlan, JoinHow, RangeValues, RealKeys, TupleFilter}
import wjoin.plan.InstantArithmetic

/**
 * How one input's event time is read from its rows (Spark-specific; the band arithmetic is
 * [[wjoin.core.TimeBands]]). A row whose time is NULL never matches; it is tested on every
 * row, whatever the column's declared nullability (a source may declare a column non-NULL and
 * still produce NULLs; the test is one bit of an UnsafeRow, and a NULL read as a number
 * would be time 0 and join).
 *
 * @param ordinal  the time column's position in the input's rows
 * @param dataType timestamp, timestamp_ntz (microseconds) or an integral type (units)
 */
private[exec] final case class TimeColumn(ordinal: Int, dataType: DataType) {
  def isNull(row: InternalRow): Boolean = row.isNullAt(ordinal)

  /** The time reader, bound once to the column's type (for per-row loops). */
  def reader: InternalRow => Long = {
    val o = ordinal
    dataType match {
      case IntegerType => r => r.getInt(o).toLong
      case ShortType => r => r.getShort(o).toLong
      case ByteType => r => r.getByte(o).toLong
      case _ => r => r.getLong(o) // TimestampType, TimestampNTZType, LongType: microseconds or units
    }
  }
}

private[exec] object TimeColumn {
  def of(attributes: Seq[Attribute], time: Attribute): TimeColumn = {
    val ordinal = attributes.indexWhere(_.exprId == time.exprId)
    assert(ordinal >= 0, s"time column $time is not a column of its input")
    TimeColumn(ordinal, time.dataType)
  }
}

/**
 * Everything Spark-specific about the rows of one W-join, shared by the batch evaluator
 * ([[WindowJoinEvaluator]]) and the streaming one ([[StreamingWindowJoinEvaluator]]), which
 * both hold one: time and key readers, what is buffered of a row, the residual predicate
 * compiled per (origin, depth), the range attributes of indexed inputs, the output row. The
 * engine (`wjoin.core`) sees rows only as opaque objects with a time and a key.
 *
 * {{{
 *   input row ──time / key readers──> (t, key) ──storer──> buffered UnsafeRow (stored columns)
 *   engine tuple (one buffered row per input) ──tupleFilter──> residual test at (origin, depth)
 *                                             ──outputWriter─> output UnsafeRow
 * }}}
 *
 * @param inputAttributes each input's columns, in input order
 * @param timeColumns     each input's event-time column
 * @param keys            each input's hash-key expressions (empty when not hashed)
 * @param residual        conjuncts the engine must test (window bounds are not among them)
 * @param output          the node's output columns
 * @param plan            the engine plan (matrix, algorithm, probe orders, access paths)
 * @param storeAlso       columns to buffer besides those of the output and the residual
 *                        (streaming keeps time and key columns, to rebuild from the state)
 * @param rangeAttributes per input, the range attributes of the plan's range bindings
 */
final class RowCodec(
    val inputAttributes: Seq[Seq[Attribute]],
    timeColumns: Seq[Expression],
    keys: Seq[Seq[Expression]],
    residual: Seq[Expression],
    output: Seq[Attribute],
    val plan: EnginePlan,
    storeAlso: Seq[Attribute] = Nil,
    rangeAttributes: Seq[Seq[Expression]] = Nil) extends Serializable {

  val n: Int = inputAttributes.size

  /** The same codec for another plan of the same W-join (a partition's run-time access choice). */
  def withPlan(other: EnginePlan): RowCodec =
    new RowCodec(inputAttributes, timeColumns, keys, residual, output, other, storeAlso, rangeAttributes)

  /**
   * What the engine buffers of each input row: the columns of the output, of the residual
   * predicate, of the range bindings and `storeAlso`, nothing else (time and key are read
   * before). A count buffers empty rows.
   */
  val storedAttributes: Seq[Seq[Attribute]] = {
    val needed = AttributeSet(output) ++ AttributeSet(residual.flatMap(_.references)) ++ AttributeSet(storeAlso) ++
      AttributeSet(rangeAttributes.flatten.flatMap(_.references))
    inputAttributes.map(_.filter(needed.contains))
  }

  /** Each input's time column in its rows. */
  val time: IndexedSeq[TimeColumn] =
    timeColumns.indices.map(i => TimeColumn.of(inputAttributes(i), timeColumns(i).asInstanceOf[Attribute]))

  /**
   * Key of a row of `attributes` (default: input i's columns) as a hashable object, or null
   * when any key column is NULL or the plan is not hashed.
   */
  def keyReader(i: Int, attributes: Seq[Attribute] = Nil): InternalRow => AnyRef = {
    if (!plan.hashed) return _ => null
    val bound = keys(i).map(BindReferences.bindReference(_, if (attributes.isEmpty) inputAttributes(i) else attributes))
    bound match {
      case Seq(column: BoundReference) if integralKey(column.dataType) => // read as a primitive: no boxing but the key's
        val o = column.ordinal
        column.dataType match {
          case ByteType => r => if (r.isNullAt(o)) null else java.lang.Long.valueOf(r.getByte(o).toLong)
          case ShortType => r => if (r.isNullAt(o)) null else java.lang.Long.valueOf(r.getShort(o).toLong)
          case IntegerType | DateType => r => if (r.isNullAt(o)) null else java.lang.Long.valueOf(r.getInt(o).toLong)
          case _ => r => if (r.isNullAt(o)) null else java.lang.Long.valueOf(r.getLong(o))
        }
      case Seq(real: NormalizeNaNAndZero) => // a float / double key as its bits: the Long paths
        val bits = RowCodec.realKeyValue(real)
        r => { val b = bits(r); if (b == Long.MinValue) null else java.lang.Long.valueOf(b) }
      case Seq(single) if integralKey(single.dataType) =>
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

  private def integralKey(t: DataType): Boolean = RowCodec.integralKey(t)

  /**
   * Key groups ([[KeyOrder]]): input i's key of one integral column read as a primitive (a real
   * key: its bits, as [[keyReader]] reads it), NULL as Long.MinValue ([[RowCodec.rangeKey]]; no
   * real key's bits are: -0.0 is read as 0.0), for a sort that reads it once per row and comparison.
   */
  def integralKeyValue(i: Int): InternalRow => Long = keys(i).head match {
    case real: NormalizeNaNAndZero =>
      RowCodec.realKeyValue(BindReferences.bindReference(real, inputAttributes(i)).asInstanceOf[NormalizeNaNAndZero])
    case column => RowCodec.rangeKey(column, inputAttributes(i))
  }

  /**
   * Key groups ([[KeyOrder]]) on any other key: the hashCode of input i's key as [[keyReader]]
   * projects it (the same bytes, not copied), NULL as Long.MinValue (outside a hash's range).
   */
  def keyHash(i: Int): InternalRow => Long = {
    val project = UnsafeProjection.create(keys(i).map(BindReferences.bindReference(_, inputAttributes(i))))
    r => { val k = project(r); if (k.anyNull) Long.MinValue else k.hashCode.toLong }
  }

  /** Input i's rows are stored with every column (no projection). */
  private def storesWholeRows(i: Int): Boolean = storedAttributes(i).map(_.exprId) == inputAttributes(i).map(_.exprId)

  /**
   * Whether a row of input i can join: its time is not NULL, nor (hashed plan) its key. The
   * rule of [[wjoin.exec.InputMerger]], for readers that do not merge (the broadcast plan's).
   */
  def joinable(i: Int): InternalRow => Boolean = {
    val keyOf = joinableKey(i)
    r => keyOf(r) ne RowCodec.Unjoinable
  }

  /**
   * The key of a row of input i that can join ([[joinable]]; null when the plan is not hashed),
   * or [[RowCodec.Unjoinable]]: one read of the key for both.
   */
  def joinableKey(i: Int): InternalRow => AnyRef = {
    val t = time(i)
    val keyOf = keyReader(i)
    if (plan.hashed) r => if (t.isNull(r)) RowCodec.Unjoinable else { val k = keyOf(r); if (k == null) RowCodec.Unjoinable else k }
    else r => if (t.isNull(r)) RowCodec.Unjoinable else null
  }

  /** The buffered form of an input row: an UnsafeRow copy of its stored columns. */
  def storer(i: Int): InternalRow => UnsafeRow = {
    if (storesWholeRows(i)) {
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

  /**
   * The stored form of rows that stay unchanged while the windows hold them (a broadcast's):
   * the row itself when it is an `UnsafeRow` of exactly the stored columns, else a copy.
   */
  def storedShared(i: Int): InternalRow => UnsafeRow = {
    val copy = storer(i)
    if (!storesWholeRows(i)) copy
    else (row: InternalRow) => row match {
      case u: UnsafeRow => u
      case r => copy(r)
    }
  }

  /**
   * The stored form of an input row without a copy: valid until the next call (a broadcast
   * W-join's streamed row, whose combinations are all emitted before the next row is read).
   */
  def storedView(i: Int): InternalRow => UnsafeRow = {
    if (storesWholeRows(i)) {
      val toUnsafe = UnsafeProjection.create(inputAttributes(i).map(_.dataType).toArray)
      (row: InternalRow) => row match {
        case u: UnsafeRow => u
        case r => toUnsafe(r)
      }
    } else {
      val project = UnsafeProjection.create(storedAttributes(i), inputAttributes(i))
      (row: InternalRow) => project(row)
    }
  }

  /** The depth of `origin`'s probe order at which all of a conjunct's inputs are bound. */
  private def depthOf(origin: Int, conjunct: Expression): Int = {
    val inputs = (0 until n).filter(readsInput(conjunct, _))
    (inputs.map(i => if (i == origin) 0 else plan.probeOrder(origin).indexOf(i)) :+ 0).max
  }

  private def readsInput(conjunct: Expression, i: Int): Boolean =
    conjunct.references.exists(a => inputAttributes(i).exists(_.exprId == a.exprId))

  /**
   * The range attributes of buffered rows (indexed inputs), as keys: integral, date and
   * timestamp values as they are, float, double and decimal ones as [[RealKeys]] (the reader
   * is chosen per attribute, once). A NULL reads as Long.MinValue: its band conjunct, which
   * stays in the residual, is never true, so where such a row lands in an index or which range
   * it opens only costs candidates, never results. `always`: readers of every binding's
   * attributes even when the plan indexes no input (a run-time check measures the bands).
   */
  def rangeValues(always: Boolean = false): RangeValues = {
    if (!always && !plan.indexed.exists(identity)) return RangeValues.None
    val readers: Array[Array[InternalRow => Long]] = Array.tabulate(n) { i =>
      rangeAttributes.lift(i).getOrElse(Nil).map(RowCodec.rangeKey(_, storedAttributes(i))).toArray
    }
    new RangeValues {
      def value(input: Int, attr: Int, row: AnyRef): Long = readers(input)(attr)(row.asInstanceOf[InternalRow])
    }
  }

  /** The output row of a decided anchor row (see [[AnchorWriter]]). */
  def anchorWriter(how: JoinHow): AnyRef => InternalRow = AnchorWriter(this, output, how)

  /**
   * The residual predicate, compiled per (origin, depth) where its inputs are first bound, over
   * the rows of only the inputs its conjuncts read: one stored row as it is, several through one
   * flat view ([[CombinedRow]]). Timestamp arithmetic is compiled as the addition it is
   * ([[wjoin.plan.InstantArithmetic]]).
   */
  def tupleFilter(partitionIndex: Int): TupleFilter = {
    val types = storedAttributes.map(_.map(_.dataType))
    val predicates = new Array[BasePredicate](n * n)
    val rows = new Array[CombinedRow](n * n)
    for (origin <- 0 until n; depth <- 0 until n - 1) {
      val due = residual.filter(c => depthOf(origin, c) == depth)
      if (due.nonEmpty) {
        val read = (0 until n).filter(i => due.exists(c => readsInput(c, i)))
        val p = Predicate.create(InstantArithmetic(due.reduce(And)), read.flatMap(storedAttributes))
        p.initialize(partitionIndex)
        predicates(origin * n + depth) = p
        rows(origin * n + depth) = new CombinedRow(types, read)
      }
    }
    new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = predicates(origin * n + depth) != null
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        predicates(origin * n + depth).eval(rows(origin * n + depth).of(tuple))
    }
  }

  /** The output row of a combination: its stored rows' bytes copied field by field ([[OutputRowWriter]]). */
  def outputWriter(): Array[AnyRef] => InternalRow = OutputRowWriter(output, storedAttributes).write
}

object RowCodec {
  /** [[RowCodec.joinableKey]] of a row that cannot join. */
  object Unjoinable

  /**
   * A real key ([[wjoin.plan.JoinConditionAnalysis.realKey]]) as a long, equal where SQL's `=`
   * says the values are: every NaN one NaN (`doubleToLongBits`), -0.0 as 0.0. A float's double
   * is exact, so floats keep their equality too.
   */
  def realKeyBits(d: Double): Long = if (d == 0.0) 0L else java.lang.Double.doubleToLongBits(d)

  /**
   * A bound real key's [[realKeyBits]] in a row, read as a primitive where it is a column,
   * Long.MinValue for NULL (no value's bits: -0.0 is read as 0.0).
   */
  def realKeyValue(real: NormalizeNaNAndZero): InternalRow => Long = real.child match {
    case c: BoundReference if c.dataType == DoubleType =>
      val o = c.ordinal
      r => if (r.isNullAt(o)) Long.MinValue else realKeyBits(r.getDouble(o))
    case c: BoundReference if c.dataType == FloatType =>
      val o = c.ordinal
      r => if (r.isNullAt(o)) Long.MinValue else realKeyBits(r.getFloat(o).toDouble)
    case _ => r => real.eval(r) match { // e.g. a float widened to double
      case null => Long.MinValue
      case v: java.lang.Number => realKeyBits(v.doubleValue())
      case other => throw new IllegalStateException(s"unexpected key value $other")
    }
  }

  /** Whether a single key `e` is read as a java.lang.Long: an integral column's value or a real key's bits. */
  def longKey(e: Expression): Boolean = integralKey(e.dataType) || e.isInstanceOf[NormalizeNaNAndZero]

  /** Types of a single key column read as a java.lang.Long (every integral value is one). */
  def integralKey(t: DataType): Boolean =
    Seq(ByteType, ShortType, IntegerType, LongType, DateType, TimestampType, TimestampNTZType).contains(t)

  /**
   * The range key of `e` (an attribute of a range binding) in rows of `attributes`: integral,
   * date and timestamp values as they are, float, double and decimal ones as [[RealKeys]];
   * NULL as Long.MinValue. The conversion is chosen once, by the type; a column is read as a
   * primitive (every probe of an indexed input reads one per binding).
   */
  def rangeKey(e: Expression, attributes: Seq[Attribute]): InternalRow => Long = {
    val bound = BindReferences.bindReference(e, attributes)
    bound match {
      case column: BoundReference =>
        val o = column.ordinal
        column.dataType match {
          case LongType | TimestampType | TimestampNTZType => r => if (r.isNullAt(o)) Long.MinValue else r.getLong(o)
          case IntegerType | DateType => r => if (r.isNullAt(o)) Long.MinValue else r.getInt(o).toLong
          case ShortType => r => if (r.isNullAt(o)) Long.MinValue else r.getShort(o).toLong
          case ByteType => r => if (r.isNullAt(o)) Long.MinValue else r.getByte(o).toLong
          case DoubleType => r => if (r.isNullAt(o)) Long.MinValue else RealKeys.encode(r.getDouble(o))
          case FloatType => r => if (r.isNullAt(o)) Long.MinValue else RealKeys.encode(r.getFloat(o).toDouble)
          case _ => boxedRangeKey(bound, e.dataType)
        }
      case _ => boxedRangeKey(bound, e.dataType)
    }
  }

  private def boxedRangeKey(bound: Expression, dataType: DataType): InternalRow => Long = {
    val key: Any => Long = dataType match {
      case FloatType => v => RealKeys.encode(v.asInstanceOf[java.lang.Float].doubleValue)
      case DoubleType => v => RealKeys.encode(v.asInstanceOf[java.lang.Double].doubleValue)
      case _: DecimalType => v => RealKeys.encode(v.asInstanceOf[Decimal].toDouble)
      case _ => {
        case v: java.lang.Number => v.longValue()
        case other => throw new IllegalStateException(s"unexpected range value $other")
      }
    }
    (r: InternalRow) => bound.eval(r) match {
      case null => Long.MinValue
      case v => key(v)
    }
  }
}

/**
 * The output row of a decided anchor row (a stored row of input 0) of an anchored W-join
 * ([[wjoin.core.AnchorDecisions]]): left outer pads it with NULLs for every column of the
 * other inputs (read through all-NULL placeholders, the columns bound as nullable); left semi
 * and left anti project its own columns.
 */
private[exec] object AnchorWriter {
  def apply(codec: RowCodec, output: Seq[Attribute], how: JoinHow): AnyRef => InternalRow = how match {
    case JoinHow.LeftOuter | JoinHow.LeftSemi | JoinHow.LeftAnti =>
      // The other inputs' slots stay empty: their columns are written NULL.
      val writer = OutputRowWriter(output, codec.storedAttributes)
      val tuple = new Array[AnyRef](codec.n)
      anchor => { tuple(0) = anchor; writer.write(tuple) }
    case JoinHow.Inner => throw new AssertionError("an inner W-join outputs no anchor rows alone")
  }
}
