package wjoin.core

import wjoin.core.index.{RangeCursor, RangeWindow}
import wjoin.core.window.{InputWindow, RangeProbedWindow, TimeSortedBuffer}

/**
 * The enumeration shared by backward and forward evaluation: from one origin row, a
 * depth-first search over the origin's probe order with an explicit stack, so combinations
 * are pulled one at a time (`advance`) and never materialized in bulk.
 *
 * {{{
 *   start(o, t, row)       periods of every j != o around t          ── empty period: no result
 *     depth 0: order(0)    candidates inside its period ── bind ──> narrow the later periods
 *     depth 1: order(1)    ...
 *     depth N-2 (last)     bind ──> Refinement ──> a combination (tuple, times)
 *   advance() resumes at the deepest depth and backtracks when a depth runs out
 * }}}
 *
 * Periods (bounds inclusive, P = the strategy's period matrix `plan.periods`): the origin o
 * at time t gives input j the period
 * {{{
 *   [t - P(o, j), t + P(j, o)]   cut to [.., t] (`untilOrigin`) or to [t, ..] (`fromOrigin`)
 * }}}
 * and a member of input m bound at time t_m narrows each later input j where
 * `plan.refine(o)(m, j)` holds to [t_m - P(m, j), t_m + P(j, m)] (Hammad et al. Figs. 2-5);
 * periods not cut at the origin narrow on every bound (`plan.refineUncut`).
 *
 * Candidates per depth, by access path and `sliced`:
 *  - scan / hash window, `sliced` (forward, Mode 2): the slice [lowerBound(lo), upperBound(hi))
 *    of the time-sorted buffer, by binary search; no row is window-tested. Slices that only
 *    the origin bounds (`plan.fixedSlice`) are searched once per origin.
 *  - scan / hash window, not `sliced` (backward): from the start (or from lowerBound(lo) with
 *    `seek`), each row tested against the period (IsIn), stopping past its end.
 *  - indexed window (T-tree, B+tree, or their keyed forms: the origin's key picks the bucket
 *    first): a cursor over the intersection of the ranges of the [[RangeBinding]]s whose
 *    source is bound; both period bounds are tested on each candidate.
 * After its period, a candidate passes the count windows (if any), the filter where
 * `filter.activeAt(o, d)`, then the later periods' narrowing, or at the last depth the
 * [[Refinement]]. Nothing is evicted here; the evaluations own eviction.
 *
 * Hot loop: `advance` runs once per candidate. All state is in primitive arrays of this final
 * class; `counts` and `refinement` are final classes, so every call is monomorphic, and no
 * candidate allocates.
 *
 * @param plan        probe orders, period matrix, narrowing and fixed slices per origin
 * @param filter      non-window predicate, tested as soon as its inputs are bound
 * @param ranges      range attributes of rows, for indexed inputs' cursors
 * @param windows     the input windows, indexed by input
 * @param stats       where comparisons, predicate calls and results are counted
 * @param counts      count-based windows, or null when no input has a ROWS window
 * @param refinement  the GCA / LCA refinement and exclusion of complete candidates
 * @param shape       how periods are cut and searched ([[PeriodShape]])
 */
