package wjoin.core

import java.util.Locale

import scala.collection.mutable

import wjoin.errors.WJoinErrors

/**
 * One window term as the user wrote it, with inputs as indices. All bounds are inclusive
 * and in the unit of the event-time columns.
 */
sealed trait WindowTerm {
  /** The term as written by the user; errors and EXPLAIN quote it. */
  def text: String
  /** Difference bounds (i, j, c) meaning ts_i - ts_j <= c. */
  def bounds(n: Int): Seq[(Int, Int, Long)]
}

/** Form 1: abs(ts_i - ts_j) <= w for every pair. */
final case class UniformWindow(w: Long, text: String) extends WindowTerm {
  def bounds(n: Int): Seq[(Int, Int, Long)] = for (i <- 0 until n; j <- 0 until n if i != j) yield (i, j, w)
}

/** Form 2: abs(ts_a - ts_b) <= w. */
final case class PairWindow(a: Int, b: Int, w: Long, text: String) extends WindowTerm {
  def bounds(n: Int): Seq[(Int, Int, Long)] = Seq((a, b, w), (b, a, w))
}

/** Directed window / travel-time interval: lo <= ts_b - ts_a <= hi. */
final case class DirectedWindow(a: Int, b: Int, lo: Long, hi: Long, text: String) extends WindowTerm {
  def bounds(n: Int): Seq[(Int, Int, Long)] = Seq((b, a, hi), (a, b, -lo))
}

/**
 * Per-stream time-based sliding window (Golab & Özsu, Kang et al.): input b's member is in
 * b's window at the time of the combination's newest member, max(ts) - ts_b <= t, i.e.
 * ts_i - ts_b <= t for every other input i.
 */
final case class StreamRange(b: Int, t: Long, text: String) extends WindowTerm {
  def bounds(n: Int): Seq[(Int, Int, Long)] = for (i <- 0 until n if i != b) yield (i, b, t)
}

/**
 * Per-stream count-based sliding window (Golab & Özsu Sec. 3.6, Kang et al.): input b's
 * member is among the last `rows` rows of b at the time of the combination's newest member.
 * Rows are ordered by event time, ties by arrival (the engine's merge order: time, then
 * input index, then the order within the input). It bounds no time difference, so it adds no
 * matrix bound; the engine counts (see [[WJoinEngine]]). b's rows leave after `rows` newer
 * rows of b arrived, which is what bounds b's state when no time window does.
 */
final case class StreamRows(b: Int, rows: Long, text: String) extends WindowTerm {
  assert(rows >= 1, s"window term '$text': a ROWS window holds at least 1 row, got $rows")
  def bounds(n: Int): Seq[(Int, Int, Long)] = Nil
}

object StreamRows {
  /** Per input, the smallest ROWS window on it, or [[NoLimit]]. */
  def limits(terms: Seq[WindowTerm], n: Int): Array[Long] = {
    val out = Array.fill(n)(NoLimit)
    terms.foreach { case StreamRows(b, rows, _) => out(b) = math.min(out(b), rows); case _ => }
    out
  }
  val NoLimit: Long = Long.MaxValue
}

/**
 * Turns the papers' window syntax into [[WindowTerm]]s:
 * {{{
 *   WINDOW = 1 hour                                   -- Form 1
 *   WINDOW(A,B) = 5 minutes AND WINDOW(B,C) = 10 minutes
 *   DWINDOW(A,B) = 2 minutes                          -- 0 <= ts_B - ts_A <= 2 minutes
 *   DWINDOW(A,B) = [30 seconds, 2 minutes]            -- 30 s <= ts_B - ts_A <= 2 min
 *   RANGE(B) = 10 minutes                             -- max(ts) - ts_B <= 10 minutes
 *   ROWS(B) = 1000                                    -- B's row among B's last 1000 rows
 * }}}
 */
