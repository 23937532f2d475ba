package wjoin.core.index

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import scala.collection.mutable

/** One structure under test, with access to its internal checks. */
final case class Subject(index: RangeIndex[Int], checkInvariants: () => Unit, entries: () => Vector[(Long, Int)])

/** An operation of a random sequence; keys and positions are drawn by the generators below. */
sealed trait IndexOp
object IndexOp {
  final case class Insert(key: Long) extends IndexOp
  /** Delete the oldest entry still present: what a sliding window does. */
  case object ExpireOldest extends IndexOp
  /** Delete the entry at this fraction of the sorted order: an arbitrary delete. */
  final case class DeleteAt(fraction: Double) extends IndexOp
  /** Delete a (key, value) that is not there: must return false and change nothing. */
  final case class DeleteMissing(key: Long) extends IndexOp
  final case class Probe(lo: Long, hi: Long) extends IndexOp
}

/**
 * The behaviour every [[RangeIndex]] must show, checked against [[SortedReference]]: random
 * insert / expire-oldest / delete / probe sequences with many duplicates, ties, empty and
 * inverted ranges and the Long.MinValue / Long.MaxValue bounds, for node sizes 2..100;
 * after every operation of the short sequences the structure's own invariants (balance,
 * ordering, fill) are checked too.
 */
trait RangeIndexBehaviours extends ScalaCheckPropertyChecks { this: AnyFunSuite =>
  import IndexOp._

  private val extremes = Seq(Long.MinValue, Long.MinValue + 1, -1L, 0L, 1L, Long.MaxValue - 1, Long.MaxValue)

  /** Mostly a tiny domain (many duplicates and ties), some wide values, some extremes. */
  val keyGen: Gen[Long] = Gen.frequency(
    5 -> Gen.choose(0L, 6L),
    3 -> Gen.choose(-500L, 500L),
    1 -> Gen.oneOf(extremes),
    1 -> Gen.choose(Long.MinValue, Long.MaxValue))

  val probeGen: Gen[IndexOp] = Gen.frequency(
    4 -> (for (lo <- keyGen; width <- Gen.choose(0L, 8L)) yield Probe(lo, if (lo > Long.MaxValue - width) Long.MaxValue else lo + width)),
    2 -> (for (a <- keyGen; b <- keyGen) yield Probe(a, b)), // half of these are inverted: empty
    1 -> Gen.oneOf(Probe(Long.MinValue, Long.MaxValue), Probe(Long.MinValue, Long.MinValue),
      Probe(Long.MaxValue, Long.MaxValue), Probe(Long.MaxValue, Long.MinValue), Probe(3L, 2L)))

  val opGen: Gen[IndexOp] = Gen.frequency(
    6 -> keyGen.map(Insert(_)),
    3 -> Gen.const(ExpireOldest),
    1 -> Gen.choose(0.0, 0.999).map(DeleteAt(_)),
    1 -> keyGen.map(DeleteMissing(_)),
    3 -> probeGen)

  /** Node sizes 2..100, small ones more often: they exercise the most rebalancing. */
  val nodeSizeGen: Gen[Int] = Gen.frequency(6 -> Gen.choose(2, 6), 3 -> Gen.choose(7, 32), 1 -> Gen.choose(33, 100))

