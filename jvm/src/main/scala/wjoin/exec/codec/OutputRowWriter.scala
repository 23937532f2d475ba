package wjoin.exec
package codec

import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeRow}
import org.apache.spark.sql.types.{CalendarIntervalType, DataType, DecimalType, UserDefinedType}
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.bitset.BitSetMethods

/**
 * The output row of a combination, written straight from its stored rows' bytes: each output
 * field is copied from the UnsafeRow of the input that holds it, in any order and any subset
 * of the stored columns, with no per-field virtual call and no intermediate row.
 *
 * {{{
 *   stored rows   A: [nulls | a0 a1 a2 | var A]   B: [nulls | b0 b1 | var B]
 *   output        [nulls | a1 b0 a0 b1 ... | var] field f = word ordinal(f) of row input(f):
 *                   fixed-width  the 8-byte word as it is (an int keeps its zeroed upper half)
 *                   var-length   its bytes appended at the cursor, 8-byte aligned, padding
 *                                zeroed, the word re-pointed: (cursor << 32) | size
 *                   NULL         the null bit set, the word 0 (a NULL input slot: all its fields)
 * }}}
 *
 * This is the layout Spark's UnsafeRowWriter writes (nested structs, arrays and maps are
 * self-relative bytes, copied as they are; a decimal of more than 18 digits and an interval
 * keep their 16 reserved bytes, NULL or not, zeroed when NULL), so the row equals, byte for
 * byte, what `UnsafeProjection` writes from the same values (Spark leaves a NULL interval's
 * 16 bytes as its buffer had them). Like Spark's projections, the row and its buffer are reused
 * for the next combination; a consumer that keeps a row copies it.
 *
 * @param input   per output field, the input (the tuple's slot) whose stored row holds it
 * @param ordinal per output field, its position in that input's stored row
 * @param kind    per output field, how its value is stored: [[OutputRowWriter.Fixed]] (the
 *                word), [[OutputRowWriter.Variable]] (bytes the word points to) or
 *                [[OutputRowWriter.Decimal16]], [[OutputRowWriter.Interval16]] (a decimal of more
 *                than 18 digits, a calendar interval: 16 bytes, always; a NULL one's size is 0
 *                and 16, as Spark writes them)
 * @param widths  per input, the number of fields of its stored rows (for their null bits' width)
 */
