package wjoin.plan

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.sql.wjoin.PredicateForms

import wjoin.core.{RangeBinding, RealBand}

/**
 * The band and inequality predicates of a W-join condition that an ordered index (T-tree,
 * B+tree) can answer (access paths). A conjunct qualifies when it compares, between two inputs,
 * a column of each (any orderable numeric, date or timestamp type, under monotone casts) plus
 * constants of any numeric type (literals, folded expressions, casts), on either side:
 *
 * {{{
 *   abs(A.x - B.x) <= d   (or < d, d >= abs(..))  A.x - B.x in [-d, d]
 *   A.x < B.x + c, <=, >, >=, =  (sides swapped)  A.x - B.x in [.., ..], one side unbounded
 *   A.x - B.x <= c, c >= A.x - B.x               likewise
 *   A.x BETWEEN B.x - 5 AND B.x + 5              (two conjuncts) each one side
 *   A.x >= B.x - c AND A.x <= B.x + c            likewise
 * }}}
 *
 * Key domains (chosen per conjunct, once, when the plan is built):
 *  - integral: both columns integral, date or timestamp (of one kind) and no floating-point
 *    arithmetic: keys are the values themselves, exact Long offsets; a fractional constant is
 *    rounded outward (`a - b <= 2.5` searches `<= 3`);
 *  - real: a float, double or decimal column, or arithmetic in floating point: keys are
 *    [[RealKeys]] (the value's double in Spark's order: NaN largest, -0.0 = 0.0), offsets
 *    are a [[RealBand]] widened for rounding (2^-48 relative for double, 2^-20 with a float,
 *    plus the least decimal scale involved).
 *
 * Each gives two [[RangeBinding]]s (search A's index from B's row and B's from A's). The
 * conjunct itself stays in the residual: the index only narrows the candidates, so results
 * are exact whatever the arithmetic does at the edges (NULL, NaN, infinities, rounding; a NaN
 * target that satisfies its conjunct outside the range is flagged on the binding; Spark's
 * overflow of `A.x - B.x` raises an error in ANSI mode; in legacy mode integral arithmetic
 * wraps, and a wrapped difference is outside the index's range).
 *
 * @param attributes per input, its range attributes (numbered as in the bindings)
 * @param bindings   the bindings, two per recognised conjunct
 * @param conjuncts  per binding pair, the conjunct it came from (for EXPLAIN)
 */
final case class RangePredicates(attributes: Seq[Seq[Expression]], bindings: Seq[RangeBinding],
    conjuncts: Seq[Expression]) {
  def isEmpty: Boolean = bindings.isEmpty
}

object RangePredicates extends PredicateHelper {

  def none(n: Int): RangePredicates = RangePredicates(Seq.fill(n)(Nil), Nil, Nil)

