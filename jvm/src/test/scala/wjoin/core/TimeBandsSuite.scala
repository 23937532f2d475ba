package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks


class TimeBandsSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  private def matrixOf(n: Int, terms: Seq[WindowTerm]) = WindowMatrix.close(terms, names(n))

  /** Band b's rows: every row sent to b. */
  private def replicate(bands: TimeBands, rows: Seq[TRow]): IndexedSeq[Seq[TRow]] =
    (0 until bands.count).map(b => rows.filter(r => bands.firstBand(r.input, r.time) <= b && b <= bands.lastBand(r.time)))

  test("bands, bounds and membership of a time") {
    val bands = new TimeBands(Array(10L, 20L, 35L), Array(4L, 0L))
    assert(bands.count == 4)
    assert(Seq(Long.MinValue, 9L, 10L, 19L, 20L, 34L, 35L, Long.MaxValue).map(bands.bandOf) == Seq(0, 0, 1, 1, 2, 2, 3, 3))
    assert((0 until 4).map(bands.lowerOf) == Seq(Long.MinValue, 10L, 20L, 35L))
    assert((0 until 4).map(bands.lastOf) == Seq(9L, 19L, 34L, Long.MaxValue))
    assert(bands.lastOf(6) == Long.MaxValue) // partitions beyond the last band are empty
    // input 0 reaches 4 back: a row at 22 is needed by combinations starting in [18, 22]
    assert((bands.firstBand(0, 22), bands.lastBand(22)) == (1, 2))
    assert((bands.firstBand(0, 24), bands.lastBand(24)) == (2, 2))
    assert((bands.firstBand(1, 22), bands.lastBand(22)) == (2, 2))
    assert(bands.firstBand(0, Long.MinValue + 1) == 0) // saturates, never wraps
    assert(bands.owns(1, Array(25L, 19L)) && !bands.owns(2, Array(25L, 19L)) && bands.owns(2, Array(25L, 20L)))
    // Both ends of the Long range have an owner: the first and the last band.
    assert(bands.owns(0, Array(Long.MinValue, Long.MinValue)) && bands.owns(3, Array(Long.MaxValue, Long.MaxValue)))
    assert((0 until 4).count(bands.owns(_, Array(Long.MaxValue))) == 1)
    assert(TimeBands.single(WindowMatrix.uniform(2, 5)).owns(0, Array(Long.MaxValue, Long.MaxValue)))
  }

  test("reach follows the closed matrix, also for directed intervals") {
    // 30 <= ts_B - ts_A <= 120: a B member is at most 120 after the earliest, an A member is the earliest
    val path = matrixOf(2, Seq(DirectedWindow(0, 1, 30, 120, "DWINDOW(A,B)")))
    assert(TimeBands.reach(path).toSeq == Seq(0L, 120L))
    assert(TimeBands.minWidth(path) == 120L)
    // chain A-B 3, B-C 5: A-C implied 8
    val chain = matrixOf(3, Seq(PairWindow(0, 1, 3, "AB"), PairWindow(1, 2, 5, "BC")))
    assert(TimeBands.reach(chain).toSeq == Seq(8L, 5L, 8L))
    assert(TimeBands.minWidth(matrixOf(2, Seq(UniformWindow(0, "WINDOW = 0")))) == 1L)
  }

  test("rejects boundaries that do not increase and unusable band counts") {
    assert(intercept[AssertionError](new TimeBands(Array(5L, 5L), Array(1L, 1L))).getMessage
      .contains("increase strictly"))
    val m = WindowMatrix.uniform(2, 3)
    assert(intercept[AssertionError](TimeBands.fromSample(Array(1L), Array(1.0), 0, m)).getMessage
      .contains("at least 1"))
  }

  private val shapeGen: Gen[(Int, Seq[WindowTerm])] = for {
    n <- Gen.choose(2, 4)
    shape <- Gen.oneOf(shapes(n))
  } yield (n, shape._2)

  test("property: every admitted combination is owned by exactly one band, which holds all its members") {
    val gen = for {
      (n, terms) <- shapeGen
      seed <- Gen.choose(0L, 1000000L)
      boundaries <- Gen.listOf(Gen.choose(-2L, 30L)).map(_.distinct.sorted.toArray)
    } yield (n, terms, seed, boundaries)
    forAll(gen, minSuccessful(200)) { case (n, terms, seed, boundaries) =>
      val matrix = matrixOf(n, terms)
      val bands = new TimeBands(boundaries, TimeBands.reach(matrix))
      val rows = EngineFixtures.rows(n, if (n == 4) 6 else 9, 28, 1, seed)
      val byId = rows.map(r => r.id -> r).toMap
      val perBand = replicate(bands, rows).map(_.map(_.id).toSet)
      for (combo <- ReferenceWJoin.join(n, rows, matrix, sameKey = false)) {
        val times = combo.map(byId(_).time).toArray
        val owners = (0 until bands.count).filter(bands.owns(_, times))
        assert(owners.size == 1, s"combination $combo owned by bands $owners of $bands")
        assert(combo.forall(perBand(owners.head)), s"band ${owners.head} lacks a member of $combo ($bands)")
        assert(owners.head == bands.bandOf(times.min))
      }
      // The lower side of ownership holds by construction: a band holds no row before its start.
      for (b <- 0 until bands.count; id <- perBand(b)) assert(byId(id).time >= bands.lowerOf(b))
    }
  }

  test("property: per-band engines keeping owned combinations give exactly the single-partition result") {
    val gen = for {
      (n, terms) <- shapeGen
      seed <- Gen.choose(0L, 1000000L)
      maxBands <- Gen.choose(1, 8)
      burst <- Gen.oneOf(false, true)
    } yield (n, terms, seed, maxBands, burst)
    forAll(gen, minSuccessful(100)) { case (n, terms, seed, maxBands, burst) =>
      val matrix = matrixOf(n, terms)
      val plain = EngineFixtures.rows(n, if (n == 4) 6 else 9, 40, 1, seed)
      // a burst: about half of the rows at one instant
      val rows = if (!burst) plain else plain.map(r => if (r.id % 2 == 0) r.copy(time = 17L) else r)
      val bands = TimeBands.fromSample(rows.map(_.time).toArray, Array.fill(rows.size)(1.0), maxBands, matrix)
      assert(bands.count <= maxBands)
      val expected = ReferenceWJoin.join(n, rows, matrix, sameKey = false)
      val perBand = replicate(bands, rows)
      for ((name, plan) <- plans(matrix, keyed = false)) {
        val got = (0 until bands.count).flatMap { b =>
          val (found, _) = EngineRunner.run(n, perBand(b), plan, sameKey = false)
          val byId = perBand(b).map(r => r.id -> r).toMap
          found.filter(c => bands.owns(b, c.map(byId(_).time).toArray))
        }.sortBy(_.mkString(","))
        assert(got == expected, s"$name with $bands")
      }
    }
  }

  test("equal-depth boundaries: even data is split evenly, every inner band is at least the reach wide") {
    val m = WindowMatrix.uniform(3, 5)
    val times = Array.tabulate(10000)(i => i.toLong)
    val bands = TimeBands.fromSample(times, Array.fill(times.length)(1.0), 10, m)
    assert(bands.count == 10, bands)
    val sizes = times.groupBy(bands.bandOf).values.map(_.length)
    assert(sizes.max <= 1100 && sizes.min >= 900, sizes)
    // wide windows: boundaries at least 3000 apart, so fewer bands
    val wide = TimeBands.fromSample(times, Array.fill(times.length)(1.0), 10, WindowMatrix.uniform(3, 3000))
    assert(wide.count < 10 && wide.count > 1, wide)
    assert(wide.boundaries.sliding(2).forall(p => p.length < 2 || p(1) - p(0) >= 3000), wide)
    // a row is sent to at most 2 bands when inner bands are at least the reach wide
    assert(times.forall(t => wide.lastBand(t) - wide.firstBand(0, t) <= 1))
  }

  test("a burst gets a band of its own and the rest is still spread over the other bands") {
    val m = WindowMatrix.uniform(2, 2)
    val spread = Array.tabulate(2000)(i => (i * 5).toLong)
    val times = spread ++ Array.fill(18000)(5000L)
    val bands = TimeBands.fromSample(times, Array.fill(times.length)(1.0), 8, m)
    val sizes = times.groupBy(bands.bandOf).map { case (b, ts) => b -> ts.length }
    val burstBand = bands.bandOf(5000L)
    assert(sizes(burstBand) < 18000 + 10, s"burst band holds more than the burst: $sizes, $bands")
    assert(sizes.size >= 5, s"the rows outside the burst are not spread: $sizes, $bands")
    // greedy: the rows before the burst fill one band (they weigh less than one target)
    assert((sizes - burstBand).values.max <= 1000, s"$sizes, $bands")
    assert(bands.lowerOf(burstBand) == 5000L, s"the burst does not start its band: $bands")
  }

  test("no sample or one band: a single band") {
    val m = WindowMatrix.uniform(2, 2)
    assert(TimeBands.fromSample(Array.emptyLongArray, Array.emptyDoubleArray, 4, m).count == 1)
    assert(TimeBands.fromSample(Array(1L, 2L, 3L), Array(1.0, 1.0, 1.0), 1, m).count == 1)
    assert(TimeBands.fromSample(Array.fill(50)(7L), Array.fill(50)(1.0), 4, m).count == 1) // one instant
  }

  test("the band count: one per rowsPerBand rows, at least the slots, at most maxBands, at least 1") {
    assert(TimeBands.countFor(600000, 100000, 2, 200) == 6)
    assert(TimeBands.countFor(600001, 100000, 2, 200) == 7)   // a partial band is a band
    assert(TimeBands.countFor(3000000, 100000, 2, 200) == 30)
    assert(TimeBands.countFor(3000000, 100000, 2, 16) == 16)  // spark.wjoin.timeBands caps it
    assert(TimeBands.countFor(5000, 100000, 8, 200) == 8)     // few rows: still one band per core
    assert(TimeBands.countFor(5000, 100000, 8, 4) == 4)
    assert(TimeBands.countFor(0, 100000, 0, 200) == 1)
    assert(TimeBands.countFor(1e12, 1, 2, 200) == 200)       // rowsPerBand 1: the most bands
    intercept[AssertionError](TimeBands.countFor(10, 0, 2, 200))
  }
}
