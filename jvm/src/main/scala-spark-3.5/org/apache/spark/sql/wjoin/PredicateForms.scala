package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.expressions.Expression

/** Spark 3.5 parses `x BETWEEN a AND b` to `x >= a AND x <= b`: no form of its own to take apart. */
object PredicateForms {
  object Between {
    def unapply(e: Expression): Option[(Expression, Expression, Expression)] = None
  }
}