object WindowTermParser {
  /** An input name in a term: a plain name, or any name between backquotes (`` ` `` doubled inside). */
  private val Name = """(`(?:[^`]|``)+`|[^,()\s`]+)"""
  private val Term =
    s"""(?is)\\s*(WINDOW|DWINDOW)\\s*(?:\\(\\s*$Name\\s*,\\s*$Name\\s*\\))?\\s*=\\s*(.+?)\\s*""".r
  private val PerStream = s"""(?is)\\s*(RANGE|ROWS)\\s*\\(\\s*$Name\\s*\\)\\s*=\\s*(.+?)\\s*""".r
  private val PlainName = """[\p{L}\p{N}_]+""".r

  /**
   * `name` as a term writes it: as is when it is letters, digits and '_', else between
   * backquotes (`WINDOW(`Cam 1`,B) = 5`), so every input name can be written in a term, and a
   * name is never read as the terms' grammar. The one rule for the API's structured window
   * forms (the Python package applies the same), SQL and EXPLAIN.
   */
  def nameText(name: String): String =
    if (PlainName.pattern.matcher(name).matches()) name else "`" + name.replace("`", "``") + "`"

  private def unquote(name: String): String =
    if (name.length >= 2 && name.head == '`' && name.last == '`') name.substring(1, name.length - 1).replace("``", "`")
    else name

  /**
   * `[lo, hi]` (the text after `=`, trimmed): lo up to the first comma, hi up to the closing
   * bracket, both trimmed and non-blank. Read by hand, in linear time: the regular expression
   * `\[\s*(.+?)\s*,\s*(.+?)\s*\]` it replaces backtracks in O(n^4) over blanks around the comma
   * (a term of 1000 characters took a minute and a half), and a Connect client may send any text.
   */
  private object Interval {
    def unapply(value: String): Option[(String, String)] = {
      val comma = value.indexOf(',')
      if (value.length < 2 || value.head != '[' || value.last != ']' || comma < 0) None
      else Some((value.substring(1, comma).trim, value.substring(comma + 1, value.length - 1).trim))
        .filter { case (lo, hi) => lo.nonEmpty && hi.nonEmpty }
    }
  }

  /** Splits on top-level AND (not inside [...] or a backquoted name). */
  private def splitTerms(text: String): Seq[String] = {
    val parts = mutable.ArrayBuffer.empty[String]
    val current = new StringBuilder
    var depth = 0
    var quoted = false // an odd number of backquotes so far: inside a name (a doubled one toggles twice)
    val words = text.split("(?<=\\s)|(?=\\s)|(?<=[\\[\\]])|(?=[\\[\\]])")
    words.foreach { w =>
      if (!quoted && w == "[") depth += 1
      if (!quoted && w == "]") depth -= 1
      if (!quoted && depth == 0 && w.equalsIgnoreCase("and")) { parts += current.toString; current.clear() }
      else current ++= w
      if (w.count(_ == '`') % 2 == 1) quoted = !quoted
    }
    parts += current.toString
    parts.map(_.trim).toSeq
  }

  /**
   * The input `name` refers to: the input of that exact name, else the one input whose name
   * equals it ignoring case. The one rule for input names in window terms, USING TIME and the
   * API's per-input arguments (`WJoinArguments`).
   */
  def indexOfName(name: String, names: Seq[String]): Option[Int] = {
    val exact = names.indexOf(name)
    val folded = names.indices.filter(i => names(i).equalsIgnoreCase(name))
    if (exact >= 0) Some(exact) else if (folded.size == 1) folded.headOption else None
  }

  /** The input a term's name (backquoted or not, see [[nameText]]) refers to. */
  def resolveName(written: String, names: Seq[String], term: String): Int = {
    val name = unquote(written)
    indexOfName(name, names).getOrElse(
      WJoinErrors.raise("WJOIN_UNKNOWN_INPUT_IN_WINDOW", "term" -> term, "name" -> name, "inputs" -> names))
  }

