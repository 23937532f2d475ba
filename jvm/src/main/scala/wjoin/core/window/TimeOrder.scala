package wjoin.core.window

/**
 * The order of rows by time, for windows built whole from rows in any order (the broadcast
 * W-join's, whose index every executor's tasks wait for): primitive sorts where they can be.
 */
object TimeOrder {
  private val DigitBits = 11
  /** LSD radix passes at most: spans of up to 44 bits (about 200 days in microseconds). */
  private val MaxPasses = 4
  /** Rows from which a radix sort pays for its 2048 counters per pass. */
  private val RadixRows = 4096

  /**
   * Indices of `times` in non-decreasing time order (ties in index order): none moved when
   * already sorted; else, from 4096 rows, a stable LSD radix sort of (time - min) in 11-bit
   * digits when the span needs at most four of them; else one primitive sort of
   * (time - min) << bits | index when the span and the count fit in 63 bits together; else a
   * generic stable sort.
   */
  def of(times: Array[Long]): Array[Int] = {
    val m = times.length
    var sorted = true
    var min = if (m == 0) 0L else times(0)
    var max = min
    var k = 1
    while (k < m) {
      val t = times(k)
      sorted &&= times(k - 1) <= t
      if (t < min) min = t
      if (t > max) max = t
      k += 1
    }
    if (sorted) return Array.range(0, m)
    val span = max - min // negative when it overflows
    val spanBits = if (span < 0) 64 else 64 - java.lang.Long.numberOfLeadingZeros(span)
    if (m >= RadixRows && spanBits <= DigitBits * MaxPasses) return radix(times, min, spanBits)
    val bits = 32 - Integer.numberOfLeadingZeros(math.max(1, m - 1))
    if (spanBits + bits > 63) return Array.range(0, m).sortBy(times(_))
    val packed = new Array[Long](m)
    k = 0
    while (k < m) { packed(k) = ((times(k) - min) << bits) | k; k += 1 }
    java.util.Arrays.sort(packed)
    val mask = (1L << bits) - 1
    val order = new Array[Int](m)
    k = 0
    while (k < m) { order(k) = (packed(k) & mask).toInt; k += 1 }
    order
  }

  /** Stable LSD radix sort of the offsets time - min (`spanBits` wide), carrying each index. */
  private def radix(times: Array[Long], min: Long, spanBits: Int): Array[Int] = {
    val m = times.length
    var keys = new Array[Long](m)
    var order = new Array[Int](m)
    var k = 0
    while (k < m) { keys(k) = times(k) - min; order(k) = k; k += 1 }
    var nextKeys = new Array[Long](m)
    var nextOrder = new Array[Int](m)
    val starts = new Array[Int](1 << DigitBits)
    val digit = (1 << DigitBits) - 1
    var shift = 0
    while (shift < spanBits) {
      java.util.Arrays.fill(starts, 0)
      k = 0
      while (k < m) { starts(((keys(k) >>> shift) & digit).toInt) += 1; k += 1 }
      var sum = 0
      var d = 0
      while (d < starts.length) { val c = starts(d); starts(d) = sum; sum += c; d += 1 }
      k = 0
      while (k < m) {
        val d = ((keys(k) >>> shift) & digit).toInt
        val p = starts(d)
        nextKeys(p) = keys(k)
        nextOrder(p) = order(k)
        starts(d) = p + 1
        k += 1
      }
      val (ks, os) = (keys, order)
      keys = nextKeys; order = nextOrder; nextKeys = ks; nextOrder = os
      shift += DigitBits
    }
    order
  }
}
