package wjoin.core.window

/**
 * Hash access path (HW-join, hash MW-join): per-key buckets in arrival order, plus one
 * arrival-ordered queue of bucket references. The oldest row of the input is always the
 * front of the bucket at the front of that queue, so expiring it is O(1) and every bucket
 * is cleaned as time passes, including the rarely probed ones (Hammad et al. Sec. 3.1.2).
 *
 * {{{
 *   arrivals: [b(k1)][b(k2)][b(k1)] ...   one reference per row, oldest first
 *   buckets:  k1 -> [r1, r3, ...]         circular buffers in arrival order
 *             k2 -> [r2, ...]             an emptied bucket is removed
 *   candidates(k) = buckets(k), or null when the window holds no row with key k
 * }}}
 *
 * Integral keys are held in a [[LongBucketMap]] by value, others in a `java.util.HashMap`.
 * Memory: each row (`account.rowBytes`), both rings by capacity, and per key its bucket, the
 * key object and its place in the map ([[WindowFootprint]]), given back when the bucket empties.
 *
 * @param account the window's memory account
 */
final class HashWindow(account: WindowAccount = WindowAccount.None) extends InputWindow {
  private val buckets = new java.util.HashMap[AnyRef, Bucket]()
  // Integral keys (boxed Longs) by their value; a window's keys are all of one class.
  private val longs = new LongBucketMap
  @inline private def find(key: AnyRef): Bucket = key match {
    case l: java.lang.Long => longs.get(l.longValue)
    case _ => buckets.get(key)
  }
  private val arrivals = new TimeSortedBuffer(64, account)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    var bucket = find(key)
    if (bucket == null) {
      bucket = new Bucket(key, account)
      key match { case l: java.lang.Long => longs.put(l.longValue, bucket); case _ => buckets.put(key, bucket) }
      account.resized(WindowFootprint.BucketEntry + account.keyBytes(key))
    }
    bucket.append(time, row)
    arrivals.append(time, bucket)
    account.rowIn(account.rowBytes(row))
  }
  def candidates(key: AnyRef): TimeSortedBuffer = find(key)
  def size: Int = arrivals.size
  def oldestTime: Long = arrivals.oldestTime
  def oldestRow: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].oldestRow
  def oldestKey: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].key
  def bucketCount: Int = buckets.size + longs.size
  def distinctKeys(sample: Int): Long = bucketCount.toLong
  def evictOldest(): Unit = {
    val bucket = arrivals.popOldest().asInstanceOf[Bucket]
    account.rowOut(account.rowBytes(bucket.popOldest()))
    if (bucket.isEmpty) {
      bucket.key match { case l: java.lang.Long => longs.remove(l.longValue); case k => buckets.remove(k) }
      account.resized(-(bucket.footprint + WindowFootprint.BucketEntry + account.keyBytes(bucket.key)))
    }
  }
}

/**
 * A hash bucket: the rows of one key in arrival order.
 *
 * @param key     the equality key every row of the bucket carries
 * @param account the window's memory account (charged for the bucket when it is built)
 */
final class Bucket(val key: AnyRef, account: WindowAccount = WindowAccount.None) extends TimeSortedBuffer(2, account) {
  override protected def footprintOf(capacity: Int): Long = WindowFootprint.bucket(capacity)
}
