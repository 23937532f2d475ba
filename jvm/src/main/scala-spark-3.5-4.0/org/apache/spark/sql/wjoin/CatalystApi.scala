package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.expressions.{Expression, TimeAdd}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SubqueryAlias, UnresolvedWith}

/**
 * The Catalyst classes whose shape changed between Spark releases, as spark-wjoin uses them
 * (Spark 3.5 and 4.0 here; Spark 4.1 to 4.3 have their own copy of this object).
 */
object CatalystApi {
  /** `timestamp + interval` as (timestamp, interval, session time zone): Spark 3.5 and 4.0 name it `TimeAdd`. */
  object TimestampPlusInterval {
    def unapply(e: Expression): Option[(Expression, Expression, Option[String])] = e match {
      case TimeAdd(timestamp, interval, zone) => Some((timestamp, interval, zone))
      case _ => None
    }
  }

  /** A WITH clause whose queries are `f` of its queries. */
  def mapCteQueries(w: UnresolvedWith)(f: LogicalPlan => LogicalPlan): UnresolvedWith =
    w.copy(cteRelations = w.cteRelations.map { case (name, query) => (name, f(query).asInstanceOf[SubqueryAlias]) })
}
