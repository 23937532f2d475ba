package wjoin.errors

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

/**
 * The one catalogue of the W-join's user-facing errors, in Spark's error-condition shape
 * (Spark's `error-conditions.json`, Delta's `delta-error-classes.json`): each condition, its
 * message template with `<parameter>` placeholders and its SQLSTATE are declared once, in
 * `resources/wjoin/error/error-conditions.json`, and nowhere else.
 *
 * {{{
 *   WJoinErrors.check(cond, "WJOIN_NEGATIVE_WINDOW", "what" -> ..., "text" -> ...)
 *     ──> WJoinAnalysisException: getCondition = WJOIN_NEGATIVE_WINDOW, getSqlState = 22003,
 *         getMessageParameters = {what, text},
 *         getMessage = "[WJOIN_NEGATIVE_WINDOW] window: a window cannot be negative, got '-5'. SQLSTATE: 22003"
 * }}}
 *
 * Every misuse is raised through [[raise]] / [[check]] before any Spark job runs; what stops
 * a running query (its windows do not fit in memory) through [[fail]]; a broken invariant of
 * the code is an `assert`, never one of these.
 */
object WJoinErrors {
  /** Where the catalogue lives in the jar. */
  val Resource = "wjoin/error/error-conditions.json"

  /**
   * A condition as declared: its message template (lines joined by newlines) and its SQLSTATE.
   * A placeholder is `<name>` for a parameter the raiser passes; other text in angle brackets
   * (`<length>` in "WINDOW(A,B) = <length>") is the user's grammar and stays as written.
   */
  final case class Condition(name: String, template: String, sqlState: String)

  /** Every condition of the catalogue, by name. */
  lazy val conditions: Map[String, Condition] = {
    val in = getClass.getClassLoader.getResourceAsStream(Resource)
    assert(in != null, s"the spark-wjoin jar lacks $Resource")
    val root = try new ObjectMapper().readTree(in) finally in.close()
    root.properties().asScala.map { entry =>
      val node: JsonNode = entry.getValue
      val template = node.get("message").elements().asScala.map(_.asText).mkString("\n")
      entry.getKey -> Condition(entry.getKey, template, node.get("sqlState").asText)
    }.toMap
  }

  /** The condition `name`; a name not in the catalogue is a bug of ours. */
  def condition(name: String): Condition =
    conditions.getOrElse(name, throw new AssertionError(s"the error condition $name is not in $Resource"))

  /** The message of `name` with `parameters` filled in (each must be a placeholder of the template). */
  def message(name: String, parameters: Map[String, String]): String = {
    val c = condition(name)
    val unused = parameters.keys.filterNot(p => c.template.contains(s"<$p>"))
    assert(unused.isEmpty, s"error condition $name has no placeholder for ${unused.mkString(", ")}")
    parameters.foldLeft(c.template) { case (text, (p, value)) => text.replace(s"<$p>", value) }
  }

  /** The exception of condition `name`; parameters are rendered with `toString` (sequences comma-separated). */
  def error(name: String, parameters: (String, Any)*): WJoinAnalysisException =
    new WJoinAnalysisException(name, parameters.map { case (k, v) => k -> render(v) }.toMap)

  /** Throws the error of condition `name`. */
  def raise(name: String, parameters: (String, Any)*): Nothing = throw error(name, parameters: _*)

  /** Throws the error of condition `name` found while a task runs ([[WJoinRuntimeException]]). */
  def fail(name: String, parameters: (String, Any)*): Nothing =
    throw new WJoinRuntimeException(name, parameters.map { case (k, v) => k -> render(v) }.toMap)

  /** Throws the error of condition `name` unless `ok`; the parameters are only computed when it fails. */
  def check(ok: Boolean, name: => String, parameters: => Seq[(String, Any)]): Unit =
    if (!ok) throw error(name, parameters: _*)

  private def render(value: Any): String = value match {
    case null => "null"
    case s: String => s
    case s: Iterable[_] => s.mkString(", ")
    case other => other.toString
  }
}
