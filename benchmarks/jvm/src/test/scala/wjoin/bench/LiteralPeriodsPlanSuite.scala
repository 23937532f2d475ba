package wjoin.bench

import org.scalatest.funsuite.AnyFunSuite
import wjoin.core._

/** The benchmarks' plan hook: literal GCA periods replace the strategy's, and the plan refines against the truth. */
class LiteralPeriodsPlanSuite extends AnyFunSuite {
  test("a literal period matrix drives periods, horizons and refinement; results equal the exact plan's") {
    val names = Seq("A", "B", "C")
    val terms = Seq(PairWindow(0, 1, 10, "WINDOW(A,B) = 10"), PairWindow(1, 2, 3, "WINDOW(B,C) = 3"), PairWindow(0, 2, 3, "WINDOW(A,C) = 3"))
    val matrix = WindowMatrix.close(terms, names)
    val literal = new WindowMatrix(3, Array.tabulate(9)(ij => if (ij / 3 == ij % 3) 0L else 20L))
    val plan = new LiteralPeriodsPlan(matrix, Algorithm.MW, hashed = false, WindowStrategy.GCA, literal)
    assert(plan.periods eq literal)
    assert(plan.horizon.toSeq == Seq(20L, 20L, 20L))
    assert(plan.checkPairs.nonEmpty)
    val rnd = new scala.util.Random(5)
    val rows = (0 until 150).map(id => TRow(rnd.nextInt(3), rnd.nextInt(60).toLong, rnd.nextInt(3), id))
    val expected = ReferenceWJoin.join(3, rows, matrix, sameKey = true)
    assert(expected.nonEmpty)
    val (found, stats) = EngineRunner.run(3, rows, plan, sameKey = true)
    assert(found == expected)
    assert(stats.refineRejections > 0)
  }
}
