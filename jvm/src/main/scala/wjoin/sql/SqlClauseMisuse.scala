package wjoin.sql

import org.apache.spark.sql.catalyst.trees.Origin

import wjoin.errors.WJoinAnalysisException

/**
 * A misuse in a well-formed window clause — a name that is no input, a negative or unreadable
 * length, an unknown algorithm — is the same `WJOIN_` error the DataFrame API raises for it
 * (so every front end reports one misuse with one condition and SQLSTATE), placed as Spark
 * places its analysis errors in a statement: `; line 2 pos 9` after the message, the line
 * counted from 1 and the position from 0 in it.
 *
 * Only the position, no query context (the statement's fragment): PySpark renders an error
 * that has one through Spark's own catalogue of conditions, which knows no `WJOIN_` condition.
 * What the grammar cannot read stays Spark's syntax error ([[SqlSyntaxError]]).
 */
object SqlClauseMisuse {
  /**
   * @param sql   the user's statement
   * @param at    the first token of the offending text
   * @param error the W-join's error for it
   */
  def apply(sql: String, at: SqlToken, error: WJoinAnalysisException): WJoinAnalysisException = {
    val (line, column) = SqlSyntaxError.lineAndColumn(sql, at.start)
    error.withPosition(Origin(line = Some(line), startPosition = Some(column)))
  }
}
