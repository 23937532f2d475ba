package wjoin.testkit

import org.apache.spark.sql.catalyst.expressions.{CommonExpressionRef, Expression, RuntimeReplaceable, With}

/** Expressions as Spark's optimizer evaluates them: BETWEEN, `ts - INTERVAL` and `With` replaced. */
object OptimizedForms {
  def replaced(e: Expression): Expression = {
    val next = e.transformUp {
      case r: RuntimeReplaceable => r.replacement
      case w: With =>
        val defs = w.defs.map(d => d.id -> d.child).toMap
        w.child.transform { case ref: CommonExpressionRef => defs(ref.id) }
    }
    if (next.fastEquals(e)) e else replaced(next)
  }
}
