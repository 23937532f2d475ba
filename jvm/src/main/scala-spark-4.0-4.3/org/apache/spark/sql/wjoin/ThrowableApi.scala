package org.apache.spark.sql.wjoin

import org.apache.spark.SparkThrowable

/** Spark 4 names an error's condition `getCondition` (Spark 3.5, with its own copy of this file: `getErrorClass`). */
object ThrowableApi {
  def conditionOf(e: SparkThrowable): String = e.getCondition

  /** A `SparkThrowable` whose condition is `condition`, under the name this Spark reads. */
  trait WithCondition extends SparkThrowable {
    def condition: String
    override def getCondition: String = condition
  }
}
