package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.errors.WJoinAnalysisException

/**
 * Left outer, left semi and left anti W-joins at the engine: every algorithm, window strategy
 * and window form, N = 2..4, keyed and keyless, ROWS windows, against the brute-force
 * reference (an anchor row is matched iff it is the first member of some reference combination).
 */
class AnchorDecisionsSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  /** Output of an anchored run: "c:ids" per output combination, "a:id" per output anchor row. */
  private def run(n: Int, rows: Seq[TRow], plan: EnginePlan, sameKey: Boolean, how: JoinHow): Seq[String] = {
    val decisions = JoinHow.decisions(how)
    val engine = WJoinEngine.batch(plan, EngineRunner.filter(n, plan, sameKey, _ => true), TRow.ranges,
      listener = new EngineListener {
        override def evicted(i: Int, t: Long, r: AnyRef): Unit = if (i == 0) decisions.evicted(r)
      })
    val out = Seq.newBuilder[String]
    def drain(): Unit = {
      while (engine.next()) if (decisions.combination(engine.tuple))
        out += "c:" + engine.tuple.map(_.asInstanceOf[TRow].id).mkString(",")
      while (!decisions.pending.isEmpty) out += "a:" + decisions.pending.poll().asInstanceOf[TRow].id
    }
    EngineRunner.mergeOrder(rows).foreach { r =>
      if (plan.counting && r.key < 0) {
        engine.countOnly(r.input, r.time)
        if (r.input == 0) decisions.unjoinable(r)
      } else engine.offer(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      drain()
    }
    engine.finish()
    drain()
    engine.evictAll()
    drain()
    out.result().sorted
  }

  /** The reference: the inner bag, and the anchors in none of its combinations. */
  private def expected(n: Int, rows: Seq[TRow], matrix: WindowMatrix, sameKey: Boolean, how: JoinHow,
      limits: Seq[Long] = Nil): Seq[String] = {
    val inner = ReferenceWJoin.join(n, rows, matrix, sameKey, rowLimits = limits)
    val matched = inner.map(_.head).toSet
    val anchors = rows.filter(_.input == 0).map(_.id)
    val out = how match {
      case JoinHow.Inner => inner.map("c:" + _.mkString(","))
      case JoinHow.LeftOuter => inner.map("c:" + _.mkString(",")) ++ anchors.filterNot(matched).map("a:" + _)
      case JoinHow.LeftSemi => anchors.filter(matched).map("a:" + _)
      case JoinHow.LeftAnti => anchors.filterNot(matched).map("a:" + _)
    }
    out.sorted
  }

  private val anchored = JoinHow.all.filter(_.anchored)

  for (n <- 2 to 4; (shape, terms) <- shapes(n); keys <- Seq(1, 3)) {
    test(s"N=$n $shape, $keys keys: left, left_semi, left_anti of every algorithm equal the reference") {
      val perInput = if (n == 4) 8 else 12
      val matrix = WindowMatrix.close(terms, names(n))
      for (seed <- 1 to 3; how <- anchored) {
        val rows = EngineFixtures.rows(n, perInput, 30, keys, seed * 17 + n)
        val want = expected(n, rows, matrix, sameKey = true, how)
        for ((name, plan) <- plans(matrix, keyed = true)) assert(run(n, rows, plan, sameKey = true, how) == want,
          s"$how $name with ${terms.map(_.text).mkString(" AND ")}")
      }
    }
  }

  test("keyless: every anchor row is decided once, matched or not") {
    val terms = Seq(DirectedWindow(0, 1, 2, 4, "DWINDOW(A,B)"), DirectedWindow(1, 2, 0, 3, "DWINDOW(B,C)"))
    val matrix = WindowMatrix.close(terms, names(3))
    for (seed <- 1 to 5; how <- anchored) {
      val rows = EngineFixtures.rows(3, 10, 40, 1, seed)
      val want = expected(3, rows, matrix, sameKey = false, how)
      for ((name, plan) <- plans(matrix, keyed = false)) assert(run(3, rows, plan, sameKey = false, how) == want, s"$how $name")
    }
  }

  test("ROWS windows: a pushed-out anchor is decided at its count eviction; count-only anchors are unmatched") {
    val terms = WindowTermParser.parse("WINDOW = 6 AND ROWS(A) = 2 AND ROWS(B) = 3", names(2), integralTime = true)
    val matrix = WindowMatrix.close(terms, names(2))
    val limits = StreamRows.limits(terms, 2)
    for (seed <- 1 to 5; how <- anchored) {
      val rows = EngineFixtures.rows(2, 12, 30, 3, seed).map(r => if (r.id % 7 == 3) r.copy(key = -1) else r)
      val want = expected(2, rows, matrix, sameKey = true, how, limits.toSeq)
      for ((name, plan) <- plans(matrix, keyed = true, rowLimits = limits))
        assert(run(2, rows, plan, sameKey = true, how) == want, s"$how $name")
    }
  }

  test("property: random 3-way travel-time windows, every how, every algorithm") {
    val gen = for {
      lo <- Gen.choose(-3, 3); width <- Gen.choose(0, 6); w2 <- Gen.choose(0, 8)
      keys <- Gen.choose(1, 3); seed <- Gen.choose(1, 100000)
    } yield (lo, width, w2, keys, seed)
    forAll(gen, minSuccessful(40)) { case (lo, width, w2, keys, seed) =>
      val terms = Seq(DirectedWindow(0, 1, lo, lo + width, "DWINDOW(A,B)"), PairWindow(1, 2, w2, "WINDOW(B,C)"))
      val matrix = WindowMatrix.close(terms, names(3))
      val rows = EngineFixtures.rows(3, 9, 30, keys, seed)
      for (how <- anchored) {
        val want = expected(3, rows, matrix, sameKey = true, how)
        for ((name, plan) <- plans(matrix, keyed = true)) assert(run(3, rows, plan, sameKey = true, how) == want,
          s"$how $name")
      }
    }
  }

  test("decisions: left_semi emits at the first combination, left and left_anti at eviction, each once") {
    val a = TRow(0, 0, 0, 1)
    val tuple: Array[AnyRef] = Array(a, TRow(1, 0, 0, 2))
    val semi = JoinHow.decisions(JoinHow.LeftSemi)
    assert(!semi.combination(tuple) && semi.pending.size == 1)
    assert(!semi.combination(tuple) && semi.pending.size == 1)
    semi.evicted(a)
    assert(semi.pending.size == 1 && semi.matchedInWindows == 0)
    val outer = JoinHow.decisions(JoinHow.LeftOuter)
    assert(outer.combination(tuple) && outer.pending.isEmpty)
    outer.evicted(a)
    assert(outer.pending.isEmpty)
    outer.evicted(TRow(0, 1, 0, 3))
    assert(outer.pending.size == 1)
    val anti = JoinHow.decisions(JoinHow.LeftAnti)
    anti.restoreMatched(a)
    assert(!anti.combination(tuple))
    anti.evicted(a)
    assert(anti.pending.isEmpty)
    assert(intercept[WJoinAnalysisException](JoinHow.parseOrFail("right")).text ==
      "unknown how 'right'; use one of inner, left, left_semi, left_anti")
  }
}
