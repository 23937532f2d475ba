package wjoin.plan

import org.apache.spark.sql.catalyst.expressions.{Expression, UnaryExpression}
import org.apache.spark.sql.catalyst.expressions.codegen.{CodegenContext, ExprCode}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, TimestampNTZType, TimestampType}
import org.apache.spark.sql.wjoin.CatalystApi.TimestampPlusInterval
import org.apache.spark.unsafe.types.CalendarInterval

/**
 * When Spark's `timestamp + constant interval` is an addition of microseconds, the one rule
 * both the band analysis (a band's range, [[RangePredicates]]) and the compiled residual use.
 *
 * Spark computes it through calendar objects: the microseconds become a `ZonedDateTime` in
 * the session time zone, months and whole days are added in local time (a day across a
 * daylight saving change is 23 or 25 hours), the rest on the instant time line:
 *
 * {{{
 *   ts + us     TIMESTAMP, day-time interval, |us| < 1 day        = ts + us
 *   ts + us     TIMESTAMP, day-time interval, a fixed-offset zone   = ts + us   (every day is 24 hours)
 *   ts + us     TIMESTAMP_NTZ, day-time interval                    = ts + us   (local time in UTC)
 *   ts + i      a calendar interval of 0 months and 0 days          = ts + i.microseconds
 *   ts + us     TIMESTAMP, |us| >= 1 day, a zone with shifts        calendar days: not an addition
 * }}}
 *
 * Where it is an addition, the sum overflows a Long exactly when Spark's result does, and both
 * raise `ArithmeticException`. A band whose interval is not an addition is no range (it stays
 * a residual conjunct only); the residual compiles an addition as [[TimestampPlusMicros]]
 * (plans and EXPLAIN keep Spark's expression): most of a timestamp band's time was Spark's
 * calendar arithmetic on every candidate.
 */
object InstantArithmetic {
  private val MicrosPerDay = 86400L * 1000000L

  /** `timestamp + constant interval` that is `timestamp + micros`: (timestamp, micros). */
  object ExactPlus {
    def unapply(e: Expression): Option[(Expression, Long)] = e match {
      case TimestampPlusInterval(ts, interval, zone) if interval.foldable && interval.deterministic &&
          (ts.dataType == TimestampType || ts.dataType == TimestampNTZType) =>
        scala.util.Try(interval.eval()).toOption.flatMap {
          case us: java.lang.Long if interval.dataType.isInstanceOf[DayTimeIntervalType] &&
              (ts.dataType == TimestampNTZType || math.abs(us.longValue) < MicrosPerDay || fixedOffset(zone)) =>
            Some((ts, us.longValue))
          case ci: CalendarInterval if ci.months == 0 && ci.days == 0 => Some((ts, ci.microseconds))
          case _ => None // NULL, months or days, or whole days in a zone with shifts
        }
      case _ => None
    }
  }

  private def fixedOffset(zone: Option[String]): Boolean =
    zone.exists(id => scala.util.Try(DateTimeUtils.getZoneId(id).getRules.isFixedOffset).getOrElse(false))

  /** `e` with every exact `timestamp + constant interval` as a [[TimestampPlusMicros]]. */
  def apply(e: Expression): Expression = e.transformUp {
    case ExactPlus(ts, us) => TimestampPlusMicros(ts, us)
  }
}

/**
 * `child + micros` on a timestamp's microseconds (see [[InstantArithmetic]] for when that is
 * Spark's `timestamp + interval`); NULL stays NULL, an overflow raises `ArithmeticException`.
 *
 * @param child  a TIMESTAMP or TIMESTAMP_NTZ value
 * @param micros the microseconds to add
 */
final case class TimestampPlusMicros(child: Expression, micros: Long) extends UnaryExpression {
  override def dataType: DataType = child.dataType
  override protected def nullSafeEval(input: Any): Any = Math.addExact(input.asInstanceOf[Long], micros)
  override protected def doGenCode(ctx: CodegenContext, ev: ExprCode): ExprCode =
    defineCodeGen(ctx, ev, c => s"java.lang.Math.addExact($c, ${micros}L)")
  override protected def withNewChildInternal(newChild: Expression): Expression = copy(child = newChild)
}
