package org.apache.spark.sql.wjoin

import org.apache.spark.QueryContext
import org.apache.spark.sql.catalyst.expressions.{Expression, TimeAdd}
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SubqueryAlias, UnresolvedWith}
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * The Catalyst classes whose shape changed between Spark releases, as spark-wjoin uses them
 * (Spark 3.5 here; Spark 4.0 and 4.1 to 4.3 have their own copies of this object).
 */
object CatalystApi {
  /** A syntax error at `at` (Spark 3.5's ParseException takes no query context). */
  def parseException(command: Option[String], at: Origin, condition: String, parameters: Map[String, String],
      context: Array[QueryContext]): ParseException =
    new ParseException(command, at, at, condition, parameters)

  /** `e` with other message parameters, at the same place. */
  def withParameters(e: ParseException, parameters: Map[String, String]): ParseException =
    new ParseException(e.command, e.start, e.stop, e.getErrorClass, parameters)

  /** `timestamp + interval` as (timestamp, interval): Spark 3.5 names it `TimeAdd`. */
  object TimestampPlusInterval {
    def unapply(e: Expression): Option[(Expression, Expression)] = e match {
      case TimeAdd(timestamp, interval, _) => Some((timestamp, interval))
      case _ => None
    }
  }

  /** A WITH clause whose queries are `f` of its queries. */
  def mapCteQueries(w: UnresolvedWith)(f: LogicalPlan => LogicalPlan): UnresolvedWith =
    w.copy(cteRelations = w.cteRelations.map { case (name, query) => (name, f(query).asInstanceOf[SubqueryAlias]) })
}