  /** Types whose values the engine reads as one Long preserving order, exactly. */
  def isIntegralKeyType(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /** Types read as [[RealKeys]]: their double, in Spark's order. */
  def isRealKeyType(t: DataType): Boolean = t match {
    case FloatType | DoubleType | _: DecimalType => true
    case _ => false
  }

  private def isIntegral(t: DataType) = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  /** a - b + k, with a and b the columns (`plus`, `minus`) and k exact. */
  private final case class Linear(plus: List[Expression], minus: List[Expression], k: BigDecimal) {
    def +(o: Linear): Linear = Linear(plus ++ o.plus, minus ++ o.minus, k + o.k)
    def negate: Linear = Linear(minus, plus, -k)
    def twoColumns: Boolean = plus.size == 1 && minus.size == 1
  }

  /** A foldable numeric constant as an exact decimal (NULL, NaN and infinities: none). */
  private object Constant {
    def unapply(e: Expression): Option[BigDecimal] =
      if (!e.foldable || !e.deterministic || !e.dataType.isInstanceOf[NumericType]) None
      else scala.util.Try(e.eval()).toOption.flatMap {
        case d: Decimal => Some(d.toBigDecimal)
        case v: java.lang.Double if !v.isNaN && !v.isInfinite => Some(BigDecimal(new java.math.BigDecimal(v.doubleValue)))
        case v: java.lang.Float if !v.isNaN && !v.isInfinite => Some(BigDecimal(new java.math.BigDecimal(v.doubleValue)))
        case v: java.lang.Number if !v.isInstanceOf[java.lang.Double] && !v.isInstanceOf[java.lang.Float] =>
          Some(BigDecimal(v.longValue))
        case _ => None
      }
  }

  /** A cast that never reverses the order of two values (NULL and overflow aside). */
  private def monotoneCast(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if a == b => true
    case (f: NumericType, FloatType | DoubleType | _: DecimalType) => true
    case (ByteType, ShortType | IntegerType | LongType) | (ShortType, IntegerType | LongType) | (IntegerType, LongType) => true
    case (TimestampType | TimestampNTZType, TimestampType | TimestampNTZType) => true
    case _ => false
  }

  /** The column under monotone casts: an attribute of a numeric, date or timestamp type. */
  private def isColumn(e: Expression): Boolean = e match {
    case a: Attribute => isIntegralKeyType(a.dataType) || isRealKeyType(a.dataType)
    case Cast(child, to, _, _) => monotoneCast(child.dataType, to) && isColumn(child)
    case _ => false
  }

  /**
   * Integer arithmetic that may wrap on overflow instead of failing (Spark's non-ANSI mode, the
   * default before Spark 4): `-128 - 127` is `1` in TINYINT, so `abs(A.x - B.x) <= 2` accepts
   * pairs far apart. Such a term is not linear; its conjunct stays a residual. A term whose
   * values all fit its type (`CAST(A.x AS INT) + 1` over a TINYINT column) cannot wrap.
   */
  private def wraps(e: Expression, ansi: Boolean): Boolean = !ansi && isInteger(e.dataType) &&
    integralRange(e).forall { case (lo, hi) => lo < minOf(e.dataType) || hi > maxOf(e.dataType) }

  private def isInteger(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType => true
    case _ => false
  }

  private def minOf(t: DataType): BigInt = t match {
    case ByteType => Byte.MinValue; case ShortType => Short.MinValue; case IntegerType => Int.MinValue
    case _ => Long.MinValue
  }
  private def maxOf(t: DataType): BigInt = t match {
    case ByteType => Byte.MaxValue; case ShortType => Short.MaxValue; case IntegerType => Int.MaxValue
    case _ => Long.MaxValue
  }

  /** The least and greatest value an integer term can take, computed without wrapping; None: unknown. */
  private def integralRange(e: Expression): Option[(BigInt, BigInt)] = e match {
    case Literal(v: Number, t) if isInteger(t) => Some((BigInt(v.longValue), BigInt(v.longValue)))
    case a: Attribute if isInteger(a.dataType) => Some((minOf(a.dataType), maxOf(a.dataType)))
    case Cast(child, t, _, _) if isInteger(t) && monotoneCast(child.dataType, t) => integralRange(child)
    case Add(l, r, _) => for ((a, b) <- integralRange(l); (c, d) <- integralRange(r)) yield (a + c, b + d)
    case Subtract(l, r, _) => for ((a, b) <- integralRange(l); (c, d) <- integralRange(r)) yield (a - d, b - c)
    case UnaryMinus(c, _) => integralRange(c).map { case (a, b) => (-b, -a) }
    case Abs(c, _) => integralRange(c).map { case (a, b) => (BigInt(0) max a max -b, a.abs max b.abs) }
    case _ => None
  }

  private def linear(e: Expression): Option[Linear] = e match {
    case Constant(c) => Some(Linear(Nil, Nil, c))
    case _ if isColumn(e) => Some(Linear(List(e), Nil, 0))
    case a: Add if wraps(a, a.evalMode == EvalMode.ANSI) => None // (the third field is no EvalMode in Spark 4.1+)
    case s: Subtract if wraps(s, s.evalMode == EvalMode.ANSI) => None
    case UnaryMinus(_, failOnError) if wraps(e, failOnError) => None
    case Add(l, r, _) => for (a <- linear(l); b <- linear(r)) yield a + b
    case Subtract(l, r, _) => for (a <- linear(l); b <- linear(r)) yield a + b.negate
    case UnaryMinus(c, _) => linear(c).map(_.negate)
    case DateAdd(l, r) => for (a <- linear(l); b <- linear(r)) yield a + b
    case DateSub(l, r) => for (a <- linear(l); b <- linear(r)) yield a + b.negate
    case InstantArithmetic.ExactPlus(l, us) => linear(l).map(_ + Linear(Nil, Nil, BigDecimal(us))) // not whole days where they shift
    case r: RuntimeReplaceable => linear(r.replacement) // ts - INTERVAL: DatetimeSub
    case Cast(child, to, _, _) if monotoneCast(child.dataType, to) => linear(child)
    case _ => None
  }

  /** abs(a - b + k) under monotone casts. */
  private def absOf(e: Expression): Option[Linear] = e match {
    case Abs(_, failOnError) if wraps(e, failOnError) => None
    case Abs(inner, _) => linear(inner).filter(_.twoColumns)
    case Cast(child, to, _, _) if monotoneCast(child.dataType, to) => absOf(child)
    case _ => None
  }

  /**
   * lo <= a - b <= hi (None: unbounded) for a conjunct, with the strictness of each side;
   * None when the conjunct is not of a recognised shape.
   */
  private final case class Shape(a: Expression, b: Expression, lo: Option[BigDecimal], hi: Option[BigDecimal],
      strictLo: Boolean, strictHi: Boolean, nanA: Boolean = false, nanB: Boolean = false)

  private def shape(c: Expression): Option[Shape] = {
    // A NaN makes its side of a comparison NaN, the largest value: `l >= r` holds when l is NaN
    // and r is not. So a column inside the accepting side (l of >, >=; r of <, <=) matches when
    // it is NaN, even where its range is bounded above (`B.x - A.x >= 1`: A.x <= B.x - 1, yet
    // A.x = NaN matches).
    def compare(l: Expression, r: Expression, less: Boolean, greater: Boolean, strict: Boolean): Option[Shape] =
      for (d <- (for (x <- linear(l); y <- linear(r)) yield x + y.negate) if d.twoColumns) yield {
        val bound = -d.k // a - b (op) -k
        val accepting = if (less == greater) None else Some(if (greater) l else r)
        def nan(column: Expression) = accepting.exists(side => column.references.subsetOf(side.references))
        Shape(d.plus.head, d.minus.head, if (greater) Some(bound) else None, if (less) Some(bound) else None,
          strict, strict, nan(d.plus.head), nan(d.minus.head))
      }
    def abs(x: Expression, d: BigDecimal, strict: Boolean): Option[Shape] =
      absOf(x).filter(_ => d > 0 || (d == 0 && !strict)).map(l =>
        Shape(l.plus.head, l.minus.head, Some(-d - l.k), Some(d - l.k), strict, strict))
    c match {
      case LessThanOrEqual(x, Constant(d)) if absOf(x).isDefined => abs(x, d, strict = false)
      case LessThan(x, Constant(d)) if absOf(x).isDefined => abs(x, d, strict = true)
      case GreaterThanOrEqual(Constant(d), x) if absOf(x).isDefined => abs(x, d, strict = false)
      case GreaterThan(Constant(d), x) if absOf(x).isDefined => abs(x, d, strict = true)
      case LessThan(l, r) => compare(l, r, less = true, greater = false, strict = true)
      case LessThanOrEqual(l, r) => compare(l, r, less = true, greater = false, strict = false)
      case GreaterThan(l, r) => compare(l, r, less = false, greater = true, strict = true)
      case GreaterThanOrEqual(l, r) => compare(l, r, less = false, greater = true, strict = false)
      case EqualTo(l, r) => compare(l, r, less = true, greater = true, strict = false)
      case _ => None
    }
  }

  /** The attribute under the casts that keep its values (integral keys read it as is). */
  private def integralColumn(e: Expression): Option[Expression] = e match {
    case a: Attribute if isIntegralKeyType(a.dataType) => Some(a)
    case Cast(child, to, _, _) if isIntegralKeyType(child.dataType) && exact(child.dataType, to) => integralColumn(child)
    case _ => None
  }

  private def exact(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if a == b => true
    case (ByteType, ShortType | IntegerType | LongType) | (ShortType, IntegerType | LongType) | (IntegerType, LongType) => true
    case (TimestampType | TimestampNTZType, TimestampType | TimestampNTZType) => true
    case (ByteType | ShortType | IntegerType | LongType, d: DecimalType) =>
      d.precision - d.scale >= (from match { case ByteType => 3; case ShortType => 5; case IntegerType => 10; case _ => 19 })
    case _ => false
  }

  private def kind(t: DataType) = t match {
    case DateType => 1
    case TimestampType | TimestampNTZType => 2
    case _ => 0
  }

  /** A conjunct as (column a, column b, forward offsets, real band) in a's and b's keys. */
  private final case class Band(a: Expression, b: Expression, lo: Long, hi: Long, real: Option[RealBand],
      nanA: Boolean = false, nanB: Boolean = false)

  private def band(c: Expression): Option[Band] = shape(c).flatMap { s =>
    val nodes = c.collect { case e => e.dataType }
    val floating = nodes.exists(t => t == FloatType || t == DoubleType)
    val integral = (for (a <- integralColumn(s.a); b <- integralColumn(s.b)) yield (a, b))
      .filter { case (a, b) => !floating && kind(a.dataType) == kind(b.dataType) }
    integral match {
      case Some((a, b)) =>
        // bounded sides stay inside (MinValue, MaxValue), which mean "unbounded"
        def clamp(v: BigDecimal) = if (v <= BigDecimal(Long.MinValue + 1)) Long.MinValue + 1
          else if (v >= BigDecimal(Long.MaxValue - 1)) Long.MaxValue - 1 else v.toLong
        // strict: a - b > v  <=>  a - b >= floor(v) + 1; otherwise round outward
        val lo = s.lo.fold(Long.MinValue)(v => clamp(if (s.strictLo) v.setScale(0, BigDecimal.RoundingMode.FLOOR) + 1
          else v.setScale(0, BigDecimal.RoundingMode.FLOOR)))
        val hi = s.hi.fold(Long.MaxValue)(v => clamp(if (s.strictHi) v.setScale(0, BigDecimal.RoundingMode.CEILING) - 1
          else v.setScale(0, BigDecimal.RoundingMode.CEILING)))
        if (lo <= hi) Some(Band(a, b, lo, hi, None)) else None
      case None if Seq(s.a, s.b).forall(x => isIntegral(x.dataType) || isRealKeyType(x.dataType)) =>
        def key(x: Expression) = if (isRealKeyType(x.dataType)) x else Cast(x, DoubleType)
        val lo = s.lo.fold(Double.NegativeInfinity)(v => java.lang.Math.nextDown(v.toDouble))
        val hi = s.hi.fold(Double.PositiveInfinity)(v => java.lang.Math.nextUp(v.toDouble))
        val constants = c.collect { case Constant(k) => k.abs }.foldLeft(BigDecimal(0))(_ + _).toDouble
        val scales = nodes.collect { case d: DecimalType => d.scale }
        val absolute = if (scales.isEmpty) 0.0 else math.pow(10, -math.min(6, scales.min))
        val relative = if (nodes.contains(FloatType)) math.pow(2, -20) else math.pow(2, -48)
        if (lo <= hi) Some(Band(key(s.a), key(s.b), if (lo.isInfinite) Long.MinValue else 0L,
          if (hi.isInfinite) Long.MaxValue else 0L, Some(RealBand(lo, hi, constants, relative, absolute)),
          s.nanA, s.nanB))
        else None
      case None => None
    }
  }

  /** Conjuncts with Spark's replaceable forms (BETWEEN) replaced and split. */
  private def expand(c: Expression): Seq[Expression] = c match {
    case PredicateForms.Between(input, lower, upper) => Seq(GreaterThanOrEqual(input, lower), LessThanOrEqual(input, upper))
    case r: RuntimeReplaceable => splitConjunctivePredicates(r.replacement).flatMap(expand)
    case other => Seq(other)
  }

  /**
   * Recognises the band predicates among `conjuncts` (those not guaranteed by hash keys).
   * Both columns must be of one kind (integral with integral, date with date, timestamps, or
   * both real).
   */
  def apply(inputs: Seq[AttributeSet], conjuncts: Seq[Expression]): RangePredicates = {
    val n = inputs.size
    val attrs = Array.fill(n)(Vector.empty[Expression])
    def attrIndex(i: Int, e: Expression): Int = {
      val k = attrs(i).indexWhere(_.semanticEquals(e))
      if (k >= 0) k else { attrs(i) = attrs(i) :+ e; attrs(i).size - 1 }
    }
    val found = for {
      original <- conjuncts if original.deterministic
      c <- expand(original)
      bd <- band(c).toSeq
      i <- JoinConditionAnalysis.inputOf(bd.a, inputs).toSeq
      j <- JoinConditionAnalysis.inputOf(bd.b, inputs).toSeq if i != j
    } yield {
      val (ai, bj) = (attrIndex(i, bd.a), attrIndex(j, bd.b))
      val forward = RangeBinding(i, ai, j, bj, bd.lo, bd.hi, bd.real, bd.nanA) // a in [b + lo, b + hi]
      val backward = RangeBinding(j, bj, i, ai, if (bd.hi == Long.MaxValue) Long.MinValue else -bd.hi,
        if (bd.lo == Long.MinValue) Long.MaxValue else -bd.lo, bd.real.map(_.mirror), bd.nanB) // b in [a - hi, a - lo]
      (original, Seq(forward, backward))
    }
    RangePredicates(attrs.toSeq, found.flatMap(_._2), found.map(_._1))
  }
}
