package wjoin.plan
package logical

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute, UnresolvedFunction}
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}

import wjoin.core.{JoinHow, StreamRows}

/**
 * Where the Python UDF conjuncts of a W-join's condition run. Spark evaluates a Python UDF in
 * its own operator, which it extracts only from a Filter or a Project, so such a conjunct
 * cannot be tested inside the W-join:
 *
 * {{{
 *   inner                        Filter(udf) above the W-join: the same answer (and the
 *                                optimizer's PushFiltersIntoWindowJoin moves a one-input
 *                                conjunct into its input)
 *   left / left_semi / left_anti over the columns of one input i the W-join may filter first
 *                                (not the anchor, except for left_semi; no ROWS window on i):
 *                                Filter(udf) on input i, as a SQL conjunct over i is pushed
 *                                otherwise                    WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN
 *                                (a Filter above would test NULL-padded rows, after the anchor
 *                                rows were decided)
 * }}}
 *
 * The condition is not analyzed yet: a Column's `&` is still the function `and`, and its
 * columns are names, resolved here against each named input as the analyzer will.
 */
object PythonConjuncts {
  /** The conjuncts of `condition`, analyzed or not. */
  def split(condition: Expression): Seq[Expression] = condition match {
    case And(l, r) => split(l) ++ split(r)
    case f: UnresolvedFunction if f.nameParts.map(_.toLowerCase(java.util.Locale.ROOT)) == Seq("and") &&
        f.arguments.size == 2 && !f.isDistinct && f.filter.isEmpty => f.arguments.flatMap(split)
    case other => Seq(other)
  }

  /**
   * For an anchored W-join, its Python UDF conjuncts as Filters on the inputs they read
   * (`children` with a Filter where one applies), or the conjuncts that cannot be placed.
   *
   * @param conjuncts the conjuncts that call Python
   * @param children  the named inputs
   * @param rowLimits each input's ROWS window (StreamRows.NoLimit if none)
   */
  def placeOnInputs(conjuncts: Seq[Expression], children: Seq[LogicalPlan], how: JoinHow, rowLimits: Array[Long],
      resolver: Resolver): Either[Seq[Expression], Seq[LogicalPlan]] = {
    val placed = conjuncts.map(c => c -> onlyInput(c, children, resolver).filter(i =>
      rowLimits(i) == StreamRows.NoLimit && PushFiltersIntoWindowJoin.mayFilterFirst(how, i)))
    val unplaced = placed.collect { case (c, None) => c }
    if (unplaced.nonEmpty) Left(unplaced)
    else Right(children.indices.map { i =>
      placed.collect { case (c, Some(`i`)) => c }.reduceOption(And).fold(children(i))(Filter(_, children(i)))
    })
  }

  /** The one input whose columns are all the columns of a deterministic conjunct, if any. */
  private def onlyInput(c: Expression, children: Seq[LogicalPlan], resolver: Resolver): Option[Int] = {
    val columns = c.collect { case a: Attribute => a }
    if (!c.deterministic || columns.isEmpty) None else {
      val inputs = columns.map(a => children.indices.filter(i => a match {
        case u: UnresolvedAttribute => Try(children(i).resolve(u.nameParts, resolver)).toOption.flatten.isDefined
        case resolved => children(i).outputSet.contains(resolved)
      }).toSet)
      inputs.reduce(_ intersect _).toSeq match {
        case Seq(i) if inputs.forall(_.size == 1) => Some(i)
        case _ => None
      }
    }
  }
}
