package wjoin.core.shedding

import java.util.SplittableRandom

/**
 * CPU-limited shedding (Kang et al. Sec. 5.2.1): in each second of event time at most mu_i
 * arrivals of input i probe the other windows (the effective rate lambda_i' of the paper),
 * chosen at random; the others are stored without probing.
 *
 * {{{
 *   second s = floor(t / unitsPerSecond)
 *   quota_i(s) = floor(mu_i (s + 1)) - floor(mu_i s)       (mu_i per second on average, also fractional)
 *   the k-th arrival of i in s (k = 0, 1, ...) probes with probability
 *     (quota_i(s) - used) / max(1, lambda_i - k)           Knuth's selection sampling (Algorithm S)
 * }}}
 * lambda_i = the arrivals per second expected at the start of s ([[ArrivalRates]]). Selection
 * sampling picks `quota` of the lambda_i arrivals of a second uniformly at random when lambda_i
 * is right, and uses the whole quota when more arrive; rows never probe beyond the quota.
 *
 * @param budget         mu_i per input
 * @param rates          the inputs' arrival rates as seen so far (the caller counts each
 *                       arrival there before asking)
 * @param unitsPerSecond time units in a second of event time
 * @param random         the engine's seeded random choices
 */
final class ProbeBudget(budget: IndexedSeq[Double], rates: ArrivalRates, unitsPerSecond: Long,
    private var random: SplittableRandom) {
  private val mu = budget.toArray
  private val n = mu.length
  private val second = Array.fill(n)(Long.MinValue)
  private val quota = new Array[Long](n)
  private val expected = new Array[Double](n)
  private val used = new Array[Long](n)
  private val seen = new Array[Long](n)

  /** Whether the arrival of `input` at `time` probes (and then uses one of its second's quota). */
  def probes(input: Int, time: Long): Boolean = {
    val s = Math.floorDiv(time, unitsPerSecond)
    if (s != second(input)) {
      second(input) = s
      quota(input) = (math.floor(mu(input) * (s + 1.0)) - math.floor(mu(input) * s.toDouble)).toLong
      expected(input) = rates.perSecond(input)
      used(input) = 0
      seen(input) = 0
    }
    val left = quota(input) - used(input)
    val remaining = math.max(1.0, expected(input) - seen(input))
    seen(input) += 1
    val chosen = left > 0 && (left >= remaining || random.nextDouble() * remaining < left)
    if (chosen) used(input) += 1
    chosen
  }

  /**
   * Streaming, at a micro-batch: the batch's mu_i and random choices. A second already begun
   * keeps its quota (it may span two batches, and rows never probe beyond it).
   */
  def retarget(budget: IndexedSeq[Double], random: SplittableRandom): Unit = {
    assert(budget.size == n, "one probe rate per input")
    budget.copyToArray(mu)
    this.random = random
  }

  /** Streaming: the counts of the current seconds (saved in the state store with the rows). */
  def writeTo(out: java.io.DataOutputStream): Unit = for (i <- 0 until n) {
    out.writeLong(second(i)); out.writeLong(quota(i)); out.writeDouble(expected(i)); out.writeLong(used(i))
    out.writeLong(seen(i))
  }

  /** Streaming: the counts [[writeTo]] saved. */
  def readFrom(in: java.io.DataInputStream): Unit = for (i <- 0 until n) {
    second(i) = in.readLong(); quota(i) = in.readLong(); expected(i) = in.readDouble(); used(i) = in.readLong()
    seen(i) = in.readLong()
  }
}
