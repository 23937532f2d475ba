package wjoin.plan

import java.math.{BigDecimal => JBigDecimal}

import org.apache.spark.sql.types._

/**
 * Every orderable type a band can relate, with values that stress it (NULL, NaN, -0.0,
 * infinities, extreme longs, decimal scales, values a band apart) and the band forms Spark
 * accepts on it, written in SQL over `A.x` and `B.x`. Shared by the range-extraction property
 * test and the differential test against Spark's join.
 *
 * @param name   for test names
 * @param dt     the column type
 * @param values draw one external value (Row field) from a random source
 * @param forms  band conjuncts over A.x and B.x
 */
final case class BandKind(name: String, dt: DataType, values: scala.util.Random => Any, forms: Seq[String])

object BandKinds {
  private def pick[T](r: scala.util.Random, special: Seq[T], usual: => T): T =
    if (r.nextInt(8) == 0) special(r.nextInt(special.size)) else usual

  private val numericForms = Seq(
    "abs(A.x - B.x) <= 2", "abs(A.x - B.x) < 2.5", "1.5 >= abs(B.x - A.x)", "A.x BETWEEN B.x - 2 AND B.x + 1",
    "B.x - 2 <= A.x AND A.x <= B.x + 2", "A.x < B.x + 1", "B.x + 0.5 > A.x", "A.x - B.x <= 1", "A.x >= B.x - 3",
    "A.x - B.x >= -1", "-1 < B.x - A.x",
    "A.x = B.x", "abs(A.x - B.x) <= CAST(2 AS TINYINT)", "abs(A.x - B.x) <= 1 + 1", "abs(A.x - B.x) <= 2.0D")

  private def integral(name: String, dt: DataType, extremes: Seq[Any], of: Long => Any): BandKind =
    BandKind(name, dt, r => pick(r, null +: extremes, of(r.nextInt(40) - 20L)), numericForms)

  val all: Seq[BandKind] = Seq(
    integral("byte", ByteType, Seq(Byte.MinValue, Byte.MaxValue), v => v.toByte),
    integral("short", ShortType, Seq(Short.MinValue, Short.MaxValue), v => v.toShort),
    integral("int", IntegerType, Seq(Int.MinValue, Int.MaxValue), v => v.toInt),
    integral("long", LongType, Seq(Long.MinValue, Long.MaxValue, Long.MaxValue - 1, 1L << 53, (1L << 53) + 1), v => v),
    BandKind("float", FloatType, r => pick(r, Seq(null, Float.NaN, -0.0f, 0.0f, Float.PositiveInfinity,
      Float.NegativeInfinity, Float.MaxValue, Float.MinPositiveValue, 1e7f + 1),
      (r.nextInt(80) - 40) / 4.0f + (if (r.nextBoolean()) 1e-7f else 0f)), numericForms :+ "abs(A.x - B.x) <= 2.0F"),
    BandKind("double", DoubleType, r => pick(r, Seq(null, Double.NaN, -0.0, 0.0, Double.PositiveInfinity,
      Double.NegativeInfinity, Double.MaxValue, -Double.MaxValue, Double.MinPositiveValue, 9.007199254740993e15),
      (r.nextInt(80) - 40) / 4.0 + (if (r.nextBoolean()) r.nextDouble() * 1e-12 else 0.0)),
      numericForms ++ Seq("abs(A.x - B.x) <= 1e-3", "A.x <= B.x + 2.000000000000001")),
    BandKind("decimal(10,3)", DecimalType(10, 3), r => pick(r, Seq(null, new JBigDecimal("9999999.999"),
      new JBigDecimal("-9999999.999"), new JBigDecimal("0.001")), JBigDecimal.valueOf(r.nextInt(8000) - 4000L, 3)),
      numericForms :+ "abs(A.x - B.x) <= 0.125"),
    BandKind("decimal(38,18)", DecimalType(38, 18), r => pick(r, Seq(null,
      new JBigDecimal("12345678901234567890.123456789012345678"), new JBigDecimal("-0.000000000000000001")),
      JBigDecimal.valueOf(r.nextInt(8000) - 4000L, 3).add(JBigDecimal.valueOf(r.nextInt(3), 18))),
      numericForms :+ "abs(A.x - B.x) <= 0.000000000000000001"),
    BandKind("date", DateType, r => pick(r, Seq(null, java.time.LocalDate.of(1, 1, 1), java.time.LocalDate.of(9999, 12, 31)),
      java.time.LocalDate.of(2024, 1, 1).plusDays(r.nextInt(30))),
      Seq("A.x BETWEEN B.x - 2 AND B.x + 2", "A.x < B.x + 1", "A.x >= date_sub(B.x, 3)", "A.x <= date_add(B.x, 2)",
        "A.x = B.x", "B.x > A.x")),
    BandKind("timestamp", TimestampType, r => pick(r, Seq(null, java.time.Instant.parse("0001-01-01T00:00:00Z")),
      java.time.Instant.parse("2024-01-01T00:00:00Z").plusMillis(r.nextInt(20000))),
      Seq("A.x BETWEEN B.x - INTERVAL 2 SECONDS AND B.x + INTERVAL 2 SECONDS", "A.x < B.x + INTERVAL '1.5' SECOND",
        "A.x >= B.x - INTERVAL 3 SECONDS", "A.x = B.x", "B.x > A.x", "A.x <= B.x")),
    BandKind("int-double", IntegerType, r => pick(r, Seq(null, Int.MaxValue), r.nextInt(40) - 20),
      Seq("abs(A.x - B.x) <= 2.5D", "A.x < B.x + 0.5D", "abs(CAST(A.x AS DOUBLE) - B.x) <= 2"))
  )
}
