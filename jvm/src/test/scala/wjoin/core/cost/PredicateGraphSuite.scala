package wjoin.core.cost

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.cost.PredicateGraph.{Edge, Probe}

/** Probe orders along the predicates (Selinger et al.'s rule) on random predicate graphs. */
class PredicateGraphSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val instances = for {
    n <- Gen.choose(2, 10)
    m <- Gen.choose(0, 2 * n)
    edges <- Gen.listOfN(m, for {
      k <- Gen.choose(2, math.min(3, n)); members <- Gen.pick(k, 0 until n); sel <- Gen.choose(1e-4, 1.0)
    } yield Edge(members.toSeq.sorted, sel, "band", "assumed"))
    rows <- Gen.listOfN(n, Gen.choose(1.0, 5000.0))
    indexed <- Gen.listOfN(n, Gen.oneOf(true, false))
  } yield (PredicateGraph(n, edges), rows.indices.map(j => Probe(rows(j), if (indexed(j)) rows(j) / 100 else rows(j),
    if (indexed(j)) edges.filter(_.inputs.contains(j)).flatMap(_.inputs).filter(_ != j).distinct else Nil, rows(j))))

  test("no input is bound unconnected while a connected one is left; every order is a permutation") {
    forAll(instances) { case (g, probes) =>
      val orders = PredicateGraph.orders(g, probes)
      for (o <- 0 until g.n) {
        val order = orders(o)
        assert(order.sorted == (0 until g.n).filter(_ != o))
        var bound = 1L << o
        for (d <- order.indices) {
          val j = order(d)
          val anyConnected = order.drop(d).exists(g.connected(bound, _))
          assert(!anyConnected || g.connected(bound, j), s"origin $o order $order: $j unconnected at depth $d, ${g.edges}")
          bound |= 1L << j
        }
      }
    }
  }

  test("a chain A-B-C: C probes B first, then A; the cheaper connected input goes first") {
    val chain = PredicateGraph(3, Seq(Edge(Seq(0, 1), 0.004, "band", "sample"), Edge(Seq(1, 2), 0.004, "band", "sample")))
    val scans = Seq.fill(3)(Probe(400, 400, Nil, 400))
    assert(PredicateGraph.orders(chain, scans) == IndexedSeq(Seq(1, 2), Seq(0, 2), Seq(1, 0)))
    // B joins A (0.5) and C (0.001): from B, C first keeps the partial result small
    val star = PredicateGraph(3, Seq(Edge(Seq(0, 1), 0.5, "residual", "assumed"), Edge(Seq(1, 2), 0.001, "band", "stats")))
    assert(PredicateGraph.orders(star, scans)(1) == Seq(2, 0))
    assert(PredicateGraph.probesPerUnitTime(chain, scans, PredicateGraph.orders(chain, scans), Seq(1.0, 1.0, 1.0))
      .forall(_ > 0))
  }

  test("a key of two columns counts its whole-key selectivity once per pair of inputs, not once per column") {
    val edges = Seq(Edge(Seq(0, 1), 0.001, "key", "stats"), Edge(Seq(0, 2), 0.001, "key", "stats"),
      Edge(Seq(0, 1), 0.001, "key", "stats"), Edge(Seq(0, 2), 0.001, "key", "stats"),
      Edge(Seq(0, 1), 0.5, "key", "sample"), Edge(Seq(1, 0), 0.01, "band", "stats"))
    val counted = PredicateGraph.keyCountedOnce(edges, _.source == "stats")
    assert(counted.map(_.selectivity) == Seq(0.001, 0.001, 1.0, 1.0, 0.5, 0.01))
    val g = PredicateGraph(3, counted)
    assert(g.joining(1L << 0, 1) == 0.001 * 0.5 * 0.01 && g.joining(1L << 0, 2) == 0.001)
    assert(PredicateGraph.keyCountedOnce(edges.take(2), _.source == "stats") == edges.take(2), "one column: unchanged")
  }
}
