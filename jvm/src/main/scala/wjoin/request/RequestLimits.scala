package wjoin.request

import scala.jdk.CollectionConverters._

import wjoin.errors.WJoinErrors

/**
 * The size limits of a W-join request, the same for every front end: a request over a limit is
 * refused with a `WJOIN_` error naming the argument and the limit, before any work that grows
 * with more than its size. A Spark Connect server decodes requests from any client that reaches
 * it ([[wjoin.connect.WJoinRelationPlugin]] checks these first, before it plans any input), so
 * no value may make checking a request expensive.
 *
 * {{{
 *   inputs                 2 ..= MaxInputs (64)       WindowJoinBuilder.build, WJoin's DataFrames, Connect
 *   every text             at most MaxTextLength (4096) characters: a window, a window term,
 *                          the windows joined by AND, a name, a column, an option's value
 *   every list or map      at most MaxEntries (1024) entries (names, on, windows, time, limits, ...)
 * }}}
 *
 * Why these numbers:
 *  - 64 inputs: the planner's probe-order search ([[wjoin.core.cost.PredicateGraph]]) holds a set
 *    of inputs in a 64-bit mask, and the window closure is cubic in the number of inputs.
 *  - 4096 characters: the window grammar ([[wjoin.core.WindowTermParser]], [[wjoin.core.Durations]])
 *    is quadratic in the length of a term at worst (regular expressions with a lazy group before
 *    blanks; a number of d digits is parsed in O(d^2)): a term of 4096 characters costs a
 *    fraction of a second at worst, a megabyte of digits half a minute. A chain of 63 DWINDOW
 *    terms between 64 short names fits.
 *  - 1024 entries: far more than any W-join has columns to join on or terms to write, and few
 *    enough that checking each entry against each input stays cheap.
 * They are constants, not settings: a Connect client can change its session's settings.
 */
object RequestLimits {
  /** The most inputs of one W-join. */
  val MaxInputs = 64

  /** The most characters of one text argument (and of the window terms joined by AND). */
  val MaxTextLength = 4096

  /** The most entries of one list or map argument. */
  val MaxEntries = 1024

  /** Fails unless 2 <= n <= [[MaxInputs]]. */
  def requireInputCount(n: Int): Unit = {
    WJoinErrors.check(n >= 2, "WJOIN_TOO_FEW_INPUTS", Seq("count" -> n))
    WJoinErrors.check(n <= MaxInputs, "WJOIN_TOO_MANY_INPUTS", Seq("count" -> n, "max" -> MaxInputs))
  }

  /** Fails if `text` (null: absent) is longer than [[MaxTextLength]]; the error names `argument`, not the text. */
  def requireText(argument: => String, text: String): Unit =
    if (text != null && text.length > MaxTextLength) tooLong(argument, text.length, "characters", MaxTextLength)

  /** Fails if a list or map `argument` has more than [[MaxEntries]] entries. */
  def requireEntries(argument: => String, size: Int): Unit =
    if (size > MaxEntries) tooLong(argument, size, "entries", MaxEntries)

  /**
   * Every value of the plain arguments (the map of [[RequestCodec.fromMap]]) within the limits:
   * strings, and lists and maps with their entries and keys, at any depth (a map of maps for
   * allocations); other values (numbers, booleans, a condition Column) are not texts.
   */
  def requireArguments(arguments: Map[String, AnyRef]): Unit =
    arguments.foreach { case (key, value) => requireValue(key, value) }

  private def requireValue(argument: String, value: Any): Unit = value match {
    case s: String => requireText(argument, s)
    case l: java.util.List[_] =>
      requireEntries(argument, l.size)
      l.asScala.iterator.zipWithIndex.foreach { case (v, i) => requireValue(s"$argument[$i]", v) }
    case m: java.util.Map[_, _] =>
      requireEntries(argument, m.size)
      m.asScala.foreach { case (k, v) =>
        requireValue(s"$argument (a key)", k)
        requireValue(s"$argument[$k]", v)
      }
    case _ =>
  }

  /**
   * The texts of `request` within the limits, whichever front end built it (the Scala builder
   * and the SQL window clause do not pass [[requireArguments]]): what the window grammar parses,
   * the names and columns it looks up.
   */
  def requireRequest(request: WJoinRequest): Unit = {
    def texts(argument: String, values: Seq[String]): Unit = {
      requireEntries(argument, values.size)
      values.iterator.zipWithIndex.foreach { case (v, i) => requireText(s"$argument[$i]", v) }
    }
    request.names.foreach(texts("names", _))
    texts("on", request.on)
    request.time match {
      case TimeColumns.Default =>
      case TimeColumns.Same(column) => requireText("time", column)
      case TimeColumns.PerInput(columns) => texts("time", columns)
      case TimeColumns.ByInput(columns) =>
        requireEntries("time", columns.size)
        columns.foreach { case (input, column) =>
          requireText("time (an input name)", input)
          requireText(s"time[$input]", column)
        }
    }
    requireText("window", request.window.orNull)
    requireText("windows (the terms joined by AND)", request.windows.orNull)
    requireText("access_paths", request.accessPaths)
    requireText("expiration_interval", request.expirationInterval)
  }

  private def tooLong(argument: String, size: Int, unit: String, max: Int): Nothing =
    WJoinErrors.raise("WJOIN_ARGUMENT_TOO_LONG", "argument" -> argument, "size" -> size, "unit" -> unit, "max" -> max)
}
