package wjoin.core.shedding

import java.util.SplittableRandom

/**
 * Memory-limited shedding (Kang, Naughton & Viglas Sec. 5.2.2): input i's window keeps a
 * random subset of its rows within its cap M_i, so the windows of a partition never hold more
 * than sum_i M_i <= M rows.
 *
 * {{{
 *   arrival of i, window of i holds s rows (expired ones already evicted)
 *     s >= M_i                 -> shed (not stored; it still probes)
 *     else with prob. keep_i   -> stored       (keep_i = M_i / N_i: about M_i of the N_i rows)
 *     else                     -> shed
 * }}}
 *
 * Rows are admitted at random on arrival rather than replaced at random later: the windows
 * are time-ordered buffers that only expire their oldest row, and an independent keep_i per
 * row makes the window a uniform random subset of the full one (what the paper assumes: "we
 * keep a randomly chosen subset of 5000 tuples out of the full 10,000"). The cap holds the
 * bound when rates exceed their estimate.
 *
 * @param caps   M_i per input
 * @param keep   keep_i per input, in [0, 1]
 * @param random the engine's seeded random choices
 */
final class StateBudget(caps: IndexedSeq[Int], keep: IndexedSeq[Double], random: SplittableRandom) {
  private val cap = caps.toArray
  private val odds = keep.toArray

  /** Whether an arriving row of `input` is stored, its window holding `size` rows. */
  def admits(input: Int, size: Int): Boolean =
    size < cap(input) && (odds(input) >= 1.0 || random.nextDouble() < odds(input))
}
