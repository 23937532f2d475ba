package wjoin.exec.codec

import org.apache.spark.sql.catalyst.expressions.{Add, And, AttributeReference, EqualTo, Expression, GenericInternalRow,
  GreaterThan, Literal, Predicate, UnsafeProjection}
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.{Algorithm, EnginePlan, UniformWindow, WindowMatrix}

/**
 * [[RowCodec.tupleFilter]] without Spark jobs: each (origin, depth) predicate reads the rows of
 * only the inputs its conjuncts name (one row as it is, several side by side), and must agree
 * with the whole residual evaluated over every input's columns, at the depth where the
 * conjunct's last input is bound.
 */
class TupleFilterSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val names = Seq("A", "B", "C")
  // Inputs of different widths, so that a predicate bound to the wrong inputs reads wrong columns.
  private val attrs = Seq(
    Seq(AttributeReference("t", LongType)(), AttributeReference("x", IntegerType)()),
    Seq(AttributeReference("t", LongType)(), AttributeReference("pad", IntegerType)(), AttributeReference("x", IntegerType)()),
    Seq(AttributeReference("t", LongType)(), AttributeReference("x", IntegerType)(), AttributeReference("y", IntegerType)()))
  private def x(i: Int) = attrs(i).find(_.name == "x").get

  private val residual: Seq[Expression] = Seq(
    GreaterThan(x(1), Literal(3)),                                   // B only
    GreaterThan(Add(x(0), x(2)), x(1)),                              // all three
    EqualTo(x(0), attrs(2)(2)),                                      // A and C
    GreaterThan(Literal(2), Literal(1)))                             // no input

  private val plan = new EnginePlan(WindowMatrix.close(Seq(UniformWindow(10, "WINDOW = 10")), names), Algorithm.MW, false)
  private val codec = new RowCodec(attrs, attrs.map(_.head), Nil, residual, attrs.flatten, plan)
  private val projections = attrs.map(a => UnsafeProjection.create(a, a))

  private def tuple(values: Seq[Seq[Int]]): Array[AnyRef] = Array.tabulate(3) { i =>
    val row = new GenericInternalRow((Seq[Any](0L) ++ values(i)).toArray)
    projections(i)(row).copy()
  }

  test("every (origin, depth) predicate agrees with the conjuncts due there, over all inputs' columns") {
    val filter = codec.tupleFilter(0)
    val whole = attrs.flatten
    val value = Gen.choose(0, 6)
    val rowsGen = for {
      a <- Gen.listOfN(1, value); b <- Gen.listOfN(2, value); c <- Gen.listOfN(2, value)
    } yield Seq(a, b, c)
    forAll(rowsGen) { rows =>
      val t = tuple(rows)
      val combined = new CombinedRow(attrs.map(_.map(_.dataType))).of(t)
      for (origin <- 0 until 3) {
        val order = origin +: plan.probeOrder(origin)
        for (depth <- 0 until 2) {
          val bound = order.take(depth + 2).toSet
          val boundBefore = order.take(depth + 1).toSet
          val due = residual.filter { c =>
            val inputs = (0 until 3).filter(i => c.references.exists(a => attrs(i).exists(_.exprId == a.exprId))).toSet
            inputs.subsetOf(bound) && (depth == 0 || !inputs.subsetOf(boundBefore))
          }
          assert(filter.activeAt(origin, depth) == due.nonEmpty, s"origin $origin depth $depth")
          if (due.nonEmpty) {
            val expected = Predicate.create(due.reduce(And), whole).eval(combined)
            assert(filter.test(origin, depth, t) == expected, s"origin $origin depth $depth rows $rows")
          }
        }
      }
    }
  }

  test("a combined row of some inputs reads their columns side by side; of one input, its row itself") {
    val t = tuple(Seq(Seq(7), Seq(1, 2), Seq(3, 4)))
    val widths = attrs.map(_.map(_.dataType))
    val ac = new CombinedRow(widths, Seq(0, 2)).of(t)
    assert(ac.numFields == 5)
    assert(ac.getInt(1) == 7 && ac.getInt(3) == 3 && ac.getInt(4) == 4)
    assert(new CombinedRow(widths, Seq(1)).of(t) eq t(1))
    val all = new CombinedRow(widths).of(t)
    assert(all.numFields == 8 && all.getInt(4) == 2 && all.getInt(7) == 4)
    assert(new CombinedRow(widths, Nil).of(t).numFields == 0)
  }
}
