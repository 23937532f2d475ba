package wjoin.core

import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException

/** Window lengths as text: Spark's interval spellings, ANSI day-time literals, integral lengths. */
class DurationsSuite extends AnyFunSuite {
  private val s = 1000000L
  private def micros(text: String): Long = Durations.parse(text, integralTime = false, "window")
  private def signed(text: String): Long = Durations.parseSigned(text, integralTime = false, "window")
  private def error(text: String): WJoinAnalysisException =
    intercept[WJoinAnalysisException](Durations.parse(text, integralTime = false, "window"))

  test("Spark's interval spellings") {
    assert(micros("2 seconds") == 2 * s)
    assert(micros("INTERVAL 5 MINUTES") == 300 * s)
    assert(micros("INTERVAL '5' MINUTE") == 300 * s)
    assert(micros("1 hour 30 minutes") == 5400 * s)
    assert(Durations.parse("100", integralTime = true, "window") == 100)
  }

  test("the sign is the value's: -0 is a length, a negative part may be outweighed (as in Spark's intervals)") {
    assert(micros("-0 seconds") == 0 && Durations.parse("-0", integralTime = true, "window") == 0)
    assert(micros("1 second -1 microsecond") == s - 1)
    assert(error("-1 microsecond").condition == "WJOIN_NEGATIVE_WINDOW")
    assert(error("1 second -2 seconds").condition == "WJOIN_NEGATIVE_WINDOW")
    assert(intercept[WJoinAnalysisException](Durations.parse("-5", integralTime = true, "window")).condition ==
      "WJOIN_NEGATIVE_WINDOW")
  }

  test("ANSI day-time literals: every field range, fractions of seconds, with or without INTERVAL") {
    assert(micros("INTERVAL '0 00:00:10' DAY TO SECOND") == 10 * s)
    assert(micros("interval '1 02:03:04.5' day to second") == ((86400 + 2 * 3600 + 3 * 60 + 4) * s + s / 2))
    assert(micros("INTERVAL '1 02' DAY TO HOUR") == 26 * 3600 * s)
    assert(micros("INTERVAL '1 00:30' DAY TO MINUTE") == (86400 + 1800) * s)
    assert(micros("INTERVAL '02:30' HOUR TO MINUTE") == 9000 * s)
    assert(micros("INTERVAL '36:00:01' HOUR TO SECOND") == (36 * 3600 + 1) * s) // the first field has no bound
    assert(micros("'10:00.000001' MINUTE TO SECOND") == 600 * s + 1)
    assert(signed("INTERVAL '-0 00:00:05' DAY TO SECOND") == -5 * s)
    assert(signed("-INTERVAL '0 00:00:05' DAY TO SECOND") == -5 * s)
  }

  test("ANSI day-time literals that are not lengths are errors naming the text") {
    assert(error("INTERVAL '10:00' DAY TO SECOND").getMessage.contains("expected day hour:minute:second"))
    assert(error("INTERVAL '0 25:00:00' DAY TO SECOND").getMessage.contains("hour 25 is out of range [0, 23]"))
    assert(error("INTERVAL '1.5 00' DAY TO HOUR").getMessage.contains("only seconds may have a fraction"))
    assert(error("INTERVAL '10' SECOND TO MINUTE").getMessage.contains("the first field must be larger"))
    assert(error("INTERVAL '-0 00:00:05' DAY TO SECOND").condition == "WJOIN_NEGATIVE_WINDOW")
    assert(error("INTERVAL '1-2' YEAR TO MONTH").condition == "WJOIN_INVALID_LENGTH")
  }
}
