package wjoin.exec.codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.{Algorithm, EnginePlan, JoinHow, UniformWindow, WindowMatrix}

/**
 * [[CombinedRow]] (the flat view residual predicates read) and the codec's output rows
 * ([[RowCodec.outputWriter]], [[RowCodec.anchorWriter]]), without Spark jobs: every output
 * column holds the value of the input column it names, whatever its type, NULL or not, for
 * outputs that are the stored columns in order and for any other subset or order
 * ([[OutputRowWriterSuite]] checks the writer's bytes against Spark's projection).
 */
class CombinedRowSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val names = Seq("A", "B", "C")
  private val decimal = DecimalType(20, 4)
  private val attrs = Seq(
    Seq(AttributeReference("t", LongType)(), AttributeReference("s", StringType)(), AttributeReference("d", decimal)()),
    Seq(AttributeReference("t", LongType)(), AttributeReference("x", DoubleType)(), AttributeReference("n", LongType)()),
    Seq(AttributeReference("t", LongType)(), AttributeReference("i", IntegerType)(),
      AttributeReference("a", ArrayType(IntegerType))(), AttributeReference("b", BooleanType)()))
  private val plan = new EnginePlan(WindowMatrix.close(Seq(UniformWindow(10, "WINDOW = 10")), names), Algorithm.MW, false)
  private val projections = attrs.map(a => UnsafeProjection.create(a, a))

  private def value(t: DataType): Gen[Any] = {
    val nonNull: Gen[Any] = t match {
      case LongType => Gen.choose(-5L, 5L)
      case IntegerType => Gen.choose(-5, 5)
      case DoubleType => Gen.choose(-1.0, 1.0)
      case BooleanType => Gen.oneOf(true, false)
      case StringType => Gen.alphaStr.map(UTF8String.fromString)
      case d: DecimalType => Gen.choose(-1000L, 1000L).map(v => Decimal(BigDecimal(v, 2), d.precision, d.scale))
      case ArrayType(IntegerType, _) =>
        Gen.listOf(Gen.choose(0, 9)).map(v => org.apache.spark.sql.catalyst.util.ArrayData.toArrayData(v.toArray))
      case other => throw new IllegalArgumentException(s"no generator for $other")
    }
    Gen.frequency(1 -> Gen.const(null), 4 -> nonNull)
  }

  private val rowsGen: Gen[Seq[Seq[Any]]] = Gen.sequence[Seq[Seq[Any]], Seq[Any]](
    attrs.map(a => Gen.sequence[Seq[Any], Any](a.map(c => value(c.dataType)))))

  /** Outputs: the stored columns in order, or any other non-empty subset in any order. */
  private val outputGen = Gen.oneOf(
    Gen.const(attrs.flatten),
    Gen.atLeastOne(attrs.flatten).flatMap(s => Gen.pick(s.size, s)).map(_.toSeq))

  /** The engine's tuple: each input's row as the codec stores it (its stored columns only). */
  private def stored(values: Seq[Seq[Any]], codec: RowCodec = everything): Array[AnyRef] =
    Array.tabulate(3)(i => codec.storer(i)(projections(i)(new GenericInternalRow(values(i).toArray))))
  private lazy val everything = new RowCodec(attrs, attrs.map(_.head), Nil, Nil, attrs.flatten, plan)

  private def read(row: InternalRow, types: Seq[DataType]): Seq[Any] =
    types.indices.map(f => if (row.isNullAt(f)) null else row.get(f, types(f)))

  test("an output row holds each named column's value, for any output columns, types and NULLs") {
    forAll(rowsGen, outputGen) { (values, output) =>
      val codec = new RowCodec(attrs, attrs.map(_.head), Nil, Nil, output, plan)
      val out = codec.outputWriter()(stored(values, codec))
      val expected = output.map { a =>
        val i = attrs.indexWhere(_.exists(_.exprId == a.exprId))
        values(i)(attrs(i).indexWhere(_.exprId == a.exprId))
      }
      assert(out.numFields == output.size)
      assert(read(out, output.map(_.dataType)) == expected)
    }
  }

  test("a left outer anchor's row reads NULL for every column of the unbound inputs") {
    forAll(rowsGen) { values =>
      val output = attrs.flatten.map(_.withNullability(true))
      val codec = new RowCodec(attrs, attrs.map(_.head), Nil, Nil, output, plan)
      val anchor = stored(values, codec)(0)
      val out = codec.anchorWriter(JoinHow.LeftOuter)(anchor)
      assert(read(out, output.map(_.dataType)) == values(0) ++ Seq.fill(attrs(1).size + attrs(2).size)(null))
    }
  }

  test("the flat view reads through every getter, copies and prints its values") {
    val types = attrs.map(_.map(_.dataType))
    val values = Seq[Seq[Any]](Seq[Any](1L, UTF8String.fromString("x"), Decimal(BigDecimal("1.5"), 20, 4)),
      Seq[Any](2L, null, 5L), Seq[Any](3L, 4, null, true))
    val tuple = stored(values)
    val view = new CombinedRow(types, Seq(0, 2)).of(tuple)
    assert(view.numFields == 7)
    assert(view.getLong(0) == 1L && view.getUTF8String(1).toString == "x")
    assert(view.getDecimal(2, 20, 4) == Decimal(BigDecimal("1.5"), 20, 4))
    assert(view.getLong(3) == 3L && view.getInt(4) == 4 && view.isNullAt(5) && view.getBoolean(6))
    assert(view.get(5, ArrayType(IntegerType)) == null)
    val copy = view.copy()
    tuple(0) = stored(Seq(Seq(9L, null, null), values(1), values(2)))(0)
    assert(copy.getLong(0) == 1L && copy.getUTF8String(1).toString == "x", "a copy keeps its values")
    assert(view.getLong(0) == 9L && view.isNullAt(1), "the view reads the tuple's current rows")
    assert(view.toString.startsWith("[9,null,null,3,4"))
    tuple(2) = null
    assert((3 until 7).forall(view.isNullAt), "an unbound input reads as NULL")
  }
}
