package wjoin.plan

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{AttributeSet, Cast, EqualTo, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero
import org.apache.spark.sql.types._

/**
 * Splits a W-join condition into hash keys and a residual predicate.
 *
 * Equalities between expressions of two different inputs are grouped into equivalence
 * classes (A.k = B.k AND B.k = C.k puts A.k, B.k, C.k in one class). A class with exactly one
 * expression from every input, all of one type whose SQL equality is binary equality, is a
 * key component: rows are hash-partitioned and bucketed on it, and its equalities leave the
 * residual. Everything else (other equalities, ranges, UDFs) stays in the residual.
 *
 * Integral columns of different widths (`on="k"` over int and bigint columns) are one class:
 * Spark's type coercion writes `CAST(A.k AS BIGINT) = B.k AND A.k = C.k`, so a widening cast
 * is looked through, and each member is keyed widened to the class's widest type (exact: a
 * widening is injective and keeps equality).
 *
 * With `realKeys` (batch plans), a class of float or double expressions is a key too, each
 * member keyed normalized as Spark's own joins key them (`NormalizeNaNAndZero`: every NaN one
 * NaN, -0.0 as 0.0), so that binary equality of the normalized values is SQL's `=` (NaN = NaN,
 * -0.0 = 0.0). Streams keep such equalities in the residual, where they are a band of reach 0
 * (band cells): the recorded key of an existing checkpoint does not change under it.
 *
 * @param keys            per input, one expression per key component (empty: no shared key)
 * @param keyEqualities   the conjuncts the keys guarantee
 * @param otherConjuncts  the conjuncts the keys do not guarantee
 */
final case class JoinConditionAnalysis(
    keys: Seq[Seq[Expression]],
    keyEqualities: Seq[Expression],
    otherConjuncts: Seq[Expression]) {
  def hasKey: Boolean = keys.nonEmpty && keys.head.nonEmpty
  def allConjuncts: Seq[Expression] = keyEqualities ++ otherConjuncts
}

object JoinConditionAnalysis extends PredicateHelper {
  /** Types whose `=` is equality of their binary (UnsafeRow) form, so hashing is exact. */
  def isHashable(t: DataType): Boolean = t match {
    case ByteType | ShortType | IntegerType | LongType | DateType | TimestampType | TimestampNTZType => true
    case BooleanType | BinaryType => true
    case _: DecimalType => true
    case s: StringType => org.apache.spark.sql.wjoin.SparkBridge.hasBinaryEquality(s)
    case _ => false
  }

  /** Float and double: hashable once normalized ([[realKey]]). */
  def isReal(t: DataType): Boolean = t == FloatType || t == DoubleType

  /** Key `e` of a real type as it is hashed: NaNs as one NaN, -0.0 as 0.0. */
  def realKey(e: Expression): Expression = NormalizeNaNAndZero(e)

  /** `e` without [[realKey]]'s normalization: the column it keys, for statistics and EXPLAIN. */
  def keyColumn(e: Expression): Expression = e match {
    case NormalizeNaNAndZero(child) => child
    case other => other
  }

  /** Integral types, narrowest first. */
  private val Integral: Seq[DataType] = Seq(ByteType, ShortType, IntegerType, LongType)

  /** `e` without the widening casts of integral values type coercion adds. */
  private def unwidened(e: Expression): Expression = e match {
    case c: Cast if Integral.contains(c.dataType) && Integral.contains(c.child.dataType) &&
        Integral.indexOf(c.child.dataType) <= Integral.indexOf(c.dataType) => unwidened(c.child)
    case other => other
  }

  /** The one input whose columns `e` references, if any. */
  def inputOf(e: Expression, inputs: Seq[AttributeSet]): Option[Int] =
    if (e.references.isEmpty || !e.deterministic) None
    else inputs.indexWhere(s => e.references.subsetOf(s)) match { case -1 => None; case i => Some(i) }

  def apply(inputs: Seq[AttributeSet], condition: Option[Expression], realKeys: Boolean = false): JoinConditionAnalysis = {
    val n = inputs.size
    val conjuncts = condition.toSeq.flatMap(splitConjunctivePredicates)
    // Union-find over (input, canonical expression).
    val parent = mutable.LinkedHashMap.empty[(Int, Expression), (Int, Expression)]
    val original = mutable.HashMap.empty[(Int, Expression), Expression]
    def find(x: (Int, Expression)): (Int, Expression) = {
      val p = parent.getOrElseUpdate(x, x)
      if (p == x) x else { val root = find(p); parent(x) = root; root }
    }
    val candidates = conjuncts.flatMap {
      case eq @ EqualTo(wl, wr) if wl.dataType == wr.dataType && (isHashable(wl.dataType) || realKeys && isReal(wl.dataType)) =>
        val (l, r) = (unwidened(wl), unwidened(wr))
        (inputOf(l, inputs), inputOf(r, inputs)) match {
          case (Some(i), Some(j)) if i != j =>
            val (a, b) = ((i, l.canonicalized), (j, r.canonicalized))
            original.getOrElseUpdate(a, l)
            original.getOrElseUpdate(b, r)
            parent(find(a)) = find(b)
            Some((eq, (a, b)))
          case _ => None
        }
      case _ => None
    }
    val classes = parent.keys.toSeq.groupBy(find).values.toSeq
      .filter(members => members.size == n && members.map(_._1).toSet.size == n && {
        val types = members.map(m => original(m).dataType).distinct
        types.size == 1 || types.forall(Integral.contains)
      })
      .sortBy(members => parent.keys.toSeq.indexOf(members.head))
    val inKeyClass = classes.flatten.toSet
    def keyOf(members: Seq[(Int, Expression)], i: Int): Expression = {
      val widest = members.map(m => original(m).dataType).maxBy(t => Integral.indexOf(t))
      val e = original(members.find(_._1 == i).get)
      if (isReal(e.dataType)) realKey(e) else if (e.dataType == widest) e else Cast(e, widest)
    }
    val keys = if (classes.isEmpty) Nil else (0 until n).map(i => classes.map(keyOf(_, i)))
    val guaranteed = candidates.collect { case (eq, (a, b)) if inKeyClass(a) && inKeyClass(b) => eq }
    JoinConditionAnalysis(keys, guaranteed, conjuncts.filterNot(c => guaranteed.exists(_ eq c)))
  }
}
