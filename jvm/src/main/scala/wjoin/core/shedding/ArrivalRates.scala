package wjoin.core.shedding

/**
 * Each input's arrival rate (rows per second of event time) as the shedding engine sees it:
 * the planner's estimate until a first second was seen, then a moving average of the counts
 * of the seconds that passed, so the budgets are used fully also when the planner's
 * statistics were assumed (they may be off by orders of magnitude) or the rates drift.
 *
 * {{{
 *   at the first arrival of input i in second s (s = floor(t / unitsPerSecond)):
 *     rate_i <- count_i(previous second)                          after the first second seen
 *     rate_i <- (1 - a) rate_i + a count_i(previous second)      after later ones, a = 0.3,
 *                                                                 then (1 - a) once per empty second
 * }}}
 *
 * Rows come in merge order, so each input's seconds only move forward.
 *
 * @param initial        lambda_i per input, the planner's estimate
 * @param unitsPerSecond time units in a second of event time
 */
final class ArrivalRates(initial: IndexedSeq[Double], unitsPerSecond: Long) {
  private val Weight = 0.3
  private val rate = initial.map(r => math.max(0.0, r)).toArray
  private val second = Array.fill(rate.length)(Long.MinValue)
  private val count = new Array[Long](rate.length)
  private val measured = new Array[Boolean](rate.length)

  /** Counts an arrival of `input` at `time`; true when it is the first of its second. */
  def arrive(input: Int, time: Long): Boolean = {
    val s = Math.floorDiv(time, unitsPerSecond)
    val first = s != second(input)
    if (first) {
      if (second(input) != Long.MinValue) {
        rate(input) = if (measured(input)) (1 - Weight) * rate(input) + Weight * count(input) else count(input).toDouble
        measured(input) = true
        val empty = math.min(64L, s - second(input) - 1)
        if (empty > 0) rate(input) *= math.pow(1 - Weight, empty.toDouble)
      }
      second(input) = s
      count(input) = 0
    }
    count(input) += 1
    first
  }

  /** The current estimate of input's arrivals per second. */
  def perSecond(input: Int): Double = rate(input)

  /** Streaming: the planner's new estimates, for the inputs whose rate was not measured yet. */
  def retarget(estimates: IndexedSeq[Double]): Unit =
    for (i <- rate.indices if !measured(i)) rate(i) = math.max(0.0, estimates(i))

  /** Streaming: what the next micro-batch needs (saved in the state store with the rows). */
  def writeTo(out: java.io.DataOutputStream): Unit = for (i <- rate.indices) {
    out.writeDouble(rate(i)); out.writeLong(second(i)); out.writeLong(count(i)); out.writeBoolean(measured(i))
  }

  /** Streaming: the rates [[writeTo]] saved. */
  def readFrom(in: java.io.DataInputStream): Unit = for (i <- rate.indices) {
    rate(i) = in.readDouble(); second(i) = in.readLong(); count(i) = in.readLong(); measured(i) = in.readBoolean()
  }
}
