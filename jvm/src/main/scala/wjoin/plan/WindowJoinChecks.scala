package wjoin.plan

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{EventTimeWatermark, Filter, LogicalPlan}
import org.apache.spark.sql.types.{TimestampNTZType, TimestampType}

import wjoin.core.{Algorithm, WindowStrategy}

/**
 * Analysis-time checks of every [[WindowJoin]] once it is resolved, so misuse fails before
 * any job runs, naming the input or option at fault.
 */
object WindowJoinChecks extends (LogicalPlan => Unit) with PredicateHelper {
  override def apply(plan: LogicalPlan): Unit = plan.foreach {
    case w: WindowJoin if w.resolved =>
      val streaming = w.children.zip(w.inputNames).filter(_._1.isStreaming).map(_._2)
      require(streaming.isEmpty || streaming.size == w.children.size,
        s"W-join inputs ${streaming.mkString(", ")} are streaming and ${w.inputNames.filterNot(streaming.contains)
          .mkString(", ")} are not: a W-join joins either batch DataFrames or streaming ones, not a mix")
      if (streaming.nonEmpty) checkStreaming(w)
      WindowStrategy.requireExactWithRows(w.windows.strategy, w.windows.counted)
      if (streaming.nonEmpty && w.windows.counted) require(w.algorithm.forall(_ == Algorithm.MW),
        s"ROWS windows on streams count rows in event-time order, which only the ordered mode sees (rows " +
          s"arrive out of order within the watermark delay); this W-join asks for algorithm '${w.algorithmName}'. " +
          "Use algorithm 'mw' or 'auto'.")
      val analysis = JoinConditionAnalysis(w.children.map(_.outputSet), conditionWithFiltersAbove(plan, w))
      require(!w.algorithm.contains(Algorithm.HW) || analysis.hasKey,
        "algorithm 'hw' (hash W-join) needs an equality key shared by all inputs, e.g. on=\"obj_id\" or " +
          s"A.k = B.k AND B.k = C.k over every input; this W-join has none. Use 'auto', 'mw' or 'nlw'.")
    case _ =>
  }

  /** Streams need a watermark on each time column: it is what bounds their state. */
  private def checkStreaming(w: WindowJoin): Unit = w.inputNames.indices.foreach { i =>
    val name = w.inputNames(i)
    w.timeColumns(i) match {
      case t: Attribute =>
        require(t.dataType == TimestampType || t.dataType == TimestampNTZType,
          s"the time column '${t.name}' of streaming input $name has type ${t.dataType.simpleString}; a streaming " +
            "W-join needs timestamp time columns with a watermark (withWatermark(\"" + t.name + "\", \"10 seconds\"))")
        val watermarked = w.children(i).output.find(_.exprId == t.exprId)
          .exists(_.metadata.contains(EventTimeWatermark.delayKey))
        require(watermarked,
          s"streaming input $name has no watermark on its time column '${t.name}': call " +
            s"withWatermark(\"${t.name}\", \"<delay>\") on it before the W-join, so the join knows when rows " +
            "can no longer match and can drop them from its state")
      case other => throw new IllegalArgumentException(s"time column $other of input $name is not a column")
    }
  }

  /**
   * The W-join's condition and the conjuncts of the Filters stacked right above it that
   * [[PushFiltersIntoWindowJoin]] will merge into it: a SQL W-join's WHERE clause and ON
   * conditions stay Filters until the optimizer runs, and may hold the key.
   */
  private def conditionWithFiltersAbove(plan: LogicalPlan, w: WindowJoin): Option[Expression] = {
    def stackAbove(p: LogicalPlan): Option[Seq[Expression]] = p match {
      case f: Filter if f.child eq w => Some(splitConjunctivePredicates(f.condition))
      case f: Filter => stackAbove(f.child).map(splitConjunctivePredicates(f.condition) ++ _)
      case _ => None
    }
    val above = plan.collectFirst(Function.unlift((p: LogicalPlan) => stackAbove(p))).getOrElse(Nil)
    // Filters above a left / semi / anti W-join stay there (they filter its output).
    val merged = if (w.how.anchored) Nil else above.filter(c => c.deterministic && !PushFiltersIntoWindowJoin.callsPython(c))
    (w.condition.toSeq ++ merged).reduceOption(And)
  }
}
