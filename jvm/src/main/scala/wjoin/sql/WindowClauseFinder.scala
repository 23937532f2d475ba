package wjoin.sql

import scala.collection.mutable
import scala.util.Try

import wjoin.core.{Algorithm, Durations}
import wjoin.errors.WJoinAnalysisException
import wjoin.request.Choice

/**
 * Finds the W-join clauses of a statement, checking their syntax.
 *
 * Grammar (keywords in any case; a clause ends where the rest of the query begins):
 * {{{
 *   clause  := term (AND term)* (USING TIME time)? (USING ALGORITHM name)? (USING how JOIN)?
 *                                                                 -- options in any order
 *   how     := INNER | LEFT [OUTER] | LEFT SEMI | LEFT ANTI        -- the first input is the anchor
 *   term    := WINDOW = length | WINDOW(A,B) = length | DWINDOW(A,B) = length
 *            | DWINDOW(A,B) = [length, length] | RANGE(A) = length | ROWS(A) = length
 *   length  := INTERVAL 2 MINUTES | INTERVAL '2' MINUTE | 2 minutes | 1 hour 30 minutes | 100
 *   time    := column | (A.column, B.column, ...)
 * }}}
 *
 * Where a clause may start: right after the relations of a FROM clause. A token sequence
 * `WINDOW =` or `KIND(names) =` (KIND one of WINDOW, DWINDOW, RANGE, ROWS) counts as a
 * clause only when (1) the nearest clause keyword before it at the same parenthesis depth
 * is FROM, and (2) the token before it can end a relation (a name, a literal or `)`, not an
 * operator keyword such as AND, ON or LIKE). Spark's grammar has no such sequence there — a
 * relation or its alias is never followed by `name =` or `name(names) =` — so a statement
 * without a W-join never has a clause found, and goes to Spark's parser untouched. In
 * particular Spark's named windows (`WINDOW w AS (...)`), `window(...)` calls in expressions,
 * `range(10)` and columns or aliases called `range`, `rows` or `window` are not clauses.
 *
 * A malformed clause is a [[org.apache.spark.sql.catalyst.parser.ParseException]] pointing
 * at the offending token; a well-formed one with a bad length or an unknown algorithm is the
 * W-join's own error for it, placed at the token ([[SqlClauseMisuse]]).
 */
object WindowClauseFinder {
  private val TermKinds = Seq("WINDOW", "DWINDOW", "RANGE", "ROWS")

  /** Keywords that start a clause of a query: the W-join clause belongs to the FROM clause. */
  private val QueryClauseWords = Set("SELECT", "FROM", "WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER",
    "SORT", "CLUSTER", "DISTRIBUTE", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT", "MINUS", "INSERT", "SET",
    "VALUES", "WITH")

  /** Words after which an operand follows (in a join condition, say), never a W-join clause. */
  private val OperatorWords = Set("AND", "OR", "NOT", "ON", "IS", "IN", "LIKE", "ILIKE", "RLIKE", "REGEXP",
    "BETWEEN", "WHEN", "THEN", "ELSE", "CASE", "DIV", "ESCAPE", "ANY", "SOME", "ALL", "EXISTS", "DISTINCT", "AS",
    "JOIN", "LATERAL", "USING", "BY", "TABLE", "INTERVAL", "COLLATE") ++ QueryClauseWords

  /** What may follow a W-join clause: the rest of the query, or its end. */
  private val FollowingWords = Set("WHERE", "GROUP", "HAVING", "QUALIFY", "WINDOW", "ORDER", "SORT", "CLUSTER",
    "DISTRIBUTE", "LIMIT", "OFFSET", "UNION", "EXCEPT", "INTERSECT", "MINUS", "SELECT", "INSERT")
  private val FollowingSymbols = Seq(")", ";", "|>")

  /** Words that end a window length (besides the following words). */
  private val LengthStopWords = Set("AND", "USING", "JOIN", "ON", "INNER", "CROSS", "LEFT", "RIGHT", "FULL",
    "NATURAL", "LATERAL", "PIVOT", "UNPIVOT", "TABLESAMPLE", "AS") ++ TermKinds

  def apply(sql: String): Seq[WindowClause] = {
    val tokens = SqlTokens(sql)
    val clauses = mutable.ArrayBuffer.empty[WindowClause]
    // Per open parenthesis, the last clause keyword seen at that depth.
    val clauseAtDepth = mutable.Stack("")
    var i = 0
    while (tokens(i).kind != SqlToken.End) {
      val t = tokens(i)
      if (t.isSymbol("(")) { clauseAtDepth.push(""); i += 1 }
      else if (t.isSymbol(")")) { if (clauseAtDepth.size > 1) clauseAtDepth.pop(); i += 1 }
      // A statement, or a pipe operator (FROM t |> WHERE ...), ends: a new clause begins.
      else if (t.isSymbol(";") || t.isSymbol("|>")) { clauseAtDepth(0) = ""; i += 1 }
      else if (clauseAtDepth.top == "FROM" && i > 0 && endsRelation(tokens(i - 1)) && startsTerm(tokens, i)) {
        val (clause, next) = new ClauseParser(sql, tokens, i).parse()
        clauses += clause
        clauseAtDepth(0) = "W-JOIN"
        i = next
      } else {
        if (t.kind == SqlToken.Word && QueryClauseWords(t.word)) clauseAtDepth(0) = t.word
        i += 1
      }
    }
    clauses.toSeq
  }

