package org.apache.spark.sql.wjoin

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic

/**
 * The one place spark-wjoin reaches `private[sql]` members of Spark (pinned to Spark 4.3.0):
 * turning a DataFrame into its analyzed plan and back, and a Column into its expression.
 * A Spark upgrade that moves these touches this file only.
 */
object SparkBridge {
  private def classicSession(spark: SparkSession): classic.SparkSession = spark match {
    case s: classic.SparkSession => s
    case other => throw new IllegalArgumentException(
      s"spark-wjoin runs inside the Spark driver and needs a classic SparkSession, got ${other.getClass.getName} " +
        "(Spark Connect sessions are not supported)")
  }

  def analyzedPlan(df: DataFrame): LogicalPlan = df match {
    case d: classic.Dataset[_] => d.queryExecution.analyzed
    case _ => classicSession(df.sparkSession); throw new IllegalStateException("unreachable")
  }

  def toDataFrame(spark: SparkSession, plan: LogicalPlan): DataFrame =
    classic.Dataset.ofRows(classicSession(spark), plan)

  /** True for strings whose collation makes `=` byte equality (so hashing them is exact). */
  def hasBinaryEquality(t: org.apache.spark.sql.types.StringType): Boolean = t.supportsBinaryEquality

  /** The (unresolved) expression of a Column, converted the way the session's DataFrames do. */
  def expression(spark: SparkSession, column: Column): Expression = classicSession(spark).expression(column)
}
