package wjoin.core

import scala.collection.mutable

/**
 * Band-join partitioning of a W-join by event time (DeWitt, Naughton, Schneider's band join,
 * cited by Hammad et al.), for W-joins with no equality key shared by all inputs.
 *
 * The time line is cut into k bands by boundaries L_1 < L_2 < ... < L_(k-1):
 * {{{
 *   band 0 = [Long.MinValue, L_1 - 1],  band b = [L_b, L_(b+1) - 1],  band k-1 = [L_(k-1), Long.MaxValue]
 * }}}
 * '''Ownership.''' A combination (r_1..r_N) with earliest time e = min_i ts_i is produced by
 * exactly one band: the band containing e. No combination is produced twice, because e is one
 * value and the bands do not overlap.
 *
 * '''Reach.''' If e is the earliest time of an admitted combination and k its earliest member,
 * every member j satisfies e <= ts_j <= e + upper(j, k), so ts_j - e is in [0, reach(j)] with
 * {{{
 *   reach(j) = max(0, max over i != j of upper(j, i))     (inclusive; finite for a closed matrix)
 * }}}
 * '''Replication.''' So the band owning e must see every row of input j with time t in
 * [e, e + reach(j)]; equivalently a row of input j at time t is sent to every band b that
 * intersects [t - reach(j), t] (inclusive), i.e. bands bandOf(t - reach(j)) .. bandOf(t). A band
 * therefore holds only rows with t >= its lower bound L_b: the lower side of the ownership
 * test holds by construction, and a band has only to drop the combinations whose earliest
 * member is at or after its upper bound, L_(b+1) (all their members are replicas, rows that band
 * b+1 or later owns).
 *
 * '''Width.''' If every inner band is at least `reach(j)` wide, [t - reach(j), t] meets at
 * most 2 bands, so each row is sent to at most 2 bands. [[TimeBands.fromSample]] enforces
 * width >= max(1, max_j reach(j)) and otherwise places boundaries at equal-depth quantiles of
 * a sample of event times, so a burst in time does not put all rows into one band. A band
 * cannot be narrower than one time unit: all rows at one instant, and the combinations whose
 * earliest member is at that instant, stay in one band (one task).
 *
 * @param boundaries L_1 < ... < L_(k-1), the first time of bands 1 .. k-1 (empty: one band)
 * @param reach      per input j, reach(j) >= 0: how much later than a combination's earliest
 *                   member a member of input j can be
 */
final class TimeBands(val boundaries: Array[Long], val reach: Array[Long]) extends Serializable {
  assert(boundaries.indices.drop(1).forall(i => boundaries(i - 1) < boundaries(i)),
    s"band boundaries must increase strictly: ${boundaries.mkString(", ")}")
  // Boundaries are sampled times after the first one, so above Long.MinValue: lastOf never wraps.
  assert(boundaries.headOption.forall(_ > Long.MinValue), "a band boundary cannot be Long.MinValue")
  assert(reach.forall(r => r >= 0 && r != WindowMatrix.Inf),
    s"every input's reach must be finite and >= 0, got ${reach.mkString(", ")}")

  /** Number of bands, k >= 1. */
  def count: Int = boundaries.length + 1

  /** The band containing time t: the number of boundaries <= t. */
  def bandOf(t: Long): Int = {
    var lo = 0
    var hi = boundaries.length
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (boundaries(mid) <= t) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** First time of band b (inclusive); Long.MinValue for band 0. */
  def lowerOf(b: Int): Long = if (b == 0) Long.MinValue else boundaries(b - 1)

  /**
   * Last time of band b (inclusive): the next band's first time - 1; Long.MaxValue for the last
   * band (b >= count - 1), which holds the times up to and including Long.MaxValue. (An exclusive
   * bound would leave no value for the last band: a combination at Long.MaxValue had no owner.)
   */
  def lastOf(b: Int): Long = if (b >= boundaries.length) Long.MaxValue else boundaries(b) - 1

  /** The first band a row of input j at time t is sent to: bandOf(t - reach(j)), saturating. */
  def firstBand(j: Int, t: Long): Int = {
    val r = reach(j)
    bandOf(SaturatingTime.minus(t, r))
  }

  /** The last band a row at time t is sent to: its own, bandOf(t). */
  def lastBand(t: Long): Int = bandOf(t)

  /** Does band b produce the combination with these member times (is its earliest time in b)? */
  def owns(b: Int, times: Array[Long]): Boolean = {
    val e = TimeBands.earliest(times)
    e >= lowerOf(b) && e <= lastOf(b)
  }

  override def toString: String = s"TimeBands(boundaries=[${boundaries.mkString(", ")}], reach=[${reach.mkString(", ")}])"
}

object TimeBands {
  /** A combination's earliest member time, min over `times` (non-empty): what decides its band. */
  def earliest(times: Array[Long]): Long = {
    var e = times(0)
    var i = 1
    while (i < times.length) { if (times(i) < e) e = times(i); i += 1 }
    e
  }

