package wjoin.core
package cost

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.cost.AccessPath._

/**
 * The run-time check of a partition's access paths ([[AccessRecheck]], [[SliceStatistics]]):
 * what a slice measures, that wrong estimates are corrected where the paths' work differs,
 * that forced paths and bucketed keys stay, and, as a property, that every choice (planned
 * on wrong statistics, then re-chosen on a slice of any size) gives the reference answer.
 */
class AccessRecheckSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** `|x_a - x_b| <= d` as RangePredicates binds it: a in [b - d, b + d], and the mirror. */
  private def band(a: Int, b: Int, d: Long): Seq[RangeBinding] =
    Seq(RangeBinding(a, 0, b, 0, -d, d), RangeBinding(b, 0, a, 0, -d, d))

  private def engineRows(rs: Seq[TRow], hashed: Boolean): IndexedSeq[EngineRow] =
    EngineRunner.mergeOrder(rs).map(r => EngineRow(r.input, r.time, if (hashed) Integer.valueOf(r.key) else null, r))
      .toIndexedSeq

  /** Edges as the planner builds them: the key (when keyed), one per band (its forward binding). */
  private def graph(n: Int, keyed: Boolean, bands: Seq[(Int, Int)], bandSel: Double): PredicateGraph =
    PredicateGraph(n, (if (keyed) (1 until n).map(j => PredicateGraph.Edge(Seq(0, j), 0.001, "key", "assumed")) else Nil) ++
      bands.indices.map(i => PredicateGraph.Edge(Seq(bands(i)._1, bands(i)._2), bandSel, "band", "assumed", 2 * i)))

  private def recheck(n: Int, horizon: Long, keyed: Boolean, bindings: Seq[RangeBinding], stats: Seq[InputStats],
      g: PredicateGraph, algorithm: Algorithm, slice: Int, request: AccessRequest = null): AccessRecheck = {
    val req = Option(request).getOrElse(AccessRequest.none(n))
    val forward = if (algorithm == Algorithm.MW) Some(Seq.fill(n)(Seq.fill(n)(horizon))) else None
    val planned = AccessPlanner.plan(names(n), Seq.fill(n)(horizon), keyed, bindings, stats, req,
      scanOnly = algorithm == Algorithm.NLW, None, forwardUpper = forward, graph = Some(g))
    AccessRecheck(names(n), Seq.fill(n)(horizon), keyed, bindings, stats, req, algorithm == Algorithm.NLW, None,
      forward, g, bucketed = keyed && planned.paths.forall(_.bucketsByKey), planned, slice)
  }

  test("a slice measures rows, span, distinct keys and each band's share of pairs") {
    // A: x = 0..999 at t = 0..999; B: x = 0..999 at the same times, keys 0..9
    val rs = (0 until 1000).flatMap(i => Seq(TRow(0, i, i % 10, 2 * i, x = i), TRow(1, i, i % 10, 2 * i + 1, x = i)))
    val s = SliceStatistics.of(engineRows(rs, hashed = true), 2, hashed = true, band(0, 1, 10), TRow.ranges,
      exhausted = true)
    assert(s.rows == Seq(1000L, 1000L) && s.span == 1000.0 && s.distinct == Seq(10L, 10L))
    // |x_a - x_b| <= 10 over x uniform in 0..999: about 21 / 1000 of the pairs (less at the ends)
    s.selectivity.foreach(sel => assert(sel > 0.019 && sel < 0.022, s"band share $sel"))
    val stats = s.stats(Seq.fill(2)(InputStats(5, 5)), Seq(5.0, 5.0), band(0, 1, 10))
    assert(stats.map(_.rows) == Seq(1000.0, 1000.0) && stats.map(_.distinct) == Seq(10.0, 10.0))
    // the band's domain: width 21 over its share, about the 1000 values
    stats.foreach(st => assert(st.rangeWidths(0) > 900 && st.rangeWidths(0) < 1200, st))
    // a slice that is not the whole input: at least twice its rows, or the planned share
    val part = SliceStatistics.of(engineRows(rs, hashed = true).take(100), 2, hashed = true, Nil, TRow.ranges,
      exhausted = false)
    assert(part.stats(Seq.fill(2)(InputStats(5, 5)), Seq(1e6, 10.0), Nil).map(_.rows) == Seq(1e6, 100.0))
  }

  test("a scan planned on a window assumed tiny becomes a tree when the slice shows a large window and a narrow band") {
    val n = 2
    val bindings = band(0, 1, 2)
    val wrong = Seq.fill(n)(InputStats(rows = 10, span = 1e6, rangeWidths = Map(0 -> 5.0))) // 10 rows, band ~ everything
    val g = graph(n, keyed = false, Seq(0 -> 1), bandSel = 0.9)
    val r = recheck(n, horizon = 10000, keyed = false, bindings, wrong, g, Algorithm.MW, slice = 4096)
    assert(r.planned.paths == Seq(Scan, Scan))
    // 5000 rows per input in 10,000 time units; x uniform over 100,000 values
    val rnd = new scala.util.Random(3)
    val rs = (0 until 10000).map(i => TRow(i % 2, i, 0, i, x = rnd.nextInt(100000).toLong))
    val slice = SliceStatistics.of(engineRows(rs, hashed = false).take(4096), n, hashed = false, bindings, TRow.ranges,
      exhausted = false)
    val out = r.decide(slice, partitions = 1)
    assert(out.pathsChanged && out.decision.paths.forall(_.indexed), out.describe(names(n), r.planned))
    assert(out.graph.edges.head.source == "run time" && out.graph.edges.head.selectivity < 0.001)
    // with the true figures the plan is already the tree: kept
    val right = recheck(n, 10000, keyed = false, bindings, Seq.fill(n)(InputStats(5000, 10000, rangeWidths = Map(0 -> 1e5))),
      g, Algorithm.MW, slice = 4096)
    assert(right.planned.paths.forall(_.indexed) && !right.decide(slice, 1).pathsChanged)
  }

  test("forced paths and the key buckets of an all-hashed plan are never re-chosen") {
    val n = 3
    val rs = rows(n, 300, 200, keys = 1, seed = 5)
    val g = graph(n, keyed = true, Nil, 1.0)
    val stats = Seq.fill(n)(InputStats(1e6, 10, distinct = 1e5))
    val forced = recheck(n, 50, keyed = true, Nil, stats, g, Algorithm.HW, 4096,
      AccessRequest(Seq(Some(Scan), Some(Hash), Some(Scan))))
    val slice = SliceStatistics.of(engineRows(rs, hashed = true), n, hashed = true, Nil, TRow.ranges, exhausted = true)
    assert(forced.decide(slice, 1).decision.paths == Seq(Scan, Hash, Scan))
    val hashed = recheck(n, 50, keyed = true, Nil, stats, g, Algorithm.HW, 4096)
    assert(hashed.bucketed && hashed.decide(slice, 1).decision.paths == Seq(Hash, Hash, Hash))
    // measured: one key, so the key equality accepts every pair
    assert(hashed.decide(slice, 1).graph.edges.forall(e => e.selectivity == 1.0 && e.source == "run time"))
  }

  test("property: every access choice, planned on wrong statistics and re-chosen on a slice, gives the reference answer") {
    val cases = for {
      n <- Gen.choose(2, 3)
      keyed <- Gen.oneOf(true, false)
      algorithm <- Gen.oneOf(if (keyed) Seq(Algorithm.HW, Algorithm.MW) else Seq(Algorithm.MW, Algorithm.NLW))
      bandCount <- Gen.choose(0, n - 1)
      width <- Gen.choose(0L, 6L)
      window <- Gen.choose(0L, 12L)
      perInput <- Gen.choose(1, 14)
      keys <- Gen.oneOf(1, 2, 5)
      slice <- Gen.choose(1, 60)
      plannedRows <- Gen.oneOf(1.0, 50.0, 1e6)
      plannedKeys <- Gen.oneOf(1.0, 1e5)
      plannedDomain <- Gen.oneOf(None, Some(1.0), Some(1e6))
      bandSel <- Gen.oneOf(1e-6, 0.5, 1.0)
      seed <- Gen.choose(0L, 1L << 30)
    } yield (n, keyed, algorithm, bandCount, width, window, perInput, keys, slice, plannedRows, plannedKeys,
      plannedDomain, bandSel, seed)
    forAll(cases, minSuccessful(120)) { case (n, keyed, algorithm, bandCount, width, window, perInput, keys, slice,
        plannedRows, plannedKeys, plannedDomain, bandSel, seed) =>
      val rnd = new scala.util.Random(seed)
      val rs = rows(n, perInput, 40, keys, seed).map(r => r.copy(x = rnd.nextInt(12).toLong))
      val pairs = (0 until bandCount).map(i => (i, i + 1))
      val bindings = pairs.flatMap { case (a, b) => band(a, b, width) }
      val hashed = keyed && algorithm != Algorithm.NLW
      val stats = Seq.fill(n)(InputStats(plannedRows, 1.0 + plannedRows, plannedKeys,
        plannedDomain.fold(Map.empty[Int, Double])(d => Map(0 -> d))))
      val r = recheck(n, window, hashed, bindings, stats, graph(n, hashed, pairs, bandSel), algorithm, slice)
      val merged = engineRows(rs, hashed)
      val out = r.decide(SliceStatistics.of(merged.take(slice), n, hashed, bindings, TRow.ranges,
        exhausted = slice >= merged.size), partitions = 1)
      val matrix = WindowMatrix.uniform(n, window)
      val extra = (t: Seq[TRow]) => pairs.forall { case (a, b) => math.abs(t(a).x - t(b).x) <= width }
      val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = keyed, extra)
      for (d <- Seq(r.planned, out.decision)) {
        val plan = new EnginePlan(matrix, algorithm, hashed, d.paths, bindings, d.orders,
          expirationInterval = if (algorithm == Algorithm.MW) 0L else d.tau, nodeSize = 3)
        // the residual is the planned one: the key is tested unless the planned windows were all buckets
        val got = run(n, rs, plan, keyTested = keyed && !r.bucketed, extra)
        assert(got == expected, s"$algorithm paths ${d.paths.mkString(",")} orders ${d.orders} differ from the " +
          s"reference: ${out.describe(names(n), r.planned)}")
      }
    }
  }

  /** [[EngineRunner.run]] with the key tested as the planned residual says (not as the run plan's buckets would). */
  private def run(n: Int, rs: Seq[TRow], plan: EnginePlan, keyTested: Boolean, extra: Seq[TRow] => Boolean): Seq[Seq[Int]] = {
    val filter = new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = keyTested || depth == n - 2
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean = {
        val bound = tuple(plan.probeOrder(origin)(depth)).asInstanceOf[TRow]
        (!keyTested || bound.key == tuple(origin).asInstanceOf[TRow].key) &&
          (depth < n - 2 || extra(tuple.toSeq.map(_.asInstanceOf[TRow])))
      }
    }
    val engine = WJoinEngine.batch(plan, filter, TRow.ranges)
    val out = Seq.newBuilder[Seq[Int]]
    def drain(): Unit = while (engine.next()) out += engine.tuple.toSeq.map(_.asInstanceOf[TRow].id)
    EngineRunner.mergeOrder(rs).foreach { r =>
      engine.offer(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      drain()
    }
    engine.finish()
    drain()
    out.result().sortBy(_.mkString(","))
  }
}
