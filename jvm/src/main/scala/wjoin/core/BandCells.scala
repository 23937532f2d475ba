package wjoin.core

/**
 * Cells of a band attribute: how a keyless streaming W-join whose inputs are all connected
 * by band predicates spreads over many partitions: the partitioning of DeWitt, Naughton and
 * Schneider's band join (cited by Hammad et al.), on the values of one band attribute per
 * input instead of on event time (see [[TimeBands]] for the batch, time-based form).
 *
 * {{{
 *   home input h (the first input):  row at x  ─────────────> cell(x) only
 *   other input j:                    row at y  ─────────────> every cell(x) for x in
 *                                                              [y - high(j), y - low(j)]
 *            cell c-1         cell c          cell c+1
 *   ... |───────────────|───────────────|───────────────| ...   width w
 *                    [ y - high(j) ,  y - low(j) ]               j's copies: c-1 and c
 *                               x (home row)                     found in cell(x) = c only
 * }}}
 *
 * Semantics. Along the band predicates of the condition, every combination's values satisfy
 * `low(j) <= v_j - v_h <= high(j)` for every input j (the reach of j from h: sums of band
 * offsets along paths of the band graph, see `plan/StreamPartitioning`), so the row of j lies in
 * the cell of the combination's home row. Every combination has exactly one home row, which
 * is in exactly one cell: it is found in that cell and nowhere else (the cell is the
 * combination's hash key, so no two cells' rows ever combine). The reach is only a necessary
 * condition: the predicates stay in the residual and decide.
 *
 * Width. `w` = 2 x (the widest reach + one unit) for integral values, 2 x the widest reach for
 * real ones, fixed by the query's constants, so it is the same on every micro-batch and restart
 * (the state's rows keep their cells). A row of j then has at most 2 copies (real values at a
 * cell edge: 3, through the rounding margin) and 1 + span / w on average; a wider cell would
 * cost fewer copies but spread a bounded value range over fewer cells.
 *
 * Domains (those of [[RangeBinding]]; one for all the bands used, as the attributes of a
 * chain are the same expressions):
 *  - integral (`real = false`): values are Longs (integers, days, microseconds); cells are
 *    `floorDiv(v, w)`; reaches saturate at the Long range.
 *  - real: values are doubles in Spark's order; cells are `floor(v / w)` clamped to
 *    `[-Far, Far]` (so infinities and values beyond `Far x w` share the two outermost cells,
 *    a reach that overflows to an infinity reaches them, and an infinite value has one copy,
 *    in its own cell), NaN has its own cell
 *    [[BandCells.NaNCell]] (in the recognised forms NaN matches only NaN, as [[RealBand]]
 *    assumes for its keys); reaches are widened by the rounding margin of the predicates'
 *    floating-point or decimal arithmetic (per hop `relative x (|y| + scale) + absolute`).
 * Both cell functions are monotone, so the cells of an interval are the range between the
 * cells of its ends. A NULL value never satisfies a band: such a row has one copy, in
 * [[BandCells.NullCell]], where it meets nothing.
 *
 * @param home     the input whose rows have one copy each
 * @param real     values are doubles (else Longs)
 * @param width    the cell width (integral: >= 2; real: > 0)
 * @param low      per input, the least `v_j - v_h` (home: 0)
 * @param high     per input, the greatest `v_j - v_h` (home: 0)
 * @param relative real: per-hop relative rounding margin (0 for integral)
 * @param absolute real: per-hop absolute margin (decimal scales; 0 for integral)
 * @param scale    real: the sum of the constants' magnitudes along the reaches
 * @param hops     real: the most band predicates on a path from home
 */
