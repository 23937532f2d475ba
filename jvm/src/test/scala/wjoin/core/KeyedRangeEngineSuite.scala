package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.cost.AccessPath
import wjoin.core.cost.AccessPath._
import wjoin.core.window.KeyedRangeWindow

/**
 * The keyed range access paths (`hash+ttree`, `hash+bplustree`: hash buckets on the shared key,
 * each bucket a tree on the band attribute) against the brute-force reference: random streams
 * with few key values, bands on long and on double attributes (Spark's double order: NaN above
 * +Infinity, -0.0 equal to 0.0, via [[RealKeys]]), mixed with the other paths, under HW- and
 * MW-join; NLW-join scans (it takes no key path) and must give the same rows.
 */
class KeyedRangeEngineSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** `lo <= a.x - b.x <= hi` between inputs a and b; real: the x are [[RealKeys]] of doubles. */
  final case class XBand(a: Int, b: Int, lo: Double, hi: Double, real: Boolean) {
    private def le(p: Double, q: Double) = java.lang.Double.compare(p + 0.0, q + 0.0) <= 0 // Spark's order
    def holds(t: Seq[TRow]): Boolean =
      if (real) {
        val diff = RealKeys.decode(t(a).x) - RealKeys.decode(t(b).x)
        (lo.isInfinite || le(lo, diff)) && (hi.isInfinite || le(diff, hi))
      } else {
        val diff = BigInt(t(a).x) - BigInt(t(b).x)
        (lo.isInfinite || diff >= BigInt(lo.toLong)) && (hi.isInfinite || diff <= BigInt(hi.toLong))
      }
    /** As `RangePredicates` builds them: a in [b + lo, b + hi], b in [a - hi, a - lo]. */
    def bindings: Seq[RangeBinding] = {
      val (l, h) = (if (lo.isInfinite) Long.MinValue else lo.toLong, if (hi.isInfinite) Long.MaxValue else hi.toLong)
      if (!real) Seq(RangeBinding(a, 0, b, 0, l, h),
        RangeBinding(b, 0, a, 0, if (h == Long.MaxValue) Long.MinValue else -h, if (l == Long.MinValue) Long.MaxValue else -l))
      else {
        val rb = RealBand(if (lo.isInfinite) lo else java.lang.Math.nextDown(lo), if (hi.isInfinite) hi else java.lang.Math.nextUp(hi),
          math.abs(if (lo.isInfinite) 0 else lo) + math.abs(if (hi.isInfinite) 0 else hi), math.pow(2, -48), 0.0)
        val (lOff, hOff) = (if (lo.isInfinite) Long.MinValue else 0L, if (hi.isInfinite) Long.MaxValue else 0L)
        // `x_a - x_b >= lo` holds when either side is NaN (the difference is NaN, the largest)
        val nan = hi.isInfinite && !lo.isInfinite
        Seq(RangeBinding(a, 0, b, 0, lOff, hOff, Some(rb), nan),
          RangeBinding(b, 0, a, 0, if (hOff == Long.MaxValue) Long.MinValue else 0L,
            if (lOff == Long.MinValue) Long.MaxValue else 0L, Some(rb.mirror), nan))
      }
    }
  }

  private val specialDoubles = Seq(Double.NaN, -0.0, 0.0, Double.PositiveInfinity, Double.NegativeInfinity)

  /** Rows with few keys; x: longs in [0, domain) (rarely an extreme), or doubles (quarters, rarely special). */
  private def keyedRows(n: Int, perInput: Int, maxTime: Int, keys: Int, domain: Int, real: Boolean, seed: Long): Seq[TRow] = {
    val rnd = new scala.util.Random(seed)
    rows(n, perInput, maxTime, keys, seed).map { r =>
      val x = if (real) {
        RealKeys.encode(if (rnd.nextInt(8) == 0) specialDoubles(rnd.nextInt(specialDoubles.size)) else rnd.nextInt(domain * 4) / 4.0)
      } else if (rnd.nextInt(16) == 0) Seq(Long.MinValue, Long.MaxValue)(rnd.nextInt(2)) else rnd.nextInt(domain).toLong
      r.copy(x = x)
    }
  }

  /** Runs `paths` under HW- and MW-join and all scans under NLW-join against the reference; the plans run. */
  private def check(n: Int, rs: Seq[TRow], w: Int, bands: Seq[XBand], paths: Seq[AccessPath]): Int = {
    val matrix = WindowMatrix.uniform(n, w)
    val extra = (t: Seq[TRow]) => bands.forall(_.holds(t))
    val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = true, extra)
    val bindings = bands.flatMap(_.bindings)
    val plans = Seq(new EnginePlan(matrix, Algorithm.NLW, hashed = false, Seq.fill(n)(Scan), bindings)) ++
      Seq(Algorithm.HW, Algorithm.MW).map(a => new EnginePlan(matrix, a, hashed = true, paths, bindings, nodeSize = 3))
    for (plan <- plans) {
      val (got, stats) = EngineRunner.run(n, rs, plan, sameKey = true, extra)
      assert(got == expected, s"${plan.algorithm} with paths ${plan.accessPath.mkString(",")} differs from the " +
        s"reference (window $w, bands $bands)")
      assert(stats.results == expected.size)
    }
    plans.size
  }

  test("property: keyed range windows give the reference answer for long and double bands, few keys") {
    val bandGen: (Int, Boolean) => Gen[XBand] = (n, real) => for {
      a <- Gen.choose(0, n - 1); b <- Gen.choose(0, n - 1) suchThat (_ != a)
      kind <- Gen.choose(0, 3); d <- Gen.oneOf(0.0, 0.5, 1.0, 2.0, 3.0)
    } yield kind match {
      case 0 | 1 => XBand(a, b, -d, d, real) // abs(a.x - b.x) <= d, the common shape
      case 2 => XBand(a, b, Double.NegativeInfinity, -d, real)
      case _ => XBand(a, b, d - 1, Double.PositiveInfinity, real)
    }
    val gen = for {
      n <- Gen.choose(2, 3); real <- Gen.oneOf(false, true)
      bands <- Gen.choose(1, 2).flatMap(k => Gen.listOfN(k, bandGen(n, real)))
      choice <- Gen.listOfN(n, Gen.choose(0, 9))
      keys <- Gen.choose(1, 3); w <- Gen.choose(0, 9); perInput <- Gen.choose(0, 12); seed <- Gen.choose(0L, 100000L)
    } yield (n, real, bands, choice, keys, w, perInput, seed)
    forAll(gen, minSuccessful(80)) { case (n, real, bands, choice, keys, w, perInput, seed) =>
      // Mostly keyed range paths where a band targets the input; now and then hash or a plain tree beside them.
      val paths = (0 until n).map { j =>
        val banded = bands.exists(b => b.a == j || b.b == j)
        if (!banded) (if (choice(j) < 5) Hash else Scan)
        else choice(j) match { case 8 => Hash; case 9 => BPlusTree; case c => if (c % 2 == 0) HashTTree else HashBPlusTree }
      }
      val rs = keyedRows(n, perInput, 30, keys, if (real) 3 else 8, real, seed)
      assert(check(n, rs, w, bands, paths) == 3)
    }
  }

  test("every keyed combination of three inputs, both trees, one key and three keys, long and double") {
    for (real <- Seq(false, true); keys <- Seq(1, 3); seed <- 1L to 2L) {
      val bands = Seq(XBand(0, 1, -0.5, 0.5, real), XBand(1, 2, -0.5, 0.5, real))
      val rs = keyedRows(3, 14, 20, keys, 4, real, seed)
      for (p <- Seq(HashTTree, HashBPlusTree); q <- Seq(HashTTree, HashBPlusTree, Hash); r <- Seq(HashTTree, HashBPlusTree))
        check(3, rs, 6, bands, Seq(p, q, r))
    }
  }

  test("one key, a band: the keyed tree examines only band matches where hash tests the whole bucket") {
    // 3 x 200 rows of one key, x spread over [0, 200): a band of 0.5 matches about one row per probe.
    val rnd = new scala.util.Random(5)
    val rs = (0 until 600).map(i => TRow(i % 3, i.toLong / 3, 0, i, RealKeys.encode(rnd.nextInt(2000) / 10.0)))
    val bands = Seq(XBand(0, 1, -0.5, 0.5, real = true), XBand(1, 2, -0.5, 0.5, real = true))
    val matrix = WindowMatrix.uniform(3, 1000)
    val extra = (t: Seq[TRow]) => bands.forall(_.holds(t))
    def evaluations(paths: Seq[AccessPath]): (Seq[Seq[Int]], Long) = {
      val plan = new EnginePlan(matrix, Algorithm.HW, hashed = true, paths, bands.flatMap(_.bindings))
      val (got, stats) = EngineRunner.run(3, rs, plan, sameKey = true, extra)
      (got, stats.predicateEvals)
    }
    val (hashed, hashEvals) = evaluations(Seq(Hash, Hash, Scan))
    val (keyed, keyedEvals) = evaluations(Seq(HashBPlusTree, HashBPlusTree, HashTTree))
    assert(keyed == hashed && keyed == ReferenceWJoin.join(3, rs, matrix, sameKey = true, extra))
    assert(hashEvals > 12000, hashEvals) // about 200 x 200 / 2 per origin: the bucket is the window
    assert(keyedEvals * 50 < hashEvals, s"keyed $keyedEvals vs hash $hashEvals")
  }

  test("a keyed range window: one bucket per key, probes see their key only, oldest first") {
    for (tTree <- Seq(true, false)) {
      val w = KeyedRangeWindow(tTree, 3, r => r.asInstanceOf[TRow].x)
      val rs = (0 until 40).map(i => TRow(0, i.toLong, i % 4, i, (i * 7 % 11).toLong))
      rs.foreach(r => w.insert(Integer.valueOf(r.key), r.time, r))
      assert(w.bucketCount == 4 && w.distinctKeys(10) == 4 && w.size == 40 && w.bucketSize(Integer.valueOf(1)) == 10)
      def found(key: Int, lo: Long, hi: Long) = {
        val c = w.probe(Integer.valueOf(key), lo, hi)
        Iterator.continually(c).takeWhile(_.next()).map(_.value.row.asInstanceOf[TRow].id).toSeq.sorted
      }
      assert(found(2, 3, 6) == rs.filter(r => r.key == 2 && r.x >= 3 && r.x <= 6).map(_.id))
      assert(found(2, 3, 6).nonEmpty)
      assert(w.probe(Integer.valueOf(9), Long.MinValue, Long.MaxValue) == null && !w.holds(Integer.valueOf(9)))
      for (r <- rs) { assert(w.oldestRow eq r); assert(w.oldestKey == Integer.valueOf(r.key)); w.evictOldest() }
      assert(w.size == 0 && w.bucketCount == 0)
    }
  }
}
