package org.apache.spark.sql.wjoin

import org.apache.spark.QueryContext
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin

/** Syntax errors as Spark 4.1 to 4.3 build them: one position. */
object ParseErrors {
  /** A syntax error at `at`. */
  def parseException(command: Option[String], at: Origin, condition: String, parameters: Map[String, String],
      context: Array[QueryContext]): ParseException =
    new ParseException(command, at, condition, parameters, context)

  /** `e` with other message parameters, at the same place. */
  def withParameters(e: ParseException, parameters: Map[String, String]): ParseException =
    new ParseException(e.command, e.start, e.getCondition, parameters, e.getQueryContext)
}
