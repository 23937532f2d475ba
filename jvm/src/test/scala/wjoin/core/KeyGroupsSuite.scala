package wjoin.core

import org.scalatest.funsuite.AnyFunSuite

/**
 * Key groups ([[FeedGroups.ByKey]]): rows merged by (key, time, input) and driven through one
 * engine key after key give the reference W-join, for every window shape, strategy and hashed
 * algorithm (backward and forward evaluation), and every row leaves the windows once; so do
 * groups of several keys (keys whose values collide, as hashes of keys may), their rows in
 * time order within the group.
 */
class KeyGroupsSuite extends AnyFunSuite {
  import EngineFixtures._

  /**
   * The engine's combinations over `rows` fed in groups of keys with one `value` (by value, then
   * time and input), and the rows the listener heard evicted.
   */
  private def grouped(n: Int, rows: Seq[TRow], plan: EnginePlan, value: Int => Int = identity): (Seq[Seq[Int]], Seq[Int]) = {
    val gone = Seq.newBuilder[Int]
    val engine = WJoinEngine.batch(plan, EngineRunner.filter(n, plan, sameKey = true, _ => true), TRow.ranges,
      listener = new EngineListener {
        override def evicted(input: Int, time: Long, row: AnyRef): Unit = gone += row.asInstanceOf[TRow].id
      })
    val feed = rows.sortBy(r => (value(r.key), r.time, r.input)).iterator
      .map(r => EngineRow(r.input, r.time, Integer.valueOf(r.key), r))
    val order: java.util.Comparator[AnyRef] = (a: AnyRef, b: AnyRef) =>
      Integer.compare(value(a.asInstanceOf[Integer].intValue), value(b.asInstanceOf[Integer].intValue))
    val drive = new EngineDrive(engine, feed, engine.feed, Seq(() => engine.finish(), () => engine.evictAll()),
      new FeedGroups.ByKey(order))
    val out = drive.map(_.toSeq.map(_.asInstanceOf[TRow].id)).toList
    (out.sortBy(_.mkString(",")), gone.result())
  }

  for ((shape, terms) <- shapes(3)) test(s"3 inputs, $shape: key groups = the reference, every row evicted once") {
    val matrix = WindowMatrix.close(terms, names(3))
    var combinations = 0
    for (seed <- 1 to 4; keys <- Seq(1, 3, 40)) {
      val rs = rows(3, 25, 30, keys, seed)
      val expected = ReferenceWJoin.join(3, rs, matrix, sameKey = true)
      for ((name, plan) <- plans(matrix, keyed = true) if plan.hashed) {
        val (got, evicted) = grouped(3, rs, plan)
        assert(got == expected, s"$name seed $seed keys $keys")
        assert(evicted.sorted == rs.map(_.id).sorted, s"$name seed $seed keys $keys: evictions")
      }
      combinations += expected.size
    }
    assert(combinations > 0, "a test with no combination proves little")
  }

  test("colliding keys share a group (rows of 8 keys in 3 groups by key % 3): still the reference") {
    var combinations = 0
    for ((shape, terms) <- shapes(3); seed <- 1 to 3) {
      val matrix = WindowMatrix.close(terms, names(3))
      val rs = rows(3, 25, 30, 8, seed)
      val expected = ReferenceWJoin.join(3, rs, matrix, sameKey = true)
      for ((name, plan) <- plans(matrix, keyed = true) if plan.hashed) {
        val (got, evicted) = grouped(3, rs, plan, value = k => k % 3)
        assert(got == expected, s"$shape $name seed $seed")
        assert(evicted.sorted == rs.map(_.id).sorted, s"$shape $name seed $seed: evictions")
      }
      combinations += expected.size
    }
    assert(combinations > 0, "a test with no combination proves little")
  }

  test("ByKey starts a group where the key's value changes, not at the first row") {
    val g = new FeedGroups.ByKey((a: AnyRef, b: AnyRef) =>
      java.lang.Long.compare(a.asInstanceOf[java.lang.Long] / 10, b.asInstanceOf[java.lang.Long] / 10))
    val starts = Seq(1L, 1L, 2L, 12L, 15L, 52L).map(k => g.starts(EngineRow(0, 0L, java.lang.Long.valueOf(k), null)))
    assert(starts == Seq(false, false, false, true, false, true))
    assert(!FeedGroups.Whole.starts(EngineRow(0, 0L, "k", null)))
  }

  test("byKeyPays: rows the windows would hold (rate x horizon) over the setting, and keys that hardly repeat") {
    import FeedGroups.{byKeyPays, InputPrefix}
    // 4096 rows over 10,240 time units: 0.4 rows per unit in each of 3 inputs.
    val many = InputPrefix(4096, 0L, 10239L, 4000, exhausted = false)
    val wide = Seq.fill(3)(1000000L)
    assert(byKeyPays(Seq.fill(3)(many), wide, 100000L), "3 x 400k rows held, keys distinct")
    assert(!byKeyPays(Seq.fill(3)(many), Seq.fill(3)(1000L), 100000L), "3 x 400 rows held")
    assert(byKeyPays(Seq.fill(3)(many), Seq.fill(3)(100000L), 100000L) && !byKeyPays(Seq.fill(3)(many), Seq.fill(3)(50000L), 100000L),
      "3 x 40k rows held is over 100k, 3 x 20k is not")
    val fewKeys = many.copy(distinctKeys = 10)
    assert(!byKeyPays(Seq(many, many, fewKeys), wide, 100000L), "one input's keys repeat: a group is most of a window")
    // A whole input (exhausted) holds at most its rows, whatever its rate.
    val whole = InputPrefix(500, 0L, 10L, 500, exhausted = true)
    assert(!byKeyPays(Seq.fill(3)(whole), wide, 100000L) && byKeyPays(Seq.fill(3)(whole), wide, 1000L))
    // Inputs too small to say anything about their keys: never, unless the setting is 0 (always).
    val tiny = InputPrefix(20, 0L, 0L, 20, exhausted = false)
    assert(!byKeyPays(Seq.fill(3)(tiny), wide, 10L) && byKeyPays(Seq.fill(3)(tiny), wide, 0L))
    assert(byKeyPays(Seq.fill(3)(InputPrefix(0, Long.MaxValue, Long.MinValue, 0, exhausted = true)), wide, 0L))
  }
}