final case class BandCells(home: Int, real: Boolean, width: Double, low: Seq[Double], high: Seq[Double],
    relative: Double = 0.0, absolute: Double = 0.0, scale: Double = 0.0, hops: Int = 1) {
  assert(width > 0 && !width.isInfinite, s"cell width must be positive and finite, got $width")
  assert(real || width >= 2, s"integral cells are at least 2 units wide, got $width")
  assert(low.size == high.size && low.indices.forall(j => low(j) <= high(j)), s"empty reach: $low, $high")
  assert(low(home) == 0 && high(home) == 0, "the home input reaches itself only")

  import BandCells._

  private val integralWidth: Long = width.toLong
  // Integral reaches are exact Long sums passed as doubles: widened by an ulp (a superset).
  private val lowL: Array[Long] = low.map(d => SaturatingTime.plus(toLong(d), -(math.ulp(d).toLong + 1))).toArray
  private val highL: Array[Long] = high.map(d => SaturatingTime.plus(toLong(d), math.ulp(d).toLong + 1)).toArray

  /** Integral: the cell of value `v`. */
  def cellOfLong(v: Long): Long = Math.floorDiv(v, integralWidth)

  /** Real: the cell of value `v`. */
  def cellOfDouble(v: Double): Long =
    if (v.isNaN) NaNCell
    else {
      val q = math.floor(v / width)
      if (q >= Far) Far else if (q <= -Far) -Far else q.toLong
    }

  /** Integral: the first and last cell of input j's row at y (one cell for home). */
  def cellsOfLong(j: Int, y: Long): (Long, Long) =
    if (j == home) { val c = cellOfLong(y); (c, c) }
    else (cellOfLong(SaturatingTime.plus(y, negate(highL(j)))), cellOfLong(SaturatingTime.plus(y, negate(lowL(j)))))

  /**
   * Real: the first and last cell of input j's row at y (one cell for home, for NaN and for an
   * infinity). An infinite y satisfies a band of finite reach only with a home value at the same
   * infinity (y - x is y for every finite x, and y - y is NaN; `=` and BETWEEN forms compare it
   * with the same infinity), which is in y's own cell: its margin is infinite, and the cells of
   * [-Inf, +Inf] would be every cell.
   */
  def cellsOfDouble(j: Int, y: Double): (Long, Long) =
    if (j == home || y.isNaN || y.isInfinite) { val c = cellOfDouble(y); (c, c) }
    else {
      val m = hops * (relative * (math.abs(y) + math.abs(low(j)) + math.abs(high(j)) + scale) + absolute) +
        java.lang.Double.MIN_VALUE
      val from = java.lang.Math.nextDown(y - high(j) - m)
      val to = java.lang.Math.nextUp(y - low(j) + m)
      (cellOfDouble(if (from.isNaN) Double.NegativeInfinity else from), cellOfDouble(if (to.isNaN) Double.PositiveInfinity else to))
    }

  /** "width 20, reach B [-5, 5], C [-8, 3]" for EXPLAIN. */
  def describe(names: Seq[String]): String = {
    def num(d: Double) = if (!real && d == math.rint(d) && math.abs(d) < 1e18) d.toLong.toString else d.toString
    s"width ${num(width)}, reach " + names.indices.filter(_ != home)
      .map(j => s"${names(j)} [${num(low(j))}, ${num(high(j))}]").mkString(", ")
  }
}

object BandCells {
  /** The cell of rows whose band value is NULL (they never match). */
  val NullCell: Long = Long.MinValue
  /** The cell of NaN values (real domain). */
  val NaNCell: Long = Long.MaxValue
  /** Real domain: cells are clamped to [-Far, Far] (infinities and huge magnitudes). */
  val Far: Long = 1L << 40

  private def toLong(d: Double): Long =
    if (d >= 9.2e18) Long.MaxValue else if (d <= -9.2e18) Long.MinValue else d.toLong
  private def negate(v: Long): Long = if (v == Long.MinValue) Long.MaxValue else -v

  /**
   * The width for reaches `low`/`high`: 2 x (widest span + 1 unit) for integral values
   * (capped far below overflow), 2 x the widest span for real ones (1.0 when every reach is a
   * single point, e.g. an equality of doubles).
   */
  def widthFor(real: Boolean, low: Seq[Double], high: Seq[Double]): Double = {
    val span = low.indices.map(j => high(j) - low(j)).max
    if (real) { val w = 2 * span; if (w > 0 && !w.isInfinite) w else if (w > 0) Double.MaxValue / 4 else 1.0 }
    else math.min(2 * (span + 1), 4.0e18)
  }
}
