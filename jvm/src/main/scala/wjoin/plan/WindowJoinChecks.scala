package wjoin.plan

import org.apache.spark.sql.catalyst.expressions.{And, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}

import wjoin.core.Algorithm

/**
 * Analysis-time checks of every [[WindowJoin]] once it is resolved, so misuse fails before
 * any job runs, naming the input or option at fault.
 */
object WindowJoinChecks extends (LogicalPlan => Unit) with PredicateHelper {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case w: WindowJoin if w.resolved =>
      val streaming = w.children.zip(w.inputNames).filter(_._1.isStreaming).map(_._2)
      require(streaming.isEmpty,
        s"W-join input(s) ${streaming.mkString(", ")} are streaming DataFrames; this version of spark-wjoin " +
          "joins batch DataFrames only (streaming W-join is not available yet)")
      val analysis = JoinConditionAnalysis(w.children.map(_.outputSet), conditionWithFiltersAbove(plan, w))
      require(w.algorithm != Algorithm.HW.name || analysis.hasKey,
        "algorithm 'hw' (hash W-join) needs an equality key shared by all inputs, e.g. on=\"obj_id\" or " +
          s"A.k = B.k AND B.k = C.k over every input; this W-join has none. Use 'auto', 'mw' or 'nlw'.")
    case _ =>
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
    val merged = above.filter(c => c.deterministic && !PushFiltersIntoWindowJoin.callsPython(c))
    (w.condition.toSeq ++ merged).reduceOption(And)
  }
}
