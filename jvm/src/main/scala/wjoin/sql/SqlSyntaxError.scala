package wjoin.sql

import scala.jdk.CollectionConverters._

import org.apache.spark.QueryContext
import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.wjoin.{ParseErrors, ThrowableApi}

/**
 * Syntax errors of the W-join clause, built like Spark's own: a [[ParseException]] of
 * condition PARSE_SYNTAX_ERROR ("Syntax error at or near 'X': why.") whose position (line,
 * column) points at the offending token, and whose message shows the statement with a
 * `^^^` marker under that token.
 */
object SqlSyntaxError {
  def apply(sql: String, at: SqlToken, why: String): ParseException = {
    val (line, column) = lineAndColumn(sql, at.start)
    ParseErrors.parseException(
      Option(sql),
      Origin(line = Some(line), startPosition = Some(column)),
      "PARSE_SYNTAX_ERROR",
      Map("error" -> at.quoted, "hint" -> s": ${why.stripPrefix("requirement failed: ")}"),
      // Not the context of whatever plan node Spark's CurrentOrigin holds at the time.
      Array.empty[QueryContext])
  }

  /**
   * Spark's syntax error `e` with `advice` added to its hint (only for PARSE_SYNTAX_ERROR,
   * whose message is "Syntax error at or near 'X'<hint>.").
   */
  def withAdvice(e: ParseException, advice: String): ParseException =
    if (ThrowableApi.conditionOf(e) != "PARSE_SYNTAX_ERROR") e else {
      val parameters = e.getMessageParameters.asScala.toMap
      val hint = parameters.getOrElse("hint", "")
      ParseErrors.withParameters(e, parameters.updated("hint", if (hint.isEmpty) s": $advice" else s"$hint; $advice"))
    }

  /** Line (from 1) and column (from 0) of a character index, as ANTLR counts them. */
  def lineAndColumn(sql: String, index: Int): (Int, Int) = {
    val before = sql.substring(0, math.min(index, sql.length))
    (before.count(_ == '\n') + 1, before.length - (before.lastIndexOf('\n') + 1))
  }

  /** The character index of an ANTLR (line, column) position. */
  def indexOf(sql: String, line: Int, column: Int): Int = {
    var index = 0
    for (_ <- 1 until line) index = sql.indexOf('\n', index) + 1
    index + column
  }
}
