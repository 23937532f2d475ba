package wjoin.core

import org.scalacheck.Gen
import org.scalatest.funsuite.AnyFunSuite
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import wjoin.errors.WJoinAnalysisException

/**
 * The closure of random constraint graphs (feasible, contradictory, disconnected) against an
 * independent Bellman-Ford oracle: the closed matrix is the shortest-path matrix, and every
 * error is raised exactly when the oracle says so, naming the user's terms or inputs.
 */
class WindowMatrixSuite extends AnyFunSuite with ScalaCheckPropertyChecks {
  private def names(n: Int) = EngineFixtures.names(n)

  /** Shortest paths for x_a - x_b <= c (edge b -> a of weight c); None on a negative cycle. */
  private def bellmanFord(n: Int, terms: Seq[WindowTerm]): Option[Array[Array[Long]]] = {
    val edges = terms.flatMap(_.bounds(n))
    val inf = Long.MaxValue
    val dist = Array.tabulate(n) { source =>
      val d = Array.fill(n)(inf)
      d(source) = 0
      for (_ <- 0 until n; (a, b, c) <- edges if d(b) != inf && d(b) + c < d(a)) d(a) = d(b) + c
      d
    }
    val negative = (0 until n).exists(s => edges.exists { case (a, b, c) => dist(s)(b) != inf && dist(s)(b) + c < dist(s)(a) })
    if (negative) None else Some(dist) // dist(j)(i) = tightest bound on x_i - x_j
  }

  private val termGen: Int => Gen[WindowTerm] = n => for {
    a <- Gen.choose(0, n - 1)
    b <- Gen.choose(0, n - 1).suchThat(_ != a)
    lo <- Gen.choose(0L, 6L)
    signedLo <- Gen.choose(-6L, 6L) // a travel-time interval's lower end may be negative
    width <- Gen.choose(0L, 6L)
    kind <- Gen.choose(0, 9)
  } yield kind match {
    case 0 | 1 | 2 => PairWindow(a, b, lo + width, s"WINDOW($a,$b) = ${lo + width}")
    case 3 | 4 | 5 => DirectedWindow(a, b, signedLo, signedLo + width, s"DWINDOW($a,$b) = [$signedLo, ${signedLo + width}]")
    case 6 => StreamRange(b, lo + width, s"RANGE($b) = ${lo + width}")
    case 7 => StreamRows(b, 1 + width, s"ROWS($b) = ${1 + width}")
    case _ => UniformWindow(lo + width, s"WINDOW = ${lo + width}")
  }

  test("property: closure = Bellman-Ford; contradictions and unbounded inputs raise, naming the user's terms") {
    val gen = for {
      n <- Gen.choose(2, 5)
      count <- Gen.choose(1, 7)
      terms <- Gen.listOfN(count, termGen(n))
    } yield (n, terms)
    var outcomes = Map.empty[String, Int]
    forAll(gen, minSuccessful(500)) { case (n, terms) =>
      val counted = StreamRows.limits(terms, n).map(_ != StreamRows.NoLimit)
      val result = scala.util.Try(WindowMatrix.close(terms, names(n)))
      val outcome = bellmanFord(n, terms) match {
        case None =>
          val message = result.failed.get.getMessage
          assert(message.contains("contradict each other"), message)
          // The terms the error names are contradictory by themselves.
          val named = terms.filter(t => message.contains(t.text))
          assert(named.nonEmpty && bellmanFord(n, named).isEmpty, s"$message names $named")
          "contradictory"
        case Some(dist) =>
          val unbounded = (0 until n).filter(j => !counted(j) && (0 until n).exists(i => dist(j)(i) == Long.MaxValue))
          if (unbounded.nonEmpty) {
            val message = result.failed.get.getMessage
            val named = "input (\\w+) has no window bound".r.findFirstMatchIn(message).map(_.group(1))
            assert(named.exists(name => unbounded.contains(names(n).indexOf(name))), message)
            "unbounded"
          } else {
            val m = result.get
            for (i <- 0 until n; j <- 0 until n if i != j) assert(m.upper(i, j) == dist(j)(i), s"($i,$j) of $terms")
            "closed"
          }
      }
      outcomes += outcome -> (outcomes.getOrElse(outcome, 0) + 1)
    }
    // The generator reaches every case often enough for the property to mean something.
    assert(Seq("contradictory", "unbounded", "closed").forall(o => outcomes.getOrElse(o, 0) >= 25), outcomes)
  }

  test("property: a closed matrix admits exactly the time vectors that satisfy every term") {
    val gen = for {
      n <- Gen.choose(2, 4)
      terms <- Gen.listOfN(4, termGen(n))
      times <- Gen.listOfN(n, Gen.choose(0L, 12L))
    } yield (n, terms, times)
    forAll(gen, minSuccessful(500)) { case (n, terms, times) =>
      scala.util.Try(WindowMatrix.close(terms, names(n))).foreach { m =>
        val direct = terms.flatMap(_.bounds(n)).forall { case (a, b, c) => times(a) - times(b) <= c }
        assert(m.admits(times.toArray) == direct, s"$terms at $times")
      }
    }
  }

  test("interval ends may be negative (lo <= hi); single lengths may not") {
    val ab = Seq("A", "B")
    def directed(text: String, integral: Boolean = true) =
      WindowTermParser.parse(text, ab, integral).collect { case d: DirectedWindow => (d.lo, d.hi) }
    assert(directed("DWINDOW(A,B) = [-5, 10]") == Seq((-5L, 10L)))
    assert(directed("DWINDOW(A,B) = [-10, -5]") == Seq((-10L, -5L)))
    assert(directed("DWINDOW(A,B) = [- 5, 0]") == Seq((-5L, 0L)))
    assert(directed("DWINDOW(A,B) = [-5 seconds, 10 seconds]", integral = false) == Seq((-5000000L, 10000000L)))
    assert(directed("DWINDOW(A,B) = [INTERVAL -2 MINUTES, -INTERVAL 1 MINUTE]", integral = false) ==
      Seq((-120000000L, -60000000L)))
    // B at most 5 before A, at most 10 after: ts_B - ts_A <= 10 and ts_A - ts_B <= 5.
    val m = WindowMatrix.close(WindowTermParser.parse("DWINDOW(A,B) = [-5, 10]", ab, integralTime = true), ab)
    assert(m.upper(1, 0) == 10 && m.upper(0, 1) == 5)
    assert(m.admits(Array(0L, -5L)) && m.admits(Array(0L, 10L)) && !m.admits(Array(0L, -6L)) && !m.admits(Array(0L, 11L)))
    def error(text: String) = intercept[WJoinAnalysisException](WindowTermParser.parse(text, ab, integralTime = true)).getMessage
    assert(error("DWINDOW(A,B) = [5, -5]").contains("the lower end 5 exceeds the upper end -5"))
    assert(error("DWINDOW(A,B) = [-x, 5]").contains("got '-x'"))
    assert(error("DWINDOW(A,B) = -5").contains("a window cannot be negative"))
    assert(error("WINDOW(A,B) = -5").contains("a window cannot be negative"))
    assert(error("RANGE(B) = -5").contains("a window cannot be negative"))
  }
}
