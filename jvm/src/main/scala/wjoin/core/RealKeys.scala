package wjoin.core

/**
 * Range keys of real-valued attributes (float, double, decimal, and integral columns compared
 * in floating point): each value becomes the `Long` key of its `Double`, in Spark's order.
 *
 * {{{
 *   key(v) = bits(v)                         v >= +0.0 (and NaN, normalized)
 *          = bits(v) xor 0x7FFF_FFFF_FFFF_FFFF  v <= -0.0 (the magnitude bits flipped)
 *
 *   -Inf < ... < -MIN_VALUE < 0.0 = -0.0 < MIN_VALUE < ... < +Inf < NaN      (Spark's order)
 *   key: 0x800F_FFFF_FFFF_FFFF ... -1  0  1 ... 0x7FF0_0000_0000_0000  0x7FF8_0000_0000_0000
 * }}}
 *
 * Spark orders doubles with NaN above +Infinity (every NaN equal) and -0.0 equal to 0.0
 * (`SQLOrderingUtil.compareDoubles`); `key` normalizes -0.0 to 0.0 and every NaN to the
 * canonical NaN, so `key(a) < key(b)` iff `a < b` and `key(a) == key(b)` iff `a = b` in that
 * order. A float, a decimal (Spark's `Decimal.toDouble`) or a long is first rounded to the
 * nearest double: rounding is monotone, so the key is non-decreasing in the value (distinct
 * values may share a key; an index then returns both, and the residual decides).
 * `Long.MinValue` is no double's key: it stands for NULL, below every value.
 */
object RealKeys {
  /** The key of a NULL: below every value's key. */
  val Null: Long = Long.MinValue

  def encode(v: Double): Long = {
    val bits = java.lang.Double.doubleToLongBits(if (v == 0.0) 0.0 else v) // -0.0 == 0.0; NaN canonical
    if (bits >= 0) bits else bits ^ Long.MaxValue
  }

  def decode(key: Long): Double =
    java.lang.Double.longBitsToDouble(if (key >= 0) key else key ^ Long.MaxValue)
}

/**
 * A band between real-valued attributes: the target's value t can satisfy the predicate only
 * if `t - v` lies in `[low, high]` (up to rounding) for the source's value v; the predicate
 * stays in the residual, so the key range only has to contain every accepted row.
 *
 * Rounding. Spark evaluates the predicate in floating point (or in decimals whose scale may
 * be cut to 6 digits), so an accepted row may lie slightly outside the exact band. Bounds are
 * widened by `relative x (|v| + |bound| + scale) + absolute` before rounding outward to the
 * next double, which exceeds the error of the few operations of a band (each at most half an
 * ulp of the magnitudes involved, <= 2^-53 relative for double, 2^-24 for float).
 *
 * Special values. A bound that is not finite (v is NaN or infinite, or v + offset
 * overflows) leaves that side unbounded: `x >= y + c` with y = NaN accepts x = NaN, and
 * `x <= y + c` with y = NaN every x. A NULL source (key [[RealKeys.Null]]) gives an empty
 * range: a comparison with NULL is never true. Target values that are NaN or infinite fall
 * outside every finite range, which is exact for most recognised forms (`abs(NaN - v) <= c`
 * is false, `NaN <= v + c` is false; `NaN >= v + c` is true and its range has no upper bound);
 * where a difference sits on the accepting side (`v - NaN >= c` is true, yet the target's
 * range is bounded above) the binding's `nanMatches` makes the probe reach NaN.
 *
 * @param low      lower offset (-Infinity: unbounded)
 * @param high     upper offset (+Infinity: unbounded)
 * @param scale    the magnitude of the constants the predicate adds (for the rounding margin)
 * @param relative relative rounding margin (2^-48 for double, 2^-20 when a float is involved)
 * @param absolute absolute rounding margin (decimals: 10^-6, their least kept scale)
 */
final case class RealBand(low: Double, high: Double, scale: Double, relative: Double, absolute: Double) {
  assert(!low.isNaN && !high.isNaN && low <= high, s"real band offsets [$low, $high] are empty")
  def lowerBounded: Boolean = low != Double.NegativeInfinity
  def upperBounded: Boolean = high != Double.PositiveInfinity

  private def margin(v: Double, bound: Double): Double =
    relative * (math.abs(v) + math.abs(bound) + scale) + absolute + java.lang.Double.MIN_VALUE

  /** The least key of the target's range for the source's key x. */
  def lowKey(x: Long): Long = {
    if (x == RealKeys.Null) return Long.MaxValue
    if (!lowerBounded) return Long.MinValue
    val v = RealKeys.decode(x)
    val b = v + low
    if (b.isNaN || b.isInfinite) Long.MinValue else RealKeys.encode(java.lang.Math.nextDown(b - margin(v, b)))
  }

  /** The greatest key of the target's range for the source's key x. */
  def highKey(x: Long): Long = {
    if (x == RealKeys.Null) return Long.MinValue
    if (!upperBounded) return Long.MaxValue
    val v = RealKeys.decode(x)
    val b = v + high
    if (b.isNaN || b.isInfinite) Long.MaxValue else RealKeys.encode(java.lang.Math.nextUp(b + margin(v, b)))
  }

  /** The same band seen from the other side: v - t in [-high, -low]. */
  def mirror: RealBand = copy(low = -high, high = -low)
}