private[exec] final class OutputRowWriter(input: Array[Int], ordinal: Array[Int], kind: Array[Byte],
    widths: Array[Int]) {
  import OutputRowWriter._

  private val numFields = input.length
  private val bitSetBytes = UnsafeRow.calculateBitSetWidthInBytes(numFields)
  private val fixedBytes = bitSetBytes + 8 * numFields
  private val sourceWords = widths.map(UnsafeRow.calculateBitSetWidthInBytes)
  private val varFields = kind.indices.filter(kind(_) != Fixed).toArray
  // Runs: fixed-width output fields that are consecutive fields of one input are copied as one
  // block of words; every other field is a run of its own.
  private val runStarts = (0 until numFields).filter(f => f == 0 || kind(f) != Fixed || kind(f - 1) != Fixed ||
    input(f) != input(f - 1) || ordinal(f) != ordinal(f - 1) + 1).toArray
  private val runLengths = runStarts.indices.map(r => runStarts.lift(r + 1).getOrElse(numFields) - runStarts(r)).toArray
  private var buffer = new Array[Byte](math.max(64, fixedBytes))
  private val out = new UnsafeRow(numFields)

  def write(tuple: Array[AnyRef]): UnsafeRow = {
    val size = if (varFields.isEmpty) fixedBytes else fixedBytes + variableBytes(tuple)
    if (size > buffer.length) buffer = new Array[Byte](math.max(size, buffer.length * 2))
    val buf = buffer
    val base = Platform.BYTE_ARRAY_OFFSET.toLong
    var w = 0
    while (w < bitSetBytes) { Platform.putLong(buf, base + w, 0L); w += 8 }
    var cursor = fixedBytes
    var r = 0
    while (r < runStarts.length) {
      val f = runStarts(r)
      val i = input(f)
      val row = tuple(i).asInstanceOf[UnsafeRow]
      if (kind(f) == Fixed && (row ne null)) {
        // A NULL fixed-width field's word is 0 in any UnsafeRow: the words copy as they are.
        val src = row.getBaseObject
        val from = row.getBaseOffset + sourceWords(i) + 8L * ordinal(f)
        val to = base + bitSetBytes + 8L * f
        val n = runLengths(r)
        var j = 0
        while (j < n) { Platform.putLong(buf, to + 8L * j, Platform.getLong(src, from + 8L * j)); j += 1 }
        if (anyNull(row, sourceWords(i))) {
          j = 0
          while (j < n) {
            if (BitSetMethods.isSet(src, row.getBaseOffset, ordinal(f) + j)) BitSetMethods.set(buf, base, f + j)
            j += 1
          }
        }
      } else {
        var j = 0
        while (j < runLengths(r)) { cursor = writeField(f + j, row, buf, base, cursor); j += 1 }
      }
      r += 1
    }
    out.pointTo(buf, size)
    out
  }

  /** One field (of an input whose row may be missing), as the class comment says; the new cursor. */
  private def writeField(f: Int, row: UnsafeRow, buf: Array[Byte], base: Long, at: Int): Int = {
    var cursor = at
    val o = ordinal(f)
    val target = base + bitSetBytes + 8L * f
    val k = kind(f)
    if ((row eq null) || BitSetMethods.isSet(row.getBaseObject, row.getBaseOffset, o)) {
      BitSetMethods.set(buf, base, f)
      if (k < Decimal16) Platform.putLong(buf, target, 0L)
      else {
        Platform.putLong(buf, base + cursor, 0L)
        Platform.putLong(buf, base + cursor + 8, 0L)
        Platform.putLong(buf, target, (cursor.toLong << 32) | (if (k == Interval16) 16L else 0L))
        cursor += 16
      }
    } else {
      val word = Platform.getLong(row.getBaseObject, row.getBaseOffset + sourceWords(input(f)) + 8L * o)
      if (k == Fixed) Platform.putLong(buf, target, word)
      else {
        val length = word.toInt
        val aligned = if (k >= Decimal16) 16 else roundUp(length)
        if (k >= Decimal16) Platform.putLong(buf, base + cursor, 0L)
        if (aligned > length) Platform.putLong(buf, base + cursor + aligned - 8, 0L)
        Platform.copyMemory(row.getBaseObject, row.getBaseOffset + (word >>> 32), buf, base + cursor, length)
        Platform.putLong(buf, target, (cursor.toLong << 32) | length.toLong)
        cursor += aligned
      }
    }
    cursor
  }

  private def anyNull(row: UnsafeRow, bitSetBytes: Int): Boolean = {
    var w = 0
    while (w < bitSetBytes) {
      if (Platform.getLong(row.getBaseObject, row.getBaseOffset + w) != 0L) return true
      w += 8
    }
    false
  }

  private def variableBytes(tuple: Array[AnyRef]): Int = {
    var total = 0
    var k = 0
    while (k < varFields.length) {
      val f = varFields(k)
      val row = tuple(input(f)).asInstanceOf[UnsafeRow]
      if (kind(f) >= Decimal16) total += 16
      else if ((row ne null) && !row.isNullAt(ordinal(f)))
        total += roundUp(Platform.getLong(row.getBaseObject, row.getBaseOffset + sourceWords(input(f)) + 8L * ordinal(f)).toInt)
      k += 1
    }
    total
  }

  @inline private def roundUp(bytes: Int): Int = (bytes + 7) & ~7
}

private[exec] object OutputRowWriter {
  final val Fixed: Byte = 0
  final val Variable: Byte = 1
  final val Decimal16: Byte = 2
  final val Interval16: Byte = 3

  private def kindOf(t: DataType): Byte = t match {
    case _ if UnsafeRow.isFixedLength(t) => Fixed
    case _: DecimalType => Decimal16
    case CalendarIntervalType => Interval16
    case u: UserDefinedType[_] => kindOf(u.sqlType)
    case _ => Variable
  }

  /**
   * The writer of `output`, each column found by expression id among the stored columns of
   * the inputs (`stored(i)`: the columns of input i's stored rows, in their order).
   */
  def apply(output: Seq[Attribute], stored: Seq[Seq[Attribute]]): OutputRowWriter = {
    val places = output.map { a =>
      val i = stored.indexWhere(_.exists(_.exprId == a.exprId))
      assert(i >= 0, s"output column $a is not stored")
      (i, stored(i).indexWhere(_.exprId == a.exprId), kindOf(a.dataType))
    }
    new OutputRowWriter(places.map(_._1).toArray, places.map(_._2).toArray, places.map(_._3).toArray,
      stored.map(_.size).toArray)
  }
}
