package wjoin.exec.codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, ArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.Platform
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * [[OutputRowWriter]] against Spark's own `UnsafeProjection` of the same values: for every
 * column type, with and without NULLs, the stored columns in order and any subset in any order, unbound (NULL) input slots,
 * more than 64 fields (two words of null bits) and one writer reused across rows of different
 * sizes, the written row equals Spark's byte for byte (a NULL interval's reserved bytes zeroed).
 */
class OutputRowWriterSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val struct = StructType(Seq(StructField("p", IntegerType), StructField("q", StringType)))
  private val types: Seq[DataType] = Seq(BooleanType, ByteType, ShortType, IntegerType, LongType, FloatType,
    DoubleType, DateType, TimestampType, TimestampNTZType, DecimalType(10, 2), DecimalType(30, 5), StringType,
    BinaryType, ArrayType(IntegerType), MapType(StringType, LongType), struct, CalendarIntervalType,
    DayTimeIntervalType(), YearMonthIntervalType())

  private def value(t: DataType, nulls: Boolean): Gen[Any] = {
    val text = Gen.choose(0, 20).flatMap(n => Gen.listOfN(n, Gen.alphaChar)).map(_.mkString)
    val nonNull: Gen[Any] = t match {
      case BooleanType => Gen.oneOf(true, false)
      case ByteType => Gen.choose(Byte.MinValue, Byte.MaxValue)
      case ShortType => Gen.choose(Short.MinValue, Short.MaxValue)
      case IntegerType | DateType | YearMonthIntervalType(_, _) => Gen.choose(Int.MinValue, Int.MaxValue)
      case LongType | TimestampType | TimestampNTZType | DayTimeIntervalType(_, _) => Gen.choose(Long.MinValue, Long.MaxValue)
      case FloatType => Gen.choose(-1e6f, 1e6f)
      case DoubleType => Gen.oneOf(Gen.choose(-1e9, 1e9), Gen.const(Double.NaN), Gen.const(-0.0))
      case d: DecimalType => Gen.choose(-99999999L, 99999999L).map(v => Decimal(BigDecimal(v, 2), d.precision, d.scale))
      case StringType => text.map(UTF8String.fromString)
      case BinaryType => text.map(_.getBytes("UTF-8"))
      case ArrayType(IntegerType, _) => Gen.listOf(Gen.choose(-9, 9)).map(v => ArrayData.toArrayData(v.toArray))
      case MapType(StringType, LongType, _) => Gen.listOf(Gen.zip(text, Gen.choose(0L, 9L))).map { kv =>
        val m = kv.toMap
        ArrayBasedMapData(m.keys.map(UTF8String.fromString).toArray[Any], m.values.toArray[Any])
      }
      case `struct` => Gen.zip(Gen.choose(0, 9), text).map { case (p, q) => InternalRow(p, UTF8String.fromString(q)) }
      case CalendarIntervalType => Gen.choose(0, 99).map(m => new org.apache.spark.unsafe.types.CalendarInterval(m, 1, 2L))
      case other => throw new IllegalArgumentException(s"no generator for $other")
    }
    if (nulls) Gen.frequency(1 -> Gen.const(null), 4 -> nonNull) else nonNull
  }

  /** Inputs: 1 to 4, each 1 to 40 columns of random types (so up to 160 fields). */
  private val schemaGen: Gen[Seq[Seq[DataType]]] =
    Gen.choose(1, 4).flatMap(n => Gen.listOfN(n, Gen.choose(1, 40).flatMap(w => Gen.listOfN(w, Gen.oneOf(types)))))

  private case class Case(attrs: Seq[Seq[AttributeReference]], rows: Seq[Seq[Seq[Any]]], output: Seq[AttributeReference],
      unbound: Set[Int])

  private val caseGen: Gen[Case] = for {
    schema <- schemaGen
    attrs = schema.map(_.zipWithIndex.map { case (t, f) => AttributeReference(s"c$f", t)() })
    nulls <- Gen.oneOf(true, false)
    rows <- Gen.listOfN(3, Gen.sequence[Seq[Seq[Any]], Seq[Any]](schema.map(ts =>
      Gen.sequence[Seq[Any], Any](ts.map(value(_, nulls))))))
    // In input order (whole inputs copied as runs of words), or any subset in any order.
    output <- Gen.oneOf(Gen.const(attrs.flatten),
      Gen.atLeastOne(attrs.flatten).flatMap(s => Gen.pick(s.size, s)).map(_.toSeq))
    unbound <- Gen.someOf(attrs.indices.tail)
  } yield Case(attrs, rows, output, unbound.toSet)

  /** Spark leaves a NULL interval's 16 reserved bytes as its buffer had them; the writer zeroes them. */
  private def zeroNullIntervals(row: UnsafeRow, output: Seq[AttributeReference]): UnsafeRow = {
    val copy = row.copy()
    for (f <- output.indices if copy.isNullAt(f) && output(f).dataType == CalendarIntervalType) {
      val word = Platform.getLong(copy.getBaseObject, copy.getBaseOffset + UnsafeRow.calculateBitSetWidthInBytes(copy.numFields) + 8L * f)
      Platform.setMemory(copy.getBaseObject, copy.getBaseOffset + (word >>> 32), 16, 0.toByte)
    }
    copy
  }

  test("the written row is Spark's projection of the same values, byte for byte, across reused rows") {
    forAll(caseGen, minSuccessful(100)) { c =>
      val stores = c.attrs.map(a => UnsafeProjection.create(a, a))
      val writer = OutputRowWriter(c.output, c.attrs)
      val expected = UnsafeProjection.create(c.output, c.attrs.flatten.map(_.withNullability(true)))
      for (values <- c.rows) {
        val tuple: Array[AnyRef] = Array.tabulate(c.attrs.size)(i =>
          if (c.unbound(i)) null else stores(i)(new GenericInternalRow(values(i).toArray)).copy())
        val flat = new GenericInternalRow(c.attrs.indices.flatMap(i =>
          if (c.unbound(i)) Seq.fill(c.attrs(i).size)(null) else values(i)).toArray)
        val want = zeroNullIntervals(expected(flat), c.output)
        val got = writer.write(tuple)
        assert(got.numFields == c.output.size)
        assert(got == want, s"output ${c.output.map(_.dataType)}")
      }
    }
  }

  test("a row written from rows that sit inside larger buffers (views) reads their values") {
    val attrs = Seq(AttributeReference("s", StringType)(), AttributeReference("n", LongType)())
    val row = UnsafeProjection.create(attrs, attrs)(InternalRow(UTF8String.fromString("hello, world"), 7L)).copy()
    val bytes = new Array[Byte](row.getSizeInBytes + 24)
    row.writeToMemory(bytes, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + 16)
    val view = new UnsafeRow(2)
    view.pointTo(bytes, org.apache.spark.unsafe.Platform.BYTE_ARRAY_OFFSET + 16, row.getSizeInBytes)
    val out = OutputRowWriter(attrs.reverse, Seq(attrs)).write(Array(view))
    assert(out.getLong(0) == 7L && out.getUTF8String(1).toString == "hello, world")
  }
}
