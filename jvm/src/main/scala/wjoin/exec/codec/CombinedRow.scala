package wjoin.exec
package codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.catalyst.util.{ArrayData, MapData}
import org.apache.spark.sql.types.{DataType, Decimal}
import org.apache.spark.unsafe.types.{CalendarInterval, UTF8String}

/**
 * The current combination as one row over the columns of some inputs (all of them by default):
 * one input's stored row as it is; several through one flat view ([[TupleRow]]), no copy.
 *
 * {{{
 *   tuple  = [ rowA, rowB, rowC ]            the engine's combination, one stored row per input
 *   of(tuple) over inputs (A, C):  field f  = tuple(input(f)).get(ordinal(f))
 *            fields 0 .. |A|-1 are A's, |A| .. |A|+|C|-1 are C's
 * }}}
 *
 * Inputs not bound yet read as NULL (the residual predicate never looks at them; a left outer
 * anchor's padding does).
 *
 * @param types  per input, the types of its stored columns
 * @param inputs the inputs whose columns the row has, in input order
 */
private[exec] final class CombinedRow(types: Seq[Seq[DataType]], inputs: Seq[Int]) {
  def this(types: Seq[Seq[DataType]]) = this(types, types.indices)

  private val single = if (inputs.size == 1) inputs.head else -1
  private val view = new TupleRow(
    inputs.flatMap(i => Seq.fill(types(i).size)(i)).toArray,
    inputs.flatMap(i => types(i).indices).toArray,
    inputs.flatMap(types).toArray)

  final def of(tuple: Array[AnyRef]): InternalRow =
    if (single >= 0) {
      val row = tuple(single)
      if (row == null) view.of(tuple) else row.asInstanceOf[InternalRow]
    } else view.of(tuple)
}

/**
 * A read-only row whose field f is field `ordinal(f)` of the tuple's row `input(f)`: what Spark's
 * generated residual predicates read a combination through. Each read is two array lookups,
 * where a chain of JoinedRows costs a virtual call and a field count per level. (Output rows
 * are not written through it: [[OutputRowWriter]] copies the stored rows' bytes.)
 *
 * It extends GenericInternalRow so that getters a Spark version adds (`getVariant` since 4.0)
 * are inherited: they read through [[genericGet]], which knows each field's type.
 *
 * @param input   per field, the input (the tuple's slot) holding it
 * @param ordinal per field, its position in that input's stored row
 * @param types   per field, its type
 */
private[exec] final class TupleRow(input: Array[Int], ordinal: Array[Int], types: Array[DataType])
  extends GenericInternalRow(Array.emptyObjectArray.asInstanceOf[Array[Any]]) {

  private var tuple: Array[AnyRef] = _

  def of(t: Array[AnyRef]): TupleRow = { tuple = t; this }

  @inline private def row(f: Int): InternalRow = tuple(input(f)).asInstanceOf[InternalRow]

  override def numFields: Int = input.length
  override def isNullAt(f: Int): Boolean = { val r = row(f); (r eq null) || r.isNullAt(ordinal(f)) }
  override def getBoolean(f: Int): Boolean = row(f).getBoolean(ordinal(f))
  override def getByte(f: Int): Byte = row(f).getByte(ordinal(f))
  override def getShort(f: Int): Short = row(f).getShort(ordinal(f))
  override def getInt(f: Int): Int = row(f).getInt(ordinal(f))
  override def getLong(f: Int): Long = row(f).getLong(ordinal(f))
  override def getFloat(f: Int): Float = row(f).getFloat(ordinal(f))
  override def getDouble(f: Int): Double = row(f).getDouble(ordinal(f))
  override def getDecimal(f: Int, precision: Int, scale: Int): Decimal = row(f).getDecimal(ordinal(f), precision, scale)
  override def getUTF8String(f: Int): UTF8String = row(f).getUTF8String(ordinal(f))
  override def getBinary(f: Int): Array[Byte] = row(f).getBinary(ordinal(f))
  override def getInterval(f: Int): CalendarInterval = row(f).getInterval(ordinal(f))
  override def getStruct(f: Int, numFields: Int): InternalRow = row(f).getStruct(ordinal(f), numFields)
  override def getArray(f: Int): ArrayData = row(f).getArray(ordinal(f))
  override def getMap(f: Int): MapData = row(f).getMap(ordinal(f))
  override def get(f: Int, dataType: DataType): AnyRef = if (isNullAt(f)) null else row(f).get(ordinal(f), dataType)
  override protected def genericGet(f: Int): Any = get(f, types(f))
  override def toSeq(fieldTypes: Seq[DataType]): Seq[Any] = Seq.tabulate(numFields)(genericGet)
  override def toString: String = Seq.tabulate(numFields)(genericGet).mkString("[", ",", "]")
  override def copy(): GenericInternalRow =
    new GenericInternalRow(Array.tabulate[Any](numFields)(f => InternalRow.copyValue(genericGet(f))))
  override def setNullAt(i: Int): Unit = throw new UnsupportedOperationException("a combination's row is read-only")
  override def update(i: Int, value: Any): Unit = throw new UnsupportedOperationException("a combination's row is read-only")
}
