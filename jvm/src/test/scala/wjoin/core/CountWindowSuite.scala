package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.core.EngineFixtures.names
import wjoin.errors.WJoinAnalysisException

/** Count-based ROWS windows in every engine shape, against the brute-force reference. */
class CountWindowSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def parse(text: String, n: Int): Seq[WindowTerm] = WindowTermParser.parse(text, names(n), integralTime = true)

  private def runAll(n: Int, rows: Seq[TRow], terms: Seq[WindowTerm], keyed: Boolean): Seq[Seq[Int]] = {
    val matrix = WindowMatrix.close(terms, names(n))
    val limits = StreamRows.limits(terms, n)
    val expected = ReferenceWJoin.join(n, rows, matrix, sameKey = keyed, rowLimits = limits.toSeq)
    for ((name, plan) <- EngineFixtures.plans(matrix, keyed, rowLimits = limits)) {
      val (got, _) = EngineRunner.run(n, rows, plan, sameKey = keyed)
      assert(got == expected, s"$name with ${terms.map(_.text).mkString(" AND ")}")
    }
    expected
  }

  private def ids(rows: Seq[TRow], combos: Seq[Seq[Int]]): Set[Seq[Long]] =
    combos.map(_.map(id => rows.find(_.id == id).get.time)).toSet

  test("Golab & Ozsu Tables 2-3 with count windows: a pushed-out S1 row never joins a later S3 row") {
    // Table 2's rows plus an S1 row at 200 that arrives between the two S3 rows.
    val rows = Seq(TRow(0, 90, 1, 0), TRow(0, 100, 1, 1), TRow(1, 150, 1, 2), TRow(1, 180, 1, 3),
      TRow(2, 195, 1, 4), TRow(0, 200, 1, 5), TRow(2, 205, 1, 6))
    val got = runAll(3, rows, parse("ROWS(A) = 1 AND ROWS(B) = 2 AND ROWS(C) = 2", 3), keyed = true)
    // At 195 S1's window is {100}; at 200 and 205 it is {200}. The naive algorithm of Table 3
    // joins the S3 rows with every S1 row it still holds (90 and 100 included).
    assert(ids(rows, got) == Set(Seq(100L, 150L, 195L), Seq(100L, 180L, 195L), Seq(200L, 150L, 195L),
      Seq(200L, 180L, 195L), Seq(200L, 150L, 205L), Seq(200L, 180L, 205L)))
  }

  test("ties: equal times are ordered by input, then by arrival within the input") {
    // A@5, then B@5 (id 1), B@5 (id 2), then A@6. With ROWS(B) = 1, A@5 pairs with both B rows
    // (each is B's newest row when it arrives, after A@5); A@6 only with the later one.
    val rows = Seq(TRow(0, 5, 0, 0), TRow(1, 5, 0, 1), TRow(1, 5, 0, 2), TRow(0, 6, 0, 3))
    val got = runAll(2, rows, parse("WINDOW = 10 AND ROWS(B) = 1", 2), keyed = false)
    assert(got.toSet == Set(Seq(0, 1), Seq(0, 2), Seq(3, 2)))
    // The same with B's rows before A's at time 5 (input order decides): A@5 is then newest.
    val flipped = Seq(TRow(1, 5, 0, 1), TRow(1, 5, 0, 2), TRow(0, 5, 0, 0), TRow(0, 6, 0, 3))
    assert(runAll(2, flipped, parse("WINDOW = 10 AND ROWS(A) = 1", 2), keyed = false).toSet ==
      Set(Seq(0, 1), Seq(0, 2), Seq(3, 1), Seq(3, 2)))
  }

  test("rows that never match (NULL key) still fill the count window") {
    // B: key 7 at 1, a non-matching row at 2, key 7 at 3; A (key 7) at 4. ROWS(B) = 2 holds B@2 and B@3.
    val rows = Seq(TRow(1, 1, 7, 0), TRow(1, 2, -1, 1), TRow(1, 3, 7, 2), TRow(0, 4, 7, 3))
    assert(runAll(2, rows, parse("WINDOW = 10 AND ROWS(B) = 2", 2), keyed = true) == Seq(Seq(3, 2)))
  }

  test("state follows the count: a ROWS window without any time window keeps k rows") {
    val rows = (0 until 4000).map(i => TRow(i % 2, i / 2, i % 5, i))
    val terms = parse("ROWS(A) = 7 AND ROWS(B) = 3", 2)
    val matrix = WindowMatrix.close(terms, names(2))
    for ((name, plan) <- EngineFixtures.plans(matrix, keyed = true, rowLimits = StreamRows.limits(terms, 2))) {
      val (got, stats) = EngineRunner.run(2, rows, plan, sameKey = true)
      assert(got.nonEmpty)
      // Backward evaluation evicts on the k-th newer row; forward evaluation sweeps the oldest
      // row first, so the other input's rows wait behind it (alternating inputs: at most k of each).
      val bound = if (plan.forward) 2 * (7 + 3) + 2 else 7 + 3 + 2
      assert(stats.peakBuffered <= bound, s"$name buffered ${stats.peakBuffered} rows")
    }
  }

  test("property: random ROWS and time windows, keys, ties and non-matching rows, every algorithm = reference") {
    val gen = for {
      n <- Gen.choose(2, 4)
      perInput <- Gen.choose(0, 7)
      maxTime <- Gen.oneOf(3, 12, 40)
      keys <- Gen.choose(1, 3)
      limits <- Gen.listOfN(n, Gen.oneOf(0L, 1L, 2L, 4L))
      timeShape <- Gen.oneOf("none", "uniform", "chain", "range")
      seed <- Gen.choose(0L, Long.MaxValue)
    } yield (n, perInput, maxTime, keys, limits, timeShape, seed)
    forAll(gen, minSuccessful(300)) { case (n, perInput, maxTime, keys, limits, timeShape, seed) =>
      val rnd = new scala.util.Random(seed)
      val rows = EngineFixtures.rows(n, perInput, maxTime, keys, seed)
        .map(r => if (rnd.nextInt(6) == 0) r.copy(key = -1) else r)
      val name = names(n)
      val rowTerms = limits.zipWithIndex.collect { case (k, i) if k > 0 => s"ROWS(${name(i)}) = $k" }
      val timeTerms = timeShape match {
        case "none" => Nil
        case "uniform" => Seq("WINDOW = 6")
        case "chain" => (0 until n - 1).map(i => s"WINDOW(${name(i)},${name(i + 1)}) = ${2 + i}")
        case _ => (0 until n).map(i => s"RANGE(${name(i)}) = ${3 + i}")
      }
      val text = (rowTerms ++ timeTerms).mkString(" AND ")
      val bounded = text.nonEmpty &&
        scala.util.Try(WindowMatrix.close(parse(text, n), name)).isSuccess
      if (bounded) runAll(n, rows, parse(text, n), keyed = keys > 1)
    }
  }

  test("ROWS terms: parsing, errors naming the term, and the unbounded-state check") {
    assert(parse("ROWS(B) = 1000", 2) == Seq(StreamRows(1, 1000, "ROWS(B) = 1000")))
    assert(parse("rows(b)=5 rows", 2).head.asInstanceOf[StreamRows].rows == 5)
    for (bad <- Seq("ROWS(B) = 0", "ROWS(B) = -3", "ROWS(B) = 5 minutes", "ROWS(B) = 2.5")) {
      val e = intercept[WJoinAnalysisException](parse(bad, 2))
      assert(e.getMessage.contains(s"'$bad'"), e.getMessage)
    }
    // Counted inputs need no time bound; A and B need one relative to C.
    WindowMatrix.close(parse("ROWS(A) = 3 AND ROWS(B) = 3", 2), names(2))
    val e = intercept[WJoinAnalysisException](
      WindowMatrix.close(parse("WINDOW(A,B) = 5 AND ROWS(C) = 2", 3), names(3)))
    assert(e.getMessage.contains("relative to C") && e.getMessage.contains("ROWS("), e.getMessage)
  }
}