  def parse(text: String, names: Seq[String], integralTime: Boolean): Seq[WindowTerm] = {
    if (text == null || text.trim.isEmpty) WJoinErrors.raise("WJOIN_EMPTY_WINDOWS")
    splitTerms(text).map { termText =>
      termText match {
        case PerStream(kind, name, value) =>
          val b = resolveName(name, names, termText)
          if (kind.equalsIgnoreCase("ROWS")) StreamRows(b, rowCount(value, termText), termText)
          else StreamRange(b, Durations.parse(value, integralTime, s"window term '$termText'"), termText)
        case Term(kind, a, b, value) =>
          val directed = kind.toUpperCase(Locale.ROOT) == "DWINDOW"
          def len(t: String) = Durations.parse(t, integralTime, s"window term '$termText'")
          if (a == null) {
            if (directed) WJoinErrors.raise("WJOIN_INVALID_WINDOW_TERM", "term" -> termText,
              "reason" -> "DWINDOW needs two inputs, e.g. DWINDOW(A,B) = 5 minutes")
            UniformWindow(len(value), termText)
          } else {
            val ia = resolveName(a, names, termText)
            val ib = resolveName(b, names, termText)
            if (ia == ib) WJoinErrors.raise("WJOIN_WINDOW_TERM_SELF", "term" -> termText, "name" -> unquote(a))
            value match {
              case Interval(lo, hi) if directed => // either end may be negative: only lo > hi is empty
                def end(t: String) = Durations.parseSigned(t, integralTime, s"window term '$termText'")
                val (l, h) = (end(lo), end(hi))
                if (l > h) WJoinErrors.raise("WJOIN_EMPTY_INTERVAL", "term" -> termText, "low" -> lo, "high" -> hi)
                DirectedWindow(ia, ib, l, h, termText)
              case Interval(_, _) => WJoinErrors.raise("WJOIN_INVALID_WINDOW_TERM", "term" -> termText,
                "reason" -> "an interval [lo, hi] needs DWINDOW (B follows A by lo to hi)")
              case _ if directed => DirectedWindow(ia, ib, 0L, len(value), termText)
              case _ => PairWindow(ia, ib, len(value), termText)
            }
          }
        case _ => WJoinErrors.raise("WJOIN_WINDOW_TERM_SYNTAX", "term" -> termText)
      }
    }
  }

  /** The row count of a ROWS term: a whole number >= 1, optionally followed by ROWS. */
  private def rowCount(value: String, term: String): Long = {
    val digits = value.trim.replaceFirst("(?i)\\s+rows?$", "")
    if (!digits.matches("[0-9]{1,18}")) WJoinErrors.raise("WJOIN_INVALID_WINDOW_TERM", "term" -> term,
      "reason" -> s"a ROWS window is a whole number of rows such as ROWS(B) = 1000, got '$value'")
    val rows = digits.toLong
    if (rows < 1) WJoinErrors.raise("WJOIN_INVALID_WINDOW_TERM", "term" -> term,
      "reason" -> s"a ROWS window is a whole number of rows >= 1, got $rows")
    rows
  }
}

/**
 * The closed difference-bound matrix of a W-join: `upper(i, j)` is the largest allowed
 * value of ts_i - ts_j (inclusive), [[WindowMatrix.Inf]] where nothing bounds it. Closed
 * means every implied bound is explicit (Floyd-Warshall shortest paths), which is how
 * Form 3's missing pairs get their windows (Hammad et al. Sec. 5.2).
 */
final class WindowMatrix(val n: Int, private val c: Array[Long]) extends Serializable {
  def upper(i: Int, j: Int): Long = c(i * n + j)

  /** How much later than a row of input j a partner row may be: max over i of upper(i, j). */
  def horizon(j: Int): Long = (0 until n).filter(_ != j).map(upper(_, j)).max

  def isUniform: Boolean = {
    val offDiagonal = for (i <- 0 until n; j <- 0 until n if i != j) yield upper(i, j)
    offDiagonal.distinct.size == 1
  }

