package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface, SqlStatementSplitResult,
  TemporalIdentifier}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

/**
 * Spark 4.3 adds temporal table identifiers and statement splitting to 4.0's routine
 * parameters, 4.1's parameterized plans and [[DelegatingParserBase]]'s members.
 */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate) {
  override def parsePlanWithParameters(sqlText: String, parameters: ParameterContext): LogicalPlan =
    parseStatement(sqlText)(delegate.parsePlanWithParameters(_, parameters))
  override def parseTemporalTableIdentifier(sqlText: String): TemporalIdentifier =
    delegate.parseTemporalTableIdentifier(sqlText)
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
  override def splitStatements(sqlText: String): SqlStatementSplitResult = delegate.splitStatements(sqlText)
}
