package wjoin.core.index

/**
 * The entries of a T-tree node or a B+tree leaf: `count` keys in ascending order in a
 * primitive array (equal keys in insertion order), with their values in a parallel array.
 * Both trees search and shift these the same way; they differ in how nodes are linked.
 */
private[index] trait SortedSlots {
  def keys: Array[Long]
  def values: Array[AnyRef]
  var count: Int

  /** First index whose key is >= k (count if none). */
  final def lowerBound(k: Long): Int = {
    var lo = 0
    var hi = count
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (keys(mid) < k) lo = mid + 1 else hi = mid }
    lo
  }

  /** First index whose key is > k (count if none). */
  final def upperBound(k: Long): Int = {
    var lo = 0
    var hi = count
    while (lo < hi) { val mid = (lo + hi) >>> 1; if (keys(mid) <= k) lo = mid + 1 else hi = mid }
    lo
  }

  /** Index of the first entry equal to (k, v) (`v.equals`: identity for a window's entries), or -1. */
  final def indexOf(k: Long, v: AnyRef): Int = {
    var i = lowerBound(k)
    // equals, not Scala's ==: that goes through BoxesRunTime's numeric equality on every entry.
    while (i < count && keys(i) == k) { if (v.equals(values(i))) return i; i += 1 }
    -1
  }

  final def insertAt(i: Int, k: Long, v: AnyRef): Unit = {
    System.arraycopy(keys, i, keys, i + 1, count - i)
    System.arraycopy(values, i, values, i + 1, count - i)
    keys(i) = k
    values(i) = v
    count += 1
  }

  final def removeAt(i: Int): Unit = {
    System.arraycopy(keys, i + 1, keys, i, count - i - 1)
    System.arraycopy(values, i + 1, values, i, count - i - 1)
    count -= 1
    values(count) = null // no stale reference keeps an expired row alive
  }
}