  /**
   * Applies `ops` to the subject and the reference and compares every result. `checkEvery`:
   * structural invariants every that many operations (1 = after each). `valueDomain`: values
   * are insertion counters modulo this (small = identical (key, value) pairs occur).
   */
  def runOps(subject: Subject, ops: Seq[IndexOp], checkEvery: Int, valueDomain: Int = Int.MaxValue): Unit = {
    val reference = new SortedReference[Int]
    val arrivals = mutable.Queue.empty[(Long, Int)] // present entries in insertion order
    val index = subject.index
    var counter = 0
    var step = 0
    def context = s"at step $step of ${ops.size}"
    for (op <- ops) {
      op match {
        case Insert(key) =>
          val value = counter % valueDomain
          counter += 1
          index.insert(key, value)
          reference.insert(key, value)
          arrivals.enqueue((key, value))
        case ExpireOldest =>
          if (arrivals.nonEmpty) {
            val (key, value) = arrivals.dequeue()
            assert(index.delete(key, value), s"expire of ($key, $value) found nothing $context")
            assert(reference.delete(key, value))
          }
        case DeleteAt(fraction) =>
          if (reference.size > 0) {
            val (key, value) = reference((fraction * reference.size).toInt)
            assert(index.delete(key, value), s"delete of ($key, $value) found nothing $context")
            reference.delete(key, value)
            arrivals.dequeueFirst(_ == ((key, value)))
          }
        case DeleteMissing(key) =>
          assert(!index.delete(key, -1), s"deleted a missing entry $context")
        case Probe(lo, hi) =>
          val expected = reference.range(lo, hi)
          val viaForeach = Vector.newBuilder[(Long, Int)]
          index.foreachInRange(lo, hi)((k, v) => viaForeach += ((k, v)))
          assert(viaForeach.result() == expected, s"foreachInRange($lo, $hi) $context")
          val viaCursor = Vector.newBuilder[(Long, Int)]
          val cursor = index.cursor(lo, hi)
          while (cursor.next()) viaCursor += ((cursor.key, cursor.value))
          assert(!cursor.next(), "a finished cursor must stay finished")
          assert(viaCursor.result() == expected, s"cursor($lo, $hi) $context")
      }
      step += 1
      assert(index.size == reference.size, s"size $context")
      if (step % checkEvery == 0) subject.checkInvariants()
    }
    subject.checkInvariants()
    assert(subject.entries() == reference.all, "final in-order entries (key, then insertion order)")
  }

  /** A sliding window of `window` rows over `rows` arrivals, probing after every arrival. */
  def slidingWindow(subject: Subject, rows: Int, window: Int, keys: Long => Long, seed: Long, checkEvery: Int): Unit = {
    val rnd = new scala.util.Random(seed)
    val ops = Vector.newBuilder[IndexOp]
    for (i <- 0 until rows) {
      ops += Insert(keys(i.toLong))
      if (i >= window) ops += ExpireOldest
      val lo = keys(rnd.nextInt(rows).toLong)
      if (i % 7 == 0) ops += Probe(lo, if (lo > Long.MaxValue - 50) Long.MaxValue else lo + 50)
    }
    runOps(subject, ops.result(), checkEvery)
  }

