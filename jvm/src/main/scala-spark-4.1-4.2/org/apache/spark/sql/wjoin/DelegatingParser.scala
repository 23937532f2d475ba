package org.apache.spark.sql.wjoin

import org.apache.spark.sql.catalyst.parser.{ParameterContext, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.types.StructType

/** Spark 4.1 and 4.2: 4.0's routine parameters and parameterized plans, and [[DelegatingParserBase]]'s members. */
abstract class DelegatingParser(delegate: ParserInterface) extends DelegatingParserBase(delegate) {
  override def parsePlanWithParameters(sqlText: String, parameters: ParameterContext): LogicalPlan =
    parseStatement(sqlText)(delegate.parsePlanWithParameters(_, parameters))
  override def parseRoutineParam(sqlText: String): StructType = delegate.parseRoutineParam(sqlText)
}
