package org.apache.spark.sql.wjoin

import org.apache.spark.SparkThrowable

/** Spark 3.5 names an error's condition `getErrorClass` (Spark 4, with its own copy of this file: `getCondition`). */
object ThrowableApi {
  def conditionOf(e: SparkThrowable): String = e.getErrorClass

  /** A `SparkThrowable` whose condition is `condition`, under the name this Spark reads. */
  trait WithCondition extends SparkThrowable {
    def condition: String
    override def getErrorClass: String = condition
  }
}
