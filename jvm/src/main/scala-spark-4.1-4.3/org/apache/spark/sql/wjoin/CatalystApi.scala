package org.apache.spark.sql.wjoin

import org.apache.spark.QueryContext
import org.apache.spark.sql.catalyst.expressions.{Expression, TimestampAddInterval}
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SubqueryAlias, UnresolvedWith}
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * The Catalyst classes whose shape changed between Spark releases, as spark-wjoin uses them
 * (Spark 4.1 to 4.3 here; Spark 4.0 has its own copy of this object).
 */
object CatalystApi {
  /** A syntax error at `at` (a ParseException has one position since Spark 4.1). */
  def parseException(command: Option[String], at: Origin, condition: String, parameters: Map[String, String],
      context: Array[QueryContext]): ParseException =
    new ParseException(command, at, condition, parameters, context)

  /** `e` with other message parameters, at the same place. */
  def withParameters(e: ParseException, parameters: Map[String, String]): ParseException =
    new ParseException(e.command, e.start, e.getCondition, parameters, e.getQueryContext)

  /** `timestamp + interval` as (timestamp, interval): Spark 4.1 named it `TimestampAddInterval`. */
  object TimestampPlusInterval {
    def unapply(e: Expression): Option[(Expression, Expression)] = e match {
      case TimestampAddInterval(timestamp, interval, _) => Some((timestamp, interval))
      case _ => None
    }
  }

  /** A WITH clause whose queries are `f` of its queries (each CTE also has a depth since 4.1). */
  def mapCteQueries(w: UnresolvedWith)(f: LogicalPlan => LogicalPlan): UnresolvedWith =
    w.copy(cteRelations = w.cteRelations.map { case (name, query, depth) =>
      (name, f(query).asInstanceOf[SubqueryAlias], depth)
    })
}
