package wjoin

import org.apache.spark.sql.SparkSessionExtensions
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.extension.BuildVersions
import wjoin.extension.FirstQueryWarmUp
import wjoin.plan.logical.PruneWindowJoinOutput
import wjoin.plan.logical.PushFiltersIntoWindowJoin
import wjoin.plan.logical.WindowJoinChecks
import wjoin.plan.logical.WindowJoinWriteChecks
import wjoin.plan.physical.WindowJoinStrategy
import wjoin.sql.{ResolveWindowJoinSql, WJoinSqlParser}

/**
 * Registers the W-join with a SparkSession:
 * {{{
 *   spark.sql.extensions=wjoin.WJoinExtensions
 * }}}
 */
class WJoinExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    // A jar built for another Spark minor release fails here, clearly, not later in a planner.
    BuildVersions.requireSupportedSpark()
    // Registers the spark.wjoin.* settings with SQLConf, so a bad value fails when it is SET.
    WJoinConf.register()
    // The papers' SQL: a window clause after the FROM clause (every other statement parses as before).
    extensions.injectParser((_, delegate) => new WJoinSqlParser(delegate))
    // Once per JVM, when the first session is built: warm the W-join up in a background thread
    // (spark.wjoin.warmUp), so the first query of a session costs about what later ones do.
    extensions.injectParser { (session, delegate) => FirstQueryWarmUp.startOnce(session); delegate }
    // A SQL W-join becomes the same WindowJoin as the DataFrame API's once its relations are resolved.
    extensions.injectResolutionRule(_ => ResolveWindowJoinSql)
    // Reject misuse that needs the resolved plan (streams without watermark, 'hw' without a key,
    // impossible forced access paths); post-hoc, so the error keeps its SQLSTATE.
    extensions.injectPostHocResolutionRule(_ => WindowJoinChecks)
    // Refuse writing a W-join's repeated column names (output_names = "join") to files, naming the option.
    extensions.injectPostHocResolutionRule(_ => WindowJoinWriteChecks)
    // Push single-input filters into the inputs; merge multi-input ones into the condition.
    extensions.injectOptimizerRule(_ => PushFiltersIntoWindowJoin)
    // Produce only the columns the parent uses (none for a count).
    extensions.injectOptimizerRule(_ => PruneWindowJoinOutput)
    // Plan the logical WindowJoin as WindowJoinExec (batch) or StreamingWindowJoinExec (streams).
    extensions.injectPlannerStrategy(_ => WindowJoinStrategy)
  }
}
