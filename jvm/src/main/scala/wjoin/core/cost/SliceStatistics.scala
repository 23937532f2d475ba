package wjoin.core.cost

import wjoin.core.{EngineRow, RangeBinding, RangeValues}

/**
 * What the first rows of a partition show about its inputs: the figures the unit-time cost
 * model takes ([[InputStats]]), measured instead of estimated, for the run-time check of the
 * partition's access paths ([[AccessRecheck]]).
 *
 * {{{
 *   slice = the first m rows of the merged inputs (one event-time prefix of every input)
 *           [t_first ................................ t_last]    span S = t_last - t_first + 1
 *   input j:   k_j rows in it    rate_j = k_j / S    distinct keys d_j
 *   binding b (target t, source s):  sel_b = (accepted + 0.5) / (pairs + 1),
 *           accepted = sum over source rows x of #{target rows y : low_b(x) <= y <= high_b(x)}
 * }}}
 *
 * Every input is seen over the same span (the slice is a prefix of the one arrival order), so
 * a slow input's few rows give its rate as truly as a fast input's many. A band's share of
 * pairs is measured on the attribute keys the windows index (real-valued attributes as
 * [[wjoin.core.RealKeys]]), on evenly spaced samples of both sides ([[SliceStatistics.SourceSample]]
 * sources, [[SliceStatistics.TargetSample]] targets), by binary search in the target's sorted
 * keys: no pair is tested one by one.
 *
 * @param rows        per input, rows in the slice
 * @param span        time units the slice covers (>= 1)
 * @param distinct    per input, distinct keys among `keyed` of its rows (0 for an unhashed plan)
 * @param keyed       per input, the rows whose keys were counted (evenly spaced, at most
 *                    [[SliceStatistics.KeySample]])
 * @param selectivity per range binding (the plan's numbering), the share of (source, target)
 *                    row pairs of the slice it accepts; NaN where either side had no rows
 * @param exhausted   the slice is the partition's whole input
 */
final case class SliceStatistics(rows: Seq[Long], span: Double, distinct: Seq[Long], keyed: Seq[Long],
    selectivity: Seq[Double], exhausted: Boolean) {
  def total: Long = rows.sum

  /**
   * The inputs' statistics as the cost model takes them: rate from the slice; rows of the
   * partition: the slice's when it is the whole input, else at least twice the slice's (the
   * planned share `plannedRows` when larger); distinct keys: those seen, scaled up only where
   * the sample hardly repeats them (d > s / 2 of s rows: as if unseen rows were as varied);
   * a band's domain: its width over the share of pairs it accepted. An input with no row in
   * the slice keeps its planned figures (`planned`).
   */
  def stats(planned: Seq[InputStats], plannedRows: Seq[Double], bindings: Seq[RangeBinding]): Seq[InputStats] =
    rows.indices.map { j =>
      val k = rows(j).toDouble
      if (k == 0 && !exhausted) planned(j)
      else {
        val n = if (exhausted) k else math.max(2 * k, plannedRows(j))
        val (keys, counted) = (distinct(j).toDouble, math.max(1.0, keyed(j).toDouble))
        val v = if (keys <= 0) 1.0 else if (2 * keys <= counted) keys else keys * n / counted
        val domains = bindings.indices.filter(b => bindings(b).target == j && bindings(b).bounded &&
          !selectivity(b).isNaN).map(b => bindings(b).targetAttr -> bindings(b).width / selectivity(b))
        val widths = planned(j).rangeWidths ++ domains.groupBy(_._1).map { case (a, ds) => a -> ds.map(_._2).min }
        InputStats(n, math.max(1.0, span * n / math.max(1.0, k)), math.max(1.0, v), widths, "run time")
      }
    }

  /** "A 1365 rows 461 keys, B ..., A-B 0.0031" (each band's share once) for the task's log. */
  def describe(names: Seq[String], bindings: Seq[RangeBinding]): String = {
    val inputs = rows.indices.map(j => s"${names(j)} ${rows(j)} rows" + (if (distinct(j) > 0) s" ${distinct(j)} keys" else ""))
    val bands = bindings.indices.filter(b => !selectivity(b).isNaN && b % 2 == 0)
      .map(b => f"${names(bindings(b).source)}-${names(bindings(b).target)} ${selectivity(b)}%.3g")
    (inputs ++ bands).mkString(", ")
  }
}