  private def endsRelation(t: SqlToken): Boolean = t.kind match {
    case SqlToken.Word => !OperatorWords(t.word)
    case SqlToken.QuotedName | SqlToken.StringLiteral | SqlToken.Number => true
    case SqlToken.Symbol => t.text == ")"
    case _ => false
  }

  /** `WINDOW =`, or KIND `(` names separated by commas `)` `=`: the start of a window term. */
  def startsTerm(tokens: IndexedSeq[SqlToken], i: Int): Boolean =
    tokens(i).isWord(TermKinds: _*) && (tokens(i + 1).isSymbol("=") || tokens(i + 1).isSymbol("(") && {
      var j = i + 2
      while (tokens(j).isName || tokens(j).isSymbol(",")) j += 1
      tokens(j).isSymbol(")") && tokens(j + 1).isSymbol("=")
    })

  /** Recursive descent over one clause, from its first token; `parse` returns it and the index after it. */
  private final class ClauseParser(sql: String, tokens: IndexedSeq[SqlToken], first: Int) {
    private var i = first
    private def peek: SqlToken = tokens(i)
    private def next(): SqlToken = { val t = tokens(i); if (t.kind != SqlToken.End) i += 1; t }
    private def fail(at: SqlToken, why: String): Nothing = throw SqlSyntaxError(sql, at, why)
    private def expectSymbol(symbol: String, why: String): SqlToken =
      if (peek.isSymbol(symbol)) next() else fail(peek, why)
    private def expectName(why: String): SqlToken = if (peek.isName) next() else fail(peek, why)

    def parse(): (WindowClause, Int) = {
      val terms = mutable.ArrayBuffer(term())
      while (peek.isWord("AND")) {
        next()
        if (!startsTerm(tokens, i)) fail(peek, "expected another window term after AND (WINDOW, DWINDOW, RANGE " +
          "or ROWS); join conditions go in the WHERE clause")
        terms += term()
      }
      var time: Option[TimeColumnsSyntax] = None
      var algorithm: Option[SqlToken] = None
      var how: Option[(SqlToken, String)] = None
      while (peek.isWord("USING")) {
        next()
        val option = peek
        if (option.isWord("TIME") && time.isEmpty) { next(); time = Some(timeColumns()) }
        else if (option.isWord("ALGORITHM") && algorithm.isEmpty) { next(); algorithm = Some(algorithmName()) }
        else if (option.isWord("INNER", "LEFT") && how.isEmpty) how = Some((option, joinHow()))
        else if (option.isWord("TIME", "ALGORITHM")) fail(option, s"USING ${option.word} is given twice")
        else if (option.isWord("INNER", "LEFT")) fail(option, "USING ... JOIN is given twice")
        else fail(option, "expected TIME or ALGORITHM, or INNER / LEFT [OUTER | SEMI | ANTI] JOIN, after USING in " +
          "the W-join clause")
      }
      val after = peek
      if (!(after.kind == SqlToken.End || after.isWord(FollowingWords.toSeq: _*) ||
          FollowingSymbols.exists(after.isSymbol)))
        fail(after, "unexpected after the W-join clause; it ends the FROM clause (after all its relations) and " +
          "may be followed by AND and another window term, USING TIME, USING ALGORITHM, or WHERE, GROUP BY, " +
          "ORDER BY, ...")
      val clause = WindowClause(tokens(first).start, tokens(i - 1).end, terms.toSeq, time, algorithm, how.map(_._2))
      (clause, i)
    }

    private def term(): WindowTermSyntax = {
      val kind = next()
      val names = mutable.ArrayBuffer.empty[SqlToken]
      if (peek.isSymbol("(")) {
        next()
        names += expectName("expected an input name (the alias of a relation in the FROM clause)")
        while (peek.isSymbol(",")) { next(); names += expectName("expected an input name after ','") }
        expectSymbol(")", "expected ',' or ')' after the input name")
      }
      val arity = kind.word match {
        case "WINDOW" => if (names.isEmpty || names.size == 2) None
          else Some("WINDOW takes no inputs (every pair) or two: WINDOW = <length> or WINDOW(A,B) = <length>")
        case "DWINDOW" => if (names.size == 2) None else Some("DWINDOW takes two inputs: DWINDOW(A,B) = <length>")
        case other => if (names.size == 1) None else Some(s"$other takes one input: $other(B) = <length>")
      }
      arity.foreach(fail(kind, _))
      expectSymbol("=", "expected '=' and a window length")
      val length = if (peek.isSymbol("[")) {
        val open = next()
        val low = lengthTokens()
        val comma = expectSymbol(",", "expected ',' between the low and the high end of the interval [low, high]")
        val high = lengthTokens()
        val close = expectSymbol("]", "expected ']' to close the interval [low, high]")
        Seq(open) ++ low ++ Seq(comma) ++ high ++ Seq(close)
      } else lengthTokens()
      val syntax = WindowTermSyntax(kind, names.toSeq, length)
      if (!kind.isWord("ROWS")) checkLengths(syntax)
      syntax
    }

