package wjoin.sql

import java.util.Locale

import scala.collection.mutable

/**
 * One token of a SQL statement: its kind, its text as written and its character span
 * `[start, end)` in the statement.
 */
final case class SqlToken(kind: SqlToken.Kind, text: String, start: Int, end: Int) {
  /** An unquoted word (keyword or identifier), upper-cased; "" for other kinds. */
  def word: String = if (kind == SqlToken.Word) text.toUpperCase(Locale.ROOT) else ""
  def isWord(words: String*): Boolean = kind == SqlToken.Word && words.contains(word)
  def isSymbol(symbol: String): Boolean = kind == SqlToken.Symbol && text == symbol
  /** A name: an unquoted word or a backquoted identifier. */
  def isName: Boolean = kind == SqlToken.Word || kind == SqlToken.QuotedName
  /** The name without backquotes (`` `a``b` `` is a`b). */
  def name: String = if (kind == SqlToken.QuotedName) text.substring(1, text.length - 1).replace("``", "`") else text
  /** How error messages quote the token, like Spark's own syntax errors. */
  def quoted: String = if (kind == SqlToken.End) "end of input" else s"'$text'"
}

object SqlToken {
  sealed trait Kind
  case object Word extends Kind
  case object QuotedName extends Kind
  case object StringLiteral extends Kind
  case object Number extends Kind
  case object Symbol extends Kind
  /** After the last token, so lookahead never runs off the end. */
  case object End extends Kind
}

/**
 * A small lexer for Spark SQL text, just precise enough to find the W-join window clause:
 * it knows what is inside string literals ('...', "...", R'...' raw strings), backquoted
 * names, `--` and nested `/* */` comments (hints included), so a WINDOW inside any of
 * those is never mistaken for a clause. It never fails: text it cannot make sense of (an
 * unterminated string, say) becomes tokens anyway, and the statement goes to Spark's own
 * parser, which reports the error exactly as it would without this extension.
 */
object SqlTokens {
  private val MultiCharSymbols = Seq("<=>", "<=", ">=", "<>", "!=", "==", "=>", "->", "::", "||", "|>", "&&")

  def apply(sql: String): IndexedSeq[SqlToken] = {
    val tokens = mutable.ArrayBuffer.empty[SqlToken]
    val n = sql.length
    var i = 0
    def add(kind: SqlToken.Kind, start: Int, end: Int): Unit = {
      tokens += SqlToken(kind, sql.substring(start, end), start, end)
      i = end
    }
    /**
     * The index after a quoted run starting at `start` (the quote), with `\` escapes unless
     * raw; a doubled quote continues the run (for strings, Spark reads adjacent literals as
     * one, so the span is the same either way).
     */
    def quotedEnd(start: Int, raw: Boolean): Int = {
      val quote = sql.charAt(start)
      var j = start + 1
      while (j < n && (sql.charAt(j) != quote || (j + 1 < n && sql.charAt(j + 1) == quote)))
        j += (if (sql.charAt(j) == quote || (!raw && sql.charAt(j) == '\\')) 2 else 1)
      math.min(j + 1, n)
    }
    while (i < n) {
      val c = sql.charAt(i)
      if (c.isWhitespace) i += 1
      else if (sql.startsWith("--", i)) {
        val eol = sql.indexOf('\n', i)
        i = if (eol < 0) n else eol + 1
      } else if (sql.startsWith("/*", i)) {
        var depth = 0
        var j = i
        while (j < n && !(depth == 1 && sql.startsWith("*/", j))) {
          if (sql.startsWith("/*", j)) { depth += 1; j += 2 }
          else if (sql.startsWith("*/", j)) { depth -= 1; j += 2 }
          else j += 1
        }
        i = math.min(j + 2, n)
      } else if (c == '\'' || c == '"') add(SqlToken.StringLiteral, i, quotedEnd(i, raw = false))
      else if (c == '`') add(SqlToken.QuotedName, i, quotedEnd(i, raw = true))
      else if ((c == 'r' || c == 'R') && i + 1 < n && (sql.charAt(i + 1) == '\'' || sql.charAt(i + 1) == '"'))
        add(SqlToken.StringLiteral, i, quotedEnd(i + 1, raw = true))
      else if (Character.isLetterOrDigit(c) || c == '_') {
        var j = i
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_' ||
          (Character.isDigit(c) && sql.charAt(j) == '.'))) j += 1
        add(if (Character.isDigit(c)) SqlToken.Number else SqlToken.Word, i, j)
      } else {
        val symbol = MultiCharSymbols.find(sql.startsWith(_, i)).getOrElse(c.toString)
        add(SqlToken.Symbol, i, i + symbol.length)
      }
    }
    tokens += SqlToken(SqlToken.End, "", n, n)
    tokens.toIndexedSeq
  }
}
