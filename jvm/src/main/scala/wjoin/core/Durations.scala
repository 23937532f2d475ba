package wjoin.core

import java.util.Locale

import wjoin.errors.WJoinErrors

/**
 * Parses window lengths written as Spark-style interval strings ("2 seconds",
 * "INTERVAL 5 MINUTES", "INTERVAL '5' MINUTE", "1 hour 30 minutes", and the ANSI day-time
 * literals "INTERVAL '1 02:03:04.5' DAY TO SECOND", "INTERVAL '02:30' HOUR TO MINUTE") into the unit of the
 * event-time column: microseconds for timestamp columns, the column's own unit for
 * integral columns (where a window is a plain number, as in the papers' sequence numbers).
 *
 * Months and years are rejected: a window must have one fixed length.
 */
object Durations {
  private val MicrosPerUnit: Map[String, Long] = {
    val us = 1L; val ms = 1000L; val s = 1000000L; val m = 60 * s; val h = 60 * m; val d = 24 * h
    Map(
      "microsecond" -> us, "microseconds" -> us, "us" -> us,
      "millisecond" -> ms, "milliseconds" -> ms, "ms" -> ms,
      "second" -> s, "seconds" -> s, "sec" -> s, "secs" -> s, "s" -> s,
      "minute" -> m, "minutes" -> m, "min" -> m, "mins" -> m,
      "hour" -> h, "hours" -> h, "h" -> h,
      "day" -> d, "days" -> d, "d" -> d,
      "week" -> 7 * d, "weeks" -> 7 * d)
  }

  /** The largest window: sums of a few windows still fit in a Long. */
  val MaxLength: Long = Long.MaxValue / 8

  /**
   * Returns the length, or throws a `WJOIN_` error naming `what` and the text. The one
   * parser of lengths: the DataFrame API, the SQL window clause and the Python package (which
   * only turns a timedelta or a number into text) all come here.
   */
  def parse(text: String, integralTime: Boolean, what: String): Long = {
    def fail(why: String): Nothing = WJoinErrors.raise("WJOIN_INVALID_LENGTH", "what" -> what, "reason" -> why,
      "text" -> text)
    def negative(): Nothing = WJoinErrors.raise("WJOIN_NEGATIVE_WINDOW", "what" -> what, "text" -> text)
    def tooLarge(): Nothing = WJoinErrors.raise("WJOIN_WINDOW_TOO_LARGE", "what" -> what, "text" -> text,
      "max" -> (if (integralTime) MaxLength.toString else s"${MaxLength / 86400000000L} days (${MaxLength} microseconds)"))
    Option(text).getOrElse("") match {
      case AnsiDayTime(value, from, to) if !integralTime => return dayTime(value, from, to, fail, () => negative(), () => tooLarge())
      case _ =>
    }
    val tokens = Option(text).getOrElse("").trim.replace("'", " ").replace("\"", " ").split("\\s+")
      .filter(_.nonEmpty).toList match {
        case first :: rest if first.equalsIgnoreCase("interval") => rest
        case all => all
      }
    def number(t: String): Option[BigDecimal] = try Some(BigDecimal(t)) catch { case _: NumberFormatException => None }
    if (tokens.isEmpty) fail("the window length is empty")
    // A minus before the whole length ('-INTERVAL 2 MINUTES'); else the sign is the value's:
    // '-0' is 0, and '1 second -1 microsecond' (as Spark's interval) 999999 us.
    if (tokens.head.startsWith("-") && number(tokens.head).isEmpty) negative()
    if (integralTime) {
      if (tokens.size != 1) fail("the time column is integral, so give a plain number in its unit (e.g. 100)")
      val value = number(tokens.head).filter(_.isWhole)
        .getOrElse(fail("the time column is integral, so give a whole number in its unit (e.g. 100)"))
      if (value < 0) negative()
      if (value > BigDecimal(MaxLength)) tooLarge()
      value.toLong
    } else {
      if (tokens.size == 1 && number(tokens.head).isDefined)
        WJoinErrors.raise("WJOIN_LENGTH_NEEDS_UNIT", "what" -> what, "value" -> tokens.head)
      if (tokens.size % 2 != 0)
        fail("expected pairs of <number> <unit>, e.g. '2 seconds' or 'INTERVAL 5 MINUTES'")
      val total = tokens.grouped(2).collect { case Seq(word, unitWord) =>
        val unit = MicrosPerUnit.getOrElse(unitWord.toLowerCase(Locale.ROOT),
          fail(s"unknown unit '$unitWord' (use microseconds .. weeks; months and years have no fixed length)"))
        val value = number(word).getOrElse(fail(s"'$word' is not a number"))
        val micros = value * BigDecimal(unit)
        if (!micros.isWhole) fail("the length is not a whole number of microseconds")
        micros
      }.sum
      if (total < 0) negative()
      if (total > BigDecimal(MaxLength)) tooLarge()
      total.toLong
    }
  }

