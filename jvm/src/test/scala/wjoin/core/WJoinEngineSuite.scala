package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.errors.WJoinAnalysisException

class WJoinEngineSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  import EngineFixtures._

  private def checkAll(n: Int, rows: Seq[TRow], terms: Seq[WindowTerm], sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true): Seq[Seq[Int]] = {
    val matrix = WindowMatrix.close(terms, names(n))
    val expected = ReferenceWJoin.join(n, rows, matrix, sameKey, extra)
    for ((name, plan) <- plans(matrix, sameKey)) {
      val (got, stats) = EngineRunner.run(n, rows, plan, sameKey, extra)
      assert(got == expected, s"$name differs from the reference for terms ${terms.map(_.text)}")
      assert(stats.results == expected.size)
      assert(stats.buffered <= rows.size)
    }
    expected
  }

  for (n <- 2 to 5; (shape, terms) <- shapes(n); keys <- Seq(1, 3)) {
    test(s"N=$n $shape, $keys keys: every algorithm equals the reference") {
      val perInput = if (n >= 5) 7 else if (n == 4) 9 else 14
      for (seed <- 1 to 4) checkAll(n, rows(n, perInput, 25, keys, seed * 31 + n), terms, sameKey = true)
    }
  }

  test("a non-window predicate is applied to every algorithm") {
    val rs = rows(3, 15, 20, 2, 7)
    val extra = (t: Seq[TRow]) => t.map(_.id).sum % 3 != 0
    val out = checkAll(3, rs, Seq(UniformWindow(6, "W")), sameKey = true, extra)
    assert(out.nonEmpty)
  }

  test("no key: cross product inside the window") {
    val rs = Seq(TRow(0, 0, 0, 1), TRow(1, 0, 1, 2), TRow(1, 3, 2, 3), TRow(0, 3, 3, 4), TRow(1, 4, 4, 5))
    val out = checkAll(2, rs, Seq(UniformWindow(3, "W")), sameKey = false)
    assert(out == Seq(Seq(1, 2), Seq(1, 3), Seq(4, 2), Seq(4, 3), Seq(4, 5)).sortBy(_.mkString(",")))
  }

  test("window bounds are inclusive and ties at equal times join") {
    val rs = Seq(TRow(0, 10, 0, 1), TRow(1, 10, 0, 2), TRow(1, 15, 0, 3), TRow(1, 16, 0, 4), TRow(1, 4, 0, 5))
    val out = checkAll(2, rs, Seq(UniformWindow(5, "W")), sameKey = true)
    assert(out.toSet == Set(Seq(1, 2), Seq(1, 3)))
  }

  test("duplicate rows give duplicate results") {
    val rs = Seq(TRow(0, 1, 0, 1), TRow(0, 1, 0, 2), TRow(1, 2, 0, 3), TRow(1, 2, 0, 4))
    assert(checkAll(2, rs, Seq(UniformWindow(1, "W")), sameKey = true).size == 4)
  }

  test("Golab & Ozsu Tables 2-3: expired S1 rows never join new S3 rows") {
    // All windows 100 s, all attr = 1, current time 210; the naive lazy NLJ returns 8 rows.
    val rs = Seq(TRow(0, 90, 1, 90), TRow(0, 100, 1, 100), TRow(1, 150, 1, 150), TRow(1, 180, 1, 180),
      TRow(2, 195, 1, 195), TRow(2, 205, 1, 205))
    val out = checkAll(3, rs, Seq(UniformWindow(100, "WINDOW = 100")), sameKey = true)
    assert(out == Seq(Seq(100, 150, 195), Seq(100, 180, 195)))
  }

  test("Golab & Ozsu Tables 2-3 written with per-stream RANGE windows") {
    val names = Seq("S1", "S2", "S3")
    val terms = WindowTermParser.parse("RANGE(S1) = 100 AND RANGE(S2) = 100 AND range(s3)=100", names, integralTime = true)
    assert(terms.collect { case r: StreamRange => r.b } == Seq(0, 1, 2))
    val matrix = WindowMatrix.close(terms, names)
    assert(matrix == WindowMatrix.uniform(3, 100))
    val rs = Seq(TRow(0, 90, 1, 90), TRow(0, 100, 1, 100), TRow(1, 150, 1, 150), TRow(1, 180, 1, 180),
      TRow(2, 195, 1, 195), TRow(2, 205, 1, 205))
    assert(checkAll(3, rs, terms, sameKey = true) == Seq(Seq(100, 150, 195), Seq(100, 180, 195)))
  }

  test("RANGE bounds one direction only") {
    val names = Seq("A", "B")
    val m = WindowMatrix.close(WindowTermParser.parse("RANGE(A) = 5 AND RANGE(B) = 2", names, integralTime = true), names)
    assert(m.upper(1, 0) == 5 && m.upper(0, 1) == 2) // ts_B - ts_A <= 5 (A's window), ts_A - ts_B <= 2
    val unbounded = intercept[WJoinAnalysisException](
      WindowMatrix.close(WindowTermParser.parse("RANGE(A) = 5", names, integralTime = true), names))
    assert(unbounded.getMessage.contains("input B has no window bound"))
  }

  test("memory follows the window, not the input") {
    val n = 3
    val rs = (0 until 30000).map(k => TRow(k % n, k.toLong, k % 7, k))
    val matrix = WindowMatrix.uniform(n, 30)
    for ((name, plan) <- plans(matrix, keyed = true)) {
      val (_, stats) = EngineRunner.run(n, rs, plan, sameKey = true)
      assert(stats.peakBuffered <= 40, s"$name buffered ${stats.peakBuffered} rows for a 31-row window")
      assert(stats.results > 0)
    }
  }

  test("MW-join does fewer time comparisons than NLW-join on a uniform window") {
    val n = 4
    val rs = rows(n, 400, 2000, 1, 3)
    val matrix = WindowMatrix.uniform(n, 40)
    val (a, nlw) = EngineRunner.run(n, rs, new EnginePlan(matrix, Algorithm.NLW, false), sameKey = false)
    val (b, mw) = EngineRunner.run(n, rs, new EnginePlan(matrix, Algorithm.MW, false), sameKey = false)
    assert(a == b && a.nonEmpty)
    assert(mw.comparisons < nlw.comparisons / 4, s"mw ${mw.comparisons} vs nlw ${nlw.comparisons}")
  }

  test("property: random streams, keys, windows and forms agree with the reference") {
    val termGen: Int => Gen[Seq[WindowTerm]] = n => {
      val pair = for {
        a <- Gen.choose(0, n - 1); b <- Gen.choose(0, n - 1) suchThat (_ != a)
        kind <- Gen.choose(0, 2); w <- Gen.choose(0, 8); lo <- Gen.choose(0, 3)
      } yield kind match {
        case 0 => PairWindow(a, b, w, s"WINDOW($a,$b)=$w")
        case 1 => DirectedWindow(a, b, 0, w, s"DWINDOW($a,$b)=$w")
        case _ => DirectedWindow(a, b, math.min(lo, w), w, s"DWINDOW($a,$b)=[$lo,$w]")
      }
      for { u <- Gen.choose(2, 12); extra <- Gen.listOfN(n, pair) } yield UniformWindow(u, s"WINDOW=$u") +: extra
    }
    val gen = for {
      n <- Gen.choose(2, 4); terms <- termGen(n); keys <- Gen.choose(1, 3)
      perInput <- Gen.choose(0, 10); seed <- Gen.choose(0L, 1000000L)
    } yield (n, terms, keys, perInput, seed)
    forAll(gen, minSuccessful(150)) { case (n, terms, keys, perInput, seed) =>
      val closed = scala.util.Try(WindowMatrix.close(terms, names(n)))
      whenever(closed.isSuccess) {
        checkAll(n, rows(n, perInput, 30, keys, seed), terms, sameKey = keys > 1)
      }
    }
  }
}
