package wjoin.core.cost

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import AccessPath.{BPlusTree, Hash, Scan, TTree}

class UnitTimeCostSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private val paper = WeightFactors.Paper2003
  /** Kang et al.'s experiments: hash bucket size 10, T-tree node size 100. */
  private def shape(rows: Double) = WindowShape(rows, bucketSize = 10, nodeSize = 100)
  private def path(letter: Char) = AccessPath.all.find(_.letter == letter).get

  /** Cost of a two-letter plan, A's structure first (the paper's "TN" = T-tree on A). */
  private def plan(letters: String, a: Double, b: Double, rateA: Double, rateB: Double): Double =
    UnitTimeCost.twoWay(path(letters(0)), shape(a), rateA, path(letters(1)), shape(b), rateB, paper)

  // Kang et al. Table 3: window A, window B, lambda_a, lambda_b, then HH TT HT TH HN NH TN NT.
  private val table3 = Seq(
    (9500.0, 500.0, 2.0, 998.0, Seq(7.06, 9.56, 10.89, 5.74, 5.99, 2845.87, 4.67, 2849.69)),
    (7000.0, 3000.0, 800.0, 200.0, Seq(7.06, 11.85, 6.46, 12.46, 722.39, 424.87, 727.78, 424.27)),
    (4000.0, 6000.0, 550.0, 450.0, Seq(7.06, 11.60, 8.93, 9.73, 993.42, 543.84, 996.09, 545.71)))
  private val table3Plans = Seq("HH", "TT", "HT", "TH", "HN", "NH", "TN", "NT")

  test("Kang et al. Table 3: every estimated cost of the three workloads, to the paper's two decimals") {
    for ((a, b, la, lb, expected) <- table3; (name, cost) <- table3Plans.zip(expected))
      assert(math.abs(plan(name, a, b, la, lb) - cost) <= 0.006, s"$name for A=$a B=$b: ${plan(name, a, b, la, lb)} vs $cost")
  }

  test("Kang et al. Table 3 / Fig. 4: the choice per input picks the paper's winners TN, HT, HH") {
    for (((a, b, la, lb, _), winner) <- table3.zip(Seq("TN", "HT", "HH"))) {
      val inputs = Seq(InputLoad(la, shape(a)), InputLoad(lb, shape(b)))
      val choice = UnitTimeCost.choose(inputs, Seq(Seq(Hash, TTree, Scan), Seq(Hash, TTree, Scan)), paper)
      assert(choice.letters == winner)
      assert(math.abs(choice.cost - plan(winner, a, b, la, lb)) < 1e-9)
      // The runner-up is the cheapest plan that differs from the winner.
      val others = for (x <- "HTN"; y <- "HTN"; p = s"$x$y" if p != winner) yield p -> plan(p, a, b, la, lb)
      val (runnerName, runnerCost) = others.minBy(_._2)
      assert(choice.runnerUp.map(r => r._1.map(_.letter).mkString) == Some(runnerName))
      assert(math.abs(choice.runnerUp.get._2 - runnerCost) < 1e-9)
    }
  }

  test("Kang et al. Eq. 8: the TN-TH crossover is 13.6 / (3B - 55); B = 500 gives 0.0094 (B 106 times faster)") {
    for (b <- Seq(100.0, 500.0, 5000.0, 12345.0)) {
      val ratio = UnitTimeCost.crossover(Scan, Hash, shape(b), paper).get
      assert(math.abs(ratio - 13.6 / (3 * b - 55)) < 1e-12)
    }
    val at500 = UnitTimeCost.crossover(Scan, Hash, shape(500), paper).get
    assert(math.abs(at500 - 0.0094) < 0.00005 && math.round(1 / at500) == 106)
    // Below the crossover (B far faster than A) nested loops on B wins, above it hash.
    val (la, lb) = (1.0, 1000.0)
    assert(plan("TN", 9500, 500, la, lb) < plan("TH", 9500, 500, la, lb))
    assert(plan("TN", 9500, 500, 10 * la, lb) > plan("TH", 9500, 500, 10 * la, lb))
  }

  test("Kang et al. Eq. 11: the HT-NT crossover is lambda_a / lambda_b = (3A - 55) / 13.6") {
    // Direction B to A: the probes into window A come from B, so probeRate/ownRate = lambda_b/lambda_a.
    for (a <- Seq(500.0, 5000.0)) {
      val ratio = UnitTimeCost.crossover(Hash, Scan, shape(a), paper).get
      assert(math.abs(1 / ratio - (3 * a - 55) / 13.6) < 1e-9)
    }
  }

  test("Kang et al. Eqs. 9-10, derived from Eqs. 6-7: the TH-HH crossover, and Fig. 2's 20%/80% point") {
    for (a <- Seq(500.0, 5000.0, 9500.0)) {
      val levels = UnitTimeCost.ceilLog(2, math.ceil(a / 100).toLong)
      val log2N = 7 // ceil(log2 100)
      val derived = (58.9 - 3.9 * levels - 2.6 * log2N) / (8.1 * levels + 5.4 * log2N - 23.7)
      // Into window A, T vs H; the ratio the model returns is lambda_b / lambda_a.
      val ratio = UnitTimeCost.crossover(TTree, Hash, shape(a), paper).get
      assert(math.abs(1 / ratio - derived) < 1e-9, s"A = $a")
      // Eq. 10, the HH-HT crossover, is the same comparison for window B, probed from A:
      // lambda_a / lambda_b = (8.1 L + 5.4 ceil(log2 N) - 23.7) / (58.9 - 3.9 L - 2.6 ceil(log2 N)).
      val eq10 = (8.1 * levels + 5.4 * log2N - 23.7) / (58.9 - 3.9 * levels - 2.6 * log2N)
      assert(math.abs(UnitTimeCost.crossover(Hash, TTree, shape(a), paper).get - eq10) < 1e-9)
    }
    // Fig. 2 (both windows 5000): TH wins until lambda_a is about 20% of the total rate.
    val share = { val r = 1 / UnitTimeCost.crossover(TTree, Hash, shape(5000), paper).get; r / (1 + r) }
    assert(share > 0.18 && share < 0.24, s"TH/HH crossover at ${share * 100}% of the rate from A")
    val total = 1000.0
    assert(plan("TH", 5000, 5000, 0.15 * total, 0.85 * total) < plan("HH", 5000, 5000, 0.15 * total, 0.85 * total))
    assert(plan("TH", 5000, 5000, 0.30 * total, 0.70 * total) > plan("HH", 5000, 5000, 0.30 * total, 0.70 * total))
  }

  test("Eqs. 3-6: tuples touched per probe and per insert+invalidate") {
    val w = WindowShape(5000, bucketSize = 10, nodeSize = 100)
    assert(UnitTimeCost.probeAccesses(Scan, w) == 5000 && UnitTimeCost.updateAccesses(Scan, w) == 2)
    assert(UnitTimeCost.probeAccesses(Hash, w) == 10 && UnitTimeCost.updateAccesses(Hash, w) == 2)
    // B+tree: ceil(log_101 ceil(5000/100)) + 1 = 2 levels, ceil(log2 100) = 7 comparisons each.
    assert(UnitTimeCost.probeAccesses(BPlusTree, w) == 14 && UnitTimeCost.updateAccesses(BPlusTree, w) == 28)
    // T-tree: 1.5 x (ceil(log2 50) - 1) + 7 = 1.5 x 5 + 7.
    assert(UnitTimeCost.probeAccesses(TTree, w) == 14.5 && UnitTimeCost.updateAccesses(TTree, w) == 29)
    // Tiny windows: a single node, only the binary search inside it.
    assert(UnitTimeCost.probeAccesses(TTree, WindowShape(0, nodeSize = 100)) == 7)
    assert(UnitTimeCost.probeAccesses(BPlusTree, WindowShape(50, nodeSize = 100)) == 7)
    // A band probe also walks its matches.
    assert(UnitTimeCost.probeAccesses(TTree, w.copy(matchesPerProbe = 40)) == 54.5)
    assert(UnitTimeCost.ceilLog(2, 1) == 0 && UnitTimeCost.ceilLog(2, 2) == 1 && UnitTimeCost.ceilLog(2, 5) == 3)
    assert(UnitTimeCost.ceilLog(101, 10201) == 2 && UnitTimeCost.ceilLog(101, 10202) == 3)
    assert(UnitTimeCost.ceilLog(2, Long.MaxValue) == 63)
  }

  test("N inputs: probe cost x the other inputs' rates + maintenance x own rate, per input") {
    val inputs = Seq(InputLoad(10, WindowShape(1000, 5)), InputLoad(1, WindowShape(100, 2)), InputLoad(3, WindowShape(300, 30)))
    val paths = Seq(Hash, Scan, TTree)
    val byHand =
      (1 + 3) * 5 * paper.hashProbe + 10 * 2 * paper.hashUpdate +
        (10 + 3) * 100 * paper.scanProbe + 1 * 2 * paper.scanUpdate +
        (10 + 1) * UnitTimeCost.ttreeSearch(WindowShape(300, 30)) * paper.ttreeProbe + 3 * 2 * UnitTimeCost.ttreeSearch(WindowShape(300, 30)) * paper.ttreeUpdate
    assert(math.abs(UnitTimeCost.planCost(inputs, paths, paper) - byHand) < 1e-12)
    // An explicit probe rate (from ProbeOrderCost) replaces the sum of the other rates.
    val exact = inputs.updated(1, inputs(1).copy(probeRate = Some(2.5)))
    assert(math.abs(UnitTimeCost.inputCost(exact, 1, Scan, paper) - (2.5 * 100 * paper.scanProbe + 2 * paper.scanUpdate)) < 1e-12)
  }

  test("N inputs: the choice is the exhaustive optimum; forcing a path is respected") {
    val gen = for {
      n <- Gen.choose(2, 5)
      inputs <- Gen.listOfN(n, for (rate <- Gen.choose(0.1, 1000.0); rows <- Gen.choose(1.0, 20000.0); bucket <- Gen.choose(1.0, 50.0))
        yield InputLoad(rate, WindowShape(rows, bucket, 100)))
      allowed <- Gen.listOfN(n, Gen.someOf(AccessPath.all).suchThat(_.nonEmpty).map(_.toSeq))
    } yield (inputs, allowed)
    forAll(gen, minSuccessful(200)) { case (inputs, allowed) =>
      val choice = UnitTimeCost.choose(inputs, allowed, paper)
      val all = allowed.foldLeft(Seq(Seq.empty[AccessPath]))((acc, ps) => for (a <- acc; p <- ps) yield a :+ p)
      val costs = all.map(p => p -> UnitTimeCost.planCost(inputs, p, paper)).sortBy(_._2)
      assert(math.abs(choice.cost - costs.head._2) <= 1e-9 * costs.head._2)
      assert(choice.paths.zip(allowed).forall { case (p, ok) => ok.contains(p) })
      if (costs.size > 1) assert(math.abs(choice.runnerUp.get._2 - costs(1)._2) <= 1e-9 * costs(1)._2)
      else assert(choice.runnerUp.isEmpty)
    }
    val forced = UnitTimeCost.choose(Seq(InputLoad(1, shape(10)), InputLoad(1000, shape(50000))), Seq(Seq(Scan), Seq(Scan)), paper)
    assert(forced.letters == "NN" && forced.runnerUp.isEmpty)
  }

  test("weight factors round-trip through properties; parsing of access path names") {
    assert(WeightFactors.fromProperties(paper.toProperties) == paper)
    assert(AccessPath.parse("TTree") == Some(TTree) && AccessPath.parse("b+tree") == Some(BPlusTree))
    assert(AccessPath.parse("n") == Some(Scan) && AccessPath.parse("hash") == Some(Hash) && AccessPath.parse("x").isEmpty)
    assert(!Hash.answersRanges && TTree.answersRanges && Scan.answersRanges)
  }
}