    /** The tokens of one length: numbers, strings, signs and words up to the next keyword. */
    private def lengthTokens(): Seq[SqlToken] = {
      val start = i
      while (peek.kind == SqlToken.Number || peek.kind == SqlToken.StringLiteral || peek.isSymbol("-") ||
        peek.isSymbol("+") || peek.kind == SqlToken.Word && !LengthStopWords(peek.word) && !FollowingWords(peek.word))
        next()
      if (i == start) fail(peek, "expected a window length such as INTERVAL 5 MINUTES (or a whole number for an " +
        "integral time column)")
      tokens.slice(start, i)
    }

    /**
     * Lengths are checked here, so a bad one points at its position; whether the time
     * columns are timestamps or integral is known only at analysis, so any length valid for
     * either passes ([[wjoin.plan.logical.WindowJoinBuilder]] checks it again against the real columns).
     */
    private def checkLengths(term: WindowTermSyntax): Unit = {
      val ends = term.length.foldLeft(Seq(Seq.empty[SqlToken])) { (parts, t) =>
        if (t.isSymbol("[") || t.isSymbol("]")) parts
        else if (t.isSymbol(",")) parts :+ Seq.empty
        else parts.init :+ (parts.last :+ t)
      }
      // The ends of an interval [lo, hi] may be negative; a single length may not.
      val interval = term.length.exists(_.isSymbol("["))
      def parse(text: String, integralTime: Boolean, what: String): Long =
        if (interval) Durations.parseSigned(text, integralTime, what) else Durations.parse(text, integralTime, what)
      for (end <- ends if end.nonEmpty) {
        val text = WindowTermSyntax.render(end)
        val what = s"window term '${term.text}'"
        val asTimestamp = Try(parse(text, integralTime = false, what))
        lazy val asIntegral = Try(parse(text, integralTime = true, what))
        if (asTimestamp.isFailure && asIntegral.isFailure) {
          val plainNumber = end.size == 1 || end.size == 2 && end.head.isSymbol("-")
          (if (plainNumber) asIntegral else asTimestamp).failed.get match {
            case e: WJoinAnalysisException => throw SqlClauseMisuse(sql, end.head, e)
            case other => fail(end.head, other.getMessage)
          }
        }
      }
    }

    private def timeColumns(): TimeColumnsSyntax =
      if (peek.isSymbol("(")) {
        next()
        val columns = mutable.ArrayBuffer(qualifiedColumn())
        while (peek.isSymbol(",")) { next(); columns += qualifiedColumn() }
        TimeColumnPerInput(columns.toSeq, expectSymbol(")", "expected ',' or ')' in USING TIME (A.ts, B.ts, ...)"))
      } else SameTimeColumn(expectName("expected the event-time column after USING TIME: one name for every " +
        "input (USING TIME ts) or one per input (USING TIME (A.ts, B.seen_at))"))

    private def qualifiedColumn(): (SqlToken, SqlToken) = {
      val input = expectName("expected input.column, e.g. USING TIME (A.ts, B.seen_at)")
      expectSymbol(".", s"expected input.column, e.g. USING TIME (${input.text}.ts, ...)")
      (input, expectName("expected the time column's name after the input name"))
    }

    /** INNER JOIN, LEFT [OUTER] JOIN, LEFT SEMI JOIN or LEFT ANTI JOIN, as the API's how name. */
    private def joinHow(): String = {
      val how = if (next().isWord("INNER")) "inner" else if (peek.isWord("SEMI")) { next(); "left_semi" }
        else if (peek.isWord("ANTI")) { next(); "left_anti" }
        else { if (peek.isWord("OUTER")) next(); "left" }
      if (!peek.isWord("JOIN")) fail(peek, "expected JOIN: USING INNER JOIN, USING LEFT [OUTER] JOIN, USING LEFT " +
        "SEMI JOIN or USING LEFT ANTI JOIN (the first input of the FROM clause is the anchor)")
      next()
      how
    }

    private def algorithmName(): SqlToken = {
      val name = expectName("expected an algorithm after USING ALGORITHM: auto, nlw, hw or mw")
      Try(Choice.parse(name.name, Algorithm, "algorithm")).failed
        .foreach {
          case e: WJoinAnalysisException => throw SqlClauseMisuse(sql, name, e)
          case other => fail(name, other.getMessage)
        }
      name
    }
  }
}
