package wjoin.sql

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/**
 * Gives statements that keep their SQL text the user's text back.
 *
 * CREATE VIEW, ALTER VIEW ... AS, CACHE TABLE ... AS SELECT, SQL functions and others keep
 * the text of their query (Spark re-parses a view's text each time it is read). Spark's
 * parser saw the rewritten text, where each W-join clause is a marker; stored as such, the
 * view would read as a plain cross join. The rewriting kept every position, so any string
 * argument of a plan node that is a piece of the rewritten text covering a clause is
 * replaced by the same piece of the user's text, whichever command holds it: the list of
 * such commands grows with Spark versions, the rule does not need to.
 */
object StoredSqlText {
  def restore(plan: LogicalPlan, rewritten: String, sql: String, clauses: Seq[WindowClause]): LogicalPlan = {
    def original(text: String): Option[String] = {
      val at = rewritten.indexOf(text)
      if (text.isEmpty || at < 0 || !clauses.exists(c => c.start < at + text.length && at < c.end)) None
      else Some(sql.substring(at, at + text.length))
    }
    ParsedPlans.transformDown(plan) { case node =>
      val args = node.productIterator.toArray
      val restored = args.map {
        case text: String => original(text).getOrElse(text)
        case Some(text: String) => original(text).map(Some(_)).getOrElse(Some(text))
        case other => other
      }
      val changed = args.indices.exists(i => restored(i) != args(i))
      if (changed) node.makeCopy(restored.map(_.asInstanceOf[AnyRef])) else node
    }
  }
}