final class ProbeEnumerator(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues,
    windows: Array[InputWindow], stats: JoinStats, counts: CountWindows, refinement: Refinement,
    shape: PeriodShape) {
  // Plain fields: read on every candidate.
  private val fromOrigin = shape.fromOrigin
  private val untilOrigin = shape.untilOrigin
  private val sliced = shape.sliced
  private val seek = shape.seek
  private val n = plan.n
  private val last = n - 2
  private val c = Array.tabulate(n * n)(ij => plan.periods.upper(ij / n, ij % n))
  private val indexed = plan.indexed
  // A period cut at the origin may skip narrowings the cut implies (forward); an uncut one needs all.
  private val narrowings = if (fromOrigin) plan.refine else plan.refineUncut
  private val fixedSlices = if (fromOrigin) plan.fixedSlice else plan.fixedSliceUncut
  private val filterAt = Array.tabulate(n * n)(od => od % n < n - 1 && filter.activeAt(od / n, od % n))
  // Per (origin o, depth d), flat o * n + d: the bindings of the input probed at d whose source
  // is bound by then (the origin or an earlier depth); decided once, not per probe.
  private val boundBindings: Array[Array[RangeBinding]] = Array.tabulate(n * n) { od =>
    val (o, d) = (od / n, od % n)
    if (d > n - 2 || !indexed(plan.probeOrder(o)(d))) null
    else {
      val bound = o +: plan.probeOrder(o).take(d)
      plan.bindingsOf(plan.probeOrder(o)(d)).filter(b => bound.contains(b.source))
    }
  }

  /** The current combination, indexed by input; valid after `next` returned true. */
  val tuple = new Array[AnyRef](n)
  val times = new Array[Long](n)

  // Stack: per depth d, the period lo/hi of every input (flat d * n + j) and the position of
  // the bound row in the probed input's candidates.
  private val lo = new Array[Long](n * n)
  private val hi = new Array[Long](n * n)
  private val pos = new Array[Int](n)
  private val end = new Array[Int](n)
  private val sliceFrom = new Array[Int](n)
  private val sliceEnd = new Array[Int](n)
  private val sources = new Array[TimeSortedBuffer](n)
  // Per input, this probe's view of its window's buckets (InputWindow.candidatesIn; the
  // windows are the enumerator's for its life, never replaced).
  private val views = Array.tabulate(n)(j => windows(j).newView())
  private val cursors = new Array[RangeCursor[RangeWindow.Entry]](n)
  private var fixed: Array[Boolean] = _
  private var order: Array[Int] = _
  private var narrowing: Array[Boolean] = _
  private var origin = -1
  private var depth = -1
  /** The origin's key: keyed windows are probed in its bucket (every input shares the key). */
  private var originKey: AnyRef = _

  /** An enumeration is open (its origin was started and has not run out). */
  def active: Boolean = origin >= 0

  /** Opens the enumeration of origin o (its row as stored, at time t, with hash key `key`). */
  def start(o: Int, t: Long, key: AnyRef, row: AnyRef): Unit = if (!open(o, t, key, row)) origin = -1

  /** The next combination of the open enumeration; false (and closed) when there is none. */
  def next(): Boolean = {
    if (origin >= 0 && advance()) return true
    origin = -1
    false
  }

  /** Sets up origin o; false when some input has nothing in its period. */
  private def open(o: Int, t: Long, key: AnyRef, row: AnyRef): Boolean = {
    origin = o
    originKey = key
    order = plan.probeOrder(o)
    narrowing = narrowings(o)
    fixed = fixedSlices(o)
    tuple(o) = if (counts != null) counts.bind(o, row) else row
    times(o) = t
    var j = 0
    while (j < n) {
      if (j != o) {
        if (indexed(j)) {
          if (!windows(j).asInstanceOf[RangeProbedWindow].holds(key)) return false
        } else {
          val s = windows(j).candidatesIn(key, views(j))
          if (s == null || s.isEmpty) return false
          sources(j) = s
        }
        val (dl, dh) = (c(o * n + j), c(j * n + o))
        if (SaturatingTime.minusAboveRange(t, dl) || SaturatingTime.plusBelowRange(t, dh)) return false
        var l = SaturatingTime.minus(t, dl)
        var h = SaturatingTime.plus(t, dh)
        if (fromOrigin) l = math.max(l, t)
        if (untilOrigin) h = math.min(h, t)
        if (l > h) return false
        lo(j) = l
        hi(j) = h
      }
      j += 1
    }
    if (sliced) { // Mode 2: slices that only the origin bounds are found once
      var d = 0
      while (d <= last) {
        if (fixed(d) && !indexed(order(d))) {
          val k = order(d)
          val s = sources(k)
          sliceFrom(d) = s.lowerBound(lo(k))
          sliceEnd(d) = s.upperBound(hi(k))
          stats.comparisons += 2 * (32 - Integer.numberOfLeadingZeros(s.size))
          if (sliceFrom(d) >= sliceEnd(d)) return false
        }
        d += 1
      }
    }
    enter(0)
    depth = 0
    true
  }

  private def enter(d: Int): Unit = {
    val j = order(d)
    val s = sources(j)
    if (indexed(j)) openCursor(d, j)
    else if (sliced && fixed(d)) {
      pos(d) = sliceFrom(d) - 1
      end(d) = sliceEnd(d)
    } else if (sliced) {
      val from = s.lowerBound(lo(d * n + j))
      end(d) = s.upperBound(hi(d * n + j))
      pos(d) = from - 1
      stats.comparisons += 2 * (32 - Integer.numberOfLeadingZeros(s.size))
    } else if (seek) {
      pos(d) = s.lowerBound(lo(d * n + j)) - 1
      end(d) = s.size
      stats.comparisons += 32 - Integer.numberOfLeadingZeros(s.size)
    } else {
      pos(d) = -1
      end(d) = s.size
    }
  }

  /**
   * Opens the range probe of indexed input j at depth d: the intersection of the ranges of
   * its bindings whose source is bound (the origin or an earlier depth); the whole attribute
   * range if none is (the plan avoids that order, see [[EnginePlan.validOrder]]).
   */
  private def openCursor(d: Int, j: Int): Unit = {
    var rlo = Long.MinValue
    var rhi = Long.MaxValue
    var nan = true // every applied conjunct holds for a NaN target
    val bs = boundBindings(origin * n + d)
    var k = 0
    while (k < bs.length) {
      val b = bs(k)
      val x = ranges.value(b.source, b.sourceAttr, tuple(b.source))
      rlo = math.max(rlo, b.low(x))
      rhi = math.min(rhi, b.high(x))
      nan &&= b.nanMatches
      k += 1
    }
    if (nan) rhi = Long.MaxValue // NaN is the greatest key
    val w = windows(j).asInstanceOf[RangeProbedWindow]
    stats.comparisons += 32 - Integer.numberOfLeadingZeros(w.size)
    cursors(d) = w.probe(originKey, rlo, rhi)
  }

  /** Moves to the next combination of the current origin. */
  private def advance(): Boolean = {
    var d = depth
    while (d >= 0) {
      val j = order(d)
      if (!(if (indexed(j)) advanceCursor(d, j) else advanceSlice(d, j))) d -= 1
      else if (d == last) {
        depth = d
        stats.results += 1
        return true
      } else {
        d += 1
        enter(d)
      }
    }
    depth = -1
    false
  }

  /** Indexed depth d: the next candidate of the cursor inside the period; false when none. */
  private def advanceCursor(d: Int, j: Int): Boolean = {
    val cursor = cursors(d)
    if (cursor == null) return false
    val base = d * n
    while (cursor.next()) {
      val entry = cursor.value
      val tt = entry.time
      stats.comparisons += 2
      if (tt >= lo(base + j) && tt <= hi(base + j) && bind(d, j, entry.row, tt)) return true
    }
    false
  }

  /** Time-sorted depth d: the next candidate of input j's slice that binds; false when none. */
  private def advanceSlice(d: Int, j: Int): Boolean = {
    val s = sources(j)
    val base = d * n
    val e = end(d)
    var p = pos(d) + 1
    while (p < e) {
      val tt = s.time(p)
      var inPeriod = true
      if (!sliced) { // IsIn(t_k, CurrentPeriod); rows are time-sorted, so stop past the period
        stats.comparisons += 1
        if (tt < lo(base + j)) inPeriod = false
        else {
          stats.comparisons += 1
          if (tt > hi(base + j)) return false
        }
      }
      if (inPeriod && bind(d, j, s.row(p), tt)) {
        pos(d) = p
        return true
      }
      p += 1
    }
    false
  }

  /**
   * Binds `stored` (a row of input j at time tt, inside its period) at depth d: true if the
   * count windows, the filter and (last depth) the refinement or (otherwise) the narrowed
   * periods of the inputs still to probe all admit it.
   */
  private def bind(d: Int, j: Int, stored: AnyRef, tt: Long): Boolean = {
    tuple(j) = if (counts != null) counts.bind(j, stored) else stored
    times(j) = tt
    (counts == null || counts.holds(origin, order, d)) && passes(d) &&
      (if (d == last) refinement.admits(times) else narrow(d, j, tt))
  }

  private def passes(d: Int): Boolean = {
    if (!filterAt(origin * n + d)) return true
    stats.predicateEvals += 1
    filter.test(origin, d, tuple)
  }

  /** Periods of the inputs after depth d, given the member of input m bound at time tm. */
  private def narrow(d: Int, m: Int, tm: Long): Boolean = {
    val from = d * n
    val to = from + n
    var k = d + 1
    while (k <= last) {
      val j = order(k)
      var l = lo(from + j)
      var h = hi(from + j)
      if (narrowing(m * n + j)) {
        val (dl, dh) = (c(m * n + j), c(j * n + m))
        if (SaturatingTime.minusAboveRange(tm, dl) || SaturatingTime.plusBelowRange(tm, dh)) return false
        l = math.max(l, SaturatingTime.minus(tm, dl))
        h = math.min(h, SaturatingTime.plus(tm, dh))
        if (l > h) return false
      }
      lo(to + j) = l
      hi(to + j) = h
      k += 1
    }
    true
  }
}
