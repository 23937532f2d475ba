package wjoin.core

import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.cost.AccessPath
import wjoin.core.cost.AccessPath._
import wjoin.core.window.WindowMemory

/**
 * The broadcast evaluation ([[BroadcastWindows]], [[BroadcastProbe]]) against the brute-force
 * reference: every window shape, every algorithm's plan (forward plans included: their
 * narrowing shortcut assumes periods cut at the origin, which a broadcast probe's are not),
 * window strategies, bidirectional exclusion, hash / scan / tree paths with bands, any input
 * streamed, its rows probed in random order and split over several "tasks" sharing one set of
 * windows.
 */
class BroadcastProbeSuite extends AnyFunSuite {
  import EngineFixtures._

  /** The combinations of `rows` with input `streamed` probed in `parts` shuffled slices. */
  private def broadcastJoin(n: Int, rows: Seq[TRow], plan: EnginePlan, streamed: Int, sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true, parts: Int = 3, seed: Long = 1L): Seq[Seq[Int]] = {
    def keyOf(r: TRow): AnyRef = if (plan.hashed) Integer.valueOf(r.key) else null
    val windows = (0 until n).filter(_ != streamed).map { j =>
      val of = EngineRunner.mergeOrder(rows).filter(_.input == j).toArray
      new BroadcastWindow(plan, j, TRow.ranges, WindowMemory.Unaccounted, of.map(keyOf), of.map(_.time), of.map(r => r: AnyRef))
    }
    val shared = new BroadcastWindows(plan, streamed, windows.reverse) // any order of the inputs' windows
    val probed = new scala.util.Random(seed).shuffle(rows.filter(_.input == streamed))
    val slice = math.max(1, (probed.size + parts - 1) / parts)
    val out = Seq.newBuilder[Seq[Int]]
    for (part <- probed.grouped(slice)) { // one probe per "task", the windows shared
      val probe = new BroadcastProbe(plan, shared, EngineRunner.filter(n, plan, sameKey, extra), TRow.ranges)
      for (r <- part) {
        probe.start(r.time, keyOf(r), r)
        while (probe.next()) {
          assert(plan.matrix.admits(probe.times.clone()), "a combination outside the window")
          out += probe.tuple.toSeq.map(_.asInstanceOf[TRow].id)
        }
      }
    }
    out.result().sortBy(_.mkString(","))
  }

  test("every window shape, algorithm's plan and strategy, each input streamed: the reference's combinations") {
    for (n <- Seq(2, 3, 4); (shape, terms) <- shapes(n); keyed <- Seq(false, true)) {
      val matrix = WindowMatrix.close(terms, names(n))
      val rs = rows(n, if (n == 4) 7 else 12, 30, if (keyed) 3 else 1, seed = n * 31L + shape.length)
      val expected = ReferenceWJoin.join(n, rs, matrix, keyed)
      for ((name, plan) <- plans(matrix, keyed); streamed <- 0 until n)
        assert(broadcastJoin(n, rs, plan, streamed, keyed, seed = streamed) == expected,
          s"$shape, $name, streamed ${names(n)(streamed)}")
    }
  }

  test("a bidirectional path query: combinations of the excluded reverse direction are left out") {
    val n = 3
    val terms = WindowTermParser.parse("DWINDOW(A,B) = [0, 5] AND DWINDOW(B,C) = [0, 5]", names(n), integralTime = true)
    val reverse = WindowTermParser.parse("DWINDOW(C,B) = [0, 5] AND DWINDOW(B,A) = [0, 5]", names(n), integralTime = true)
    val matrix = WindowMatrix.close(terms, names(n))
    val excluded = WindowMatrix.close(reverse, names(n))
    val rs = rows(n, 14, 20, 1, seed = 5)
    val expected = ReferenceWJoin.join(n, rs, matrix, sameKey = false).filterNot { ids =>
      excluded.admits(ids.map(id => rs.find(_.id == id).get.time).toArray)
    }
    for ((name, plan) <- plans(matrix, keyed = false, exclude = Some(excluded)); streamed <- 0 until n)
      assert(broadcastJoin(n, rs, plan, streamed, sameKey = false) == expected, s"$name, streamed $streamed")
  }

