package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

/**
 * Times at and near both ends of the Long range: every algorithm, access path and window
 * strategy equals the reference W-join there, batch and streaming, as it does near zero.
 */
class TimeRangeEdgesSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** Rows of `rows(...)` (times 0 until `span`) moved so that the lowest is `from`. */
  private def at(from: Long, rows: Seq[TRow]): Seq[TRow] = rows.map(r => r.copy(time = from + r.time))

  private val ends = Seq("Long.MinValue" -> Long.MinValue, "Long.MinValue + 3" -> (Long.MinValue + 3))
  private val span = 25

  test("SaturatingTime: plus, minus and differenceExceeds never wrap") {
    import SaturatingTime._
    assert(minus(Long.MinValue + 5, 10) == Long.MinValue)
    assert(plus(Long.MaxValue - 5, 10) == Long.MaxValue)
    assert(plus(Long.MinValue + 5, -10) == Long.MinValue)
    assert(minus(Long.MaxValue - 5, -10) == Long.MaxValue)
    assert(plus(-5, Inf) == Inf && minus(5, Inf) == Long.MinValue)
    assert(minus(0, Long.MinValue) == Long.MaxValue && minus(-1, Long.MinValue) == Long.MaxValue)
    assert(differenceExceeds(Long.MaxValue, Long.MinValue, 10))
    assert(!differenceExceeds(Long.MinValue, Long.MaxValue, -10))
    assert(!differenceExceeds(Long.MaxValue, Long.MinValue, Inf))
    assert(!reached(Long.MinValue, 0, Long.MinValue), "Long.MinValue is no limit: more rows may come at that time")
    assert(reached(Long.MinValue, 0, Long.MinValue + 1))
    val big = Gen.chooseNum(Long.MinValue, Long.MaxValue)
    forAll(big, big) { (t: Long, d: Long) =>
      val exact = BigInt(t) + BigInt(d)
      val clamped = exact.max(BigInt(Long.MinValue)).min(BigInt(Long.MaxValue)).toLong
      assert(plus(t, d) == (if (d == Inf) Inf else clamped))
      val exactMinus = (BigInt(t) - BigInt(d)).max(BigInt(Long.MinValue)).min(BigInt(Long.MaxValue)).toLong
      assert(minus(t, d) == (if (d == Inf) Long.MinValue else exactMinus))
      assert(differenceExceeds(t, d, 7) == (BigInt(t) - BigInt(d) > 7))
      assert(minusAboveRange(t, d) == (d != Inf && BigInt(t) - BigInt(d) > BigInt(Long.MaxValue)))
      assert(plusBelowRange(t, d) == (BigInt(t) + BigInt(d) < BigInt(Long.MinValue)))
    }
  }

  test("a travel-time period wholly beyond either end holds no time (not the end itself)") {
    // DWINDOW(0,1) = [10, 20]: 1 - 0 is 6 in both, so nothing joins; the clamped periods were
    // [MAX, MAX] (forward, from the row of 0) and [MIN, MIN] (backward, from the row of 1).
    val matrix = WindowMatrix.close(Seq(DirectedWindow(0, 1, 10, 20, "DWINDOW(0,1)")), names(2))
    for ((t0, t1) <- Seq((Long.MaxValue - 6, Long.MaxValue), (Long.MinValue, Long.MinValue + 6)); keyed <- Seq(true, false)) {
      val rs = Seq(TRow(0, t0, 0, 1), TRow(1, t1, 0, 2))
      assert(ReferenceWJoin.join(2, rs, matrix, sameKey = keyed).isEmpty)
      for ((name, plan) <- plans(matrix, keyed = keyed))
        assert(EngineRunner.run(2, rs, plan, sameKey = keyed)._1.isEmpty, s"$name, times $t0 and $t1")
      val joined = Seq(TRow(0, t0, 0, 1), TRow(1, t0 + 10, 0, 2)).filter(_ => t0 < 0) // 10 apart: joins
      for ((name, plan) <- plans(matrix, keyed = keyed) if joined.nonEmpty)
        assert(EngineRunner.run(2, joined, plan, sameKey = keyed)._1 == Seq(Seq(1, 2)), s"$name, 10 apart")
    }
  }

  for ((end, from) <- ends :+ ("Long.MaxValue - span" -> (Long.MaxValue - span)); n <- 2 to 3;
       (shape, terms) <- shapes(n)) {
    test(s"N=$n $shape, times from $end: every plan equals the reference (batch)") {
      val matrix = WindowMatrix.close(terms, names(n))
      for (seed <- 1 to 3) {
        val rs = at(from, rows(n, 8, if (shape == "zero") 3 else span, 2, seed * 17 + n))
        val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = true)
        assert(expected.nonEmpty || shape == "travel time", "the data must give combinations")
        for ((name, plan) <- plans(matrix, keyed = true))
          assert(EngineRunner.run(n, rs, plan, sameKey = true)._1 == expected, s"$name, seed $seed")
      }
    }
  }

  test("the issue's case: one row each at Long.MinValue + 5, window 10, joins") {
    val rs = Seq(TRow(0, Long.MinValue + 5, 0, 1), TRow(1, Long.MinValue + 5, 0, 2))
    val matrix = WindowMatrix.close(Seq(UniformWindow(10, "WINDOW = 10")), names(2))
    for ((name, plan) <- plans(matrix, keyed = true))
      assert(EngineRunner.run(2, rs, plan, sameKey = true)._1 == Seq(Seq(1, 2)), name)
  }

  test("rows at exactly Long.MinValue with a zero window are all joined") {
    val rs = Seq(TRow(0, Long.MinValue, 0, 1), TRow(1, Long.MinValue, 0, 2), TRow(0, Long.MinValue, 0, 3))
    val matrix = WindowMatrix.close(Seq(UniformWindow(0, "WINDOW = 0")), names(2))
    for ((name, plan) <- plans(matrix, keyed = true))
      assert(EngineRunner.run(2, rs, plan, sameKey = true)._1 == Seq(Seq(1, 2), Seq(3, 2)), name)
  }
}
