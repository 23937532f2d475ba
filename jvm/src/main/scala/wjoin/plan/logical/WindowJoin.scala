package wjoin.plan
package logical

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeSet, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, LogicalPlan}
import org.apache.spark.sql.types.{BooleanType, MetadataBuilder}

import wjoin.core.shedding.ResourceLimits
import wjoin.core.{Algorithm, Durations, JoinHow, StreamRows, WindowMatrix, WindowStrategy, WindowTerm}
import wjoin.plan.physical.WindowJoinPlanner

/**
 * The window constraints of one W-join: the user's terms (kept for EXPLAIN and errors) and
 * their closed difference-bound matrix, in the unit of the event-time columns.
 *
 * @param terms        the terms as the user wrote them, inputs as indices
 * @param matrix       the closed matrix: upper(i, j) >= ts_i - ts_j, inclusive
 * @param integralTime the time columns are integral (lengths are plain numbers), not timestamps
 * @param strategy     how the engine bounds its periods ([[WindowStrategy]]); the result is the
 *                     same for every strategy
 * @param excluding    combinations that satisfy these constraints too are not produced: the
 *                     second half of a bidirectional path query (the reversed path, excluding
 *                     what the path itself matches), so the union has each combination once
 */
final case class WindowSpec(terms: Seq[WindowTerm], matrix: WindowMatrix, integralTime: Boolean,
    strategy: WindowStrategy = WindowStrategy.Auto, excluding: Option[WindowSpec] = None) {
  /** Per input, its ROWS window length or [[StreamRows.NoLimit]]. */
  @transient lazy val rowLimits: Array[Long] = StreamRows.limits(terms, matrix.n)
  /** Some input has a count-based window: counts are over the whole input, so it is not partitioned. */
  def counted: Boolean = rowLimits.exists(_ != StreamRows.NoLimit)
  /**
   * Rows may be hash-partitioned on a shared key: not with a ROWS window, whose count is over
   * the whole input, across keys (the key still selects hash buckets inside the one partition).
   */
  def partitionedBy(keys: Seq[Seq[Expression]]): Boolean = keys.nonEmpty && !counted

  def describe(names: Seq[String]): String =
    s"${terms.map(_.text).mkString(" AND ")}, matrix=${matrix.render(names, integralTime)}" +
      excluding.map(e => s", excluding ${e.terms.map(_.text).mkString(" AND ")}").getOrElse("")
  def render(length: Long): String = Durations.render(length, integralTime)
}

/**
 * Logical W-join of N >= 2 inputs (Hammad et al. Sec. 3): the bag of N-tuples (r_1..r_N), r_i from
 * child i, for which `condition` holds and ts_i - ts_j <= windows.matrix.upper(i, j) for
 * every pair (all bounds inclusive).
 *
 * {{{
 *            WindowJoin(A, B, C)   output = A.* ++ B.* ++ C.*
 *            /        |        \
 *       child A    child B    child C      (each with its event-time column ts_i)
 * }}}
 *
 * The output is the children's columns in input order (left_semi / left_anti: the first
 * child's only; left: the others' nullable), narrowed to what the parent needs and put in the
 * order it reads them by [[PruneWindowJoinOutput]]; Spark's own ColumnPruning then prunes the children to the
 * output plus the time columns and condition. Filters over single inputs are pushed into
 * them by [[PushFiltersIntoWindowJoin]]; constant folding applies to the condition like to
 * any expression.
 *
 * @param children    the inputs, in order
 * @param inputNames  the inputs' names (aliases), used by window terms, EXPLAIN and errors
 * @param timeColumns the event-time column of each input, one attribute of child i each
 * @param condition   the join predicate over the inputs' columns; equalities in it become
 *                    hash keys at planning time
 * @param windows     the window constraints and their closed matrix
 * @param algorithm   the algorithm asked for; None = auto (the planner chooses,
 *                    [[WindowJoinPlanner]])
 * @param outputColumns the output: columns of the children, in input order or in the order
 *                    the parent projection reads them
 * @param access      access paths and expiration interval asked for, parsed and checked
 *                    where the node is built ([[AccessOptions.parse]])
 * @param how         what is emitted ([[JoinHow]]; the first input is the anchor): inner, the
 *                    bag above; left, the bag plus each first-input row in no combination with
 *                    NULLs for the others (whose columns are then nullable); left_semi /
 *                    left_anti, each first-input row in some / no combination, its own columns
 *                    only ([[WindowJoin.outputOf]])
 * @param limits      resource limits (inner W-join, batch): then a sub-bag of the bag above,
 *                    shed as [[wjoin.core.shedding.ShedPlan]] says (Kang et al. Sec. 5.2)
 * @param conditionAbove the conjuncts of the user's condition that Spark evaluates in a Filter
 *                    above the node (an inner W-join's Python UDFs, [[PythonConjuncts]]), as
 *                    text: a stream records them with its state
 */
