package wjoin.core

import wjoin.core.window.{InputWindow, WindowMemory}

/**
 * The broadcast W-join's evaluation: one input is streamed, every other input is small and
 * held whole, indexed once ([[BroadcastWindows]]) and shared read-only by every probe of an
 * executor; each row of the streamed input probes them as an origin ([[BroadcastProbe]]).
 *
 * {{{
 *   broadcast inputs j != s ──sorted by time──> BroadcastWindows: input j's window holds ALL its
 *                                               rows (hash buckets / time ring), never evicted
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
 * Threads: the windows are written by one thread while built and only read afterwards (bucket
 * lookups, binary searches, fresh range cursors), so any number of probes may share them.
 *
 * @param plan     the engine plan (window matrix, access paths, probe orders); no ROWS windows
 * @param streamed the streamed input s, whose window stays empty
 * @param ranges   the range attributes of stored rows (indexed inputs only)
 * @param memory   the windows' account ([[WindowMemory]]; unaccounted in core tests)
 */
final class BroadcastWindows(plan: EnginePlan, val streamed: Int, ranges: RangeValues,
    val memory: WindowMemory = WindowMemory.Unaccounted) {
  assert(!plan.counting, "a broadcast W-join has no ROWS windows")
  assert(streamed >= 0 && streamed < plan.n, s"streamed input $streamed of ${plan.n}")
  private val n = plan.n
  private val latest = Array.fill(n)(Long.MinValue)

  /** Each input's window: every row of the broadcast inputs; the streamed input's is empty. */
  val windows: Array[InputWindow] = Array.tabulate(n) { j =>
    val attr = plan.indexAttr(j)
    InputWindow(plan, j, row => ranges.value(j, attr, row), memory.account(j))
  }

  /** Rows held, over all inputs. */
  var rows = 0L

  /**
   * Adds a row of broadcast input `input` at `time` with hash key `key` (null when unhashed):
   * each input's rows in non-decreasing time order (the windows are time-sorted rings).
   */
  def add(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    assert(input != streamed, "the streamed input is probed, not held")
    assert(time >= latest(input), s"rows of input $input must come in time order: $time after ${latest(input)}")
    latest(input) = time
    windows(input).insert(key, time, row)
    rows += 1
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
