package wjoin.core.window

import wjoin.core.index.{RangeCursor, RangeWindow}

/**
 * Keyed range access path (`hash+ttree`, `hash+bplustree`): hash buckets on the shared
 * equality key, each bucket a [[wjoin.core.index.RangeWindow]] (its rows in arrival order plus a
 * T-tree or B+tree on the range attribute), and one arrival ring of bucket references, as in
 * [[HashWindow]]. A probe for `same key AND lo <= x <= hi` looks up one bucket and searches it
 * by range, so it touches only rows of its key inside its band, however few keys there are.
 *
 * {{{
 *   arrivals: [b(k1)][b(k2)][b(k1)] ...      one reference per row, oldest first
 *   buckets:  k1 -> RangeWindow(ring of entries + tree on x)
 *             k2 -> RangeWindow(...)         an emptied bucket is removed
 *   probe(k, lo, hi) = buckets(k).probe(lo, hi), candidates in x order
 * }}}
 *
 * The oldest row of the input is the oldest of the bucket at the front of the ring, so
 * expiring it is one ring pop plus one tree descent in that bucket. Candidates come in
 * attribute order, not time order: the engine tests both period bounds on each (as for
 * [[IndexedWindow]]).
 *
 * Memory: each row (`account.rowBytes`) with its entry and index slot
 * ([[WindowFootprint.IndexedEntry]]); per key its bucket ([[WindowFootprint.keyedBucket]]: the
 * objects, a first tree node, the map entry, the key) and its ring by capacity; the arrival
 * ring by capacity. A bucket's charge is given back when its last row expires.
 *
 * @param newRange a new, empty bucket: a RangeWindow over a T-tree or B+tree (its ring charged to `account`)
 * @param nodeSize entries per node or leaf of the buckets' trees (for the charge per bucket)
 * @param rangeOf  the indexed range attribute of a row as stored
 * @param account  the window's memory account
 */
final class KeyedRangeWindow(newRange: () => RangeWindow, nodeSize: Int, rangeOf: AnyRef => Long,
    account: WindowAccount = WindowAccount.None) extends RangeProbedWindow {
  private val buckets = new java.util.HashMap[AnyRef, KeyedRangeWindow.KeyBucket]()
  private val arrivals = new TimeSortedBuffer(64, account)
  private val bucketBytes = WindowFootprint.keyedBucket(nodeSize)

  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    var bucket = buckets.get(key)
    if (bucket == null) {
      bucket = new KeyedRangeWindow.KeyBucket(key, newRange())
      buckets.put(key, bucket)
      account.resized(bucketBytes + account.keyBytes(key))
    }
    bucket.range.insert(rangeOf(row), time, row)
    arrivals.append(time, bucket)
    account.rowIn(account.rowBytes(row) + WindowFootprint.IndexedEntry)
  }

  def candidates(key: AnyRef): TimeSortedBuffer =
    throw new UnsupportedOperationException("a keyed range window is probed by key and range, not scanned")

  /** Rows of `key` whose range attribute is in [lo, hi] (inclusive), in attribute order; null if the key has none. */
  def probe(key: AnyRef, lo: Long, hi: Long): RangeCursor[RangeWindow.Entry] = {
    val bucket = buckets.get(key)
    if (bucket == null) null else bucket.range.probe(lo, hi)
  }

  /** Rows of `key` in the window. */
  def bucketSize(key: AnyRef): Int = { val b = buckets.get(key); if (b == null) 0 else b.range.size }

  def holds(key: AnyRef): Boolean = buckets.containsKey(key)
  def size: Int = arrivals.size
  def oldestTime: Long = arrivals.oldestTime
  private def oldestBucket: KeyedRangeWindow.KeyBucket = arrivals.oldestRow.asInstanceOf[KeyedRangeWindow.KeyBucket]
  def oldestRow: AnyRef = oldestBucket.range.oldestRow
  def oldestKey: AnyRef = oldestBucket.key
  def bucketCount: Int = buckets.size
  def distinctKeys(sample: Int): Long = buckets.size.toLong

  def evictOldest(): Unit = {
    val bucket = arrivals.popOldest().asInstanceOf[KeyedRangeWindow.KeyBucket]
    account.rowOut(account.rowBytes(bucket.range.oldestRow) + WindowFootprint.IndexedEntry)
    bucket.range.evictOldest()
    if (bucket.range.isEmpty) {
      buckets.remove(bucket.key)
      account.resized(-(bucket.range.ringFootprint + bucketBytes + account.keyBytes(bucket.key)))
    }
  }
}

object KeyedRangeWindow {
  /** One key's rows: the key and its ring of entries with the tree over them. */
  private final class KeyBucket(val key: AnyRef, val range: RangeWindow)

  /**
   * The window of a keyed range path over a T-tree (`tTree`) or a B+tree, with trees of
   * `nodeSize` entries per node or leaf and rings of 2 slots at first (a key may hold one row).
   */
  def apply(tTree: Boolean, nodeSize: Int, rangeOf: AnyRef => Long, account: WindowAccount = WindowAccount.None): KeyedRangeWindow =
    new KeyedRangeWindow(() => if (tTree) RangeWindow.tTree(nodeSize, account, 2) else RangeWindow.bPlusTree(nodeSize, account, 2),
      nodeSize, rangeOf, account)
}
