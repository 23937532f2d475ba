package wjoin.core.shedding

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.shedding.UnitTimeAllocation.{Budgets, Workload}

/** The allocation rule on Kang et al.'s settings (Sec. 5.2, Figs. 5-7) and its N-input generalization. */
class UnitTimeAllocationSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def close(a: Double, b: Double) = math.abs(a - b) <= 1e-6 * math.max(1.0, math.abs(b))

  test("Fig. 5 (CPU-limited): every probe from the smaller window A into the bigger B (Eq. 14)") {
    // lambda_a = 800, lambda_b = 200, A = 100, B = 200 rows, mu = 100.
    val w = Workload.streams(IndexedSeq(800.0, 200.0), IndexedSeq(100.0, 200.0))
    val auto = UnitTimeAllocation.allocate(w, None, Some(100.0), Allocation.Auto)
    assert(auto.probes == IndexedSeq(100.0, 0.0) && auto.state == IndexedSeq(100.0, 200.0))
    val sigma = 0.01
    def r(b: Budgets) = sigma * UnitTimeAllocation.outputRate(w, b)
    assert(close(r(auto), 200.0)) // sigma * 100 * 200
    assert(close(r(UnitTimeAllocation.allocate(w, None, Some(100.0), Allocation.Equal)), 150.0))
    assert(close(r(UnitTimeAllocation.allocate(w, None, Some(100.0), Allocation.Proportional)), 180.0))
    // Equal windows: every split gives sigma mu A.
    val even = Workload.streams(IndexedSeq(800.0, 200.0), IndexedSeq(150.0, 150.0))
    assert(close(UnitTimeAllocation.outputRate(even, UnitTimeAllocation.allocate(even, None, Some(100.0), Allocation.Auto)), 15000.0))
  }

  test("Fig. 6 (memory-limited): all memory to the slower stream's window (Eq. 16)") {
    // lambda_a = 10, lambda_b = 50, M = 1000, full windows bigger than M.
    val w = Workload.streams(IndexedSeq(10.0, 50.0), IndexedSeq(2000.0, 10000.0))
    val auto = UnitTimeAllocation.allocate(w, Some(1000.0), None, Allocation.Auto)
    assert(auto.state == IndexedSeq(1000.0, 0.0) && auto.probes == IndexedSeq(10.0, 50.0))
    val sigma = 0.005
    def r(b: Budgets) = sigma * UnitTimeAllocation.outputRate(w, b)
    assert(close(r(auto), 250.0))
    assert(close(r(UnitTimeAllocation.allocate(w, Some(1000.0), None, Allocation.Equal)), 150.0))
    // The slower window is smaller than M: it gets all of it, the rest goes to the other.
    val small = Workload.streams(IndexedSeq(10.0, 50.0), IndexedSeq(300.0, 10000.0))
    assert(UnitTimeAllocation.allocate(small, Some(1000.0), None, Allocation.Auto).state == IndexedSeq(300.0, 700.0))
  }

  test("Fig. 7 (both limited): the whole memory to one window, every probe from the other (Eq. 19: sigma mu M)") {
    val w = Workload.streams(IndexedSeq(20.0, 30.0), IndexedSeq(2000.0, 3000.0))
    val auto = UnitTimeAllocation.allocate(w, Some(100.0), Some(10.0), Allocation.Auto)
    assert(close(UnitTimeAllocation.outputRate(w, auto), 10.0 * 100.0))
    assert((auto.state(0) == 100.0 && auto.probes(1) == 10.0) || (auto.state(1) == 100.0 && auto.probes(0) == 10.0))
    assert(close(UnitTimeAllocation.outputRate(w, UnitTimeAllocation.allocate(w, Some(100.0), Some(10.0), Allocation.Equal)), 500.0))
  }

  test("shares split each budget; proportional follows the arrival rates") {
    val w = Workload.streams(IndexedSeq(10.0, 30.0), IndexedSeq(100.0, 300.0))
    val shares = Allocation.Shares(IndexedSeq(0.25, 0.75), IndexedSeq(1.0, 0.0))
    assert(UnitTimeAllocation.allocate(w, Some(40.0), Some(8.0), shares) == Budgets(IndexedSeq(10.0, 30.0), IndexedSeq(8.0, 0.0)))
    assert(UnitTimeAllocation.allocate(w, Some(40.0), None, Allocation.Proportional).state.map(math.rint) == IndexedSeq(10.0, 30.0))
  }

  test("the pairwise exchange moves to the vertex of each pair's quadratic (an N = 4 case it once stopped short in)") {
    val reach = Seq(0.4, 0.8, 0.4, 0.3, 0.3, 0.6, 0.9, 0.9, 0.5, 0.7, 1.0, 1.0, 0.7, 0.9, 0.3, 0.7)
    val w = Workload(IndexedSeq(18.0, 9.0, 23.0, 27.0), IndexedSeq(290.0, 111.0, 266.0, 8.0),
      (0 until 4).map(i => (0 until 4).map(j => reach(i * 4 + j))))
    val auto = UnitTimeAllocation.allocate(w, Some(60.0), Some(45.0), Allocation.Auto)
    // A grid over shares in steps of 1/8 reaches 46,046.6; the exchange stopped at 45,256 with
    // memory (19.65, 19.65, 12.7, 8) when it took a wrong vertex.
    assert(UnitTimeAllocation.outputRate(w, auto) >= 46046.6, auto)
  }

  test("property: for N = 2..4 auto is at least every fixed split and within 1% of a grid search") {
    val gen = for {
      n <- Gen.choose(2, 4)
      rates <- Gen.listOfN(n, Gen.choose(1, 50)); windows <- Gen.listOfN(n, Gen.choose(5, 400))
      m <- Gen.option(Gen.choose(1, 300)); mu <- Gen.option(Gen.choose(1, 60))
      reach <- Gen.listOfN(n * n, Gen.choose(3, 10))
    } yield (n, rates.map(_.toDouble).toIndexedSeq, windows.map(_.toDouble).toIndexedSeq, m.map(_.toDouble),
      mu.map(_.toDouble), reach.map(_ / 10.0))
    forAll(gen, minSuccessful(60)) { case (n, rates, windows, m, mu, reach) =>
      whenever(m.isDefined || mu.isDefined) {
        val w = Workload(rates, windows, (0 until n).map(i => (0 until n).map(j => reach(i * n + j))))
        val auto = UnitTimeAllocation.allocate(w, m, mu, Allocation.Auto)
        m.foreach(total => assert(auto.state.sum <= total + 1e-6))
        mu.foreach { total =>
          assert(auto.probes.sum <= total + 1e-6)
          // Probes beyond the full rates only when mu exceeds them all (spread for a faster workload).
          if (total <= rates.sum) assert(auto.probes.zip(rates).forall(p => p._1 <= p._2 + 1e-9))
        }
        val rAuto = UnitTimeAllocation.outputRate(w, auto)
        def capped(b: Budgets) = Budgets(b.state.zip(windows).map(p => math.min(p._1, p._2)),
          b.probes.zip(rates).map(p => math.min(p._1, p._2)))
        for (fixed <- Seq(Allocation.Equal, Allocation.Proportional))
          assert(rAuto >= UnitTimeAllocation.outputRate(w, capped(UnitTimeAllocation.allocate(w, m, mu, fixed))) * (1 - 1e-9))
        // Grid over the shares of each budget (steps of 1/8), effective budgets capped by the full workload.
        val grid = (0 to 8).map(_ / 8.0)
        val splits = (1 until n).foldLeft(Seq(Seq.empty[Double]))((acc, _) => for (a <- acc; g <- grid) yield a :+ g)
          .filter(_.sum <= 1.0).map(s => (s :+ (1.0 - s.sum)).toIndexedSeq)
        val best = (for (s <- if (m.isDefined) splits else Seq(null); p <- if (mu.isDefined) splits else Seq(null))
          yield UnitTimeAllocation.outputRate(w, capped(UnitTimeAllocation.allocate(w, m, mu,
            Allocation.Shares(Option(s).getOrElse(IndexedSeq.fill(n)(1.0 / n)), Option(p).getOrElse(IndexedSeq.fill(n)(1.0 / n))))))).max
        assert(rAuto >= best * 0.99, s"auto $rAuto < grid best $best for $w, M=$m, mu=$mu")
      }
    }
  }

  test("whole rows: caps sum to at most M") {
    assert(ShedPlan.wholeRows(IndexedSeq(333.4, 333.3, 333.3), 1000) == IndexedSeq(334, 333, 333))
    assert(ShedPlan.wholeRows(IndexedSeq(0.5, 0.5), 1).sum == 1)
    assert(ShedPlan.wholeRows(IndexedSeq(10.0, 5.0), 100).sum == 15)
  }
}
