package wjoin.plan
package logical

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.streaming.WriteToStream
import org.apache.spark.sql.execution.datasources.InsertIntoHadoopFsRelationCommand
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.wjoin.StreamingClasses.FileStreamSink

import wjoin.errors.WJoinErrors

/**
 * Refuses, before any job, to write a W-join's output with repeated column names to files:
 * the output names of `output_names = "join"` (the default, as `DataFrame.join`) repeat for
 * inputs with the same columns (k, ts, v, ts, v), and a file sink cannot hold them.
 *
 * {{{
 *   batch file write    InsertIntoHadoopFsRelationCommand   Spark fails at run time (COLUMN_ALREADY_EXISTS)
 *   streaming file sink WriteToStream(FileStreamSink)       Spark writes files its reader rejects
 * }}}
 *
 * Both become WJOIN_DUPLICATE_OUTPUT_COLUMNS, naming the columns and the option that names
 * them uniquely (`output_names = "prefixed"`, `spark.wjoin.outputNames`). Only names repeated
 * among the W-join's own output columns count (compared as Spark compares them:
 * `spark.sql.caseSensitive`); anything else is left to Spark. A write into a catalog table
 * projects the query onto the table's columns first (new attributes), so it is not refused.
 *
 * The nodes are the same class in Spark 4.0 to 4.3 (`FileStreamSink` moved package in 4.1:
 * bridge `StreamingClasses`), and both are analyzed with the query (the batch command by the
 * writer's `QueryExecution`, `WriteToStream` when `start()` resolves the streaming write).
 * Not covered: V2 writes (the default file sources write through V1; a V2 table maps the
 * query onto its own columns) and sinks that are not files (memory, foreachBatch, Kafka's
 * value column).
 *
 * A post-hoc resolution rule that changes nothing, not a check rule, as [[WindowJoinChecks]]:
 * Spark wraps what check rules throw in an `ExtendedAnalysisException`, which loses our SQLSTATE.
 */
object WindowJoinWriteChecks extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    plan.foreach {
      case w: InsertIntoHadoopFsRelationCommand => refuseRepeatedNames(w.query, s"the ${w.fileFormat} file write")
      case w: WriteToStream if w.sink.isInstanceOf[FileStreamSink] =>
        refuseRepeatedNames(w.inputQuery, "the streaming file sink")
      case _ =>
    }
    plan
  }

  /** The column names `query` outputs more than once among columns of a W-join's output, in output order. */
  def repeatedNames(query: LogicalPlan, caseSensitive: Boolean): Seq[String] = {
    val joined = query.collect { case w: WindowJoin => w.output.map(_.exprId) }.flatten.toSet
    OutputNaming.sameNames(query.output.filter(a => joined(a.exprId)))(_.name, caseSensitive).map(_.head.name)
  }

  private def refuseRepeatedNames(query: LogicalPlan, sink: String): Unit = {
    val repeated = repeatedNames(query, SQLConf.get.caseSensitiveAnalysis)
    WJoinErrors.check(repeated.isEmpty, "WJOIN_DUPLICATE_OUTPUT_COLUMNS", Seq("columns" -> repeated, "sink" -> sink))
  }
}
