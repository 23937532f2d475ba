package wjoin.testkit

import org.apache.spark.sql.catalyst.expressions.{Expression, RuntimeReplaceable}
import org.apache.spark.sql.wjoin.TestApi

/** Expressions as Spark's optimizer evaluates them: BETWEEN, `ts - INTERVAL` and `With` replaced. */
object OptimizedForms {
  def replaced(e: Expression): Expression = {
    val next = e.transformUp {
      case r: RuntimeReplaceable => r.replacement
      case TestApi.InlinedWith(inlined) => inlined
    }
    if (next.fastEquals(e)) e else replaced(next)
  }
}
