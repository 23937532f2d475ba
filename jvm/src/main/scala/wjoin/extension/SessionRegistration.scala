package wjoin
package extension

import org.apache.spark.sql.{DataFrame, SparkSession}
import org.apache.spark.sql.wjoin.{SparkBridge, WJoinConf}

import wjoin.errors.WJoinErrors
import wjoin.plan.logical.{PruneWindowJoinOutput, PushFiltersIntoWindowJoin, WindowJoinChecks}
import wjoin.plan.physical.WindowJoinStrategy

/**
 * Whether a session can plan a W-join, and [[register]], which makes a running session able to
 * when its jar is loaded but `spark.sql.extensions` did not name [[WJoinExtensions]] (a
 * notebook whose session was built first, a managed cluster that only takes `--jars`).
 *
 * A session's extensions are fixed when it starts; what Spark still lets a running session add
 * are its runtime hooks (`spark.experimental`): planner strategies and optimizer rules. So
 * [[register]] adds what the DataFrame API needs there:
 *
 *  - [[WindowJoinStrategy]], which plans the logical `WindowJoin` (without it, no plan);
 *  - the optimizer rules [[PushFiltersIntoWindowJoin]] and [[PruneWindowJoinOutput]] (same
 *    answer without them, but the extension's plans).
 *
 * The DataFrame API's `WindowJoin` needs no analyzer rule to resolve: its inputs are analyzed
 * plans and Spark's own rules resolve its condition. The post-hoc [[WindowJoinChecks]] cannot be
 * added to a running analyzer, so [[checked]] runs it on the analyzed plan, the same checks at
 * the same moment (before any job). SQL's window clause needs the extension's parser, which
 * exists only from the session's start: no runtime hook can add it.
 */
object SessionRegistration {
  /** The session was built with [[WJoinExtensions]] (its analyzer holds the extension's rule). */
  def extensionSet(session: SparkSession): Boolean =
    SparkBridge.postHocResolutionRules(session).contains(WindowJoinChecks)

  /** [[register]] ran on the session. */
  def registered(session: SparkSession): Boolean =
    SparkBridge.experimental(session).extraStrategies.contains(WindowJoinStrategy)

  /** Adds the W-join's planner strategy and optimizer rules to a running session (once; a no-op with the extension). */
  def register(session: SparkSession): Unit = synchronized {
    BuildVersions.requireSupportedSpark()
    WJoinConf.register()
    if (!extensionSet(session)) {
      val hooks = SparkBridge.experimental(session)
      if (!registered(session)) hooks.extraStrategies = hooks.extraStrategies :+ WindowJoinStrategy
      hooks.extraOptimizations = hooks.extraOptimizations ++
        Seq(PushFiltersIntoWindowJoin, PruneWindowJoinOutput).filterNot(hooks.extraOptimizations.contains)
    }
  }

  /** Fails (WJOIN_EXTENSION_NOT_SET) before anything is built unless the session can plan a W-join. */
  def requirePlannable(session: SparkSession): Unit =
    WJoinErrors.check(extensionSet(session) || registered(session), "WJOIN_EXTENSION_NOT_SET", Nil)

  /** `df`, after the checks the extension's analyzer would have made, when the session has no extension. */
  def checked(session: SparkSession, df: DataFrame): DataFrame = {
    if (!extensionSet(session)) WindowJoinChecks(SparkBridge.analyzedPlan(df))
    df
  }
}
