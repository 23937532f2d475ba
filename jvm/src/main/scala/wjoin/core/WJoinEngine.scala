package wjoin.core

import wjoin.core.cost.AccessPath
import wjoin.core.index.{RangeCursor, RangeWindow}

/**
 * The W-join state machine of one partition: N input windows and one resumable
 * enumeration (a depth-first search with an explicit stack, so results are pulled one at a
 * time and never materialized in bulk).
 *
 * {{{
 *   offer(i, t, key, row) ──> windows(0..N-1) ──> next(): tuple = (r_0 .. r_N-1)
 *      rows of all inputs,     ring buffers or      one combination per call,
 *      merged by event time    per-key buckets      all bounds of the matrix hold
 * }}}
 *
 * A combination (r_0..r_N-1) is emitted iff ts_i - ts_j <= upper(i, j) for all i, j
 * (inclusive) and the filter holds. Each combination has exactly one trigger, so it is
 * emitted exactly once:
 *  - backward evaluation (NLW-join, HW-join): the trigger is its newest member (last in
 *    merge order). The arriving row r_o at time t probes the windows of the others, input j
 *    within the period [t - upper(o, j), min(t, t + upper(j, o))]; each bound member m at
 *    time t_m narrows the periods of the inputs still to probe by [t_m - upper(m, j),
 *    t_m + upper(j, m)] (paper 000 Figs. 2-5), and each scanned row is tested against the
 *    period (IsIn).
 *  - forward evaluation (MW-join): the trigger is its oldest member (first in merge order).
 *    Mode 1 sweeps to the oldest unprocessed row r_o once no row can still arrive inside
 *    its period (now > t + horizon(o)); Mode 2 enumerates the slices of each window inside
 *    [max(t, t - upper(o, j)), t + upper(j, o)], found by binary search, so no row is
 *    window-tested; a pair's bounds narrow the slices only where the origin's period does
 *    not already imply them ([[EnginePlan.refine]]). Then r_o is dropped (paper 000 Fig. 6).
 *
 * Eviction: backward evaluation drops a row of input j as soon as ts < now - horizon(j),
 * the papers' IsOut against the latest time; forward evaluation drops each row right after
 * it was the origin (no later origin can pair with an earlier row). Memory therefore follows
 * window size x arrival rate, never input size.
 *
 * Protocol: offer rows in non-decreasing time order; after each offer call next() until it
 * returns false (the tuple array is valid after each true); call finish() at the end of
 * input and drain next() once more.
 *
 * Streaming (one engine per micro-batch and partition, see `wjoin.exec.StreamingWindowJoinExec`):
 * `completeBound` = W, the eviction watermark: every row with time <= W has arrived.
 *  - eager (backward): the state's rows are `preload`ed, then the batch's new rows are
 *    offered in time order. Rows of the state may be newer than an offered row, so the
 *    period is not clipped at t: [t - upper(o, j), t + upper(j, o)]. The trigger of a
 *    combination is its member processed last, and only processed rows are in the windows,
 *    so each combination is still found once. A row of input j is evicted once
 *    ts + horizon(j) <= min(t - 1, W): no later row of this batch (>= t) and no future row
 *    (> W) can reach it; finish() evicts up to W.
 *  - ordered (forward): rows with time <= W are offered in time order, from the state and
 *    the batch alike, and the sweep of r_o at t runs once t + horizon(o) <= W, the same
 *    Mode 1 / Mode 2 as in batch; rows newer than W wait in the state.
 * `onEvict` reports every row that leaves, so the state store can drop it.
 *
 * Count-based windows (ROWS(j) = k, [[EnginePlan.rowLimit]]): every arrival (including rows
 * that can never match, offered with [[countOnly]]) takes the next number of the merge order,
 * and each stored row carries the per-input arrival counts at its arrival (a [[Stamped]] row).
 * Member x of input j is in j's window at the combination's newest member m (the member last
 * in merge order) iff counts_m(j) - counts_x(j) < k: fewer than k rows of j arrived after x
 * up to m. Binding a member can only make the newest member newer, so a member that fails
 * fails for every completion and is skipped at once (paper 001 Sec. 3.6's ComputeCountJoin,
 * with counters instead of overwritten slots). Backward evaluation also evicts a row of j
 * once k newer rows of j arrived (the circular buffer's overwrite); forward evaluation sweeps
 * a row of j as soon as that holds, even before its time horizon passed.
 *
 * Window strategies ([[WindowStrategy]]): `upper` above is the plan's period matrix
 * `plan.periods` (the true matrix for "exact"; GCA's single largest window or LCA's local
 * windows otherwise), and so are the horizons. Each complete candidate is then refined against
 * the true matrix on the pairs the period matrix is looser on (counted in
 * `stats.refineRejections`), and rejected if it lies inside `plan.exclude` (`stats.excluded`).
 *
 * Access paths (issue 5): each window is built from [[EnginePlan.accessPath]]. Scan and hash
 * windows are time-sorted, so a probe stops past its period. An indexed window (T-tree,
 * B+tree) is probed with a cursor over the range its [[RangeBinding]]s give from the rows
 * bound so far (the intersection of all bound sources' ranges); candidates come in attribute
 * order, so both period bounds are tested on each. Lazy expiration (`expirationInterval` =
 * tau > 0, backward evaluation) evicts only when the limit moved by tau; the per-candidate
 * period test keeps the result unchanged, only the windows are larger.
 *
 * @param plan          closed window matrix, algorithm, per-origin probe orders
 * @param filter        non-window predicate, tested as soon as its inputs are bound
 * @param completeBound rows newer than this may still arrive after finish(): Long.MaxValue in
 *                      batch, the eviction watermark W (in time units) in streaming
 * @param ranges        the range attributes of rows, for indexed inputs
 */
