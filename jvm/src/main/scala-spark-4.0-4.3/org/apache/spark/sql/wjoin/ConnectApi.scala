package org.apache.spark.sql.wjoin

import org.apache.spark.connect.proto.{Expression, Relation}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connect.ConnectProtoUtils
import org.apache.spark.sql.connect.planner.SparkConnectPlanner

/**
 * What the Spark Connect plugin uses of the server, as Spark 4 has it (Spark 3.5 has its own
 * copy of this file): the planner's session, and parsers with the server's recursion limit.
 */
object ConnectApi {
  /** The session the client's plan runs in. */
  def session(planner: SparkConnectPlanner): SparkSession = planner.session

  def parseRelation(bytes: Array[Byte], recursionLimit: Int): Relation =
    ConnectProtoUtils.parseRelationWithRecursionLimit(bytes, recursionLimit)

  def parseExpression(bytes: Array[Byte], recursionLimit: Int): Expression =
    ConnectProtoUtils.parseExpressionWithRecursionLimit(bytes, recursionLimit)
}
