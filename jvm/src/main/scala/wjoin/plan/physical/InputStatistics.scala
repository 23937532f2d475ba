package wjoin.plan
package physical

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, BindReferences, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{ColumnStat, LocalRelation, LogicalPlan}
import org.apache.spark.sql.types._

import wjoin.core.cost.InputStats
import wjoin.plan.JoinConditionAnalysis

/**
 * Statistics of one W-join input for the access-path planner, computed without running a
 * job, best source first:
 *  1. `data`: the input is local rows (`LocalRelation`, what `createDataFrame` of local data
 *     and constant-folded projections of it give): row count, time span, distinct keys and
 *     range-attribute extents are counted over (up to 100,000 of) the rows;
 *  2. `spark stats`: Spark's statistics of the optimized input: the row count (or size in
 *     bytes / row size), and where `ANALYZE TABLE ... FOR COLUMNS` ran, the time column's
 *     min/max, the key's distinct count and the range columns' min/max;
 *  3. `assumed` for what is still unknown (always for streaming inputs, whose micro-batches
 *     are not known at planning time): 1000 rows per window, i.e. span = rows x window /
 *     1000; as many distinct keys as rows / 10; range attributes 1000 x the band width.
 * The choice only steers performance: every access path gives the same result.
 */
object InputStatistics {
  private val SampleLimit = 100000

  def of(plan: LogicalPlan, time: Expression, keys: Seq[Expression], ranges: Seq[Expression], horizon: Long,
      streaming: Boolean): InputStats = {
    val window = math.max(1.0, horizon.toDouble)
    val exact = plan match {
      case local: LocalRelation if !streaming && local.data.nonEmpty =>
        Try(fromRows(local.output, local.data.take(SampleLimit), local.data.size, time, keys, ranges, window)).toOption
      case _ => None
    }
    exact.getOrElse(estimated(plan, time, keys, ranges, window, streaming))
  }

  private def estimated(plan: LogicalPlan, time: Expression, keys: Seq[Expression], ranges: Seq[Expression],
      window: Double, streaming: Boolean): InputStats = {
    val noStats: Map[Attribute, ColumnStat] = Map.empty
    val (rowsOpt, colStats): (Option[Double], Map[Attribute, ColumnStat]) = if (streaming) (None, noStats)
      else Try {
        val s = plan.stats
        // Spark's default size (an RDD-backed input, e.g. PySpark's createDataFrame of a list)
        // says nothing about the rows.
        val known = s.sizeInBytes < org.apache.spark.sql.internal.SQLConf.get.defaultSizeInBytes
        val rows = s.rowCount.map(_.toDouble).orElse {
          val width = math.max(8, plan.output.map(_.dataType.defaultSize).sum + 8)
          if (known) Some((s.sizeInBytes / width).toDouble) else None
        }
        (rows, s.attributeStats.toMap[Attribute, ColumnStat])
      }.getOrElse((None, noStats))
    val rows = math.max(1.0, rowsOpt.getOrElse(1000.0 * 100))
    def numeric(v: Option[Any]): Option[Double] = v.collect {
      case n: java.lang.Number => n.doubleValue()
      case d: Decimal => d.toDouble
    }.filter(d => !d.isNaN && !d.isInfinite)
    def extent(e: Expression): Option[Double] = e match {
      case a: Attribute => colStats.get(a).flatMap(c =>
        for (lo <- numeric(c.min); hi <- numeric(c.max)) yield hi - lo + unit(a))
      case _ => None
    }
    val span = extent(time).filter(_ > 0)
    val distinct = keys.map(JoinConditionAnalysis.keyColumn) match {
      case Seq(a: Attribute) => colStats.get(a).flatMap(_.distinctCount).map(_.toDouble)
      case _ => None
    }
    val source = if (streaming || rowsOpt.isEmpty) "assumed" else if (span.isDefined) "spark stats" else "spark stats + assumed"
    InputStats(rows, span.getOrElse(rows * window / 1000.0), math.max(1.0, distinct.getOrElse(rows / 10)),
      ranges.indices.flatMap(k => extent(ranges(k)).map(k -> _)).toMap, source)
  }

  /** The width of one value: 1 for integral attributes (a range of values), 0 for real ones. */
  private def unit(e: Expression): Double = e.dataType match {
    case FloatType | DoubleType | _: DecimalType => 0.0
    case _ => 1.0
  }

  private def fromRows(output: Seq[Attribute], rows: Seq[InternalRow], total: Int, time: Expression,
      keys: Seq[Expression], ranges: Seq[Expression], window: Double): InputStats = {
    def bind(e: Expression) = BindReferences.bindReference(e, output)
    def asLong(v: Any): Option[Long] = v match {
      case n: java.lang.Number => Some(n.longValue())
      case _ => None
    }
    val t = bind(time)
    val times = rows.flatMap(r => asLong(t.eval(r)))
    val span = if (times.isEmpty) window else math.max(1.0, (times.max - times.min + 1).toDouble)
    val boundKeys = keys.map(bind)
    val distinct = if (keys.isEmpty) 1.0 else rows.map(r => boundKeys.map(_.eval(r) match {
      case u: org.apache.spark.unsafe.types.UTF8String => u.toString
      case v => v
    })).distinct.size.toDouble
    val widths = ranges.indices.flatMap { k =>
      val e = bind(ranges(k))
      val vs = rows.flatMap(r => e.eval(r) match {
        case n: java.lang.Number => Some(n.doubleValue())
        case d: Decimal => Some(d.toDouble)
        case _ => None
      }).filter(d => !d.isNaN && !d.isInfinite)
      if (vs.isEmpty) None else Some(k -> (vs.max - vs.min + unit(ranges(k))))
    }.toMap
    InputStats(total.toDouble, span, math.max(1.0, distinct * total / math.max(1, rows.size)), widths, "data")
  }
}