object SliceStatistics {
  /**
   * Rows of each side a binding's share is measured with (evenly spaced): 256 x 1024 pairs
   * give a share of 1/1000 to within about 10%, at a few thousand comparisons.
   */
  val SourceSample = 256
  val TargetSample = 1024
  /** Rows of each input whose keys are counted (evenly spaced). */
  val KeySample = 1024

  /**
   * The statistics of `slice` (rows in arrival order) for a plan of `n` inputs; `ranges`
   * reads the bindings' attributes of a row as stored (every binding's, whatever the planned
   * paths index); `hashed`: rows carry keys.
   */
  def of(slice: scala.collection.IndexedSeq[EngineRow], n: Int, hashed: Boolean, bindings: Seq[RangeBinding], ranges: RangeValues,
      exhausted: Boolean): SliceStatistics = {
    val rows = new Array[Int](n)
    var first = Long.MaxValue
    var last = Long.MinValue
    var i = 0
    while (i < slice.size) {
      val r = slice(i)
      rows(r.input) += 1
      if (r.time < first) first = r.time
      if (r.time > last) last = r.time
      i += 1
    }
    // each input's rows, by position in the slice
    val of = Array.tabulate(n)(j => new Array[Int](rows(j)))
    val filled = new Array[Int](n)
    i = 0
    while (i < slice.size) { val j = slice(i).input; of(j)(filled(j)) = i; filled(j) += 1; i += 1 }
    // each (input, attribute)'s keys sorted once, whichever bindings search them
    val sorted = scala.collection.mutable.HashMap.empty[(Int, Int), Array[Long]]
    def keysOf(j: Int, attr: Int): Array[Long] = sorted.getOrElseUpdate((j, attr), {
      val step = math.max(1, of(j).length / TargetSample)
      val ks = of(j).indices.by(step).map(p => ranges.value(j, attr, slice(of(j)(p)).row)).toArray
      java.util.Arrays.sort(ks)
      ks
    })
    // distinct keys among evenly spaced rows of each input
    val keyed = Array.tabulate(n)(j => if (!hashed) Array.emptyIntArray else of(j).indices.by(math.max(1,
      of(j).length / KeySample)).map(of(j)).toArray)
    val distinct = keyed.map { ps =>
      val seen = new java.util.HashSet[AnyRef]()
      ps.foreach { p => val k = slice(p).key; if (k != null) seen.add(k) }
      seen.size.toLong
    }
    val span = if (slice.isEmpty) 1.0 else math.max(1.0, last.toDouble - first.toDouble + 1)
    val selectivity = bindings.map { b =>
      if (of(b.source).isEmpty || of(b.target).isEmpty) Double.NaN
      else {
        val step = math.max(1, of(b.source).length / SourceSample)
        share(b, of(b.source).indices.by(step).map(p => slice(of(b.source)(p)).row).toArray,
          keysOf(b.target, b.targetAttr), ranges)
      }
    }
    SliceStatistics(rows.map(_.toLong).toSeq, span, distinct.toSeq, keyed.map(_.length.toLong).toSeq, selectivity,
      exhausted)
  }

  /** The share of (source row, target key) pairs `b` accepts. */
  private def share(b: RangeBinding, sources: Array[AnyRef], sorted: Array[Long], ranges: RangeValues): Double = {
    var accepted = 0.0
    var pairs = 0.0
    var i = 0
    while (i < sources.length) {
      val x = ranges.value(b.source, b.sourceAttr, sources(i))
      val (lo, hi) = (b.low(x), b.high(x))
      if (lo <= hi) accepted += firstAbove(sorted, hi) - firstAtLeast(sorted, lo)
      pairs += sorted.length
      i += 1
    }
    (accepted + 0.5) / (pairs + 1)
  }

  /** The index of the first key > x (keys sorted). */
  private def firstAbove(keys: Array[Long], x: Long): Int = firstWhere(keys, _ > x)
  /** The index of the first key >= x (keys sorted). */
  private def firstAtLeast(keys: Array[Long], x: Long): Int = firstWhere(keys, _ >= x)

  private def firstWhere(keys: Array[Long], past: Long => Boolean): Int = {
    var (lo, hi) = (0, keys.length)
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (past(keys(mid))) hi = mid else lo = mid + 1 }
    lo
  }
}
