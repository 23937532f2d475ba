package wjoin.core.window

import wjoin.core.cost.AccessPath
import wjoin.core.EnginePlan
import wjoin.core.index.{RangeCursor, RangeWindow}

/**
 * The window of one input: the rows that can still join, in arrival (= event-time) order,
 * held in the structure of the input's access path (its own, independently of the other
 * inputs' windows):
 *
 * {{{
 *   Scan      ScanWindow     one ring buffer, every probe scans it (NLW-join)
 *   Hash      HashWindow     per-key ring buffers + one arrival ring of bucket references
 *   TTree     IndexedWindow  ring of entries + T-tree on one range attribute
 *   BPlusTree IndexedWindow  ring of entries + B+tree on one range attribute
 *   HashTTree, HashBPlusTree
 *             KeyedRangeWindow  per-key buckets, each a ring of entries + a tree on the range
 *                               attribute, + one arrival ring of bucket references
 * }}}
 *
 * `candidates(key)` is what a probe scans: the whole window for a scan access path, the key's
 * bucket for a hash access path; an indexed window ([[IndexedWindow]]) is probed by range
 * instead (`probe`), and `candidates` is not defined for it. Every window expires oldest
 * first (`evictOldest`), which is all the eviction rules of the engine need.
 */
abstract class InputWindow {
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit
  /** Rows a probe with this key must look at, or null when there are none. */
  def candidates(key: AnyRef): TimeSortedBuffer
  /**
   * [[candidates]] for a probe that owns `view`, a buffer from this window's [[newView]] (or
   * null): a window built whole ([[StaticHashWindow]]) re-points the view at the key's rows
   * rather than handing out an object per bucket, one memory read fewer per probe.
   */
  def candidatesIn(key: AnyRef, view: TimeSortedBuffer): TimeSortedBuffer = candidates(key)
  /** A buffer for [[candidatesIn]], owned by one probe; null when the window has no use for one. */
  def newView(): TimeSortedBuffer = null
  def size: Int
  def oldestTime: Long
  def oldestRow: AnyRef
  def oldestKey: AnyRef
  def evictOldest(): Unit
  /**
   * Distinct keys among the window's rows, for planning (a statistic, not a result): exact
   * where the rows are bucketed, else estimated from at most `sample` keys; -1 without keys.
   */
  def distinctKeys(sample: Int): Long
}

object InputWindow {
  /**
   * The window of input j as `plan.accessPath(j)` asks for. `rangeOf` reads the range
   * attribute the plan indexes j on ([[EnginePlan.indexAttr]]) from a row as stored; the
   * window charges what it holds to `account` ([[WindowMemory]]).
   */
  def apply(plan: EnginePlan, j: Int, rangeOf: AnyRef => Long, account: WindowAccount = WindowAccount.None): InputWindow =
    plan.accessPath(j) match {
      case AccessPath.Hash => new HashWindow(account)
      case AccessPath.Scan => new ScanWindow(plan.hashed, account)
      case keyed if keyed.bucketsByKey =>
        KeyedRangeWindow(keyed.tree.contains(AccessPath.TTree), math.min(plan.nodeSize, AccessPath.KeyedNodeSize), rangeOf, account)
      case path =>
        val range = if (path == AccessPath.TTree) RangeWindow.tTree(plan.nodeSize, account)
          else RangeWindow.bPlusTree(plan.nodeSize, account)
        new IndexedWindow(range, rangeOf, plan.hashed, account)
    }
}

/**
 * A window probed by range ([[IndexedWindow]], [[KeyedRangeWindow]]) rather than scanned: the
 * engine's indexed depths call `probe` with the origin's key (all inputs share it when the plan
 * is keyed) and the intersected range of the bound sources.
 */
abstract class RangeProbedWindow extends InputWindow {
  /** Rows with range attribute in [lo, hi] (inclusive), in attribute order (of `key` only where bucketed); null for none. */
  def probe(key: AnyRef, lo: Long, hi: Long): RangeCursor[RangeWindow.Entry]
  /** The window may hold a row a probe with `key` finds (false: it surely holds none). */
  def holds(key: AnyRef): Boolean
}

/**
 * The keys of a window that does not bucket its rows, in arrival order beside them (when
 * `enabled`: a keyed plan where other inputs are hashed), so forward evaluation can probe the
 * hashed windows with the oldest row's key. Rows leave oldest first, so key and row stay paired.
 *
 * @param enabled keep the keys (else every method is a no-op and `oldest` is null)
 * @param account the window's memory account: the ring and each key object
 */
private[window] final class ArrivalKeys(enabled: Boolean, account: WindowAccount) {
  private val keys = if (enabled) new TimeSortedBuffer(64, account) else null
  def append(time: Long, key: AnyRef): Unit = if (keys != null) {
    keys.append(time, key)
    account.resized(account.keyBytes(key))
  }
  def oldest: AnyRef = if (keys == null) null else keys.oldestRow
  def popOldest(): Unit = if (keys != null) account.resized(-account.keyBytes(keys.popOldest()))

  /**
   * Distinct keys among at most `sample` keys taken evenly over the window, scaled up only
   * where the sample hardly repeats (d distinct of s sampled: d when d <= s / 2, which is then
   * close to all the keys; else d x size / s, as if the unseen rows were as varied). -1 when
   * the keys are not kept.
   */
  def distinct(sample: Int): Long = {
    if (keys == null) return -1L
    val size = keys.size
    if (size == 0) return 0L
    val stride = math.max(1, size / math.max(1, sample))
    val seen = new java.util.HashSet[AnyRef]()
    var i = 0
    var taken = 0
    while (i < size) { val k = keys.row(i); if (k != null) seen.add(k); taken += 1; i += stride }
    val d = seen.size.toLong
    if (stride == 1 || 2 * d <= taken) d else math.min(size.toLong, d * size / taken)
  }
}
