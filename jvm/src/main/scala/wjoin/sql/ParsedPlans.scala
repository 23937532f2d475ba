package wjoin.sql

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, UnresolvedWith}
import org.apache.spark.sql.wjoin.CatalystApi

/**
 * A top-down transformation of a parsed statement that reaches every query in it, wherever
 * Spark's parser put it: children, subquery expressions, CTE definitions (which are not
 * children of their WITH node) and plan arguments that are not children (EXPLAIN's query).
 */
object ParsedPlans {
  def transformDown(plan: LogicalPlan)(rule: PartialFunction[LogicalPlan, LogicalPlan]): LogicalPlan = {
    def visit(p: LogicalPlan): LogicalPlan =
      p.transformDownWithSubqueries { case node => innerPlans(rule.applyOrElse(node, identity[LogicalPlan]), visit) }
    visit(plan)
  }

  private def innerPlans(node: LogicalPlan, visit: LogicalPlan => LogicalPlan): LogicalPlan = node match {
    case w: UnresolvedWith => CatalystApi.mapCteQueries(w)(visit)
    case _ =>
      val args = node.productIterator.toArray
      val visited = args.map {
        case p: LogicalPlan if !node.children.exists(_ eq p) => visit(p)
        case other => other
      }
      if (args.indices.forall(i => visited(i).asInstanceOf[AnyRef] eq args(i).asInstanceOf[AnyRef])) node
      else node.makeCopy(visited.map(_.asInstanceOf[AnyRef]))
  }
}
