package wjoin.core.shedding

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core._

/** The shedding engines against the brute-force reference: sub-bag, budgets, determinism. */
class SheddingEngineSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** The engine over `rows` under `shed` (per-row drain, as the evaluator does). */
  private def run(n: Int, rows: Seq[TRow], plan: EnginePlan, shed: ShedPlan, sameKey: Boolean,
      partition: Int = 0): (Seq[Seq[Int]], JoinStats, Int) = {
    val engine = WJoinEngine.batch(plan, EngineRunner.filter(n, plan, sameKey, _ => true), TRow.ranges, Some(shed), partition)
    val out = Seq.newBuilder[Seq[Int]]
    var peak = 0L
    def drain(): Unit = while (engine.next()) {
      out += engine.tuple.toSeq.map(_.asInstanceOf[TRow].id)
      assert(plan.matrix.admits(engine.times.clone()))
    }
    EngineRunner.mergeOrder(rows).foreach { r =>
      engine.offer(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      peak = math.max(peak, engine.bufferedRows)
      drain()
    }
    engine.finish()
    drain()
    (out.result().sortBy(_.mkString(",")), engine.stats, peak.toInt)
  }

  private def subBag(small: Seq[Seq[Int]], big: Seq[Seq[Int]]): Boolean = {
    val counts = big.groupBy(identity).map { case (k, v) => k -> v.size }
    small.groupBy(identity).forall { case (k, v) => counts.getOrElse(k, 0) >= v.size }
  }

  /** A rough workload of `rows` (rates per time unit, windows = rate x horizon), as a planner would estimate. */
  private def workload(n: Int, rows: Seq[TRow], matrix: WindowMatrix): UnitTimeAllocation.Workload = {
    val span = math.max(1.0, rows.map(_.time).reduceOption(_ max _).getOrElse(0L) + 1.0)
    val rates = (0 until n).map(i => rows.count(_.input == i) / span)
    UnitTimeAllocation.Workload.streams(rates, (0 until n).map(i => rates(i) * (matrix.horizon(i) + 1)))
  }

  private val allocations: Gen[Int => Allocation] = Gen.oneOf(
    Gen.const((_: Int) => Allocation.Auto), Gen.const((_: Int) => Allocation.Equal),
    Gen.const((_: Int) => Allocation.Proportional),
    Gen.choose(0L, 1000L).map(s => (n: Int) => {
      val r = new scala.util.Random(s)
      Allocation.Shares(Allocation.normalized(IndexedSeq.fill(n)(r.nextInt(4).toDouble + 0.01), "t"),
        Allocation.normalized(IndexedSeq.fill(n)(r.nextInt(4).toDouble + 0.01), "t"))
    }))

  test("property: under random limits every algorithm emits a sub-bag of the exact W-join, within the state budget, " +
    "the same for the same seed") {
    val gen = for {
      n <- Gen.choose(2, 4); keys <- Gen.choose(1, 3); perInput <- Gen.choose(0, 14); seed <- Gen.choose(0L, 100000L)
      w <- Gen.choose(1, 10); m <- Gen.option(Gen.choose(0L, 25L)); mu <- Gen.option(Gen.choose(0, 12).map(_ / 4.0))
      alloc <- allocations
    } yield (n, keys, perInput, seed, w, m, mu, alloc)
    forAll(gen, minSuccessful(150)) { case (n, keys, perInput, seed, w, m, mu, alloc) =>
      whenever(m.isDefined || mu.isDefined) {
        val terms = Seq(UniformWindow(w, s"WINDOW = $w"), StreamRange(0, w / 2, "RANGE(A)"))
        val matrix = WindowMatrix.close(terms, names(n))
        val rows = EngineFixtures.rows(n, perInput, 30, keys, seed)
        val exact = ReferenceWJoin.join(n, rows, matrix, sameKey = true)
        val limits = ResourceLimits(m, mu, alloc(n), seed)
        val shed = ShedPlan.of(limits, workload(n, rows, matrix), unitsPerSecond = 3)
        for ((name, plan) <- plans(matrix, keyed = true)) {
          val (got, stats, peak) = run(n, rows, plan, shed, sameKey = true)
          assert(subBag(got, exact), s"$name emitted a combination the exact W-join does not")
          m.foreach(limit => assert(peak <= limit && stats.peakBuffered <= limit, s"$name buffered $peak > $limit rows"))
          assert(stats.results == got.size)
          val (again, stats2, _) = run(n, rows, plan, shed, sameKey = true)
          assert(again == got && stats2.shedRows == stats.shedRows && stats2.shedProbes == stats.shedProbes,
            s"$name: same seed, different result")
          if (got.size < exact.size) assert(stats.shedRows + stats.shedProbes > 0, s"$name lost rows without shedding")
        }
      }
    }
  }

  test("budgets that cover the workload shed nothing: the exact result") {
    val n = 3
    val rows = EngineFixtures.rows(n, 40, 60, 2, 11)
    val matrix = WindowMatrix.uniform(n, 6)
    val exact = ReferenceWJoin.join(n, rows, matrix, sameKey = true)
    val shed = ShedPlan.of(ResourceLimits(Some(10000L), Some(1e6), Allocation.Equal, 1L), workload(n, rows, matrix), 1)
    for ((name, plan) <- plans(matrix, keyed = true)) {
      val (got, stats, _) = run(n, rows, plan, shed, sameKey = true)
      assert(got == exact, name)
      assert(stats.shedRows == 0 && stats.shedProbes == 0, name)
    }
  }

  test("a zero budget sheds everything: no output, every row or probe counted") {
    val n = 2
    val rows = EngineFixtures.rows(n, 30, 40, 1, 5)
    val matrix = WindowMatrix.uniform(n, 10)
    for ((limits, what) <- Seq((ResourceLimits(Some(0L), None, Allocation.Equal, 3L), "rows"),
        (ResourceLimits(None, Some(0.0), Allocation.Auto, 3L), "probes"));
        (name, plan) <- plans(matrix, keyed = true)) {
      val (got, stats, peak) = run(n, rows, plan, ShedPlan.of(limits, workload(n, rows, matrix), 1), sameKey = true)
      assert(got.isEmpty, s"$name, no $what")
      if (what == "rows") { assert(peak == 0); assert(stats.shedRows == rows.size) }
      // Forward evaluation only decides a stored row's probe; backward every arrival's.
      else assert(stats.shedProbes == rows.size, name)
    }
  }

  test("the probe budget never exceeds mu_i per second of event time and picks rows across the second") {
    val random = new java.util.SplittableRandom(7)
    val rates = new ArrivalRates(IndexedSeq(100.0, 5.0), 1000)
    val budget = new ProbeBudget(IndexedSeq(2.5, 10.0), rates, unitsPerSecond = 1000, random)
    def probes(input: Int, t: Long) = { rates.arrive(input, t); budget.probes(input, t) }
    val probedA = (0 until 100000).filter(k => probes(0, k * 10L)) // 100 rows per second
    val perSecond = probedA.groupBy(_ / 100).values.map(_.size)
    assert(perSecond.forall(c => c == 2 || c == 3))
    assert(probedA.size == 2500) // 2.5 per second over 1000 seconds
    // Within a second the chosen rows are spread: about as many in each half.
    val firstHalf = probedA.count(k => k % 100 < 50)
    assert(math.abs(firstHalf - 1250) < 150, s"$firstHalf of 2500 in the first half of their second")
    // Fewer arrivals than the quota: all probe.
    assert((0 until 5).forall(k => probes(1, 5000L + k)))
  }

  test("budgets follow the rates seen when the planner's estimate is off by 10x") {
    for (estimate <- Seq(10.0, 1000.0)) { // the true rate is 100 rows per second
      val rates = new ArrivalRates(IndexedSeq(estimate), 1000)
      val random = new java.util.SplittableRandom(3)
      val probes = new ProbeBudget(IndexedSeq(20.0), rates, 1000, random.split())
      val state = new StateBudget(IndexedSeq(50), 50L, IndexedSeq(2.0), rates, random.split()) // full window: 200 rows
      val window = scala.collection.mutable.Queue.empty[Long]
      var probed = 0
      var filled = 0L
      for (k <- 0 until 30000) {
        val t = k * 10L
        rates.arrive(0, t)
        while (window.nonEmpty && window.head <= t - 2000) window.dequeue()
        if (state.admits(0, window.size, window.size.toLong)) window.enqueue(t)
        if (probes.probes(0, t) && t >= 20000) probed += 1
        if (t >= 20000) filled += window.size
      }
      assert(probed >= 280 * 20 * 0.97, s"estimate $estimate: $probed probes of 5600 allowed")
      val mean = filled.toDouble / 28000
      assert(mean >= 40 && mean <= 50, s"estimate $estimate: the window held $mean rows on average (cap 50)")
    }
  }

  test("different seeds shed different rows; partitions draw independently") {
    val n = 2
    val rows = EngineFixtures.rows(n, 200, 100, 1, 9)
    val matrix = WindowMatrix.uniform(n, 5)
    val plan = new EnginePlan(matrix, Algorithm.NLW, false)
    def result(seed: Long, partition: Int) = run(n, rows, plan,
      ShedPlan.of(ResourceLimits(Some(8L), None, Allocation.Equal, seed), workload(n, rows, matrix), 1), sameKey = true,
      partition)._1
    assert(result(1, 0) != result(2, 0))
    assert(result(1, 0) != result(1, 1))
    assert(result(1, 0) == result(1, 0))
  }
}
