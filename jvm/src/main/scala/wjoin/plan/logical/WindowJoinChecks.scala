package wjoin.plan
package logical

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, Literal, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.types.{BooleanType, TimestampType}

import wjoin.core.Algorithm
import wjoin.core.cost.AccessPlanner
import wjoin.errors.WJoinErrors
import wjoin.plan.physical.StreamPartitioning

/**
 * Analysis-time checks of every [[WindowJoin]] once it is resolved, with the conjuncts of the
 * Filters right above it (a SQL W-join's WHERE clause): what [[WindowJoinBuilder]] cannot
 * know from the request alone. Misuse fails before any job runs, naming the input or option.
 *
 * A post-hoc resolution rule that changes nothing, not a check rule: Spark wraps what check
 * rules throw in an `ExtendedAnalysisException`, which keeps the condition but not our SQLSTATE.
 *
 *  - the condition: a boolean; of a left / left_semi / left_anti W-join, no Python UDF over
 *    several inputs ([[PythonConjuncts]]);
 *  - streams: a timestamp time column with a watermark on every input;
 *  - algorithm 'hw': an equality key shared by all inputs;
 *  - forced access paths: each one possible (hash: a key; trees: a band or inequality
 *    predicate on the input; nlw: only scans), by [[AccessPlanner.allowed]], the planner's rule.
 */
object WindowJoinChecks extends Rule[LogicalPlan] with PredicateHelper {
  override def apply(plan: LogicalPlan): LogicalPlan = { check(plan); plan }

  private def check(plan: LogicalPlan): Unit = plan.foreach {
    // Else the node stays unresolved and Spark reports an unresolved operator as an internal error.
    case w: WindowJoin if w.childrenResolved && w.condition.exists(c => c.resolved && c.dataType != BooleanType) =>
      val c = w.condition.get
      WJoinErrors.raise("WJOIN_CONDITION_NOT_BOOLEAN", "condition" -> c.sql, "type" -> c.dataType.simpleString)
    case w: WindowJoin if w.resolved =>
      if (w.isStreaming) checkStreaming(w)
      val python = if (w.how.anchored) PythonConjuncts.overSeveralInputs(w) else Nil
      WJoinErrors.check(python.isEmpty, "WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN",
        Seq("how" -> w.how, "condition" -> python.map(PythonConjuncts.qualifiedSql(w, _)).mkString(" AND ")))
      val condition = conditionWithFiltersAbove(plan, w)
      val analysis = JoinConditionAnalysis(w.children.map(_.outputSet), condition, realKeys = !w.isStreaming)
      // A stream partitioned by band cells is hashed on its cells: HW-join, as auto plans it. The
      // bands' bounds are literals once the optimizer folded their casts: folded here too.
      def byCells = StreamPartitioning.of(w.copy(condition = condition.map(_.transformUp {
        case e if e.foldable && !e.isInstanceOf[Literal] => scala.util.Try(Literal.create(e.eval(), e.dataType)).getOrElse(e)
      }))).isInstanceOf[StreamPartitioning.ByCells]
      WJoinErrors.check(!w.algorithm.contains(Algorithm.HW) || analysis.hasKey || w.isStreaming && byCells,
        "WJOIN_HW_NEEDS_KEY", Nil)
      if (w.access.request.forced.exists(_.isDefined)) {
        val scanOnly = w.algorithm.contains(Algorithm.NLW)
        val ranges = RangePredicates(w.children.map(_.outputSet), analysis.otherConjuncts)
        w.inputNames.indices.foreach(j => AccessPlanner.allowed(j, !scanOnly && analysis.hasKey, ranges.bindings,
          w.access.request, scanOnly, w.inputNames))
      }
    case _ =>
  }

  /** Streams need a watermark on each time column: it is what bounds their state. */
  private def checkStreaming(w: WindowJoin): Unit = w.inputNames.indices.foreach { i =>
    val name = w.inputNames(i)
    val t = w.timeColumns(i) match {
      case a: Attribute => a
      case other => throw new AssertionError(s"time column $other of input $name is not a column")
    }
    WJoinErrors.check(t.dataType == TimestampType, "WJOIN_STREAMING_TIME_TYPE",
      Seq("column" -> t.name, "input" -> name, "type" -> t.dataType.simpleString))
    val watermarked = w.children(i).output.find(_.exprId == t.exprId)
      .exists(_.metadata.contains(EventTimeWatermark.delayKey))
    WJoinErrors.check(watermarked, "WJOIN_MISSING_WATERMARK", Seq("input" -> name, "column" -> t.name))
  }

  /**
   * The W-join's condition and the conjuncts of the Filters stacked right above it that
   * [[PushFiltersIntoWindowJoin]] will merge into it: a SQL W-join's WHERE clause and ON
   * conditions stay Filters until the optimizer runs, and may hold the key.
   */
  private def conditionWithFiltersAbove(plan: LogicalPlan, w: WindowJoin): Option[Expression] = {
    def stackAbove(p: LogicalPlan): Option[Seq[Expression]] = p match {
      case f: Filter if f.child eq w => Some(splitConjunctivePredicates(f.condition))
      case f: Filter => stackAbove(f.child).map(splitConjunctivePredicates(f.condition) ++ _)
      case _ => None
    }
    val above = plan.collectFirst(Function.unlift((p: LogicalPlan) => stackAbove(p))).getOrElse(Nil)
    // Filters above a left / semi / anti W-join stay there (they filter its output).
    val merged = if (w.how.anchored) Nil else above.filter(c => c.deterministic && !PushFiltersIntoWindowJoin.callsPython(c))
    (w.condition.toSeq ++ merged).reduceOption(And)
  }
}
