package wjoin.plan

import scala.util.Try

import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Expression, GenericInternalRow, Literal,
  UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.logical.Project
import org.apache.spark.sql.types.{DataType, DayTimeIntervalType, StructField, StructType, TimestampNTZType,
  TimestampType}
import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.testkit.SharedSparkSession

/**
 * [[InstantArithmetic]] against Spark's own `timestamp + interval`, the expression the analyzer
 * makes of the user's query, evaluated by both the generated and the interpreted code: the same
 * values and the same overflow failures in time zones with and without daylight saving, around
 * their transitions and at the ends of the range; intervals of whole days stay Spark's.
 */
class InstantArithmeticSuite extends AnyFunSuite with SharedSparkSession with ScalaCheckPropertyChecks {
  private val Day = 86400L * 1000000L
  private val zones = Seq("America/New_York", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC")

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration = PropertyCheckConfiguration(minSuccessful = 100)

  /** Spark's analyzed `ts + INTERVAL '1' SECOND` on a column of `dataType` in `zone`, and the column. */
  private val templates = scala.collection.mutable.Map.empty[(DataType, String), (Expression, Attribute)]
  private def template(dataType: DataType, zone: String): (Expression, Attribute) = templates.getOrElseUpdate((dataType, zone),
    withConf("spark.sql.session.timeZone" -> zone) {
      val df = spark.createDataFrame(java.util.List.of[Row](), StructType(Seq(StructField("ts", dataType))))
        .selectExpr("ts + INTERVAL '1' SECOND")
      df.queryExecution.analyzed match {
        case Project(Seq(Alias(e, _)), c) => (e, c.output.head)
        case other => fail(s"not a projection: $other")
      }
    })

  /** Spark's `ts + interval` with `us` as the interval, and the column. */
  private def sparkPlus(dataType: DataType, zone: String, us: Long): (Expression, Attribute) = {
    val (plus, ts) = template(dataType, zone)
    (plus.transform { case l: Literal if l.dataType.isInstanceOf[DayTimeIntervalType] => Literal(us, l.dataType) }, ts)
  }

  /** The value or the failure's class, by generated and by interpreted evaluation. */
  private def results(e: Expression, ts: Attribute, micros: Long): Seq[Either[String, Any]] = {
    val row = new GenericInternalRow(Array[Any](micros))
    def outcome(f: => Any) = Try(f).toEither.left.map(_.getClass.getSimpleName)
    val generated = UnsafeProjection.create(Seq(e), Seq(ts))
    Seq(outcome(generated(row).getLong(0)), outcome(e.transform {
      case a: Attribute if a.exprId == ts.exprId => org.apache.spark.sql.catalyst.expressions.BoundReference(0, a.dataType, true)
    }.eval(row)))
  }

  private val transitions = Seq(1772953200000000L, 1793512800000000L, 1775318400000000L, 0L) // 2026 DST changes, epoch
  private val micros: Gen[Long] = Gen.frequency(
    4 -> Gen.choose(-4000000000000000L, 4000000000000000L),
    3 -> Gen.oneOf(transitions).flatMap(t => Gen.choose(-2 * Day, 2 * Day).map(t + _)),
    1 -> Gen.oneOf(Long.MinValue, Long.MinValue + 1, Long.MaxValue, Long.MaxValue - 1),
    1 -> Gen.choose(-Day, Day).map(Long.MaxValue - Day + _),
    1 -> Gen.choose(-Day, Day).map(Long.MinValue + Day + _))

  test("TIMESTAMP + an interval under a day: the addition, the same overflows, in every zone") {
    for (zone <- zones) {
      forAll(micros, Gen.oneOf(Gen.choose(-Day + 1, Day - 1), Gen.oneOf(-Day + 1, Day - 1, 0L, 2000000L))) { (t, us) =>
        val (plus, ts) = sparkPlus(TimestampType, zone, us)
        val rewritten = InstantArithmetic(plus)
        assert(rewritten.find(_.isInstanceOf[TimestampPlusMicros]).isDefined, rewritten) // under the analyzer's cast
        val expected = results(plus, ts, t)
        assert(expected.distinct.size == 1, s"Spark's own generated and interpreted forms differ: $expected")
        assert(results(rewritten, ts, t) == expected, s"$zone: $t + $us")
      }
    }
  }

  test("TIMESTAMP_NTZ + any interval: the addition") {
    forAll(micros, Gen.oneOf(Gen.choose(-400 * Day, 400 * Day), Gen.oneOf(Day, -Day, 7 * Day, Long.MaxValue / 2))) {
      (t, us) =>
        val (plus, ts) = sparkPlus(TimestampNTZType, "America/New_York", us)
        val rewritten = InstantArithmetic(plus)
        assert(rewritten.find(_.isInstanceOf[TimestampPlusMicros]).isDefined, rewritten) // under the analyzer's cast
        assert(results(rewritten, ts, t) == results(plus, ts, t), s"$t + $us")
    }
  }

  test("TIMESTAMP + whole days stays Spark's: a calendar day across a daylight saving change is not 24 hours") {
    val (plus, ts) = sparkPlus(TimestampType, "America/New_York", Day)
    assert(InstantArithmetic(plus) == plus)
    for (zone <- Seq("UTC", "+05:30")) // fixed offsets: every day is 24 hours
      forAll(micros, Gen.choose(-400 * Day, 400 * Day)) { (t, us) =>
        val (fixed, column) = sparkPlus(TimestampType, zone, us)
        val rewritten = InstantArithmetic(fixed)
        assert(rewritten.find(_.isInstanceOf[TimestampPlusMicros]).isDefined, rewritten)
        assert(results(rewritten, column, t) == results(fixed, column, t), s"$zone: $t + $us")
      }
    val beforeSpringForward = 1772953200000000L - Day / 2 // 2026-03-07 14:00 in New York; the clocks go forward that night
    assert(results(plus, ts, beforeSpringForward).head == Right(beforeSpringForward + Day - 3600L * 1000000L))
  }

  test("a NULL timestamp or a NULL interval stays NULL") {
    val (plus, ts) = sparkPlus(TimestampType, "UTC", 5L)
    val nullRow = new GenericInternalRow(Array[Any](null))
    val rewritten = InstantArithmetic(plus)
    assert(UnsafeProjection.create(Seq(rewritten), Seq(ts))(nullRow).isNullAt(0))
    val nullInterval = plus.transform { case l: Literal if l.dataType.isInstanceOf[DayTimeIntervalType] => Literal(null, l.dataType) }
    assert(InstantArithmetic(nullInterval) == nullInterval)
  }
}
