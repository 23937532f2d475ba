package wjoin.exec

import org.apache.spark.internal.Logging
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{SparkPlan, SparkStrategy}

import wjoin.plan.WindowJoin

/** Plans [[WindowJoin]] (and nothing else) as [[WindowJoinExec]]. */
object WindowJoinStrategy extends SparkStrategy with Logging {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case w: WindowJoin if w.isStreaming =>
      logWarning(s"Not planning ${w.simpleString(10)}: streaming W-join is not available in this version")
      Nil
    case w: WindowJoin =>
      WindowJoinExec(w, w.children.map(planLater)) :: Nil
    case _ => Nil
  }
}
