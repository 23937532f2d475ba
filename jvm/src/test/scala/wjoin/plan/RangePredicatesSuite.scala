package wjoin.plan

import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.expressions.{And, AttributeSet, GenericInternalRow, JoinedRow, Predicate,
  PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.{StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.{RangeBinding, RealBand, RealKeys}
import wjoin.exec.codec.RowCodec
import wjoin.testkit.SharedSparkSession
import wjoin.testkit.OptimizedForms.replaced

/**
 * Range extraction for every type and form: each band conjunct is recognised, and for pairs
 * of values (NULL, NaN, -0.0, infinities, extreme longs, decimal scales included) every pair
 * Spark's own evaluation of the conjunct accepts lies inside the range the binding computes
 * from the other side's key (both directions). The residual keeps the conjunct, so a superset
 * is exact; the differential suite checks the results end to end.
 */
class RangePredicatesSuite extends AnyFunSuite with SharedSparkSession with PredicateHelper {

  private def empty(kind: BandKind, name: String): DataFrame =
    spark.createDataFrame(java.util.Collections.emptyList[Row](), StructType(Seq(StructField("x", kind.dt)))).alias(name)

  /**
   * The analyzed conjuncts of `form` and the two inputs' columns, with ANSI arithmetic (Spark 4's
   * default) unless `ansi` is false.
   */
  private def analyzed(kind: BandKind, form: String, ansi: Boolean = true) = {
    val (a, b) = (empty(kind, "A"), empty(kind, "B"))
    val plan = withConf("spark.sql.ansi.enabled" -> ansi.toString)(a.crossJoin(b).where(expr(form)).queryExecution.analyzed)
    val cond = plan.collectFirst { case f: Filter => f.condition }.get
    (splitConjunctivePredicates(cond), a.queryExecution.analyzed.output, b.queryExecution.analyzed.output)
  }

  test("integer arithmetic that wraps (ANSI off, Spark 3.5's default) binds no range: the conjunct stays a residual") {
    val byte = BandKinds.all.find(_.name == "byte").get
    // -128 - 127 wraps to 1 in TINYINT: Spark accepts the pair, so no range may exclude it.
    for (form <- Seq("abs(A.x - B.x) <= 2", "A.x - B.x <= 1", "-(A.x - B.x) <= 1")) {
      val (conjuncts, aOut, bOut) = analyzed(byte, form, ansi = false)
      assert(RangePredicates(Seq(AttributeSet(aOut), AttributeSet(bOut)), conjuncts).bindings.isEmpty, form)
      val (ansiConjuncts, ansiA, ansiB) = analyzed(byte, form)
      assert(RangePredicates(Seq(AttributeSet(ansiA), AttributeSet(ansiB)), ansiConjuncts).bindings.nonEmpty, form)
    }
    // A TINYINT plus an INT literal is computed in INT, where it cannot overflow: a range.
    val (conjuncts, aOut, bOut) = analyzed(byte, "A.x < B.x + 1", ansi = false)
    assert(RangePredicates(Seq(AttributeSet(aOut), AttributeSet(bOut)), conjuncts).bindings.nonEmpty)
  }

  for (kind <- BandKinds.all; form <- kind.forms) test(s"${kind.name}: $form gives ranges containing every accepted pair") {
    val (conjuncts, aOut, bOut) = analyzed(kind, form)
    val inputs = Seq(AttributeSet(aOut), AttributeSet(bOut))
    val ranges = RangePredicates(inputs, conjuncts)
    assert(ranges.bindings.nonEmpty, s"not recognised: ${conjuncts.map(_.sql)}")
    val outputs = Seq(aOut, bOut)
    val keys = (0 to 1).map(i => ranges.attributes(i).map(RowCodec.rangeKey(_, outputs(i))))
    // Spark's evaluation of the conjuncts (BETWEEN and `ts - INTERVAL` as the optimizer replaces them)
    val predicate = Predicate.create(replaced(conjuncts.reduce(And)), aOut ++ bOut)
    val toCatalyst = CatalystTypeConverters.createToCatalystConverter(kind.dt)
    val rnd = new Random(form.hashCode)
    var accepted = 0
    for (_ <- 0 until 4000) {
      val va = kind.values(rnd)
      val vb = if (rnd.nextInt(3) == 0) va else kind.values(rnd)
      val rows = Seq(new GenericInternalRow(Array[Any](toCatalyst(va))), new GenericInternalRow(Array[Any](toCatalyst(vb))))
      val ok = try predicate.eval(new JoinedRow(rows(0), rows(1))) catch { case _: ArithmeticException => false }
      if (ok) {
        accepted += 1
        for (b <- ranges.bindings) {
          val x = keys(b.source)(b.sourceAttr)(rows(b.source))
          val y = keys(b.target)(b.targetAttr)(rows(b.target))
          // a NaN target may lie above the range when the binding says it matches (the probe reaches NaN)
          val reached = b.low(x) <= y && y <= b.high(x) || b.nanMatches && y == RealKeys.encode(Double.NaN)
          assert(reached, s"A.x=$va B.x=$vb accepted but outside $b: key $y not in " +
            s"[${b.low(x)}, ${b.high(x)}] for source key $x")
        }
      }
    }
    assert(accepted > 50, s"only $accepted accepted pairs: the test could not fail")
  }

  test("doubles: keys follow Spark's order (NaN largest, -0.0 = 0.0), decode inverts encode") {
    val values = Seq(Double.NegativeInfinity, -Double.MaxValue, -1.5, -Double.MinPositiveValue, -0.0, 0.0,
      Double.MinPositiveValue, 1.0, Double.MaxValue, Double.PositiveInfinity, Double.NaN)
    val rnd = new Random(7)
    val all = values ++ Seq.fill(2000)(java.lang.Double.longBitsToDouble(rnd.nextLong()))
    val ordering = org.apache.spark.sql.catalyst.util.SQLOrderingUtil.compareDoubles _
    for (a <- all; b <- all.take(40)) {
      val (ka, kb) = (RealKeys.encode(a), RealKeys.encode(b))
      assert(Integer.signum(java.lang.Long.compare(ka, kb)) == Integer.signum(ordering(a, b)), s"$a vs $b")
      assert(ka != RealKeys.Null)
    }
    for (a <- all if !a.isNaN) assert(RealKeys.decode(RealKeys.encode(a)) == a)
    assert(RealKeys.encode(-0.0) == RealKeys.encode(0.0))
    assert(RealKeys.encode(java.lang.Double.longBitsToDouble(0xfff8000000000001L)) == RealKeys.encode(Double.NaN))
  }

  test("real bands widen outward, leave sides unbounded on NaN / infinite sources, and are empty for NULL") {
    val band = RealBand(-2.0, 2.0, 2.0, math.pow(2, -48), 0.0)
    val b = RangeBinding(0, 0, 1, 0, 0L, 0L, Some(band))
    val x = RealKeys.encode(1000.25)
    assert(RealKeys.decode(b.low(x)) < 998.25 && RealKeys.decode(b.low(x)) > 998.24)
    assert(RealKeys.decode(b.high(x)) > 1002.25 && RealKeys.decode(b.high(x)) < 1002.26)
    assert(b.low(RealKeys.encode(Double.NaN)) == Long.MinValue && b.high(RealKeys.encode(Double.NaN)) == Long.MaxValue)
    assert(b.high(RealKeys.encode(Double.PositiveInfinity)) == Long.MaxValue)
    assert(b.low(RealKeys.Null) > b.high(RealKeys.Null))
    val oneSided = RangeBinding(0, 0, 1, 0, Long.MinValue, 0L, Some(RealBand(Double.NegativeInfinity, 1.0, 1.0, 1e-14, 0)))
    assert(oneSided.low(x) == Long.MinValue && !oneSided.bounded && oneSided.width.isInfinite)
  }

  test("non-band conjuncts and mixed kinds stay residual only") {
    val kind = BandKinds.all.find(_.name == "double").get
    for (form <- Seq("abs(A.x - B.x) >= 2", "A.x * 2 < B.x", "abs(A.x - B.x) <= CAST('NaN' AS DOUBLE)",
        "abs(A.x - B.x) <= -1", "abs(A.x) <= B.x", "A.x + B.x < 3")) {
      val (conjuncts, aOut, bOut) = analyzed(kind, form)
      assert(RangePredicates(Seq(AttributeSet(aOut), AttributeSet(bOut)), conjuncts).isEmpty, form)
    }
  }
}
