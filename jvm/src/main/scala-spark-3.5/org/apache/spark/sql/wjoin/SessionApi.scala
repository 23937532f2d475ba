package org.apache.spark.sql.wjoin

import org.apache.spark.sql.{Column, DataFrame, Dataset, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StringType
import org.apache.spark.sql.wjoin.StreamingClasses.{IncrementalExecution, StatefulOperatorStateInfo}

/**
 * The session classes as Spark 3.5 has them (Spark 4 has its own copy of this object): one
 * SparkSession and Dataset class, which run plans in this JVM; a Column holds its expression.
 */
object SessionApi {
  /** The session class that runs plans in this JVM. */
  type ClassicSession = SparkSession

  def classicSession(spark: SparkSession): Option[ClassicSession] = Some(spark)

  def analyzedPlan(df: DataFrame): Option[LogicalPlan] = Some(df.queryExecution.analyzed)

  def toDataFrame(spark: ClassicSession, plan: LogicalPlan): DataFrame = Dataset.ofRows(spark, plan)

  def column(expression: Expression): Column = new Column(expression)

  def expression(spark: ClassicSession, column: Column): Expression = column.expr

  /** Spark 3.5 has no collations: `=` on strings is byte equality. */
  def hasBinaryEquality(t: StringType): Boolean = true

  /** The state info of operator `operatorId` with `partitions` stores in micro-batch `ie`. */
  def stateInfo(ie: IncrementalExecution, operatorId: Long, partitions: Int): StatefulOperatorStateInfo =
    StatefulOperatorStateInfo(ie.checkpointLocation, ie.runId, operatorId, ie.currentBatchId, partitions)
}
