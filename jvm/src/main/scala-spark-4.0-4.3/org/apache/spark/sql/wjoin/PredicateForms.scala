package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.expressions.{Between => SparkBetween, Expression}

/** Spark 4 keeps `x BETWEEN a AND b` as its own expression until optimization (Spark 3.5 parses it to `x >= a AND x <= b`). */
object PredicateForms {
  /** `input BETWEEN lower AND upper` as (input, lower, upper). */
  object Between {
    def unapply(e: Expression): Option[(Expression, Expression, Expression)] = e match {
      case b: SparkBetween => Some((b.input, b.lower, b.upper))
      case _ => None
    }
  }
}
