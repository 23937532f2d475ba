package wjoin.sql

/**
 * One window term as written in SQL: `WINDOW = INTERVAL 1 HOUR`, `WINDOW(A,B) = ...`,
 * `DWINDOW(A,B) = [lo, hi]`, `RANGE(B) = ...`, `ROWS(B) = n`.
 *
 * @param kind   the WINDOW, DWINDOW, RANGE or ROWS token
 * @param names  the input names in parentheses (none for Form 1)
 * @param length the length tokens after `=`, brackets and comma of an interval included
 */
final case class WindowTermSyntax(kind: SqlToken, names: Seq[SqlToken], length: Seq[SqlToken]) {
  /** The term in the papers' syntax, as [[wjoin.core.WindowTermParser]] reads it (and EXPLAIN shows it). */
  def text: String = {
    val inputs = if (names.isEmpty) "" else names.map(n => wjoin.core.WindowTermParser.nameText(n.name)).mkString("(", ",", ")")
    s"${kind.word}$inputs = ${WindowTermSyntax.render(length)}"
  }
}

object WindowTermSyntax {
  /** Tokens as text: single spaces, none inside `[...]` edges, before a comma or after a sign. */
  def render(tokens: Seq[SqlToken]): String = {
    val out = new StringBuilder
    tokens.zipWithIndex.foreach { case (t, i) =>
      val glued = i == 0 || t.isSymbol("]") || t.isSymbol(",") ||
        Seq("[", "-", "+").exists(tokens(i - 1).isSymbol)
      if (!glued) out += ' '
      out ++= t.text
    }
    out.toString
  }
}

/** The event-time columns given by `USING TIME`. */
sealed trait TimeColumnsSyntax
/** `USING TIME ts`: the same column name in every input. */
final case class SameTimeColumn(column: SqlToken) extends TimeColumnsSyntax
/** `USING TIME (A.ts, B.seen_at)`: one qualified column per input; `close` is the `)`. */
final case class TimeColumnPerInput(columns: Seq[(SqlToken, SqlToken)], close: SqlToken) extends TimeColumnsSyntax

/**
 * A W-join clause found in a statement: it follows the relations of a FROM clause and holds
 * the window terms joined by AND, then optionally `USING TIME ...` and `USING ALGORITHM ...`.
 *
 * @param start     character index of the clause's first token
 * @param end       character index after its last token
 * @param terms     the window terms, in order
 * @param time      the event-time columns, if given (else each input's only timestamp column)
 * @param algorithm the algorithm name token, if given (else auto)
 * @param how       `USING LEFT ANTI JOIN` and the like, as the API's how name ("left_anti"); else inner
 */
final case class WindowClause(
    start: Int,
    end: Int,
    terms: Seq[WindowTermSyntax],
    time: Option[TimeColumnsSyntax],
    algorithm: Option[SqlToken],
    how: Option[String] = None) {
  /** The terms in the papers' syntax, joined with AND. */
  def windowsText: String = terms.map(_.text).mkString(" AND ")
}
