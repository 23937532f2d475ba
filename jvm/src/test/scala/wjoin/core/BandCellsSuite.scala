package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks


/**
 * The cell arithmetic: a row of input j at y is copied to every cell of a home value x with
 * low(j) <= y - x <= high(j) (so each combination meets in its home row's cell), home rows have
 * one cell, at most 2 copies with the chosen width, special values in their own cells.
 */
class BandCellsSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val reachLow = Seq(0.0, -3.0, -8.0)
  private val reachHigh = Seq(0.0, 3.0, 6.0)

  test("width: 2 x (widest span + 1) for integral values, 2 x the widest span for real ones") {
    assert(BandCells.widthFor(real = false, reachLow, reachHigh) == 30.0)
    assert(BandCells.widthFor(real = true, reachLow, reachHigh) == 28.0)
    assert(BandCells.widthFor(real = true, Seq(0.0, 0.0), Seq(0.0, 0.0)) == 1.0, "a point reach (equality)")
  }

  test("integral: the home value's cell is among j's cells for every y - x in the reach; at most 2 copies") {
    val cells = BandCells(0, real = false, BandCells.widthFor(real = false, reachLow, reachHigh), reachLow, reachHigh)
    val gen = for {
      x <- Gen.oneOf(Gen.choose(-10000L, 10000L), Gen.oneOf(Long.MinValue, Long.MaxValue, Long.MinValue + 5, Long.MaxValue - 5))
      j <- Gen.choose(1, 2)
      d <- Gen.choose(reachLow(j).toLong, reachHigh(j).toLong)
    } yield (x, j, d)
    forAll(gen, minSuccessful(2000)) { case (x, j, d) =>
      val y = SaturatingTime.plus(x, d)
      whenever(y - d == x) { // no saturation: y really is x + d
        val (first, last) = cells.cellsOfLong(j, y)
        val home = cells.cellsOfLong(0, x)
        assert(home._1 == home._2 && home._1 == cells.cellOfLong(x))
        assert(first <= home._1 && home._1 <= last, s"x=$x y=$y: cell ${home._1} not in [$first, $last]")
        assert(last - first <= 1, s"$first..$last")
      }
    }
  }

  test("real: reaches widened for rounding; NaN, infinities and huge magnitudes in their own or the far cells") {
    val cells = BandCells(0, real = true, BandCells.widthFor(real = true, reachLow, reachHigh), reachLow, reachHigh,
      relative = math.pow(2, -48), absolute = 0.0, scale = 11.0, hops = 3)
    val gen = for {
      x <- Gen.oneOf(Gen.choose(-1e4, 1e4), Gen.choose(-1e300, 1e300), Gen.const(Double.MaxValue), Gen.const(0.0))
      j <- Gen.choose(1, 2)
      d <- Gen.choose(reachLow(j), reachHigh(j))
    } yield (x, j, d)
    forAll(gen, minSuccessful(2000)) { case (x, j, d) =>
      val y = x + d
      val (first, last) = cells.cellsOfDouble(j, y)
      val home = cells.cellOfDouble(x)
      assert(first <= home && home <= last, s"x=$x y=$y: cell $home not in [$first, $last]")
      assert(last - first <= 2, s"$first..$last")
    }
    assert(cells.cellOfDouble(Double.NaN) == BandCells.NaNCell)
    assert(cells.cellsOfDouble(1, Double.NaN) == ((BandCells.NaNCell, BandCells.NaNCell)))
    assert(cells.cellOfDouble(Double.PositiveInfinity) == BandCells.Far)
    assert(cells.cellOfDouble(Double.NegativeInfinity) == -BandCells.Far)
    // An infinity meets only the same infinity: one copy, in its cell (not every cell in between).
    assert(cells.cellsOfDouble(1, Double.PositiveInfinity) == ((BandCells.Far, BandCells.Far)))
    assert(cells.cellsOfDouble(2, Double.NegativeInfinity) == ((-BandCells.Far, -BandCells.Far)))
    assert(cells.cellsOfDouble(2, Double.MaxValue)._2 == BandCells.Far, "a reach that overflows reaches +Inf's cell")
    assert(cells.cellOfDouble(-0.0) == cells.cellOfDouble(0.0))
  }

  test("a malformed reach is refused") {
    intercept[AssertionError](BandCells(0, real = false, 1.0, reachLow, reachHigh))
    intercept[AssertionError](BandCells(0, real = true, 4.0, Seq(0.0, 2.0), Seq(0.0, 1.0)))
    intercept[AssertionError](BandCells(1, real = true, 4.0, Seq(0.0, 0.0), Seq(0.0, 1.0)))
  }
}
