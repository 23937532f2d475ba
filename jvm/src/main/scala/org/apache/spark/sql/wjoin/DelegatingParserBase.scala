package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.{FunctionIdentifier, TableIdentifier}
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.parser.ParserInterface
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.{DataType, StructType}

/**
 * The members of Spark's `ParserInterface` every supported release has (3.5 and 4.x), handed to `delegate`,
 * except the statement parses, which go through [[parseStatement]]. [[DelegatingParser]] (one
 * per release, in the version folders) adds the members a release added.
 *
 * @param delegate the session's parser (Spark's, or the next extension's)
 */
abstract class DelegatingParserBase(delegate: ParserInterface) extends ParserInterface {
  /** Parses `sqlText`, handing the text it does not handle itself to `parse`. */
  protected def parseStatement(sqlText: String)(parse: String => LogicalPlan): LogicalPlan

  override def parsePlan(sqlText: String): LogicalPlan = parseStatement(sqlText)(delegate.parsePlan)
  override def parseQuery(sqlText: String): LogicalPlan = parseStatement(sqlText)(delegate.parseQuery)
  override def parseExpression(sqlText: String): Expression = delegate.parseExpression(sqlText)
  override def parseTableIdentifier(sqlText: String): TableIdentifier = delegate.parseTableIdentifier(sqlText)
  override def parseFunctionIdentifier(sqlText: String): FunctionIdentifier =
    delegate.parseFunctionIdentifier(sqlText)
  override def parseMultipartIdentifier(sqlText: String): Seq[String] = delegate.parseMultipartIdentifier(sqlText)
  override def parseTableSchema(sqlText: String): StructType = delegate.parseTableSchema(sqlText)
  override def parseDataType(sqlText: String): DataType = delegate.parseDataType(sqlText)
}
