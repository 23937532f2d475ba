package wjoin.plan
package logical

import org.apache.spark.sql.catalyst.analysis.UnresolvedFunction
import org.apache.spark.sql.catalyst.expressions.{And, Expression, PredicateHelper}

/**
 * Where the Python UDF conjuncts of a W-join's condition run. Spark evaluates a Python UDF in
 * an operator of its own: its ExtractPythonUDFs computes a UDF over the columns of one child
 * of any node as a column of that child (so the W-join tests it like any other column), and
 * one over several children only in a Filter or a Project above them:
 *
 * {{{
 *   conjunct over            inner                            left / left_semi / left_anti
 *   one input                pushed into that input           in the condition (pushed into the
 *                            (PushFiltersIntoWindowJoin)      input where a condition conjunct
 *                                                             may be, else a column of it)
 *   several inputs           Filter above the W-join:         WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN
 *                            the same answer                  (above, it would test NULL-padded
 *                                                             rows after the anchors were decided)
 * }}}
 *
 * [[WindowJoinBuilder]] places an inner W-join's Python conjuncts above it; the refusal is
 * checked once the condition is resolved ([[WindowJoinChecks]]), for the API and SQL alike.
 */
object PythonConjuncts extends PredicateHelper {
  /** The conjuncts of `condition`, analyzed or not (a Column's `&` is the function `and` until analysis). */
  def split(condition: Expression): Seq[Expression] = condition match {
    case And(l, r) => split(l) ++ split(r)
    case f: UnresolvedFunction if f.nameParts.map(_.toLowerCase(java.util.Locale.ROOT)) == Seq("and") &&
        f.arguments.size == 2 && !f.isDistinct && f.filter.isEmpty => f.arguments.flatMap(split)
    case other => Seq(other)
  }

  /** The conjuncts of a resolved W-join's condition that call Python over the columns of several inputs. */
  def overSeveralInputs(w: WindowJoin): Seq[Expression] =
    w.condition.toSeq.flatMap(splitConjunctivePredicates).filter(c => PushFiltersIntoWindowJoin.callsPython(c) &&
      !w.children.exists(child => c.references.subsetOf(child.outputSet)))

  /** `c` as SQL with each column under its input's name (`f(A.ts, B.ts)`, as the user wrote it). */
  def qualifiedSql(w: WindowJoin, c: Expression): String = WindowJoin.qualifiedSql(c, w.children.map(_.output), w.inputNames)
}
