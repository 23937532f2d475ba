package wjoin.sql

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule

import wjoin.core.{Algorithm, JoinHow}
import wjoin.plan.logical.WindowJoinBuilder
import wjoin.request.{Choice, TimeColumns, WJoinRequest}

/**
 * A W-join written in SQL, before its relations are resolved: what [[WJoinSqlParser]]
 * puts in place of the FROM clause's relations. [[ResolveWindowJoinSql]] turns it into the
 * same [[wjoin.plan.logical.WindowJoin]] that the DataFrame API builds, once every input is resolved.
 *
 * The join predicate is not here: the WHERE clause (and any ON conditions) stay Filters
 * above, and [[wjoin.plan.logical.PushFiltersIntoWindowJoin]] merges them into the join's condition,
 * exactly as for `WJoin(...).toDF.where(...)`.
 *
 * @param inputs      the FROM clause's relations, in order
 * @param inputNames  their names: alias, else table name
 * @param windows     the window terms in the papers' syntax, joined with AND
 * @param timeColumns one time column for all inputs, one per input, or none (each input's
 *                    only timestamp column)
 * With `USING LEFT [OUTER | SEMI | ANTI] JOIN` the ON conditions and the WHERE clause right
 * above are the join predicate itself (as in the papers' syntax), not a filter of the result:
 * they are carried here, in `predicate`, which the analyzer leaves alone (it is not one of
 * the node's expressions) and [[WindowJoinBuilder]] makes the W-join's condition.
 *
 * @param inputs      the FROM clause's relations, in order
 * @param inputNames  their names: alias, else table name
 * @param windows     the window terms in the papers' syntax, joined with AND
 * @param timeColumns one time column for all inputs, one per input, or none (each input's
 *                    only timestamp column)
 * @param algorithm   "auto", "nlw", "hw" or "mw"
 * @param how         "inner", "left", "left_semi" or "left_anti"
 * @param predicate   anchored hows: the join predicate (ON and WHERE), unresolved
 */
case class UnresolvedWindowJoin(
    inputs: Seq[LogicalPlan],
    inputNames: Seq[String],
    windows: String,
    timeColumns: Seq[String],
    algorithm: String,
    how: String = "inner",
    predicate: JoinPredicate = JoinPredicate(None)) extends LogicalPlan {
  override def children: Seq[LogicalPlan] = inputs
  override def output: Seq[Attribute] = Nil
  override lazy val resolved: Boolean = false

  override def simpleString(maxFields: Int): String =
    s"UnresolvedWindowJoin inputs=[${inputNames.mkString(", ")}], windows=$windows" +
      (if (timeColumns.isEmpty) "" else s", time=[${timeColumns.mkString(", ")}]") + s", algorithm=$algorithm" +
      (if (how == "inner") "" else s", how=$how") + predicate.condition.map(c => s", predicate=${c.sql}").getOrElse("")

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[LogicalPlan]): UnresolvedWindowJoin =
    copy(inputs = newChildren)
}

/** A W-join predicate kept out of a node's expressions (so the analyzer does not resolve it there). */
final case class JoinPredicate(condition: Option[Expression])

/**
 * Analyzer rule: an [[UnresolvedWindowJoin]] whose inputs are resolved becomes the request
 * the DataFrame API builds too, and [[WindowJoinBuilder]] makes it the same plan. Its output
 * names follow the session's `spark.wjoin.outputNames` (SQL has no argument for it). Its errors
 * (an unknown time column, contradicting windows, ...) are `WJOIN_` AnalysisExceptions naming
 * the input, column or term, raised while `spark.sql` analyzes the statement.
 */
object ResolveWindowJoinSql extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    // The naming Projects built by this pass (spark.wjoin.outputNames = prefixed), by identity.
    val naming = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[LogicalPlan, java.lang.Boolean])
    plan.resolveOperatorsUp {
      case u: UnresolvedWindowJoin if u.childrenResolved =>
        val built = WindowJoinBuilder.build(WJoinRequest(u.inputs, names = Some(u.inputNames),
          condition = u.predicate.condition, time = TimeColumns.of(u.timeColumns), windows = Some(u.windows),
          algorithm = Choice.parse(u.algorithm, Algorithm, "algorithm"), how = JoinHow.parseOrFail(u.how)))
        built match {
          case p: Project if p.projectList.exists(_.isInstanceOf[Alias]) => naming.add(p)
          case _ =>
        }
        built
      // The WHERE clause and ON conditions right above the W-join are its join predicate, written
      // with the inputs' column names (A.v): they go below the naming, the SELECT list above it.
      case Filter(condition, p: Project) if naming.contains(p) =>
        val swapped = p.copy(child = Filter(condition, p.child))
        naming.add(swapped)
        swapped
    }
  }
}
