package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

/** Spark 4.1 and 4.2 add parameterized plans to [[DelegatingParserBase]]'s members. */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate) {
  override def parsePlanWithParameters(sqlText: String, parameters: ParameterContext): LogicalPlan =
    parseStatement(sqlText)(delegate.parsePlanWithParameters(_, parameters))
}