  /** Per input j: max(0, max over i != j of upper(j, i)); [[WindowMatrix.Inf]] where unbounded. */
  def reach(m: WindowMatrix): Array[Long] =
    Array.tabulate(m.n)(j => math.max(0L, (0 until m.n).filter(_ != j).map(m.upper(j, _)).max))

  /** Can the matrix be banded? Only if every reach is finite (always so for a closed matrix). */
  def applicable(m: WindowMatrix): Boolean = reach(m).forall(_ != WindowMatrix.Inf)

  /** The least width of an inner band: max(1, max_j reach(j)), so a row goes to at most 2 bands. */
  def minWidth(m: WindowMatrix): Long = math.max(1L, reach(m).max)

  /**
   * How many bands to cut about `rows` rows into: one per `rowsPerBand` rows, but at least
   * `slots` (the cores that would otherwise idle) and at most `maxBands`, and at least 1.
   * {{{
   *   k = min(maxBands, max(slots, ceil(rows / rowsPerBand)))
   * }}}
   * A band is a task with a cost of its own besides its rows (a shuffle read, a sort, an engine
   * and its windows, the rows replicated at its edges): on 2 cores, 3 x 200,000 rows of a long band
   * took 3.5 s in 200 bands and 1.4 s in 2 to 4; 3 x 1,000,000 rows 5.4-7.0 s in 200 and 4.1-4.5 s
   * in 2 to 30.
   */
  def countFor(rows: Double, rowsPerBand: Long, slots: Int, maxBands: Int): Int = {
    assert(rowsPerBand >= 1, s"rows per band must be at least 1, got $rowsPerBand")
    val byRows = math.min(math.ceil(math.max(0.0, rows) / rowsPerBand), Int.MaxValue.toDouble).toInt
    math.max(1, math.min(maxBands, math.max(slots, byRows)))
  }

  /** One band: everything in one partition. */
  def single(m: WindowMatrix): TimeBands = new TimeBands(Array.emptyLongArray, reach(m))

  /**
   * Equal-depth bands from a weighted sample of event times.
   *
   * Distinct sampled times d_0 < d_1 < ... are scanned in order; with W the sample's total
   * weight, a band that starts at s (weight before it: c_s) has the target weight
   * T = (W - c_s) / (bands still to place). With w_in = weight of the sampled times in [s, d_m)
   * and w_m that of d_m, the band is closed at d_m, which becomes the next boundary, as soon as
   * {{{
   *   (w_in >= T  or  T - w_in < w_in + w_m - T)   and   d_m - s >= minWidth
   * }}}
   * i.e. at the boundary whose weight is nearest the target (the first band starts at -inf: no
   * width rule). So a burst (one instant of large weight) starts a band of its own instead of
   * joining the rows before it, and after it the target is recomputed from the weight that
   * remains, so the rest of the data is still spread over the remaining bands.
   *
   * @param times    sampled event times (any order)
   * @param weights  weight of each sampled time (rows it stands for), > 0
   * @param maxBands at most this many bands (>= 1)
   * @param matrix   the closed window matrix: gives reach and the least band width
   */
  def fromSample(times: Array[Long], weights: Array[Double], maxBands: Int, matrix: WindowMatrix): TimeBands = {
    assert(maxBands >= 1, s"the number of time bands must be at least 1, got $maxBands")
    assert(times.length == weights.length, "one weight per sampled time")
    val width = minWidth(matrix)
    if (maxBands == 1 || times.isEmpty) return single(matrix)
    val order = window.TimeOrder.of(times) // primitive: the sample holds up to 3 x 1e6 times
    val distinct = mutable.ArrayBuilder.make[Long]
    val weight = mutable.ArrayBuilder.make[Double]
    var k = 0
    while (k < order.length) {
      val t = times(order(k))
      var w = 0.0
      while (k < order.length && times(order(k)) == t) { w += weights(order(k)); k += 1 }
      distinct += t
      weight += w
    }
    val ds = distinct.result()
    val ws = weight.result()
    val total = ws.sum
    val bounds = mutable.ArrayBuilder.make[Long]
    var bandsLeft = maxBands
    var start = Long.MinValue
    var first = true
    var before = 0.0 // weight of the sampled times before the current band
    var cumulative = 0.0 // weight of the sampled times before d_m
    var m = 0
    while (m < ds.length && bandsLeft > 1) {
      val target = (total - before) / bandsLeft
      val inside = cumulative - before
      val full = inside >= target || target - inside < inside + ws(m) - target
      if (m > 0 && full && (first || ds(m) - start >= width)) {
        bounds += ds(m)
        start = ds(m)
        first = false
        before = cumulative
        bandsLeft -= 1
      }
      cumulative += ws(m)
      m += 1
    }
    new TimeBands(bounds.result(), reach(matrix))
  }
}
