package wjoin.core.window

/**
 * Hash access path (HW-join, hash MW-join): per-key buckets in arrival order, plus one
 * arrival-ordered queue of bucket references. The oldest row of the input is always the
 * front of the bucket at the front of that queue, so expiring it is O(1) and every bucket
 * is cleaned as time passes, including the rarely probed ones (Hammad et al. Sec. 3.1.2).
 *
 * {{{
 *   arrivals: [b(k1)][b(k2)][b(k1)] ...   one reference per row, oldest first
 *   buckets:  k1 -> [r1, r3, ...]         circular buffers in arrival order, found through
 *             k2 -> [r2, ...]             the engine's KeyDirectory (slot `input` of k's entry);
 *                                         an emptied bucket is removed
 *   candidates(k) = bucket of k, or null when the window holds no row with key k
 * }}}
 *
 * Memory: each row (`account.rowBytes`), both rings by capacity, and per key its bucket, the
 * key object and its share of the directory's entry ([[WindowFootprint]]: the map's node and the
 * entry array, charged by every window with a bucket of the key), given back when the bucket
 * empties.
 *
 * @param account   the window's memory account
 * @param directory the key -> buckets map shared by the engine's hash windows (a window's own
 *                  by default)
 * @param input     this window's slot in the directory's entries
 */
final class HashWindow(account: WindowAccount = WindowAccount.None, directory: KeyDirectory = new KeyDirectory(1),
    input: Int = 0) extends InputWindow {
  assert(input >= 0 && input < directory.n, s"slot $input of a directory of ${directory.n}")
  private val arrivals = new TimeSortedBuffer(64, account)
  private val entryBytes = WindowFootprint.BucketEntry + WindowFootprint.array(directory.n, WindowFootprint.Ref)
  private var buckets = 0
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    val entry = directory.entryFor(key)
    var bucket = entry(input)
    if (bucket == null) {
      bucket = new Bucket(key, entry, account)
      entry(input) = bucket
      buckets += 1
      account.resized(entryBytes + account.keyBytes(key))
    }
    bucket.append(time, row)
    arrivals.append(time, bucket)
    account.rowIn(account.rowBytes(row))
  }
  def candidates(key: AnyRef): TimeSortedBuffer = directory.bucket(key, input)
  def size: Int = arrivals.size
  def oldestTime: Long = arrivals.oldestTime
  def oldestRow: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].oldestRow
  def oldestKey: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].key
  def bucketCount: Int = buckets
  def distinctKeys(sample: Int): Long = buckets.toLong
  def evictOldest(): Unit = {
    val bucket = arrivals.popOldest().asInstanceOf[Bucket]
    account.rowOut(account.rowBytes(bucket.popOldest()))
    if (bucket.isEmpty) {
      directory.emptied(bucket.key, bucket.entry, input)
      buckets -= 1
      account.resized(-(bucket.footprint + entryBytes + account.keyBytes(bucket.key)))
    }
  }
}

/**
 * A hash bucket: the rows of one key in arrival order.
 *
 * @param key     the equality key every row of the bucket carries
 * @param entry   the key's entry in the [[KeyDirectory]] (its slots of every input)
 * @param account the window's memory account (charged for the bucket when it is built)
 */
final class Bucket(val key: AnyRef, val entry: Array[Bucket], account: WindowAccount = WindowAccount.None)
    extends TimeSortedBuffer(2, account) {
  override protected def footprintOf(capacity: Int): Long = WindowFootprint.bucket(capacity)
}
