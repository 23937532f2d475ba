package wjoin.plan

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

import wjoin.core.RangeBinding

/**
 * The band and inequality predicates of a W-join condition that an ordered index (T-tree,
 * B+tree) can answer (access paths). A conjunct qualifies when it compares, between two inputs,
 * a column of each (integral, date or timestamp, optionally widened by a cast) plus integral
 * constants:
 *
 * {{{
 *   abs(A.x - B.x) <= d   (or < d)           A.x - B.x in [-d, d]
 *   A.x < B.x, <=, >, >=, = (with +- c)       A.x - B.x in [.., ..], one side unbounded
 *   A.x BETWEEN B.x - 5 AND B.x + 5           (two conjuncts after analysis) each one side
 *   A.x >= B.x - c AND A.x <= B.x + c         likewise
 * }}}
 *
 * Each gives two [[RangeBinding]]s (search A's index from B's row and B's from A's). The
 * conjunct itself stays in the residual: the index only narrows the candidates, so results
 * are exact whatever the arithmetic does at the edges (Spark's overflow of `A.x - B.x` raises
 * an error in ANSI mode; in legacy mode the residual decides as before on the candidates).
 *
 * @param attributes per input, its range attributes (numbered as in the bindings)
 * @param bindings   the bindings, two per recognised conjunct
 * @param conjuncts  per binding pair, the conjunct it came from (for EXPLAIN)
 */
final case class RangePredicates(attributes: Seq[Seq[Expression]], bindings: Seq[RangeBinding],
    conjuncts: Seq[Expression]) {
  def isEmpty: Boolean = bindings.isEmpty
  /** The attribute input j's tree is built on, as SQL. */
  def attributeSql(j: Int, attr: Int): String = attributes(j)(attr).sql
}

object RangePredicates extends PredicateHelper {

  def none(n: Int): RangePredicates = RangePredicates(Seq.fill(n)(Nil), Nil, Nil)

  /** Types whose values the engine reads as one Long preserving order. */
  def isRangeType(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case _ => false
  }

  /** `column + constant`: the column (under widening casts) and the constant. */
  private def affine(e: Expression): Option[(Expression, Long)] = e match {
    case a: Attribute if isRangeType(a.dataType) => Some((a, 0L))
    case Cast(child, to, _, _) if isRangeType(to) && isRangeType(child.dataType) && widens(child.dataType, to) =>
      affine(child)
    case Add(l, IntegralConstant(c), _) => affine(l).map { case (a, k) => (a, RangeBinding.plus(k, c)) }
    case Add(IntegralConstant(c), r, _) => affine(r).map { case (a, k) => (a, RangeBinding.plus(k, c)) }
    case Subtract(l, IntegralConstant(c), _) if c != Long.MinValue => affine(l).map { case (a, k) => (a, RangeBinding.plus(k, -c)) }
    case _ => None
  }

  private def widens(from: DataType, to: DataType): Boolean = (from, to) match {
    case (a, b) if a == b => true
    case (ByteType | ShortType | IntegerType, IntegerType | LongType) => true
    case (ByteType, ShortType) => true
    case (DateType, _) | (_, DateType) => false
    case (TimestampType | TimestampNTZType, TimestampType | TimestampNTZType) => true
    case _ => false
  }

  private object IntegralConstant {
    /** A constant integral expression (a literal, or one under the analyzer's casts). */
    def unapply(e: Expression): Option[Long] = e.dataType match {
      case ByteType | ShortType | IntegerType | LongType if e.foldable && e.deterministic =>
        scala.util.Try(e.eval()).toOption.collect { case v: java.lang.Number => v.longValue() }
      case _ => None
    }
  }

  /**
   * lo <= a - b <= hi for the two columns of a conjunct, as (a, b, lo, hi) with the constants
   * moved to the right; None when the conjunct is not of a recognised shape.
   */
  private def band(c: Expression): Option[(Expression, Expression, Long, Long)] = {
    val Min = Long.MinValue
    val Max = Long.MaxValue
    def diff(l: Expression, r: Expression): Option[(Expression, Expression, Long)] = for {
      (a, ka) <- affine(l); (b, kb) <- affine(r)
    } yield (a, b, RangeBinding.plus(kb, if (ka == Min) Max else -ka)) // a - b (op) kb - ka
    def dec(k: Long) = if (k == Min) Min else k - 1
    def inc(k: Long) = if (k == Max) Max else k + 1
    c match {
      case LessThanOrEqual(Abs(Subtract(l, r, _), _), IntegralConstant(d)) if d >= 0 =>
        diff(l, r).map { case (a, b, k) => (a, b, RangeBinding.plus(k, -d), RangeBinding.plus(k, d)) }
      case LessThan(Abs(Subtract(l, r, _), _), IntegralConstant(d)) if d > 0 =>
        diff(l, r).map { case (a, b, k) => (a, b, RangeBinding.plus(k, 1 - d), RangeBinding.plus(k, d - 1)) }
      case GreaterThanOrEqual(IntegralConstant(d), abs @ Abs(_, _)) => band(LessThanOrEqual(abs, Literal(d)))
      case GreaterThan(IntegralConstant(d), abs @ Abs(_, _)) => band(LessThan(abs, Literal(d)))
      case LessThan(l, r) => diff(l, r).map { case (a, b, k) => (a, b, Min, dec(k)) }
      case LessThanOrEqual(l, r) => diff(l, r).map { case (a, b, k) => (a, b, Min, k) }
      case GreaterThan(l, r) => diff(l, r).map { case (a, b, k) => (a, b, inc(k), Max) }
      case GreaterThanOrEqual(l, r) => diff(l, r).map { case (a, b, k) => (a, b, k, Max) }
      case EqualTo(l, r) => diff(l, r).map { case (a, b, k) => (a, b, k, k) }
      case _ => None
    }
  }

  /**
   * Recognises the band predicates among `conjuncts` (those not guaranteed by hash keys).
   * Both columns must be of one kind (integral with integral, date with date, timestamps).
   */
  def apply(inputs: Seq[AttributeSet], conjuncts: Seq[Expression]): RangePredicates = {
    val n = inputs.size
    val attrs = Array.fill(n)(Vector.empty[Expression])
    def attrIndex(i: Int, e: Expression): Int = {
      val k = attrs(i).indexWhere(_.semanticEquals(e))
      if (k >= 0) k else { attrs(i) = attrs(i) :+ e; attrs(i).size - 1 }
    }
    def kind(t: DataType) = t match {
      case DateType => 1
      case TimestampType | TimestampNTZType => 2
      case _ => 0
    }
    val found = for {
      c <- conjuncts if c.deterministic
      (a, b, lo, hi) <- band(c).toSeq if lo <= hi && kind(a.dataType) == kind(b.dataType)
      i <- JoinConditionAnalysis.inputOf(a, inputs).toSeq
      j <- JoinConditionAnalysis.inputOf(b, inputs).toSeq if i != j
    } yield {
      val (ai, bj) = (attrIndex(i, a), attrIndex(j, b))
      val forward = RangeBinding(i, ai, j, bj, lo, hi) // a in [b + lo, b + hi]
      val backward = RangeBinding(j, bj, i, ai, if (hi == Long.MaxValue) Long.MinValue else -hi,
        if (lo == Long.MinValue) Long.MaxValue else -lo) // b in [a - hi, a - lo]
      (c, Seq(forward, backward))
    }
    RangePredicates(attrs.toSeq, found.flatMap(_._2), found.map(_._1))
  }
}
