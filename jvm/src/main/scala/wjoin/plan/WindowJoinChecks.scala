package wjoin.plan

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import wjoin.core.Algorithm

/**
 * Analysis-time checks of every [[WindowJoin]] once it is resolved, so misuse fails before
 * any job runs, naming the input or option at fault.
 */
object WindowJoinChecks extends (LogicalPlan => Unit) {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case w: WindowJoin if w.resolved =>
      val streaming = w.children.zip(w.inputNames).filter(_._1.isStreaming).map(_._2)
      require(streaming.isEmpty,
        s"W-join input(s) ${streaming.mkString(", ")} are streaming DataFrames; this version of spark-wjoin " +
          "joins batch DataFrames only (streaming W-join is not available yet)")
      val analysis = JoinConditionAnalysis(w.children.map(_.outputSet), w.condition)
      require(w.algorithm != Algorithm.HW.name || analysis.hasKey,
        "algorithm 'hw' (hash W-join) needs an equality key shared by all inputs, e.g. on=\"obj_id\" or " +
          s"A.k = B.k AND B.k = C.k over every input; this W-join has none. Use 'auto', 'mw' or 'nlw'.")
    case _ =>
  }
}
