package wjoin.core.window

/**
 * The one key -> buckets map of an engine's hash windows ([[HashWindow]]): every input of a
 * hashed plan shares the key (Hammad et al. Sec. 3.1.2, the HW-join's buckets), so one entry
 * per key holds each input's bucket of it, and a row's work (its probes of the other inputs'
 * windows, then its own insert) finds them all with one lookup.
 *
 * {{{
 *   entries:  k1 -> [bucket_A(k1), null,         bucket_C(k1)]   one slot per input
 *             k2 -> [null,         bucket_B(k2), null        ]   removed when every slot is null
 *   last:     (key, entry) of the latest lookup, hit or miss, compared by reference: the engine
 *             passes one key object to every probe and the insert of a row
 * }}}
 *
 * With one map per input, a row of N inputs cost N lookups (N - 1 probes and an insert), each
 * a few cache misses once the keys outgrow the caches (a million keys: 3 x 400k rows took
 * 2.7 s, 43% of the join's time in `HashMap.get`).
 *
 * The cache stays true: an entry is only added through [[entryFor]], which caches it, and the
 * removal of the cached entry clears it; a cached miss (null) is replaced by the entry when one
 * is added for its key (again through [[entryFor]]).
 *
 * Memory: each window charges its share when its bucket of a key is made ([[HashWindow]]):
 * together at least the map's node, the entry array and the key, which exist once per key.
 *
 * @param n inputs (slots per entry)
 */
final class KeyDirectory(val n: Int) {
  private val entries = new java.util.HashMap[AnyRef, Array[Bucket]]()
  private var lastKey: AnyRef = KeyDirectory.NoKey
  private var last: Array[Bucket] = null

  /** The buckets of `key` by input, or null when no window holds a row with it. */
  def find(key: AnyRef): Array[Bucket] = {
    if (key eq lastKey) return last
    val entry = entries.get(key)
    lastKey = key
    last = entry
    entry
  }

  /** Input j's bucket of `key`, or null. */
  def bucket(key: AnyRef, j: Int): Bucket = {
    val entry = find(key)
    if (entry == null) null else entry(j)
  }

  /** The entry of `key`, made (with every slot empty) when there is none. */
  def entryFor(key: AnyRef): Array[Bucket] = {
    var entry = find(key)
    if (entry == null) {
      entry = new Array[Bucket](n)
      entries.put(key, entry)
      last = entry
    }
    entry
  }

  /** Input j's bucket of `entry` (the entry of `key`) emptied: the entry goes when it was the last. */
  def emptied(key: AnyRef, entry: Array[Bucket], j: Int): Unit = {
    entry(j) = null
    var i = 0
    while (i < n) { if (entry(i) != null) return; i += 1 }
    entries.remove(key)
    if (last eq entry) { lastKey = KeyDirectory.NoKey; last = null }
  }

  /** Keys with a bucket in some window. */
  def size: Int = entries.size
}

object KeyDirectory {
  /** No key: the cache's reference before any lookup and after its entry was removed. */
  private val NoKey = new Object
}
