package wjoin.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin
import org.apache.spark.sql.wjoin.ThrowableApi

/**
 * A misuse of the W-join: an [[AnalysisException]] (so a `SparkThrowable`) with a `WJOIN_`
 * condition, its message parameters and its SQLSTATE from [[WJoinErrors]]' catalogue. Spark
 * raises it from `DataFrame` construction and SQL analysis alike; PySpark turns it into its own
 * `AnalysisException` with the same condition, on classic sessions (py4j) and on Connect (the
 * server sends condition, parameters and SQLSTATE to the client).
 *
 * The message follows Spark's: `[CONDITION] text SQLSTATE: xxxxx`. The SQLSTATE comes from our
 * catalogue, not Spark's (which does not know our conditions), and [[withPosition]] keeps this
 * class, as Delta's `DeltaAnalysisException` does, so the analyzer's re-positioning of an
 * error does not lose the condition's SQLSTATE.
 *
 * @param condition  the `WJOIN_` condition
 * @param parameters the values of the template's placeholders
 */
class WJoinAnalysisException(
    val condition: String,
    val parameters: Map[String, String],
    origin: Origin = Origin())
  extends AnalysisException(
    message = WJoinAnalysisException.format(condition, parameters),
    line = origin.line,
    startPosition = origin.startPosition,
    errorClass = Some(condition),
    messageParameters = parameters,
    context = origin.getQueryContext) with ThrowableApi.WithCondition {

  override def getSqlState: String = WJoinErrors.condition(condition).sqlState
  override def getMessageParameters: java.util.Map[String, String] = parameters.asJava

  /** The message without the condition and SQLSTATE decorations (the template filled in). */
  def text: String = WJoinErrors.message(condition, parameters)

  override def withPosition(origin: Origin): WJoinAnalysisException = {
    val positioned = new WJoinAnalysisException(condition, parameters, origin)
    positioned.setStackTrace(getStackTrace)
    positioned
  }
}

object WJoinAnalysisException {
  /** The message of `e` without decorations: the filled template of a W-join error, else its message. */
  def textOf(e: Throwable): String = e match {
    case w: WJoinAnalysisException => w.text
    case other => other.getMessage
  }

  /** `[CONDITION] message SQLSTATE: xxxxx`, as Spark's `SparkThrowableHelper.getMessage` writes it. */
  def format(condition: String, parameters: Map[String, String]): String =
    s"[$condition] ${WJoinErrors.message(condition, parameters)} SQLSTATE: ${WJoinErrors.condition(condition).sqlState}"
}