  def rangeIndexBehaviours(name: String, make: Int => Subject): Unit = {

    test(s"$name: random operations equal the sorted reference, invariants after every op") {
      val gen = for (nodeSize <- nodeSizeGen; ops <- Gen.listOf(opGen)) yield (nodeSize, ops)
      forAll(gen, minSuccessful(400), sizeRange(250)) { case (nodeSize, ops) => runOps(make(nodeSize), ops, checkEvery = 1) }
    }

    test(s"$name: identical (key, value) pairs and heavy duplicates") {
      val gen = for (nodeSize <- nodeSizeGen; ops <- Gen.listOf(Gen.frequency(
        5 -> Gen.choose(0L, 2L).map(Insert(_)), 2 -> Gen.const(ExpireOldest), 1 -> Gen.choose(0.0, 0.999).map(DeleteAt(_)),
        2 -> Gen.choose(-1L, 3L).flatMap(lo => Gen.choose(lo - 1, 3L).map(Probe(lo, _)))))) yield (nodeSize, ops)
      forAll(gen, minSuccessful(300), sizeRange(300)) { case (nodeSize, ops) =>
        runOps(make(nodeSize), ops, checkEvery = 1, valueDomain = 3)
      }
    }

    test(s"$name: empty index") {
      for (nodeSize <- Seq(2, 3, 100)) {
        val s = make(nodeSize)
        assert(s.index.isEmpty)
        assert(!s.index.delete(0L, 0))
        assert(!s.index.cursor(Long.MinValue, Long.MaxValue).next())
        s.index.foreachInRange(Long.MinValue, Long.MaxValue)((_, _) => fail("no entries expected"))
        s.checkInvariants()
        // Fill and drain: the structure must return to an empty, valid state.
        runOps(s, (0 until 300).map(i => Insert((i * 37 % 101).toLong)) ++ Seq.fill(300)(ExpireOldest) :+
          Probe(Long.MinValue, Long.MaxValue), checkEvery = 1)
        assert(s.index.isEmpty)
      }
    }

    test(s"$name: a single key repeated (one long run of ties), FIFO expiry") {
      for (nodeSize <- Seq(2, 3, 4, 5, 10, 100))
        runOps(make(nodeSize), (0 until 700).flatMap(i => Insert(7L) +: (if (i % 3 == 2) Seq(ExpireOldest, Probe(7L, 7L)) else Nil)) ++
          Seq(Probe(6L, 6L), Probe(8L, 8L), Probe(Long.MinValue, Long.MaxValue)), checkEvery = 1)
    }

    test(s"$name: ascending, descending and alternating keys (rotations on every path)") {
      for (nodeSize <- Seq(2, 3, 4, 7, 100)) {
        val n = 900
        val orders = Seq[Int => Long](i => i.toLong, i => (n - i).toLong, i => if (i % 2 == 0) i.toLong else (-i).toLong,
          i => if (i % 2 == 0) Long.MinValue + i else Long.MaxValue - i)
        for (order <- orders) {
          val inserts = (0 until n).map(i => Insert(order(i)))
          // Expire from the front, then delete the rest from the back half first.
          val deletes = Seq.fill(n / 3)(ExpireOldest) ++ (0 until n / 3).map(_ => DeleteAt(0.99)) ++ Seq.fill(n / 3)(DeleteAt(0.0))
          runOps(make(nodeSize), inserts ++ Seq(Probe(Long.MinValue, Long.MaxValue), Probe(-10L, 10L)) ++ deletes,
            checkEvery = if (nodeSize <= 4) 1 else 25)
        }
      }
    }

    test(s"$name: Long.MinValue and Long.MaxValue keys and probe bounds") {
      for (nodeSize <- Seq(2, 3, 100)) {
        val keys = Seq(Long.MaxValue, Long.MinValue, 0L, Long.MaxValue, Long.MinValue, Long.MaxValue - 1, Long.MinValue + 1)
        val probes = for (lo <- keys ++ Seq(-1L, 1L); hi <- keys ++ Seq(-1L, 1L)) yield Probe(lo, hi)
        runOps(make(nodeSize), keys.flatMap(k => Seq.fill(5)(Insert(k))) ++ probes ++ Seq.fill(12)(ExpireOldest) ++ probes, checkEvery = 1)
      }
    }

    test(s"$name: sliding window of 5000 rows (8000 arrivals), random keys, node sizes 2..100") {
      for ((nodeSize, seed) <- Seq(2, 3, 5, 16, 64, 100).zipWithIndex) {
        val rnd = new scala.util.Random(seed)
        val keys = Array.fill(8000)(rnd.nextInt(3000).toLong)
        slidingWindow(make(nodeSize), rows = 8000, window = 5000, i => keys(i.toInt), seed, checkEvery = 997)
      }
    }

    test(s"$name: sliding window over slowly drifting keys (keys correlated with time)") {
      for (nodeSize <- Seq(2, 4, 100)) {
        val rnd = new scala.util.Random(nodeSize)
        val keys = Array.tabulate(12000)(i => (i / 3 + rnd.nextInt(40)).toLong)
        slidingWindow(make(nodeSize), rows = 12000, window = 1000, i => keys(i.toInt), nodeSize, checkEvery = 251)
      }
    }

    test(s"$name: a cursor resumes where it stopped") {
      val s = make(4)
      for (i <- 0 until 200) s.index.insert((i % 50).toLong, i)
      val a = s.index.cursor(10L, 20L)
      val b = s.index.cursor(10L, 20L)
      val seen = Vector.newBuilder[(Long, Int)]
      // Interleave two cursors over the same range: each keeps its own position.
      var more = true
      while (more) {
        more = a.next()
        if (more) { assert(b.next()); assert(a.key == b.key && a.value == b.value); seen += ((a.key, a.value)) }
      }
      assert(!b.next())
      val expected = (0 until 200).filter(i => i % 50 >= 10 && i % 50 <= 20).map(i => ((i % 50).toLong, i)).sortBy(_._1)
      assert(seen.result() == expected)
    }
  }
}
