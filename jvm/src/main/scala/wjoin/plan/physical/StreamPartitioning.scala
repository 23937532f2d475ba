package wjoin.plan
package physical

import org.apache.spark.sql.catalyst.expressions.Expression

import wjoin.core.{BandCells, RangeBinding, SaturatingTime}
import wjoin.plan.logical.WindowJoin

/**
 * How the rows of a streaming W-join are spread over its state partitions (the checkpoint's
 * count, `spark.sql.shuffle.partitions` when the query first ran), decided once per plan from
 * the logical [[WindowJoin]]:
 *
 * {{{
 *   shared equality key, no ROWS window    ─> ByKey         hash on the key
 *   no key, every input reached from the   ─> ByCells       hash on the cell of a band
 *     first by band predicates                              attribute (BandCells), rows of the
 *                                                           other inputs copied to the cells
 *                                                           they can match in
 *   otherwise                              ─> OnePartition  every row meets in one partition;
 *                                                           EXPLAIN says why
 * }}}
 *
 * Cells (see [[BandCells]] for the arithmetic and why each combination is found once). The
 * home input is the first one: it is the anchor of left / left_semi / left_anti W-joins,
 * whose rows must be decided in exactly one place. The band graph has a node per (input,
 * range attribute) and an edge per [[RangeBinding]] of [[RangePredicates]] (`target in
 * [source + lo, source + hi]`); the reach of node (j, b) from the home's node (0, a) is
 * `[L, H]`, H the least sum of `hi` and L the greatest sum of `lo` over paths from (0, a)
 * (Bellman-Ford; a one-sided inequality bounds one side only, so `x BETWEEN y - 5 AND y + 5`,
 * two conjuncts, bounds both). Each other input takes its node with the narrowest finite
 * reach; the home attribute chosen is the one whose widest such reach is least. A chain of
 * bands joins nodes of one domain only (integral columns, or real ones: RangePredicates keys
 * a conjunct by its columns' types), so a reach never mixes units.
 */
sealed trait StreamPartitioning {
  /** EXPLAIN's "partitioning=..." text. */
  def describe(names: Seq[String]): String
}

object StreamPartitioning {
  /** Hash on the shared equality key. */
  case object ByKey extends StreamPartitioning {
    def describe(names: Seq[String]): String = "hash on the key"
  }

  /**
   * Hash on band cells.
   *
   * @param cells  the cell arithmetic (home input, width, reaches)
   * @param values per input, the band attribute whose cell is taken (an expression over that
   *               input's columns: a column, or a column cast to double in the real domain)
   */
  final case class ByCells(cells: BandCells, values: Seq[Expression]) extends StreamPartitioning {
    def describe(names: Seq[String]): String =
      s"band cells of [${names.indices.map(j => values(j).sql).mkString(", ")}] (home ${names(cells.home)}, " +
        s"${cells.describe(names)})"
  }

  /** Every row in one partition, for `reason`. */
  final case class OnePartition(reason: String) extends StreamPartitioning {
    def describe(names: Seq[String]): String = s"one partition ($reason)"
  }

  /** The partitioning of streaming W-join `w` (see the trait's comment). */
  def of(w: WindowJoin): StreamPartitioning = {
    val inputs = w.children.map(_.outputSet)
    val analysis = JoinConditionAnalysis(inputs, w.condition)
    if (w.windows.counted) OnePartition("a ROWS window counts over the whole input")
    else if (analysis.hasKey) ByKey
    else cells(w.inputNames, RangePredicates(inputs, analysis.otherConjuncts))
  }

  /** Cells from the band predicates `ranges` of inputs `names`, or why there are none. */
  def cells(names: Seq[String], ranges: RangePredicates): StreamPartitioning = {
    val n = names.size
    if (ranges.isEmpty) return OnePartition("no shared key and no band predicate to cut into cells")
    val nodes = for (j <- 0 until n; b <- ranges.attributes(j).indices) yield (j, b)
    val index = nodes.zipWithIndex.toMap
    val candidates = ranges.attributes(0).indices.map(a => reach(n, ranges, nodes, index, a))
    val complete = candidates.collect { case Right(c) => c }
    if (complete.isEmpty) {
      val missing = candidates.collect { case Left(m) => m }.headOption.getOrElse(Nil)
      OnePartition(s"no band predicate bounds ${missing.map(names(_)).mkString(", ")} relative to ${names.head}" +
        (if (ranges.attributes(0).isEmpty) " (none involves it)" else ""))
    } else complete.minBy(_.cells.width)
  }

