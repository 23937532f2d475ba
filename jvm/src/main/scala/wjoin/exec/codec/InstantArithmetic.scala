package wjoin.exec.codec

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, TimestampNTZType, TimestampType}
import org.apache.spark.sql.wjoin.CatalystApi.TimestampPlusInterval

/**
 * The residual's `timestamp + constant day-time interval` as the addition it is, where Spark
 * computes it through calendar objects: a band `B.y BETWEEN A.y - INTERVAL 2 SECONDS AND A.y +
 * INTERVAL 2 SECONDS` is tested on every candidate, and Spark's `timestampAddDayTime` turns the
 * microseconds into a `ZonedDateTime`, adds the days in local time (daylight saving moves
 * them), the rest on the instant time line, and converts back: most of such a join's time.
 *
 * {{{
 *   ts + us   (TIMESTAMP, |us| < 1 day)          = Math.addExact(ts, us)   the instant time line
 *   ts + us   (TIMESTAMP_NTZ, any us)            = Math.addExact(ts, us)   local time in UTC: no shifts
 *   ts + us   (TIMESTAMP, |us| >= 1 day)         unchanged: whole days are calendar days there
 * }}}
 *
 * The same values and the same failure: Spark's result overflows a Long exactly when the sum
 * does, and both raise `ArithmeticException`. Only the compiled residual is rewritten; plans
 * and EXPLAIN keep Spark's expression.
 */
private[exec] object InstantArithmetic {
  private val MicrosPerDay = 86400L * 1000000L

  /** `e` with every exact `timestamp + constant interval` as a [[TimestampPlusMicros]]. */
  def apply(e: Expression): Expression = e.transformUp {
    case TimestampPlusInterval(ts, ConstantMicros(us)) if ts.dataType == TimestampNTZType ||
        (ts.dataType == TimestampType && math.abs(us) < MicrosPerDay) => TimestampPlusMicros(ts, us)
  }

  /** A foldable day-time interval's microseconds. */
  private object ConstantMicros {
    def unapply(e: Expression): Option[Long] =
      if (!e.foldable || !e.deterministic || !e.dataType.isInstanceOf[DayTimeIntervalType]) None
      else e.eval() match {
        case us: java.lang.Long => Some(us.longValue)
        case _ => None // NULL: Spark's expression gives NULL
      }
  }
}

/**
 * `child + micros` on a timestamp's microseconds (see [[InstantArithmetic]] for when that is
 * Spark's `timestamp + interval`); NULL stays NULL, an overflow raises `ArithmeticException`.
 *
 * @param child  a TIMESTAMP or TIMESTAMP_NTZ value
 * @param micros the microseconds to add
 */
private[exec] final case class TimestampPlusMicros(child: Expression, micros: Long) extends UnaryExpression {
  override def dataType: DataType = child.dataType
  override protected def nullSafeEval(input: Any): Any = Math.addExact(input.asInstanceOf[Long], micros)
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => s"java.lang.Math.addExact($c, ${micros}L)")
  override protected def withNewChildInternal(newChild: Expression): Expression = copy(child = newChild)
}