final class WJoinEngine(plan: EnginePlan, filter: TupleFilter, completeBound: Long = Long.MaxValue,
    ranges: RangeValues = RangeValues.None) {
  private val n = plan.n
  private val last = n - 2
  // Periods and narrowing follow the strategy's period matrix; `truth` refines candidates.
  private val c = Array.tabulate(n * n)(ij => plan.periods.upper(ij / n, ij % n))
  private val truth = Array.tabulate(n * n)(ij => plan.matrix.upper(ij / n, ij % n))
  private val checkPairs = plan.checkPairs
  private val excluded: Array[Long] = plan.exclude.map(m => Array.tabulate(n * n)(ij => m.upper(ij / n, ij % n))).orNull
  private val horizon = plan.horizon
  private val forward = plan.forward
  private val streaming = completeBound != Long.MaxValue
  private val indexed = plan.indexed
  private val windows: Array[InputWindow] = Array.tabulate(n) { j =>
    plan.accessPath(j) match {
      case AccessPath.Hash => new HashWindow
      case AccessPath.Scan => new ScanWindow(plan.hashed)
      case path =>
        val attr = plan.indexAttr(j)
        val range = if (path == AccessPath.TTree) RangeWindow.tTree(plan.nodeSize) else RangeWindow.bPlusTree(plan.nodeSize)
        new IndexedWindow(range, row => ranges.value(j, attr, unstamped(row)), plan.hashed)
    }
  }
  private val tau = plan.expirationInterval
  /** Lazy expiration: the limit of the last eviction (rows up to it are gone). */
  private var evictedUpTo = Long.MinValue
  private val filterAt = Array.tabulate(n * n)(od => od % n < n - 1 && filter.activeAt(od / n, od % n))
  private val rowLimit = plan.rowLimit
  private val counting = plan.counting
  /** Count-based windows: rows of each input arrived so far, and arrivals of all inputs. */
  private val arrived = new Array[Long](n)
  private var arrivalSeq = 0L
  /** Count-based windows: the stamp of each bound member (origin included). */
  private val stamps = new Array[Stamped](n)

  val stats = new JoinStats(n)
  /** The current combination, indexed by input; valid after next() returned true. */
  val tuple = new Array[AnyRef](n)
  val times = new Array[Long](n)

  // Enumeration stack: per depth d, the period lo/hi of every input (flat d * n + j) and the
  // position of the bound row in the probed input's candidates.
  private val lo = new Array[Long](n * n)
  private val hi = new Array[Long](n * n)
  private val pos = new Array[Int](n)
  private val end = new Array[Int](n)
  private val sliceFrom = new Array[Int](n)
  private val sliceEnd = new Array[Int](n)
  private var fixed: Array[Boolean] = _
  private val sources = new Array[TimeSortedBuffer](n)
  private val cursors = new Array[RangeCursor[RangeWindow.Entry]](n)
  private var origin = -1
  private var order: Array[Int] = _
  private var narrowing: Array[Boolean] = _
  private var depth = -1

  // Forward evaluation: every buffered row in merge order (rows hold the input index).
  private val arrivals = new TimeSortedBuffer(64)
  private var sweeping = -1
  private var now = Long.MinValue
  /** Every row with time <= complete has been offered. */
  private var complete = Long.MinValue

  /** Called with (input, time, row) for every row that leaves the windows. */
  var onEvict: (Int, Long, AnyRef) => Unit = (_, _, _) => ()

  def bufferedRows: Long = stats.buffered

  def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    arrive(input, time)
    stats.rowsIn(input) += 1
    val stored = if (counting) new Stamped(row, arrivalSeq, arrived.clone()) else row
    if (forward) {
      arrivals.append(time, Integer.valueOf(input))
    } else {
      if (tau == 0 || complete == Long.MinValue || complete - tau >= evictedUpTo) evictExpired(complete)
      if (!start(input, time, key, stored)) origin = -1
    }
    store(input, time, key, stored)
  }

  /**
   * A row that can never match (e.g. a NULL key) but still takes a place in its input's
   * count-based window, so the window holds the last k rows of the input, not of its
   * joinable rows. Same order rules as [[offer]].
   */
  def countOnly(input: Int, time: Long): Unit = {
    require(counting, "countOnly is for count-based (ROWS) windows")
    arrive(input, time)
    if (!forward) evictExpired(complete)
  }

  private def arrive(input: Int, time: Long): Unit = {
    require(time >= now, s"rows must be offered in event-time order: $time after $now")
    now = time
    complete = math.min(if (time == Long.MinValue) time else time - 1, completeBound)
    if (counting) {
      arrived(input) += 1
      arrivalSeq += 1
      if (!forward) evictCounted(input)
    }
  }

  /** Backward evaluation: drops the rows of input j that k newer rows of j pushed out. */
  private def evictCounted(j: Int): Unit = while (countedOut(j)) evictOldest(j)

  /** k rows of input j arrived after its oldest row, so no newer member can pair with it. */
  private def countedOut(j: Int): Boolean = {
    val k = rowLimit(j)
    k != StreamRows.NoLimit && windows(j).size > 0 &&
      arrived(j) - windows(j).oldestRow.asInstanceOf[Stamped].counts(j) >= k
  }

  /**
   * Streaming, backward evaluation: a row of the state, already joined in earlier batches.
   * It only joins the rows offered after it, so it is inserted without probing.
   */
  def preload(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    require(streaming && !forward, "only the eager streaming engine preloads its state")
    require(!counting, "count-based windows need every row in merge order, so eager streaming cannot preload them")
    store(input, time, key, row)
  }

  private def store(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    windows(input).insert(key, time, row)
    stats.buffered += 1
    if (stats.buffered > stats.peakBuffered) stats.peakBuffered = stats.buffered
  }

  /**
   * End of input (batch) or of the micro-batch's rows (streaming): forward evaluation may
   * sweep every row whose period ends by `completeBound`; backward evaluation evicts what
   * no row after `completeBound` can reach.
   */
  def finish(): Unit = {
    complete = completeBound
    if (streaming && !forward && origin < 0) evictExpired(complete)
  }

  def next(): Boolean = {
    if (!forward) {
      if (origin >= 0 && advance()) return true
      origin = -1
      return false
    }
    while (true) {
      if (origin >= 0 && advance()) return true
      origin = -1
      if (sweeping >= 0) {
        evictOldest(sweeping)
        arrivals.popOldest()
        sweeping = -1
      }
      if (arrivals.isEmpty) return false
      val o = arrivals.oldestRow.asInstanceOf[Integer].intValue
      val t = arrivals.oldestTime
      if (WindowMatrix.add(t, horizon(o)) > complete && !(counting && countedOut(o))) return false
      sweeping = o
      if (!start(o, t, windows(o).oldestKey, windows(o).oldestRow)) origin = -1
    }
    false
  }

  /** Backward evaluation: drops the rows of input j with ts + horizon(j) <= limit. */
  private def evictExpired(limit: Long): Unit = {
    evictedUpTo = limit
    var j = 0
    while (j < n) {
      val h = horizon(j)
      val w = windows(j)
      while (w.size > 0 && WindowMatrix.add(w.oldestTime, h) <= limit) evictOldest(j)
      j += 1
    }
  }

  private def evictOldest(j: Int): Unit = {
    val w = windows(j)
    val t = w.oldestTime
    val r = w.oldestRow
    w.evictOldest()
    stats.evicted += 1
    stats.buffered -= 1
    onEvict(j, t, unstamped(r))
  }

  private def unstamped(r: AnyRef): AnyRef = if (counting) r.asInstanceOf[Stamped].row else r

  /** Sets up the enumeration for origin o (its row as stored); false when some input has nothing in its period. */
  private def start(o: Int, t: Long, key: AnyRef, row: AnyRef): Boolean = {
    origin = o
    order = plan.probeOrder(o)
    narrowing = plan.refine(o)
    fixed = plan.fixedSlice(o)
    if (counting) {
      stamps(o) = row.asInstanceOf[Stamped]
      tuple(o) = stamps(o).row
    } else tuple(o) = row
    times(o) = t
    var j = 0
    while (j < n) {
      if (j != o) {
        if (indexed(j)) {
          if (windows(j).size == 0) return false
        } else {
          val s = windows(j).candidates(key)
          if (s == null || s.isEmpty) return false
          sources(j) = s
        }
        var l = minus(t, c(o * n + j))
        var h = WindowMatrix.add(t, c(j * n + o))
        if (forward) l = math.max(l, t) else if (!streaming) h = math.min(h, t)
        if (l > h) return false
        lo(j) = l
        hi(j) = h
      }
      j += 1
    }
    if (forward) { // Mode 2: slices that only the origin bounds are found once
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

  private def minus(t: Long, bound: Long): Long = if (bound == WindowMatrix.Inf) Long.MinValue else t - bound

  private def enter(d: Int): Unit = {
    val j = order(d)
    val s = sources(j)
    if (indexed(j)) openCursor(d, j)
    else if (forward && fixed(d)) {
      pos(d) = sliceFrom(d) - 1
      end(d) = sliceEnd(d)
    } else if (forward) {
      val from = s.lowerBound(lo(d * n + j))
      end(d) = s.upperBound(hi(d * n + j))
      pos(d) = from - 1
      stats.comparisons += 2 * (32 - Integer.numberOfLeadingZeros(s.size))
    } else if (streaming) { // the state spans window + watermark delay: skip to the period
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
    val bs = plan.bindingsOf(j)
    var k = 0
    while (k < bs.length) {
      val b = bs(k)
      if (isBound(b.source, d)) {
        val x = ranges.value(b.source, b.sourceAttr, tuple(b.source))
        rlo = math.max(rlo, b.low(x))
        rhi = math.min(rhi, b.high(x))
      }
      k += 1
    }
    val w = windows(j).asInstanceOf[IndexedWindow]
    stats.comparisons += 32 - Integer.numberOfLeadingZeros(w.size)
    cursors(d) = w.probe(rlo, rhi)
  }

  /** Is input i's member bound before depth d of the current origin's order? */
  private def isBound(i: Int, d: Int): Boolean = {
    if (i == origin) return true
    var k = 0
    while (k < d) { if (order(k) == i) return true; k += 1 }
    false
  }

  /** Indexed depth d: the next candidate of the cursor inside the period; false when none. */
  private def advanceCursor(d: Int, j: Int): Boolean = {
    val cursor = cursors(d)
    val base = d * n
    while (cursor.next()) {
      val entry = cursor.value
      val tt = entry.time
      stats.comparisons += 2
      if (tt >= lo(base + j) && tt <= hi(base + j) && bind(d, j, entry.row, tt)) return true
    }
    false
  }

  /**
   * Binds `stored` (a row of input j at time tt, inside its period) at depth d: true if the
   * count windows, the filter and (last depth) the refinement or (otherwise) the narrowed
   * periods of the inputs still to probe all admit it.
   */
  private def bind(d: Int, j: Int, stored: AnyRef, tt: Long): Boolean = {
    if (counting) {
      stamps(j) = stored.asInstanceOf[Stamped]
      tuple(j) = stamps(j).row
    } else tuple(j) = stored
    times(j) = tt
    (!counting || countsHold(d)) && passes(d) && (if (d == last) admitted() else narrow(d, j, tt))
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

  /** Time-sorted depth d: the next candidate of input j's slice that binds; false when none. */
  private def advanceSlice(d: Int, j: Int): Boolean = {
    val s = sources(j)
    val base = d * n
    val e = end(d)
    var p = pos(d) + 1
    while (p < e) {
      val tt = s.time(p)
      var inPeriod = true
      if (!forward) { // IsIn(t_k, CurrentPeriod); rows are time-sorted, so stop past the period
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
   * Count-based windows, after binding depth d: every bound member of a counted input is
   * within its input's last k rows as of the newest bound member. A failure is final, since
   * further members can only make the newest member newer.
   */
  private def countsHold(d: Int): Boolean = {
    var newest = stamps(origin)
    var k = 0
    while (k <= d) {
      val s = stamps(order(k))
      if (s.seq > newest.seq) newest = s
      k += 1
    }
    k = -1
    while (k <= d) {
      val j = if (k < 0) origin else order(k)
      if (rowLimit(j) != StreamRows.NoLimit && newest.counts(j) - stamps(j).counts(j) >= rowLimit(j)) return false
      k += 1
    }
    true
  }

  /**
   * Refinement of a complete candidate (after the join predicate, as in paper 000's filter
   * step: a selective predicate spares most candidates the pair tests): the true bounds on the pairs the period matrix is
   * looser on (GCA / LCA), then the excluded matrix (bidirectional: the other direction's
   * combinations, already emitted there).
   */
  private def admitted(): Boolean = {
    var k = 0
    while (k < checkPairs.length) {
      val ij = checkPairs(k)
      stats.comparisons += 1
      if (times(ij / n) - times(ij % n) > truth(ij)) { stats.refineRejections += 1; return false }
      k += 1
    }
    if (excluded != null) {
      var ij = 0
      var inside = true
      while (inside && ij < n * n) {
        val b = excluded(ij)
        if (ij / n != ij % n && b != WindowMatrix.Inf) {
          stats.comparisons += 1
          inside = times(ij / n) - times(ij % n) <= b
        }
        ij += 1
      }
      if (inside) { stats.excluded += 1; return false }
    }
    true
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
        l = math.max(l, minus(tm, c(m * n + j)))
        h = math.min(h, WindowMatrix.add(tm, c(j * n + m)))
        if (l > h) return false
      }
      lo(to + j) = l
      hi(to + j) = h
      k += 1
    }
    true
  }
}

/**
 * A stored row of a W-join with count-based windows: its place in the merge order and the
 * number of rows of each input that had arrived when it did (itself included).
 */
private[core] final class Stamped(val row: AnyRef, val seq: Long, val counts: Array[Long])
