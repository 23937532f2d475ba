package org.apache.spark.sql.wjoin

import org.apache.spark.connect.proto.{Expression, Relation}
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.sparkproject.connect.protobuf.CodedInputStream

/**
 * What the Spark Connect plugin uses of the server, as Spark 3.5 has it (Spark 4 has its own
 * copy of this file): the planner's session, and parsers with a recursion limit (3.5 has no
 * helper for it: protobuf's own input stream is given the limit).
 */
object ConnectApi {
  /** The session the client's plan runs in. */
  def session(planner: SparkConnectPlanner): SparkSession = planner.sessionHolder.session

  private def limited(bytes: Array[Byte], recursionLimit: Int): CodedInputStream = {
    val in = CodedInputStream.newInstance(bytes)
    in.setRecursionLimit(recursionLimit)
    in
  }

  def parseRelation(bytes: Array[Byte], recursionLimit: Int): Relation =
    Relation.parser().parseFrom(limited(bytes, recursionLimit))

  def parseExpression(bytes: Array[Byte], recursionLimit: Int): Expression =
    Expression.parser().parseFrom(limited(bytes, recursionLimit))
}
