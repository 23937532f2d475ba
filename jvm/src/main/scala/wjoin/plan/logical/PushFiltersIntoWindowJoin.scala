package wjoin.plan
package logical

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, PredicateHelper, PythonFuncExpression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule

import wjoin.core.{JoinHow, StreamRows}

/**
 * Filter push-down for [[WindowJoin]], as Spark's PushPredicateThroughJoin does for inner
 * joins: a deterministic conjunct over one input's columns moves into that input (fewer rows
 * to buffer); a deterministic conjunct over several inputs joins the W-join condition (it is
 * then tested as soon as its inputs are bound); anything else stays where it is, and so does
 * a Python UDF over several inputs (Spark evaluates Python UDFs in their own operator, which it
 * can only extract from a Filter or Project).
 *
 * Left, left_semi and left_anti W-joins (the first input is the anchor), as Spark pushes
 * through outer and semi joins: a filter above moves only into the anchor (its other
 * conjuncts test NULL-padded rows of a left join and stay above); a conjunct of the join
 * condition over one input moves into that input unless it is the anchor (an anchor row that
 * fails it is still output by left and left_anti), except for left_semi, where it may (Python
 * UDFs included: [[PythonConjuncts]]).
 *
 * On streams nothing moves into an input (`intoInputs`): the conjuncts of the condition and of
 * an inner W-join's filters above stay in the condition, which is recorded with the state, so a
 * restart that changes them is refused ([[wjoin.exec.state.StateQuery]]); an anchored
 * W-join's filters above stay above and apply to combinations, so changing them is exact.
 * Pushed into an input, a conjunct would decide which rows enter the state, and rows buffered
 * under the old one would still join after a restart under a new one. The streaming node
 * still drops an input's rows that fail its conjuncts as they arrive
 * ([[wjoin.exec.streaming.ArrivalFilters]]).
 */
object PushFiltersIntoWindowJoin extends Rule[LogicalPlan] with PredicateHelper {
  def callsPython(e: Expression): Boolean = e.exists(_.isInstanceOf[PythonFuncExpression])

  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case Filter(filterCondition, w: WindowJoin) if w.resolved && w.how.anchored =>
      val (anchor, rest) = splitConjunctivePredicates(filterCondition).partition(anchorOnly(w, _))
      if (anchor.isEmpty) Filter(filterCondition, w) else {
        val pushed = w.copy(children = Filter(anchor.reduce(And), w.children.head) +: w.children.tail)
        if (rest.isEmpty) pushed else Filter(rest.reduce(And), pushed)
      }
    case Filter(filterCondition, w: WindowJoin) if w.resolved =>
      val (deterministic, rest) = splitConjunctivePredicates(filterCondition).partition(c =>
        c.deterministic && (!callsPython(c) || isSingleInput(w, c)))
      if (deterministic.isEmpty) Filter(filterCondition, w) else {
        val pushed = pushInto(w, deterministic)
        if (rest.isEmpty) pushed else Filter(rest.reduce(And), pushed)
      }
    case w: WindowJoin if w.resolved && w.condition.exists(splitConjunctivePredicates(_).exists(isSingleInput(w, _))) =>
      pushInto(w.copy(condition = None), splitConjunctivePredicates(w.condition.get))
  }

  /**
   * A deterministic conjunct over the columns of one input only, which may move below the
   * W-join. Not into an input with a ROWS window: its window is the last k rows of the input
   * as given, and filtering first would count other rows.
   */
  private def isSingleInput(w: WindowJoin, c: Expression): Boolean = {
    val limits = w.windows.rowLimits
    intoInputs(w) && c.deterministic && c.references.nonEmpty && w.children.indices.exists(i =>
      mayDropRows(w.how, i, limits(i)) && c.references.subsetOf(w.children(i).outputSet))
  }

  /** Whether conjuncts may move into the inputs at all: a batch W-join's (see the object's comment). */
  private def intoInputs(w: WindowJoin): Boolean = !w.isStreaming

  /** A condition conjunct may filter input i first: any input of an inner or left_semi W-join, else not the anchor. */
  private def mayFilter(w: WindowJoin, i: Int): Boolean = mayDropRows(w.how, i, StreamRows.NoLimit)

  /**
   * Whether a conjunct over input i's own columns may drop that input's rows before the W-join
   * (here by moving below it; on streams as they arrive, [[wjoin.exec.streaming.ArrivalFilters]]):
   * any input of an inner or left_semi W-join but not the anchor of left and left_anti, and no
   * input with a ROWS window (`rowLimit`), which counts every row of its input.
   */
  def mayDropRows(how: JoinHow, i: Int, rowLimit: Long): Boolean =
    rowLimit == StreamRows.NoLimit && (i > 0 || how == JoinHow.Inner || how == JoinHow.LeftSemi)

  /** Only the anchor's own rows: the anchor has no ROWS window. */
  private def anchorOnly(w: WindowJoin, c: Expression): Boolean = {
    intoInputs(w) && c.deterministic && c.references.nonEmpty && w.windows.rowLimits(0) == StreamRows.NoLimit &&
      c.references.subsetOf(w.children.head.outputSet)
  }

  private def pushInto(w: WindowJoin, conjuncts: Seq[Expression]): WindowJoin = {
    val (single, multi) = conjuncts.partition(isSingleInput(w, _))
    val children = w.children.zipWithIndex.map { case (child, i) =>
      val mine = if (!mayFilter(w, i)) Nil else single.filter(_.references.subsetOf(child.outputSet))
      if (mine.isEmpty) child else Filter(mine.reduce(And), child)
    }
    val condition = (w.condition.toSeq.flatMap(splitConjunctivePredicates) ++ multi).reduceOption(And)
    w.copy(children = children, condition = condition)
  }
}

/**
 * Narrows a [[WindowJoin]]'s output to the columns its parent projection uses (a count needs
 * none), so each combination costs only those columns and ColumnPruning can prune the inputs,
 * and orders them as the projection first reads them: a projection that only selects columns
 * (`df.select("k", "A.ts", ...)`) then has its child's output, and Spark's RemoveNoopOperators
 * removes it, so each combination is written once, in the order asked for.
 */
object PruneWindowJoinOutput extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case p @ Project(list, w: WindowJoin) if w.resolved && list.forall(_.resolved) =>
      // In the order the expressions name them; then what only subqueries reference.
      val read = (list.flatMap(_.collect { case a: Attribute => a }) ++ list.flatMap(_.references)).map(_.exprId).distinct
      val columns = read.flatMap(id => w.outputColumns.find(_.exprId == id))
      if (columns == w.outputColumns) p else p.copy(child = w.copy(outputColumns = columns))
  }
}
