package wjoin.errors

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.wjoin.ThrowableApi

/**
 * A W-join that cannot go on while it runs (in a task), as opposed to a misuse found before
 * any job ([[WJoinAnalysisException]]): a `RuntimeException` and `SparkThrowable` with a
 * `WJOIN_` condition, its parameters and its SQLSTATE from [[WJoinErrors]]' catalogue. The
 * task fails with it; the job's `SparkException` names it (condition and message) as its cause.
 *
 * @param condition  the `WJOIN_` condition
 * @param parameters the values of the template's placeholders
 */
class WJoinRuntimeException(val condition: String, val parameters: Map[String, String])
  extends RuntimeException(WJoinAnalysisException.format(condition, parameters)) with ThrowableApi.WithCondition {

  override def getSqlState: String = WJoinErrors.condition(condition).sqlState
  override def getMessageParameters: java.util.Map[String, String] = parameters.asJava
}
