package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.errors.WJoinAnalysisException

/**
 * Window strategies (Hammad et al. Sec. 5.1-5.2) without Spark: GCA = LCA = exact for NLW, HW and
 * MW alike, all equal to the brute-force reference, over random constraint graphs; path
 * queries in both directions; bidirectional = union of both directions, each combination once.
 */
class WindowStrategySuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** A random connected constraint graph: a random spanning tree plus random extra edges. */
  private val graphs: Gen[(Int, Seq[WindowTerm])] = for {
    n <- Gen.choose(2, 5)
    parents <- Gen.sequence[Seq[Int], Int]((1 until n).map(k => Gen.choose(0, k - 1)))
    extra <- Gen.listOfN(3, Gen.zip(Gen.choose(0, n - 1), Gen.choose(0, n - 1)))
    kinds <- Gen.listOfN(n + 3, Gen.zip(Gen.choose(0, 3), Gen.choose(0, 12), Gen.choose(0, 5)))
    withRange <- Gen.choose(0, 4)
  } yield {
    val edges = (1 until n).map(k => (parents(k - 1), k)) ++ extra.filter { case (a, b) => a != b }
    val terms = edges.zip(kinds).map { case ((a, b), (kind, w, lo)) =>
      kind match {
        case 0 | 1 => PairWindow(a, b, w, s"WINDOW($a,$b)=$w")
        case 2 => DirectedWindow(a, b, 0, w, s"DWINDOW($a,$b)=$w")
        case _ => DirectedWindow(b, a, math.min(lo, w), w, s"DWINDOW($b,$a)=[${math.min(lo, w)},$w]")
      }
    }
    (n, if (withRange == 0) terms :+ StreamRange(n - 1, 4, "RANGE(last)=4") else terms)
  }

  /** The closed matrix, or None for contradicting constraints (a negative cycle). */
  private def closed(n: Int, terms: Seq[WindowTerm]): Option[WindowMatrix] =
    try Some(WindowMatrix.close(terms, names(n))) catch { case _: WJoinAnalysisException => None }

  private def run(n: Int, rows: Seq[TRow], plan: EnginePlan, keyed: Boolean) = EngineRunner.run(n, rows, plan, keyed)

  test("property: over random constraint graphs GCA = LCA = exact = NLW = HW = MW = the reference") {
    val gen = for {
      (n, terms) <- graphs; keys <- Gen.choose(1, 3); perInput <- Gen.choose(0, 9); seed <- Gen.choose(0L, 99999L)
    } yield (n, terms, keys, perInput, seed)
    var checked = 0
    forAll(gen, minSuccessful(150)) { case (n, terms, keys, perInput, seed) =>
      for (matrix <- closed(n, terms)) {
        val rs = rows(n, if (n == 5) math.min(perInput, 6) else perInput, 30, keys, seed)
        val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = true)
        for ((name, plan) <- plans(matrix, keyed = keys > 1)) {
          val (got, stats) = run(n, rs, plan, keyed = true)
          assert(got == expected, s"$name differs from the reference for ${terms.map(_.text)}")
          assert(stats.results == expected.size)
          if (plan.strategy == WindowStrategy.Exact) assert(stats.refineRejections == 0)
        }
        checked += 1
      }
    }
    assert(checked > 50, "most random graphs must be satisfiable")
  }

  test("period matrices are conservative and closed; GCA is uniform, LCA follows local windows") {
    forAll(graphs, minSuccessful(200)) { case (n, terms) =>
      for (c <- closed(n, terms)) {
        val local = WindowStrategy.localWindows(c)
        for (s <- Seq(WindowStrategy.Exact, WindowStrategy.GCA, WindowStrategy.LCA)) {
          val p = WindowStrategy.periodMatrix(s, c)
          for (i <- 0 until n; j <- 0 until n) {
            assert(p.upper(i, j) >= c.upper(i, j), s"$s is tighter than the windows at ($i,$j)")
            for (k <- 0 until n) assert(WindowMatrix.add(p.upper(i, k), p.upper(k, j)) >= p.upper(i, j), s"$s not closed")
          }
          assert(new EnginePlan(c, Algorithm.MW, hashed = false, requestedStrategy = s).horizon.sameElements(
            (0 until n).map(p.horizon)))
        }
        assert(WindowStrategy.periodMatrix(WindowStrategy.GCA, c).isUniform || n < 2)
        for (i <- 0 until n; j <- 0 until n if i != j)
          assert(WindowStrategy.periodMatrix(WindowStrategy.LCA, c).upper(i, j) == local(j))
      }
    }
  }

  test("Hammad et al. Fig. 13 setting: GCA and LCA refine, exact does not, all give the same result") {
    val n = 4
    // Windows 2 everywhere except WINDOW(A,B) = 3 (closure keeps 3: 2 + 2 > 3).
    val terms = for (a <- 0 until n; b <- a + 1 until n) yield
      PairWindow(a, b, if (a == 0 && b == 1) 3 else 2, s"WINDOW($a,$b)")
    val matrix = WindowMatrix.close(terms, names(n))
    assert(WindowStrategy.localWindows(matrix).toSeq == Seq(3L, 3L, 2L, 2L))
    val rs = rows(n, 40, 60, 1, 5)
    val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = false)
    assert(expected.nonEmpty)
    val byStrategy = plans(matrix, keyed = false).map { case (name, plan) =>
      val (got, stats) = run(n, rs, plan, keyed = false)
      assert(got == expected, name)
      name -> stats.refineRejections
    }.toMap
    assert(byStrategy("mw-scan/exact") == 0 && byStrategy("nlw/exact") == 0)
    assert(byStrategy("mw-scan/gca") > 0, "GCA's single 3-wide window must yield false positives")
    assert(byStrategy("mw-scan/gca") >= byStrategy("mw-scan/lca"), "LCA's local windows are tighter than GCA's")
    val gca = new EnginePlan(matrix, Algorithm.MW, hashed = false, requestedStrategy = WindowStrategy.GCA)
    assert(gca.checkPairs.length == 10, "GCA refines the ten 2-wide bounds (both signs of five pairs)")
    assert(gca.describeStrategy(names(n), _.toString) == "gca (single window 3, refine 10 bounds)")
    assert(new EnginePlan(matrix, Algorithm.MW, hashed = false, requestedStrategy = WindowStrategy.LCA)
      .describeStrategy(names(n), _.toString) == "lca (local windows A=3 B=3 C=2 D=2, refine 4 bounds)")
  }

  /** DWINDOW along the path 0 -> 1 -> ... -> n-1, and the same path reversed. */
  private def path(n: Int, lo: Long, hi: Long, reversed: Boolean): Seq[WindowTerm] =
    (0 until n - 1).map { a =>
      val (x, y) = if (reversed) (a + 1, a) else (a, a + 1)
      DirectedWindow(x, y, lo, hi, s"DWINDOW($x,$y)=[$lo,$hi]")
    }

  test("path queries in both directions: every strategy and algorithm equals the reference") {
    for (n <- 2 to 4; lo <- Seq(0L, 1L); reversed <- Seq(false, true); seed <- 1 to 3) {
      val matrix = WindowMatrix.close(path(n, lo, 5, reversed), names(n))
      val rs = rows(n, 12, 30, 2, seed * 7 + n)
      val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = true)
      for ((name, plan) <- plans(matrix, keyed = true))
        assert(run(n, rs, plan, keyed = true)._1 == expected, s"$name, n=$n lo=$lo reversed=$reversed")
    }
  }

  test("modified NLW-join: a path's periods are one-sided and propagate along the path") {
    val matrix = WindowMatrix.close(path(4, 0, 5, reversed = false), names(4))
    val plan = new EnginePlan(matrix, Algorithm.NLW, hashed = false)
    // A row of D (the newest on A->B->C->D) probes C, then B, then A: pipeline along the path.
    assert(plan.probeOrder(3).toSeq == Seq(2, 1, 0))
    // D's period for C is [t_D - 5, t_D]; nothing of C may be later than D.
    assert(matrix.upper(2, 3) == 0 && matrix.upper(3, 2) == 5)
    // Binding C narrows B to [t_C - 5, t_C] (one-sided, from C alone).
    assert(plan.refine(3)(2 * 4 + 1) && matrix.upper(1, 2) == 0 && matrix.upper(2, 1) == 5)
    // The conservative route makes the path symmetric: the A-D window is the path's length.
    assert(WindowStrategy.periodMatrix(WindowStrategy.LCA, matrix).upper(3, 0) == 15)
    assert(WindowStrategy.periodMatrix(WindowStrategy.LCA, matrix).upper(0, 3) == 15)
  }

  /** The bidirectional query at engine level: Q, then reversed Q excluding what Q matches. */
  private def bidirectional(n: Int, rs: Seq[TRow], q: WindowMatrix, rev: WindowMatrix, keyed: Boolean,
      strategy: WindowStrategy, algorithm: Algorithm): (Seq[Seq[Int]], JoinStats) = {
    val hashed = keyed && algorithm != Algorithm.NLW
    val (a, _) = run(n, rs, new EnginePlan(q, algorithm, hashed, requestedStrategy = strategy), keyed)
    val (b, stats) = run(n, rs, new EnginePlan(rev, algorithm, hashed, requestedStrategy = strategy, exclude = Some(q)), keyed)
    ((a ++ b).sortBy(_.mkString(",")), stats)
  }

  test("property: bidirectional path = union of both directions, each combination once") {
    val gen = for {
      n <- Gen.choose(2, 4); lo <- Gen.choose(0L, 2L); width <- Gen.choose(0L, 6L); perInput <- Gen.choose(0, 10)
      keys <- Gen.choose(1, 2); maxTime <- Gen.choose(5, 30); seed <- Gen.choose(0L, 99999L)
    } yield (n, lo, width, perInput, keys, maxTime, seed)
    forAll(gen, minSuccessful(100)) { case (n, lo, width, perInput, keys, maxTime, seed) =>
      val q = WindowMatrix.close(path(n, lo, lo + width, reversed = false), names(n))
      val rev = WindowMatrix.close(path(n, lo, lo + width, reversed = true), names(n))
      val rs = rows(n, perInput, maxTime, keys, seed)
      val byId = rs.map(r => r.id -> r).toMap
      val forward = ReferenceWJoin.join(n, rs, q, sameKey = true)
      val backward = ReferenceWJoin.join(n, rs, rev, sameKey = true)
      val expected = (forward ++ backward.filterNot(forward.toSet)).sortBy(_.mkString(","))
      for (strategy <- Seq(WindowStrategy.Exact, WindowStrategy.LCA); algorithm <- Algorithm.all
           if algorithm != Algorithm.HW || keys > 1) {
        val (got, stats) = bidirectional(n, rs, q, rev, keys > 1, strategy, algorithm)
        assert(got == expected, s"$algorithm/$strategy")
        assert(got.distinct.size == got.size, "a combination was emitted twice")
        // Exclusion is tested after the predicate, so only matching combinations count.
        val both = backward.count(t => q.admits(t.map(id => byId(id).time).toArray))
        assert(stats.excluded == both, "every combination matching both directions is excluded once")
      }
    }
  }

  test("bidirectional: members at the same time with lo = 0 match both directions and appear once") {
    val rs = Seq(TRow(0, 7, 0, 1), TRow(1, 7, 0, 2), TRow(2, 7, 0, 3), TRow(0, 9, 0, 4), TRow(1, 8, 0, 5),
      TRow(2, 7, 0, 6))
    val q = WindowMatrix.close(path(3, 0, 2, reversed = false), names(3))
    val rev = WindowMatrix.close(path(3, 0, 2, reversed = true), names(3))
    val (got, stats) = bidirectional(3, rs, q, rev, keyed = false, WindowStrategy.Exact, Algorithm.MW)
    // Forward: a <= b <= c within 2: (1,2,3), (1,2,6). Backward: c <= b <= a: (1,2,3), (1,2,6),
    // (4,5,3), (4,5,6), (4,2,3), (4,2,6)  -> union without the two shared ones.
    assert(got == Seq(Seq(1, 2, 3), Seq(1, 2, 6), Seq(4, 2, 3), Seq(4, 2, 6), Seq(4, 5, 3), Seq(4, 5, 6)))
    assert(stats.excluded == 2)
  }

  test("strategy names parse case-insensitively and unknown ones name the choices") {
    assert(WindowStrategy.parse(" LCA ").contains(WindowStrategy.LCA))
    assert(WindowStrategy.resolve(WindowStrategy.Auto) == WindowStrategy.Exact)
    val e = intercept[WJoinAnalysisException](WindowStrategy.parseOrFail("lcaa"))
    assert(e.getMessage.contains("'lcaa'") && e.getMessage.contains("auto, exact, gca, lca"))
  }
}