case class WindowJoin(
    children: Seq[LogicalPlan],
    inputNames: Seq[String],
    timeColumns: Seq[Expression],
    condition: Option[Expression],
    windows: WindowSpec,
    algorithm: Option[Algorithm],
    outputColumns: Seq[Attribute],
    access: AccessSpec,
    how: JoinHow = JoinHow.Inner,
    limits: Option[ResourceLimits] = None,
    conditionAbove: Seq[String] = Nil) extends LogicalPlan {

  /**
   * The output columns; a left W-join's columns of the other inputs are nullable. That is
   * stated here, not only in `outputColumns`: Spark's analyzer resets the nullability of a
   * node's attribute expressions to its children's (UpdateAttributeNullability).
   */
  override def output: Seq[Attribute] =
    if (how != JoinHow.LeftOuter) outputColumns
    else {
      val anchor = children.head.outputSet
      outputColumns.map(a => if (anchor.contains(a)) a else a.withNullability(true))
    }

  /**
   * The columns the node reads: its expressions', and every column of an input with a ROWS
   * window. Rows of such an input at one time are ordered by their other columns (see
   * `BaseWindowJoinExec.arrivalOrdering`), so column pruning must leave them all: pruned to
   * what the query selects, the order, and so which rows are in the window, would depend on it.
   */
  override lazy val references: AttributeSet =
    AttributeSet(expressions.flatMap(_.references) ++
      children.indices.filter(windows.rowLimits(_) != StreamRows.NoLimit).flatMap(children(_).output)) -- producedAttributes

  override lazy val resolved: Boolean =
    childrenResolved && expressions.forall(_.resolved) && condition.forall(_.dataType == BooleanType)

  override def maxRows: Option[Long] = None

  override def simpleString(maxFields: Int): String =
    s"WindowJoin ${if (how.anchored) s"$how " else ""}${algorithmName}${if (windows.strategy == WindowStrategy.Auto) "" else s" ${windows.strategy}"}, inputs=[${inputNames.mkString(", ")}], " +
      s"time=[${timeColumns.map(_.sql).mkString(", ")}], windows=${windows.describe(inputNames)}" +
      condition.map(c => s", condition=${c.sql}").getOrElse("") +
      (if (access.isDefault) "" else s", ${access.describe(inputNames, windows.integralTime)}") +
      limits.fold("")(l => s", limits=[${l.describe(inputNames)}]")

  /** The algorithm's name as the user gives it: "auto", "nlw", "hw" or "mw". */
  def algorithmName: String = algorithm.fold("auto")(_.name)

  /**
   * EXPLAIN's cost mode (`df.explain("cost")`, `EXPLAIN COST`) prints the optimized logical
   * plan with this suffix: Spark's statistics, then the access paths, probe orders and the
   * unit-time cost of the chosen plan and of the runner-up.
   */
  override def verboseStringWithSuffix(maxFields: Int): String = {
    val planned = if (!resolved) "" else WindowJoinPlanner.describe(this)
    super.verboseStringWithSuffix(maxFields) + planned
  }

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[LogicalPlan]): WindowJoin =
    copy(children = newChildren)
}

object WindowJoin {
  /**
   * `e` as SQL with each column under its input's name (`f(A.ts, B.ts)`, as the user writes
   * it; expression ids differ on every run): `columns(i)` are input i's, named `names(i)`.
   * Columns not resolved yet (`col("A.v")`) are left as written.
   */
  def qualifiedSql(e: Expression, columns: Seq[Seq[Attribute]], names: Seq[String]): String = e.transform {
    case a: Attribute if a.resolved => columns.indexWhere(_.exists(_.exprId == a.exprId)) match {
      case -1 => UnresolvedAttribute(Seq(a.name))
      case i => UnresolvedAttribute(Seq(names(i), a.name))
    }
  }.sql

  /**
   * The output columns of a W-join over `children`: all their columns, of which only the
   * first input's time column keeps its watermark (event-time) metadata. Spark's stateful
   * operators downstream accept one event-time column, and the W-join's output watermark
   * is stated for that one (see `StreamingWindowJoinExec.produceOutputWatermark`).
   */
  def outputOf(children: Seq[LogicalPlan], firstTime: Expression, how: JoinHow = JoinHow.Inner): Seq[Attribute] = {
    val keep = firstTime match { case a: Attribute => Some(a.exprId); case _ => None }
    val columns = how match {
      case JoinHow.Inner => children.flatMap(_.output)
      case JoinHow.LeftOuter => children.head.output ++ children.tail.flatMap(_.output.map(_.withNullability(true)))
      case JoinHow.LeftSemi | JoinHow.LeftAnti => children.head.output
    }
    columns.map { a =>
      if (!a.metadata.contains(EventTimeWatermark.delayKey) || keep.contains(a.exprId)) a
      else a.withMetadata(new MetadataBuilder().withMetadata(a.metadata).remove(EventTimeWatermark.delayKey).build())
    }
  }
}