  /** True if the combination with these times satisfies every bound. */
  def admits(times: Array[Long]): Boolean =
    (0 until n).forall(i => (0 until n).forall(j => i == j || !SaturatingTime.differenceExceeds(times(i), times(j), upper(i, j))))

  def render(names: Seq[String], integralTime: Boolean): String =
    (0 until n).map { i =>
      (0 until n).map(j => if (i == j) "0" else Durations.render(upper(i, j), integralTime)).mkString("[", ", ", "]")
    }.mkString("[", ", ", "]")

  override def equals(o: Any): Boolean = o match {
    case m: WindowMatrix => m.n == n && java.util.Arrays.equals(m.c, c)
    case _ => false
  }
  override def hashCode: Int = java.util.Arrays.hashCode(c)
  override def toString: String = render((0 until n).map(_.toString), integralTime = true)
}

object WindowMatrix {
  val Inf: Long = Long.MaxValue

  /** a + b, saturating at Inf (and at Long.MinValue below), so huge windows never wrap. */
  def add(a: Long, b: Long): Long =
    if (a == Inf || b == Inf) Inf
    else {
      val r = a + b
      if (((a ^ r) & (b ^ r)) < 0) { if (a > 0) Inf else Long.MinValue } else r
    }

  /**
   * Closes the terms into a matrix. Errors (`WJOIN_` conditions) name the user's terms:
   * a negative cycle (no combination can ever match) names the terms on the cycle; an input
   * that another input may follow by an unbounded time (its rows would stay joinable
   * forever, e.g. a disconnected constraint graph) is named with the inputs it lacks a bound to.
   */
  def close(terms: Seq[WindowTerm], names: Seq[String]): WindowMatrix = {
    val n = names.size
    assert(n >= 2, s"a W-join needs at least 2 inputs, got $n")
    val d = Array.fill(n * n)(Inf)
    val source = Array.fill[WindowTerm](n * n)(null)
    val via = Array.fill(n * n)(-1)
    for (i <- 0 until n) d(i * n + i) = 0
    for (t <- terms; (i, j, b) <- t.bounds(n) if b < d(i * n + j)) { d(i * n + j) = b; source(i * n + j) = t }

    def termsOn(i: Int, j: Int, depth: Int): Seq[WindowTerm] = {
      val k = via(i * n + j)
      if (depth > 2 * n) Nil
      else if (k < 0) Option(source(i * n + j)).toSeq
      else termsOn(i, k, depth + 1) ++ termsOn(k, j, depth + 1)
    }
    for (k <- 0 until n) {
      for (i <- 0 until n; j <- 0 until n) {
        val through = add(d(i * n + k), d(k * n + j))
        if (through < d(i * n + j)) { d(i * n + j) = through; via(i * n + j) = k }
      }
      (0 until n).find(i => d(i * n + i) < 0).foreach { i =>
        val onCycle = termsOn(i, i, 0).distinct.map(_.text)
        WJoinErrors.raise("WJOIN_CONTRADICTORY_WINDOWS", "terms" -> onCycle.mkString(" AND "), "input" -> names(i))
      }
    }
    // Name the most isolated input first (for a disconnected graph, the one cut off). A
    // ROWS window bounds its input's state by count, so that input may lack time bounds.
    val counted = StreamRows.limits(terms, n).map(_ != StreamRows.NoLimit)
    val byIsolation = (0 until n).sortBy(j => -(0 until n).count(i => i != j && d(i * n + j) == Inf))
    for (j <- byIsolation if !counted(j)) {
      val unbounded = (0 until n).filter(i => i != j && d(i * n + j) == Inf)
      if (unbounded.nonEmpty) WJoinErrors.raise("WJOIN_UNBOUNDED_INPUT", "input" -> names(j),
        "others" -> unbounded.map(names), "other" -> names(unbounded.head))
    }
    new WindowMatrix(n, d)
  }

  def uniform(n: Int, w: Long): WindowMatrix =
    close(Seq(UniformWindow(w, s"WINDOW = $w")), (0 until n).map(i => ('A' + i).toChar.toString))
}
