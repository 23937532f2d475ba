package wjoin.exec
package streaming

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, BoundReference, Expression, JoinedRow,
  SpecificInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.types.{Decimal, LongType}

import wjoin.core.BandCells
import wjoin.exec.codec.TimeColumn

/**
 * One input of a cell-partitioned streaming W-join (`plan/StreamPartitioning.ByCells`):
 * each row once per cell it can match in, with the cell id appended as column `cell`, the
 * hash key the W-join is then planned with. Inserted by [[WindowJoinStrategy]] below the
 * shuffle that `StreamingWindowJoinExec` requires (hash on `cell`, the checkpoint's partition
 * count).
 *
 * {{{
 *   row (value v, time t) ──> (row, c) for c in cells.cellsOf(input, v)   home input: one c
 *                         ──> (row, NullCell)       v NULL: it never matches
 *                         ──> (row, first cell)     t NULL or t <= the late bound: the W-join
 *                                                   drops and counts it, once
 * }}}
 *
 * @param input      the input's index (`cells.home` has one copy per row)
 * @param value      the band attribute over the input's columns (integral, or double)
 * @param time       the input's event-time column
 * @param cell       the appended cell column (LongType, not null)
 * @param cells      the cell arithmetic
 * @param lateBoundMicros event times at or before this are late in this micro-batch
 *                   (Long.MinValue: no watermark yet)
 * @param child      the input
 */
case class BandCellsExec(input: Int, value: Expression, time: Attribute, cell: Attribute, cells: BandCells,
    lateBoundMicros: Long, child: SparkPlan) extends UnaryExecNode {

  override def output: Seq[Attribute] = child.output :+ cell

  override def outputPartitioning: Partitioning = child.outputPartitioning

  override lazy val metrics: Map[String, SQLMetric] = WindowJoinMetrics.cellMetrics(sparkContext)

  override def simpleString(maxFields: Int): String =
    s"BandCells ${value.sql} -> ${cell.sql}, ${if (input == cells.home) "home (one copy)" else "copies to reachable cells"}"

  override protected def doExecute(): RDD[InternalRow] = {
    val attributes = child.output
    val bound = BindReferences.bindReference(value, attributes)
    val timeColumn = TimeColumn.of(attributes, time)
    val (rowsIn, copiesOut) = (longMetric(WindowJoinMetrics.CellInputRows.key), longMetric(WindowJoinMetrics.CellCopies.key))
    val (cellsOf, j, late) = (cells, input, lateBoundMicros)
    val columns = attributes.zipWithIndex.map { case (a, i) => BoundReference(i, a.dataType, a.nullable) } :+
      BoundReference(attributes.size, LongType, nullable = false)
    child.execute().mapPartitions { rows =>
      val project = UnsafeProjection.create(columns)
      val readTime = timeColumn.reader
      val cellRow = new SpecificInternalRow(Seq(LongType))
      val joined = new JoinedRow()
      rows.flatMap { r =>
        rowsIn += 1
        val range = BandCellsExec.cellsOf(cellsOf, j, bound.eval(r))
        val (first, last) = if (timeColumn.isNull(r) || readTime(r) <= late) (range._1, range._1) else range
        // Finite reaches give a few cells per row (BandCells' width); never cut a count short.
        if (last - first >= Int.MaxValue) throw new IllegalStateException(s"a row would be copied to cells $first..$last")
        copiesOut += last - first + 1
        Iterator.iterate(first)(_ + 1).take((last - first + 1).toInt).map { c =>
          cellRow.setLong(0, c)
          project(joined(r, cellRow))
        }
      }
    }
  }

  override protected def withNewChildInternal(newChild: SparkPlan): BandCellsExec = copy(child = newChild)
}

object BandCellsExec {
  /** The first and last cell of input j's row whose band value is `v` (a Catalyst value or null). */
  def cellsOf(cells: BandCells, j: Int, v: Any): (Long, Long) = v match {
    case null => (BandCells.NullCell, BandCells.NullCell)
    case _ if cells.real => cells.cellsOfDouble(j, toDouble(v))
    case n: java.lang.Number => cells.cellsOfLong(j, n.longValue())
    case other => throw new IllegalStateException(s"unexpected band value $other")
  }

  private def toDouble(v: Any): Double = v match {
    case d: java.lang.Double => d.doubleValue
    case f: java.lang.Float => f.doubleValue
    case d: Decimal => d.toDouble
    case n: java.lang.Number => n.doubleValue
    case other => throw new IllegalStateException(s"unexpected band value $other")
  }
}
