package wjoin.core

import scala.collection.mutable

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks


/**
 * The streaming engine without Spark: rows arrive in micro-batches out of time order, the
 * watermark is Spark's (max time of earlier batches minus the delay, one global value), late
 * rows are dropped, and the state is what [[MicroBatchWJoin]] keeps. The union of all
 * batches' output must be the batch W-join (the reference) of the rows that were not late,
 * whether the engine is kept across batches, rebuilt from the state rows every batch (a
 * restart every time) or rebuilt at random batches.
 */
class MicroBatchWJoinSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** Arrival batch of each row: its time slot plus a random delay of up to `disorder` slots. */
  private def batchesOf(rows: Seq[TRow], slot: Int, disorder: Int, seed: Long): Seq[Seq[TRow]] = {
    val rnd = new scala.util.Random(seed)
    val tagged = rows.map(r => (r.time.toInt / slot + rnd.nextInt(disorder + 1), r))
    val last = if (tagged.isEmpty) 0 else tagged.map(_._1).max
    (0 to last).map(b => rnd.shuffle(tagged.filter(_._1 == b).map(_._2)))
  }

  private case class Outcome(results: Seq[Seq[Int]], accepted: Seq[TRow], late: Int, maxStateAfterBatch: Seq[Int])

  /** When the engine is rebuilt from the state rows: every batch, never, at random batches. */
  private val rebuilds: Seq[(String, Int => Boolean)] =
    Seq("rebuilt every batch" -> (_ => true), "kept" -> (_ => false), "rebuilt at random" -> (b => (b * 7919) % 3 == 1))

  /**
   * Runs the micro-batches, then one empty batch whose watermark passes every row; a new
   * engine restored from the state rows before batch b when `rebuild(b)` (always before the first).
   */
  private def stream(n: Int, batches: Seq[Seq[TRow]], plan: EnginePlan, sameKey: Boolean, delay: Long,
      extra: Seq[TRow] => Boolean = _ => true, rebuild: Int => Boolean): Outcome = {
    val state = mutable.ArrayBuffer.empty[TRow]
    val out = Seq.newBuilder[Seq[Int]]
    val accepted = Seq.newBuilder[TRow]
    var late = 0
    var maxSeen: Option[Long] = None
    var lateBound = Long.MinValue // Long.MinValue: no watermark yet, nothing is late
    val sizes = Seq.newBuilder[Int]
    val flushAt = SaturatingTime.plus(SaturatingTime.plus(batches.flatten.map(_.time).reduceOption(_ max _).getOrElse(0L), plan.horizon.max), 1)
    val evictedRows = mutable.ArrayBuffer.empty[TRow]
    def engineRow(r: TRow) = EngineRow(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
    var step: MicroBatchWJoin = null
    for ((batch, b) <- (batches :+ Nil).zipWithIndex) {
      val w = if (b == batches.size) flushAt else maxSeen.fold(Long.MinValue)(SaturatingTime.minus(_, delay))
      val (dropped, kept) = batch.partition(r => lateBound != Long.MinValue && r.time <= lateBound)
      late += dropped.size
      accepted ++= kept
      if (step == null || rebuild(b)) {
        step = new MicroBatchWJoin(plan, EngineRunner.filter(n, plan, sameKey, extra), listener = new EngineListener {
          override def evicted(i: Int, t: Long, r: AnyRef): Unit = {
            val row = r.asInstanceOf[TRow]
            assert(row.input == i && row.time == t)
            evictedRows += row
          }
        })
        step.restore(state.toSeq.map(engineRow))
      }
      evictedRows.clear()
      val arrivals = kept.sortBy(_.time).map(engineRow)
      val results = step.results(w, arrivals.iterator)
      results.foreach { t =>
        out += t.toSeq.map(_.asInstanceOf[TRow].id)
        assert(plan.matrix.admits(step.engine.times.clone()))
      }
      state ++= kept
      evictedRows.foreach(r => state -= r)
      assert(evictedRows.forall(r => SaturatingTime.reached(r.time, plan.horizon(r.input), w)), "a row left the state too early")
      val reach = if (plan.forward) plan.horizon.max else 0L
      assert(state.forall(r => !SaturatingTime.reached(r.time, math.max(reach, plan.horizon(r.input)), w)),
        s"state keeps expired rows at W=$w")
      sizes += state.size
      lateBound = w
      if (batch.nonEmpty) maxSeen = Some((maxSeen.toSeq ++ batch.map(_.time)).max)
    }
    assert(state.isEmpty, "the final watermark must empty the state")
    Outcome(out.result().sortBy(_.mkString(",")), accepted.result(), late, sizes.result())
  }

  /** `origin`: every time moved by it (times near the ends of the Long range). */
  private def check(n: Int, unmoved: Seq[Seq[TRow]], terms: Seq[WindowTerm], keyed: Boolean, delay: Long,
      origin: Long = 0L): Outcome = {
    val matrix = WindowMatrix.close(terms, names(n))
    val batches = unmoved.map(_.map(r => r.copy(time = origin + r.time)))
    var last: Outcome = null
    for ((name, plan) <- plans(matrix, keyed); (engine, rebuild) <- rebuilds) {
      val o = stream(n, batches, plan, keyed, delay, rebuild = rebuild)
      val expected = ReferenceWJoin.join(n, o.accepted, matrix, keyed)
      assert(o.results == expected, s"$name (streaming, engine $engine) differs from the batch W-join for ${terms.map(_.text)}")
      last = o
    }
    last
  }

  for (n <- 2 to 4; (shape, terms) <- shapes(n); delay <- Seq(0L, 3L, 8L)) {
    test(s"N=$n $shape, delay $delay: every algorithm, streamed in micro-batches, equals the batch W-join") {
      for (seed <- 1 to 3) {
        val rs = rows(n, if (n == 4) 8 else 12, 30, 2, seed * 17 + n)
        check(n, batchesOf(rs, 4, 3, seed), terms, keyed = true, delay)
      }
    }
  }

  for ((end, origin) <- Seq("Long.MinValue" -> Long.MinValue, "Long.MinValue + 3" -> (Long.MinValue + 3),
      "Long.MaxValue - 40" -> (Long.MaxValue - 40)); n <- 2 to 3; (shape, terms) <- shapes(n)) {
    test(s"N=$n $shape, times from $end: streamed in micro-batches, equals the batch W-join") {
      for (seed <- 1 to 2)
        check(n, batchesOf(rows(n, 10, 30, 2, seed * 17 + n), 4, 3, seed), terms, keyed = true, delay = 3, origin)
    }
  }

  test("late rows are dropped and never joined") {
    val rs = Seq(TRow(0, 10, 0, 1), TRow(1, 20, 0, 2), TRow(1, 12, 0, 3), TRow(0, 11, 0, 4))
    // Batch 1 runs with watermark 20 - 5 = 15, so in batch 2 row 3 (t=12) and row 4 (t=11) are
    // late (Spark filters a batch's input with the previous batch's watermark).
    val o = check(2, Seq(rs.take(2), Nil, rs.drop(2)), Seq(UniformWindow(10, "W")), keyed = true, delay = 5)
    assert(o.late == 2 && o.results == Seq(Seq(1, 2)))
  }

  test("state follows window x rate, not stream length") {
    val n = 3
    val rs = (0 until 6000).map(k => TRow(k % n, k.toLong / 3, k % 5, k))
    val batches = rs.grouped(300).toSeq
    for ((name, plan) <- plans(WindowMatrix.uniform(n, 20), keyed = true); (_, rebuild) <- rebuilds) {
      val o = stream(n, batches, plan, sameKey = true, delay = 10, rebuild = rebuild)
      assert(o.maxStateAfterBatch.max <= 3 * (100 + 20 + 10 + 2), s"$name kept ${o.maxStateAfterBatch.max} rows")
    }
  }

  test("property: random streams, windows, delays and batch splits equal the batch W-join") {
    val gen = for {
      n <- Gen.choose(2, 4); u <- Gen.choose(0, 10); d <- Gen.choose(0, 6); lo <- Gen.choose(0, 3)
      directed <- Gen.oneOf(true, false); keys <- Gen.choose(1, 3); perInput <- Gen.choose(0, 10)
      slot <- Gen.choose(1, 8); disorder <- Gen.choose(0, 4); delay <- Gen.choose(0L, 10L); seed <- Gen.choose(0L, 99999L)
    } yield (n, u, d, lo, directed, keys, perInput, slot, disorder, delay, seed)
    forAll(gen, minSuccessful(200)) { case (n, u, d, lo, directed, keys, perInput, slot, disorder, delay, seed) =>
      val terms = UniformWindow(u + d, s"WINDOW=${u + d}") +:
        (if (directed) Seq(DirectedWindow(0, n - 1, math.min(lo, d), d, s"DWINDOW(0,last)=[$lo,$d]")) else Nil)
      val rs = rows(n, perInput, 30, keys, seed)
      check(n, batchesOf(rs, slot, disorder, seed), terms, keyed = keys > 1, delay)
    }
  }
}
