package wjoin.plan
package physical

import scala.util.Random

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.CatalystTypeConverters
import org.apache.spark.sql.catalyst.expressions.{And, AttributeSet, BindReferences, GenericInternalRow,
  JoinedRow, Predicate, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.Filter
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types.{LongType, StructField, StructType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.BandCells
import wjoin.exec.streaming.BandCellsExec
import wjoin.plan.physical.StreamPartitioning.{ByCells, OnePartition}
import wjoin.testkit.SharedSparkSession
import wjoin.testkit.OptimizedForms.replaced

/**
 * Cells from band predicates: for every type and two-sided band form, every pair of values
 * (NULL, NaN, infinities, extreme values included) that Spark's own evaluation accepts has
 * the B row copied to the A row's cell; reaches add up along chains; conditions without a
 * two-sided bound on every input give one partition, with the reason.
 */
class StreamPartitioningSuite extends AnyFunSuite with SharedSparkSession with PredicateHelper {

  private def empty(dt: org.apache.spark.sql.types.DataType, names: String*): Seq[DataFrame] =
    names.map(n => spark.createDataFrame(java.util.Collections.emptyList[Row](), StructType(Seq(StructField("x", dt))))
      .alias(n))

  /** The conjuncts of `form` over inputs `dfs` and each input's columns. */
  /** Analyzed with ANSI arithmetic (Spark 4's default; on 3.5 integer differences would wrap and bind nothing). */
  private def analyzed(dfs: Seq[DataFrame], form: String) = {
    val plan = withConf("spark.sql.ansi.enabled" -> "true")(dfs.reduce(_ crossJoin _).where(expr(form)).queryExecution.analyzed)
    val cond = plan.collectFirst { case f: Filter => f.condition }.get
    (splitConjunctivePredicates(cond), dfs.map(_.queryExecution.analyzed.output))
  }

  private def twoSided(form: String): Boolean =
    form.startsWith("abs") || form.contains("BETWEEN") || form.contains(" AND ") || form == "A.x = B.x" ||
      form.contains(">= abs")

  for (kind <- BandKinds.all; form <- kind.forms) test(s"${kind.name}: $form puts every accepted pair in one cell") {
    val (conjuncts, outputs) = analyzed(empty(kind.dt, "A", "B"), form)
    val ranges = RangePredicates(outputs.map(AttributeSet(_)), conjuncts)
    StreamPartitioning.cells(Seq("A", "B"), ranges) match {
      case OnePartition(reason) =>
        assert(!twoSided(form), s"$form has a two-sided bound yet gives one partition: $reason")
        assert(reason.contains("no band predicate bounds B relative to A"), reason)
      case ByCells(cells, values) =>
        val bound = values.indices.map(i => BindReferences.bindReference(values(i), outputs(i)))
        val predicate = Predicate.create(replaced(conjuncts.reduce(And)), outputs.flatten)
        val toCatalyst = CatalystTypeConverters.createToCatalystConverter(kind.dt)
        val rnd = new Random(form.hashCode)
        var accepted = 0
        for (_ <- 0 until 4000) {
          val va = kind.values(rnd)
          val vb = if (rnd.nextInt(3) == 0) va else kind.values(rnd)
          val rows = Seq(va, vb).map(v => new GenericInternalRow(Array[Any](toCatalyst(v))))
          val ok = try predicate.eval(new JoinedRow(rows(0), rows(1))) catch { case _: ArithmeticException => false }
          if (ok) {
            accepted += 1
            val (home, homeLast) = BandCellsExec.cellsOf(cells, 0, bound(0).eval(rows(0)))
            val (first, last) = BandCellsExec.cellsOf(cells, 1, bound(1).eval(rows(1)))
            assert(home == homeLast)
            assert(home != BandCells.NullCell)
            assert(first <= home && home <= last, s"A.x=$va B.x=$vb accepted: A's cell $home, B's [$first, $last]")
          }
        }
        assert(accepted > 50, s"only $accepted accepted pairs: the test could not fail")
    }
  }

  test("reaches add up along a chain of bands (one-sided conjuncts bound one side each); width from the widest") {
    val (conjuncts, outputs) = analyzed(empty(LongType, "A", "B", "C"),
      "abs(A.x - B.x) <= 3 AND C.x >= B.x - 5 AND C.x <= B.x + 2 AND C.x > A.x - 100")
    StreamPartitioning.cells(Seq("A", "B", "C"), RangePredicates(outputs.map(AttributeSet(_)), conjuncts)) match {
      case ByCells(cells, values) =>
        assert(!cells.real && cells.home == 0)
        assert(cells.low == Seq(0.0, -3.0, -8.0) && cells.high == Seq(0.0, 3.0, 5.0))
        assert(cells.width == 2 * (13 + 1))
        assert(values.map(_.sql) == Seq("A.x", "B.x", "C.x"))
      case other => fail(s"expected cells, got $other")
    }
  }

  test("one partition when an input is bounded on one side only, or by no band at all") {
    val (conjuncts, outputs) = analyzed(empty(LongType, "A", "B", "C"), "abs(A.x - B.x) <= 3 AND C.x > B.x")
    assert(StreamPartitioning.cells(Seq("A", "B", "C"), RangePredicates(outputs.map(AttributeSet(_)), conjuncts)) ==
      OnePartition("no band predicate bounds C relative to A"))
    val (none, outs) = analyzed(empty(LongType, "A", "B"), "A.x * B.x < 10")
    assert(StreamPartitioning.cells(Seq("A", "B"), RangePredicates(outs.map(AttributeSet(_)), none)) ==
      OnePartition("no shared key and no band predicate to cut into cells"))
  }
}
