package wjoin.core.shedding

import scala.collection.mutable

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core._

/**
 * The shedding engine across micro-batches, without Spark: the state (the rows the windows
 * keep, plus the budgets' bytes) is the model of the state store; the engine is kept, or
 * rebuilt from that state at some batches. Under the same seed every way gives the same rows
 * in every batch, a sub-bag of the exact W-join, with the state within the budget.
 */
class StreamingSheddingSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  private case class Outcome(perBatch: Seq[Seq[Seq[Int]]], accepted: Seq[TRow], shedRows: Long, shedProbes: Long,
      peakState: Int)

  /**
   * Batches in time order (a row of batch b is never older than W of batch b - 1, as Spark's
   * late filter ensures), watermark = max time seen before minus `delay`; the plan of batch b
   * is `shed(b)`; the engine is rebuilt from the state before batch b when `rebuild(b)`.
   */
  private def stream(n: Int, batches: Seq[Seq[TRow]], plan: EnginePlan, shed: Int => ShedPlan, delay: Long,
      rebuild: Int => Boolean, partition: Int = 0): Outcome = {
    val state = mutable.LinkedHashSet.empty[TRow]
    var saved: Array[Byte] = null
    val perBatch = Seq.newBuilder[Seq[Seq[Int]]]
    val accepted = Seq.newBuilder[TRow]
    var lateBound = Long.MinValue
    var maxSeen = Long.MinValue
    var shedRows, shedProbes = 0L
    var peak = 0
    val flushAt = batches.flatten.map(_.time).reduceOption(_ max _).getOrElse(0L) + plan.horizon.max + 1
    var step: MicroBatchWJoin = null
    val shedNow = mutable.ArrayBuffer.empty[TRow]
    val evictedRows = mutable.ArrayBuffer.empty[TRow]
    def engineRow(r: TRow) = EngineRow(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
    for ((batch, b) <- (batches :+ Nil).zipWithIndex) {
      val w = if (b == batches.size) flushAt else if (maxSeen == Long.MinValue) Long.MinValue else maxSeen - delay
      val kept = batch.filter(_.time > lateBound)
      accepted ++= kept
      if (step == null || rebuild(b)) {
        step = new MicroBatchWJoin(plan, EngineRunner.filter(n, plan, sameKey = true, _ => true), TRow.ranges,
          Some(shed(b)), partition, new EngineListener {
            override def evicted(i: Int, t: Long, r: AnyRef): Unit = evictedRows += r.asInstanceOf[TRow]
            override def shed(i: Int, r: AnyRef): Unit = shedNow += r.asInstanceOf[TRow]
          })
        step.restore(state.toSeq.map(engineRow))
        if (saved != null) step.shedder.get.budgets.restore(saved)
      }
      step.shedder.get.budgets.retarget(shed(b), b)
      shedNow.clear()
      evictedRows.clear()
      val out = step.results(w, kept.sortBy(r => (r.time, r.input)).map(engineRow).iterator)
        .map(_.toSeq.map(_.asInstanceOf[TRow].id)).toSeq.sortBy(_.mkString(","))
      perBatch += out
      shedRows += step.engine.stats.shedRows
      shedProbes += step.engine.stats.shedProbes
      state ++= kept
      state --= shedNow
      state --= evictedRows
      assert(step.engine.bufferedRows == state.size, s"batch $b: the engine buffers rows the state does not keep")
      peak = math.max(peak, state.size)
      saved = step.shedder.get.budgets.save()
      lateBound = w
      if (batch.nonEmpty) maxSeen = math.max(maxSeen, batch.map(_.time).max)
    }
    assert(state.isEmpty, "the final watermark must empty the state")
    Outcome(perBatch.result(), accepted.result(), shedRows, shedProbes, peak)
  }

  private def subBag(small: Seq[Seq[Int]], big: Seq[Seq[Int]]): Boolean = {
    val counts = big.groupBy(identity).map { case (k, v) => k -> v.size }
    small.groupBy(identity).forall { case (k, v) => counts.getOrElse(k, 0) >= v.size }
  }

  private def workload(n: Int, rows: Seq[TRow], matrix: WindowMatrix, skew: Double): UnitTimeAllocation.Workload = {
    val span = math.max(1.0, rows.map(_.time).reduceOption(_ max _).getOrElse(0L) + 1.0)
    val rates = (0 until n).map(i => (rows.count(_.input == i) + skew * i) / span)
    UnitTimeAllocation.Workload.streams(rates, (0 until n).map(i => rates(i) * (matrix.horizon(i) + 1)))
  }

  private val rebuilds: Seq[(String, Int => Boolean)] =
    Seq("kept" -> (_ => false), "rebuilt every batch" -> (_ => true), "rebuilt at random" -> (b => (b * 7919) % 3 == 1))

  test("property: kept or rebuilt from the state, the same seed sheds the same rows in every micro-batch; the " +
    "result is a sub-bag of the exact W-join and the state stays within the budget") {
    val gen = for {
      n <- Gen.choose(2, 4); keys <- Gen.choose(1, 3); perInput <- Gen.choose(0, 25); seed <- Gen.choose(0L, 99999L)
      w <- Gen.choose(1, 10); m <- Gen.option(Gen.choose(0L, 20L)); mu <- Gen.option(Gen.choose(0, 12).map(_ / 4.0))
      slot <- Gen.choose(1, 8); delay <- Gen.choose(0L, 6L)
      alloc <- Gen.oneOf(Allocation.Auto, Allocation.Equal, Allocation.Proportional)
    } yield (n, keys, perInput, seed, w, m, mu, slot, delay, alloc)
    forAll(gen, minSuccessful(120)) { case (n, keys, perInput, seed, w, m, mu, slot, delay, alloc) =>
      whenever(m.isDefined || mu.isDefined) {
        val matrix = WindowMatrix.close(Seq(UniformWindow(w, s"WINDOW = $w")), names(n))
        val rows = EngineFixtures.rows(n, perInput, 40, keys, seed)
        val batches = rows.sortBy(_.time).groupBy(_.time / slot).toSeq.sortBy(_._1).map(_._2)
        val limits = ResourceLimits(m, mu, alloc, seed)
        // The planner re-plans every batch from recent rates: here the estimates change with the batch.
        val shed = (b: Int) => ShedPlan.of(limits, workload(n, rows, matrix, skew = b % 3), unitsPerSecond = 3)
        val exact = ReferenceWJoin.join(n, rows, matrix, sameKey = true)
        for ((name, plan) <- plans(matrix, keyed = true) if !plan.forward) {
          val outcomes = rebuilds.map { case (how, rebuild) => how -> stream(n, batches, plan, shed, delay, rebuild) }
          val (_, first) = outcomes.head
          for ((how, o) <- outcomes.tail)
            assert(o.perBatch == first.perBatch && o.shedRows == first.shedRows && o.shedProbes == first.shedProbes,
              s"$name: $how sheds differently from the kept engine")
          assert(first.accepted.size == rows.size)
          assert(subBag(first.perBatch.flatten, exact), s"$name emitted a combination the exact W-join does not")
          m.foreach(limit => assert(first.peakState <= limit, s"$name kept ${first.peakState} > $limit rows"))
          if (first.perBatch.flatten.size < exact.size) assert(first.shedRows + first.shedProbes > 0)
        }
      }
    }
  }

  test("with budgets that cover the stream nothing is shed: the exact W-join, batch by batch") {
    val n = 3
    val rows = EngineFixtures.rows(n, 60, 80, 2, 4)
    val matrix = WindowMatrix.uniform(n, 6)
    val batches = rows.sortBy(_.time).grouped(25).toSeq
    val shed = ShedPlan.of(ResourceLimits(Some(100000L), Some(1e6), Allocation.Auto, 1L),
      workload(n, rows, matrix, 0), 1)
    for ((name, plan) <- plans(matrix, keyed = true) if !plan.forward) {
      val o = stream(n, batches, plan, _ => shed, delay = 3, rebuild = _ => false)
      assert(o.perBatch.flatten.sortBy(_.mkString(",")) == ReferenceWJoin.join(n, rows, matrix, sameKey = true), name)
      assert(o.shedRows == 0 && o.shedProbes == 0, name)
    }
  }

  test("a memory budget of 5 rows keeps at most 5 rows across every micro-batch; other seeds shed other rows") {
    val n = 2
    val rows = EngineFixtures.rows(n, 150, 100, 1, 8)
    val matrix = WindowMatrix.uniform(n, 8)
    val batches = rows.sortBy(_.time).grouped(20).toSeq
    val plan = new EnginePlan(matrix, Algorithm.HW, true)
    def run(seed: Long) = stream(n, batches, plan,
      _ => ShedPlan.of(ResourceLimits(Some(5L), None, Allocation.Equal, seed), workload(n, rows, matrix, 0), 1),
      delay = 2, rebuild = b => b % 2 == 0)
    val one = run(1)
    assert(one.peakState <= 5 && one.shedRows > 0)
    assert(one.perBatch == run(1).perBatch)
    assert(one.perBatch != run(2).perBatch)
  }

  test("the ordered mode refuses limits") {
    val plan = new EnginePlan(WindowMatrix.uniform(2, 3), Algorithm.MW, false)
    val shed = ShedPlan.of(ResourceLimits(Some(5L), None, Allocation.Equal, 1L),
      UnitTimeAllocation.Workload.streams(IndexedSeq(1.0, 1.0), IndexedSeq(3.0, 3.0)), 1)
    val e = intercept[AssertionError](new MicroBatchWJoin(plan, TupleFilter.AcceptAll, shed = Some(shed)))
    assert(e.getMessage.contains("eager mode"))
  }
}