  /** Home attribute a: Right(ByCells) when every input has a node with a finite reach, else Left(inputs without). */
  private def reach(n: Int, ranges: RangePredicates, nodes: IndexedSeq[(Int, Int)], index: Map[(Int, Int), Int],
      a: Int): Either[Seq[Int], ByCells] = {
    val real = RangePredicates.isRealKeyType(ranges.attributes(0)(a).dataType)
    val edges = ranges.bindings.filter(b => b.real.isDefined == real)
    val size = nodes.size
    val hi = Array.fill(size)(Double.PositiveInfinity) // least known upper bound of node - home
    val lo = Array.fill(size)(Double.NegativeInfinity) // greatest known lower bound
    val hiL = Array.fill(size)(Long.MaxValue) // integral: exact sums
    val loL = Array.fill(size)(Long.MinValue)
    val start = index((0, a))
    hi(start) = 0; lo(start) = 0; hiL(start) = 0; loL(start) = 0
    var hopsUsed = 0
    var changed = true
    while (changed && hopsUsed < size) {
      changed = false
      hopsUsed += 1
      for (e <- edges) {
        val (s, t) = (index((e.source, e.sourceAttr)), index((e.target, e.targetAttr)))
        val (eLo, eHi) = offsets(e)
        if (real) {
          if (hi(s) < Double.PositiveInfinity && eHi < Double.PositiveInfinity && hi(s) + eHi < hi(t)) {
            hi(t) = hi(s) + eHi; changed = true
          }
          if (lo(s) > Double.NegativeInfinity && eLo > Double.NegativeInfinity && lo(s) + eLo > lo(t)) {
            lo(t) = lo(s) + eLo; changed = true
          }
        } else {
          if (hiL(s) != Long.MaxValue && e.highOffset != Long.MaxValue && SaturatingTime.plus(hiL(s), e.highOffset) < hiL(t)) {
            hiL(t) = SaturatingTime.plus(hiL(s), e.highOffset); changed = true
          }
          if (loL(s) != Long.MinValue && e.lowOffset != Long.MinValue && SaturatingTime.plus(loL(s), e.lowOffset) > loL(t)) {
            loL(t) = SaturatingTime.plus(loL(s), e.lowOffset); changed = true
          }
        }
      }
    }
    def bounds(k: Int): Option[(Double, Double)] =
      if (real) Some((lo(k), hi(k))).filter { case (l, h) => !l.isInfinite && !h.isInfinite && l <= h }
      else Some((loL(k), hiL(k))).filter { case (l, h) => l != Long.MinValue && h != Long.MaxValue && l <= h }
        .map { case (l, h) => (l.toDouble, h.toDouble) }
    val chosen = (0 until n).map { j =>
      if (j == 0) Some((a, (0.0, 0.0)))
      else ranges.attributes(j).indices.flatMap(b => bounds(index((j, b))).map(r => (b, r)))
        .sortBy { case (_, (l, h)) => h - l }.headOption
    }
    val missing = (1 until n).filter(chosen(_).isEmpty)
    if (missing.nonEmpty) Left(missing)
    else {
      val low = chosen.map(_.get._2._1)
      val high = chosen.map(_.get._2._2)
      val bands = edges.flatMap(_.real)
      val cells = BandCells(home = 0, real = real, width = BandCells.widthFor(real, low, high), low = low, high = high,
        relative = if (bands.isEmpty) 0.0 else bands.map(_.relative).max,
        absolute = if (bands.isEmpty) 0.0 else bands.map(_.absolute).max,
        scale = bands.map(_.scale).sum, hops = size)
      Right(ByCells(cells, chosen.zipWithIndex.map { case (c, j) => ranges.attributes(j)(c.get._1) }))
    }
  }

  /** A real binding's offsets (integral ones are read from the Long fields). */
  private def offsets(e: RangeBinding): (Double, Double) =
    e.real.map(r => (r.low, r.high)).getOrElse((Double.NegativeInfinity, Double.PositiveInfinity))
}
