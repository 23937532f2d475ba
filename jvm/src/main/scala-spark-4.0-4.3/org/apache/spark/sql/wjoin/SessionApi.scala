package org.apache.spark.sql.wjoin

import org.apache.spark.sql.{classic, Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StringType
import org.apache.spark.sql.wjoin.StreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/**
 * The session classes whose shape changed between Spark releases, as [[SparkBridge]] uses them
 * (Spark 4.0 to 4.3 here; Spark 3.5 has its own copy). Spark 4 splits the API from its classic
 * implementation (`org.apache.spark.sql.classic`): plans, columns' expressions and the session's
 * internals are reached through the classic classes.
 */
object SessionApi {
  /** The session class that runs plans in this JVM. */
  type ClassicSession = classic.SparkSession

  def classicSession(spark: SparkSession): Option[ClassicSession] = spark match {
    case s: classic.SparkSession => Some(s)
    case _ => None
  }

  def analyzedPlan(df: DataFrame): Option[LogicalPlan] = df match {
    case d: classic.Dataset[_] => Some(d.queryExecution.analyzed)
    case _ => None
  }

  def toDataFrame(spark: ClassicSession, plan: LogicalPlan): DataFrame = classic.Dataset.ofRows(spark, plan)

  def column(expression: Expression): Column = classic.ExpressionUtils.column(expression)

  def expression(spark: ClassicSession, column: Column): Expression = spark.expression(column)

  /** True for strings whose collation makes `=` byte equality (so hashing them is exact). */
  def hasBinaryEquality(t: StringType): Boolean = t.supportsBinaryEquality

  /** The state info of operator `operatorId` with `partitions` stores in micro-batch `ie`. */
  def stateInfo(ie: IncrementalExecution, operatorId: Long, partitions: Int): StatefulOperatorStateInfo =
    StatefulOperatorStateInfo(ie.checkpointLocation, ie.runId, operatorId, ie.currentBatchId, partitions,
      ie.stateSchemaMetadatas.get(operatorId), ie.currentStateStoreCkptId.get(operatorId))
}