  test("hash, scan and tree paths with bands, random streams and windows (property, 150 seeded cases)") {
    val all = Seq[AccessPath](Scan, Hash, TTree, BPlusTree, HashTTree, HashBPlusTree)
    for (seed <- 1L to 150L) {
      val rnd = new scala.util.Random(seed)
      val n = 2 + rnd.nextInt(3)
      val keyed = rnd.nextBoolean()
      val window = rnd.nextInt(13)
      val perInput = 1 + rnd.nextInt(10)
      // Paths that need a key fall back to scan without one.
      val paths = Seq.fill(n)(all(rnd.nextInt(all.size))).map(p => if (p.bucketsByKey && !keyed) Scan else p)
      val algorithm = if (keyed && rnd.nextBoolean()) Algorithm.HW else Algorithm.MW
      val streamed = rnd.nextInt(n)
      // A.x within 2 of B.x along the chain of inputs.
      val bindings = (0 until n - 1).flatMap(a => Seq(RangeBinding(a, 0, a + 1, 0, -2, 2), RangeBinding(a + 1, 0, a, 0, -2, 2)))
      val extra = (t: Seq[TRow]) => (0 until n - 1).forall(a => math.abs(t(a).x - t(a + 1).x) <= 2)
      val rs = rows(n, perInput, 25, if (keyed) 2 else 1, seed).map(_.copy(x = rnd.nextInt(8).toLong))
      val plan = new EnginePlan(WindowMatrix.uniform(n, window), algorithm, hashed = keyed, paths, bindings, nodeSize = 3)
      val expected = ReferenceWJoin.join(n, rs, plan.matrix, keyed, extra)
      assert(broadcastJoin(n, rs, plan, streamed, keyed, extra, parts = 2, seed = seed) == expected,
        s"seed $seed: paths ${paths.mkString(",")}, $algorithm, streamed $streamed, window $window")
    }
  }

  test("rows of a broadcast input come in any order, its window holds them in time order; one window per broadcast input; ROWS windows refused") {
    val plan = new EnginePlan(WindowMatrix.uniform(2, 5), Algorithm.MW, hashed = false)
    def window(p: EnginePlan, rs: TRow*) = new BroadcastWindow(p, 1, RangeValues.None, WindowMemory.Unaccounted,
      rs.map(r => if (p.hashed) Integer.valueOf(r.key) else null).toArray, rs.map(_.time).toArray, rs.map(r => r: AnyRef).toArray)
    val one = window(plan, TRow(1, 10, 0, 1))
    val hashed = new EnginePlan(WindowMatrix.uniform(2, 5), Algorithm.HW, hashed = true)
    for (p <- Seq(plan, hashed)) { // a scan window and a hash window; ties keep the given order
      val rows = Seq(TRow(1, 10, 0, 1), TRow(1, 9, 0, 2), TRow(1, 12, 0, 3), TRow(1, 9, 0, 4))
      val held = window(p, rows: _*).window.candidates(if (p.hashed) Integer.valueOf(0) else null)
      assert((0 until held.size).map(i => held.row(i).asInstanceOf[TRow].id) == Seq(2, 4, 1, 3), p.algorithm)
      assert((0 until held.size).map(held.time) == Seq(9L, 9L, 10L, 12L))
    }
    assertThrows[AssertionError](new BroadcastWindows(plan, 1, Seq(one))) // the streamed input's own
    assert(new BroadcastWindows(plan, 0, Seq(one)).windows(1).size == 1)
    val counted = new EnginePlan(WindowMatrix.uniform(2, 5), Algorithm.MW, hashed = false, rowLimits = Array(3L, StreamRows.NoLimit))
    assertThrows[AssertionError](window(counted, TRow(1, 10, 0, 1)))
  }