  /** `[INTERVAL] '<value>' <field> TO <field>`: Spark's ANSI day-time interval literal. */
  private val AnsiDayTime = "(?is)\\s*(?:interval\\s+)?'([^']*)'\\s+(day|hour|minute|second)\\s+to\\s+(day|hour|minute|second)\\s*".r
  private val DayTimeFields = Seq("day", "hour", "minute", "second").map(f => f -> MicrosPerUnit(f))
  /** The exclusive bound of a field that is not the first (hours of a day, ...), as Spark checks it. */
  private val FieldBound = Map("hour" -> 24, "minute" -> 60, "second" -> 60)

  /**
   * The value of an ANSI day-time literal from field `from` to field `to` (`'1 02:03:04.5'`
   * DAY TO SECOND): one number per field, the day apart by a space, the others by colons; only
   * seconds may have a fraction, and every field but the first is within its bound.
   */
  private def dayTime(value: String, fromText: String, toText: String, fail: String => Nothing,
      negative: () => Nothing, tooLarge: () => Nothing): Long = {
    val names = DayTimeFields.map(_._1)
    val (from, to) = (names.indexOf(fromText.toLowerCase(Locale.ROOT)), names.indexOf(toText.toLowerCase(Locale.ROOT)))
    val fields = DayTimeFields.slice(from, to + 1)
    if (from >= to) fail(s"${fromText.toUpperCase(Locale.ROOT)} TO ${toText.toUpperCase(Locale.ROOT)}: the first field must be larger than the last")
    val trimmed = value.trim
    if (trimmed.startsWith("-")) negative()
    val parts = trimmed.stripPrefix("+").split("[\\s:]+").filter(_.nonEmpty)
    val layout = fields.map(_._1) match {
      case "day" +: rest => "day " + rest.mkString(":")
      case all => all.mkString(":")
    }
    if (parts.length != fields.length)
      fail(s"'$value' is not a ${fromText.toUpperCase(Locale.ROOT)} TO ${toText.toUpperCase(Locale.ROOT)} value: expected $layout")
    val micros = parts.zip(fields).zipWithIndex.map { case ((part, (field, unit)), i) =>
      val n = (try BigDecimal(part) catch { case _: NumberFormatException => fail(s"'$part' is not a number") })
      if (n < 0) negative()
      if (!n.isWhole && field != "second") fail(s"only seconds may have a fraction, got '$part' ${field}s")
      if (i > 0 && n >= FieldBound(field)) fail(s"$field $part is out of range [0, ${FieldBound(field) - 1}]")
      n * BigDecimal(unit)
    }.sum
    if (!micros.isWhole) fail("the length is not a whole number of microseconds")
    if (micros > BigDecimal(MaxLength)) tooLarge()
    micros.toLong
  }

  /**
   * A signed length: an end of a travel-time interval `[lo, hi]`, which may be negative
   * (`-5 seconds`, `- 5`, `INTERVAL -5 SECONDS`, `-INTERVAL 5 SECONDS`: the other input may
   * come that much earlier). Everything else as [[parse]]; errors show the text as written.
   */
  def parseSigned(text: String, integralTime: Boolean, what: String): Long = {
    val written = Option(text).getOrElse("").trim
    val minusFirst = "(?s)-\\s*(.*)".r
    val minusAfterInterval = "(?is)(interval\\s+)-\\s*(.*)".r
    val minusInQuotes = "(?is)((?:interval\\s+)?')\\s*-\\s*(.*)".r
    val (negative, unsigned) = written match {
      case minusFirst(rest) => (true, rest)
      case minusAfterInterval(interval, rest) => (true, interval + rest)
      case minusInQuotes(start, rest) => (true, start + rest)
      case _ => (false, written)
    }
    val length = try parse(unsigned, integralTime, what) catch {
      case e: wjoin.errors.WJoinAnalysisException if negative && e.parameters.get("text").contains(unsigned) =>
        throw WJoinErrors.error(e.condition, e.parameters.updated("text", written).toSeq: _*)
    }
    if (negative) -length else length
  }

  /** Renders a length for EXPLAIN and error messages. */
  def render(length: Long, integralTime: Boolean): String = {
    if (length == WindowMatrix.Inf) return "inf"
    if (integralTime || length == 0) return length.toString
    val units = Seq("d" -> 86400000000L, "h" -> 3600000000L, "min" -> 60000000L, "s" -> 1000000L, "ms" -> 1000L)
    units.collectFirst { case (name, size) if length % size == 0 => s"${length / size} $name" }
      .getOrElse(s"$length us")
  }
}
