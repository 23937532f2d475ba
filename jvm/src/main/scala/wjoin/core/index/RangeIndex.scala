package wjoin.core.index

/**
 * An in-memory ordered index over a `Long` range attribute, the access path of an input
 * window for band and inequality predicates (`abs(A.x - B.x) <= d`, `A.x < B.x`,
 * `A.pos BETWEEN B.pos - 5 AND B.pos + 5`): every such predicate becomes one inclusive key
 * range `[lo, hi]` per probe (`A.x < B.x` is `[Long.MinValue, B.x - 1]`).
 *
 * Entries are `(key, value)` pairs; equal keys are allowed and are kept in insertion order.
 * That is what makes window expiration cheap: a window expires its rows oldest first (by
 * time, not by key), so the row being expired is the *first* entry of its key, and
 * `delete(key, value)` finds it right at the lower bound of `key` without scanning the
 * other duplicates.
 *
 * Implementations: [[TTree]] (Lehman & Carey, as used by Kang et al.) and [[BPlusTree]].
 */
trait RangeIndex[T] {

  /** Number of entries. */
  def size: Int

  final def isEmpty: Boolean = size == 0

  /** Adds `(key, value)` after every entry with the same key (arrival order among ties). */
  def insert(key: Long, value: T): Unit

  /**
   * Removes the first entry (in key, then insertion order) with this key whose value equals
   * `value` (`==`); returns false when there is none. Cost: one descent plus the entries of
   * the same key inserted before the removed one, so expiring the oldest row is one descent.
   */
  def delete(key: Long, value: T): Boolean

  /** Calls `visit` for every entry with `lo <= key <= hi`, in key then insertion order. */
  def foreachInRange(lo: Long, hi: Long)(visit: (Long, T) => Unit): Unit

  /**
   * A resumable probe over `[lo, hi]` (inclusive) for callers that cannot take a callback,
   * such as the engine's enumeration, which stops after each combination. The cursor is
   * valid until the next insert or delete on this index.
   */
  def cursor(lo: Long, hi: Long): RangeCursor[T]
}

/**
 * Position of a probe inside a [[RangeIndex]]: `next()` moves to the following entry of
 * the range and returns false after the last one; `key` and `value` are those of the
 * current entry (valid after `next()` returned true).
 */
trait RangeCursor[T] {
  def next(): Boolean
  def key: Long
  def value: T
}