  test("a static hash window: the buckets of a hash window filled row by row, each a slice in time order") {
    val rnd = new scala.util.Random(3)
    // Integer keys take the map of key objects; Long keys an array indexed by offset when they are
    // dense (DenseLongKeyIds, here also next to Long.MaxValue, and probed with keys that wrap
    // around), else the primitive table (LongKeyIds), here with extreme and colliding values
    // (multiples of a large power of two) and its growth.
    val kinds: Seq[(String, Int => AnyRef)] = Seq(
      "int" -> (k => Integer.valueOf(k)),
      "long" -> (k => java.lang.Long.valueOf(k.toLong)),
      "long near max" -> (k => java.lang.Long.valueOf(Long.MaxValue - k)),
      "long spread" -> (k => java.lang.Long.valueOf(Seq(Long.MinValue, Long.MaxValue, -1L, 0L)(k % 4) + (k / 4).toLong * (1L << 40))))
    for ((kind, keyValue) <- kinds; m <- Seq(0, 1, 2, 7, 64, 1000, 5000); keys <- Seq(1, 3, 500, 5000)) {
      // The static window takes the rows in any order (here shuffled); the filled one in time order.
      val times = Array.fill(m)(rnd.nextInt(50).toLong).sorted
      val keyOf = Array.fill[AnyRef](m)(keyValue(rnd.nextInt(keys)))
      val rows = Array.tabulate[AnyRef](m)(i => s"r$i")
      val shuffled = rnd.shuffle((0 until m).toVector)
      val position = new Array[Int](m)
      shuffled.zipWithIndex.foreach { case (i, p) => position(i) = p }
      val static = window.StaticHashWindow(shuffled.map(keyOf).toArray, shuffled.map(times).toArray, shuffled.map(rows).toArray,
        window.WindowAccount.None)
      val filled = new window.HashWindow()
      (0 until m).sortBy(i => (times(i), position(i))).foreach(i => filled.insert(keyOf(i), times(i), rows(i))) // ties: in the order given
      assert(static.size == m && static.distinctKeys(0) == filled.distinctKeys(0), s"$kind, $m rows, $keys keys")
      val view = static.newView() // one view re-pointed key after key, as a probe does
      for (k <- rnd.shuffle((0 until keys + 4).toVector)) { // keys no row has too
        val (a, b) = (static.candidatesIn(keyValue(k), view), filled.candidates(keyValue(k)))
        assert(a == null || (a eq view), "the probe's own view, re-pointed")
        assert((a == null) == (b == null), s"$kind: key $k")
        if (a != null) {
          assert((0 until a.size).map(i => (a.time(i), a.row(i))) == (0 until b.size).map(i => (b.time(i), b.row(i))))
          for (t <- -1L to 51L) assert(a.lowerBound(t) == b.lowerBound(t) && a.upperBound(t) == b.upperBound(t))
        }
      }
      // A key of another class is no row's key (as Long.equals(Integer) is false).
      if (kind != "int" && m > 0) assert(static.candidates(Integer.valueOf(0)) == null && static.candidates("0") == null)
      if (kind != "int") for (far <- Seq(Long.MinValue, Long.MaxValue, 0L, -1L, Long.MinValue + 3))
        assert((static.candidates(java.lang.Long.valueOf(far)) == null) == (filled.candidates(java.lang.Long.valueOf(far)) == null), s"$kind: key $far")
    }
  }

  test("key ids: dense Long keys are their offsets, spread ones in a table, others in a map (ids in first-arrival order)") {
    def ids(keys: Seq[Any]): (window.KeyIds, Seq[Int]) = {
      val out = new Array[Int](keys.length)
      (window.KeyIds.of(keys.map(_.asInstanceOf[AnyRef]).toArray, out), out.toSeq)
    }
    val long = (k: Long) => java.lang.Long.valueOf(k)
    val (dense, denseIds) = ids(Seq(7L, 3L, 7L, 4L, 3L).map(long))
    assert(dense.isInstanceOf[window.DenseLongKeyIds] && denseIds == Seq(4, 0, 4, 1, 0) && dense.size == 3 && dense.idCount == 5)
    // 5 and 6 are no row's keys but in the range: ids of empty buckets.
    assert(Seq(3L, 4L, 7L, 5L, 6L, 2L, 8L, Long.MinValue).map(k => dense.idOf(long(k))) == Seq(0, 1, 4, 2, 3, -1, -1, -1))
    // A span of twice the count or more, or one that overflows a long: the table.
    assert(ids(Seq(0L, 4L).map(long))._1.isInstanceOf[window.LongKeyIds])
    assert(ids(Seq(0L, 3L).map(long))._1.isInstanceOf[window.DenseLongKeyIds])
    val (spread, spreadIds) = ids(Seq(Long.MinValue, Long.MaxValue, Long.MinValue).map(long))
    assert(spread.isInstanceOf[window.LongKeyIds] && spreadIds == Seq(0, 1, 0) && spread.idOf(long(0L)) == -1)
    assert(ids(Seq(long(1L), Integer.valueOf(1)))._1.isInstanceOf[window.ObjectKeyIds])
    assert(ids(Seq.empty)._1.size == 0)
  }

  test("a static hash window charges its rows, its arrays and its keys' table once") {
    val memory = new WindowMemory(_ => 100L, WindowMemory.DefaultChunk, (_, _, _, _) => throw new AssertionError("refused"))
    val (longs, objects) = (memory.account(0), memory.account(1))
    val m = 1000
    window.StaticHashWindow(Array.tabulate[AnyRef](m)(i => java.lang.Long.valueOf(i % 10L)), Array.tabulate(m)(_.toLong),
      Array.fill[AnyRef](m)("r"), longs)
    window.StaticHashWindow(Array.tabulate[AnyRef](m)(i => Integer.valueOf(i % 10)), Array.tabulate(m)(_.toLong),
      Array.fill[AnyRef](m)("r"), objects)
    assert(longs.rows == m && objects.rows == m)
    val rowsAndArrays = m * 100L + window.WindowFootprint.ring(1024) // rows, and two arrays of 1024 slots
    assert(longs.bytes > rowsAndArrays && longs.bytes < rowsAndArrays + 4096, longs.bytes) // a table of 32 slots, 11 bounds
    assert(objects.bytes > rowsAndArrays + 10 * 100L, objects.bytes) // the map and its 10 key objects of 100 bytes
    assert(memory.held == longs.bytes + objects.bytes)
  }
}
