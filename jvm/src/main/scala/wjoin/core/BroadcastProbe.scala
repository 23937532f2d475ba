package wjoin.core

import wjoin.core.cost.AccessPath
import wjoin.core.window.{InputWindow, RowLayout, StaticHashWindow, TimeOrder, WindowMemory}

/**
 * The broadcast W-join's evaluation: one input is streamed, every other input is small and
 * held whole, each indexed once ([[BroadcastWindow]]) and shared read-only by every probe of
 * an executor ([[BroadcastWindows]]); each row of the streamed input probes them as an origin
 * ([[BroadcastProbe]]).
 *
 * {{{
 *   broadcast input j != s, any order ──> BroadcastWindow j: ALL its rows (hash buckets laid out
 *                                         flat, each time-sorted / time ring), never evicted; built whole
 *   streamed input s, any order, any partition ── row r at t ──> BroadcastProbe.start(t, key, r)
 *        periods [t - P(s, j), t + P(j, s)] (uncut: members may be older or newer than r),
 *        found by binary search in the time-sorted buckets ──> ProbeEnumerator ──> combinations
 * }}}
 *
 * Semantics: the W-join's definition, unchanged. A combination (r_0 .. r_N-1) is emitted iff
 * ts_i - ts_j <= upper(i, j) for all i, j (inclusive) and the filter holds. It has exactly one
 * member of the streamed input s, found when that member is the origin: so each combination is
 * emitted exactly once, whichever partition holds that row and in whatever order the rows of s
 * come; no window slides, and no row of s needs another row of s.
 *
 * What it cannot evaluate (the planner keeps the shuffled plans there): ROWS windows (which
 * rows are the last k of an input depends on the arrivals of the others), anchored W-joins (an
 * anchor row of a broadcast input would be decided in every partition), resource limits.
 * Ordered indexes (T-tree / B+tree) work, but over a whole input rather than a window, so the
 * planner broadcasts only hash and scan paths.
 *
 * Threads: a window is written by one thread while built and only read afterwards (bucket
 * lookups, binary searches, fresh range cursors), so any number of probes may share it, and
 * the windows of different inputs may be built at the same time by different threads.
 *
 * @param plan     the engine plan (window matrix, access paths, probe orders); no ROWS windows
 * @param input    the broadcast input j whose window this is
 * @param ranges   the range attributes of stored rows (indexed inputs only)
 * @param memory   the window's account ([[WindowMemory]]; unaccounted in core tests)
 * @param keys     each row's hash key (null when unhashed; a hashed plan gives none null)
 * @param times    each row's time
 * @param rows     the input's rows that can join, in any order, as stored
 * @param layout   where the window keeps its rows, in the order it reads them ([[RowLayout]])
 */
final class BroadcastWindow(plan: EnginePlan, val input: Int, ranges: RangeValues, val memory: WindowMemory,
    keys: Array[AnyRef], times: Array[Long], rows: Array[AnyRef], layout: RowLayout = RowLayout.AsTheyAre) {
  assert(!plan.counting, "a broadcast W-join has no ROWS windows")
  assert(keys.length == rows.length && times.length == rows.length, "a key and a time per row")

  /**
   * Every row, in the structure of the input's access path: a hash path's buckets laid out flat
   * and each sorted by time ([[StaticHashWindow]]), any other path's window filled row by row
   * in time order ([[TimeOrder]], ties in the given order).
   */
  val window: InputWindow =
    if (plan.accessPath(input) == AccessPath.Hash) StaticHashWindow(keys, times, rows, memory.account(input), layout)
    else {
      val attr = plan.indexAttr(input)
      val w = InputWindow(plan, input, row => ranges.value(input, attr, row), memory.account(input))
      val order = TimeOrder.of(times)
      val inOrder = order.map(rows(_))
      layout.lay(inOrder, inOrder.length)
      var k = 0
      while (k < order.length) { w.insert(keys(order(k)), times(order(k)), inOrder(k)); k += 1 }
      w
    }

  /** Rows held. */
  def size: Int = window.size
}

/**
 * The windows a [[BroadcastProbe]] searches: every broadcast input's [[BroadcastWindow]], and
 * an empty one for the streamed input (never probed: its rows are the origins).
 *
 * @param plan      the engine plan
 * @param streamed  the streamed input s
 * @param broadcast the window of every input but s
 */
final class BroadcastWindows(plan: EnginePlan, val streamed: Int, broadcast: Seq[BroadcastWindow]) {
  assert(streamed >= 0 && streamed < plan.n, s"streamed input $streamed of ${plan.n}")
  assert(broadcast.map(_.input).sorted == (0 until plan.n).filter(_ != streamed),
    s"one window for each input but $streamed, got inputs ${broadcast.map(_.input).mkString(", ")}")

  val windows: Array[InputWindow] = Array.tabulate(plan.n) { j =>
    if (j == streamed) InputWindow(plan, j, _ => 0L) else broadcast.find(_.input == j).get.window
  }
}

/**
 * One task's probes of shared [[BroadcastWindows]] (see there for the semantics): its own
 * enumeration state, filter, refinement and counters over the shared windows.
 *
 * Protocol: `start(t, key, row)` for a row of the streamed input (its stored form), then
 * `next()` until false; `tuple` and `times` hold the combination after each true.
 *
 * @param plan   the plan the windows were built for
 * @param shared the broadcast inputs' windows
 * @param filter non-window predicate, tested as soon as its inputs are bound
 * @param ranges the range attributes of stored rows, for indexed inputs
 */
final class BroadcastProbe(plan: EnginePlan, shared: BroadcastWindows, filter: TupleFilter, ranges: RangeValues) {
  val stats = new JoinStats(plan.n)
  private val probe = new ProbeEnumerator(plan, filter, ranges, shared.windows, stats, null,
    new Refinement(plan, stats), PeriodShape.Broadcast)
  private val streamed = shared.streamed

  /** The current combination, indexed by input; valid after next() returned true. */
  val tuple: Array[AnyRef] = probe.tuple
  val times: Array[Long] = probe.times

  /** Opens the combinations of a streamed row at `time` with hash key `key` (null when unhashed). */
  def start(time: Long, key: AnyRef, row: AnyRef): Unit = probe.start(streamed, time, key, row)

  /** The next combination of the started row; false when it has no more. */
  def next(): Boolean = probe.next()
}
