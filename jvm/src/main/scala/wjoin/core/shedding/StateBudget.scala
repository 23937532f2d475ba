package wjoin.core.shedding

import java.util.SplittableRandom

/**
 * Memory-limited shedding (Kang et al. Sec. 5.2.2): input i's window keeps a random subset
 * of its rows within its cap M_i, so the windows of a partition never hold more than
 * sum_i M_i <= M rows.
 *
 * {{{
 *   arrival of i, window of i holds s rows, all windows S rows (expired ones already evicted)
 *     s >= M_i or S >= M       -> shed (not stored; it still probes)
 *     else with prob. keep_i   -> stored       keep_i = min(1, M_i / N_i), N_i = rate_i x retention_i
 *     else                     -> shed         (about M_i of the N_i rows of the full window)
 * }}}
 *
 * Rows are admitted at random on arrival rather than replaced at random later: the windows
 * are time-ordered buffers that only expire their oldest row, and an independent keep_i per
 * row makes the window a uniform random subset of the full one (what the paper assumes: "we
 * keep a randomly chosen subset of 5000 tuples out of the full 10,000"). The cap holds the
 * bound whatever the rates; it also trims the upper fluctuations, so a window holds a little
 * less than M_i on average (about sqrt(M_i) / 2 rows less). The caps sum to at most M, so the
 * test S >= M only matters when the caps change (a streaming W-join re-plans its shares in
 * every micro-batch): rows admitted under the old shares stay until they expire, and the
 * windows then never hold more than M rows together while the new shares fill.
 *
 * @param caps      M_i per input
 * @param total     M, the most rows all windows hold together
 * @param retention per input, how long (seconds) its rows stay in the full window
 * @param rates     the inputs' arrival rates as seen so far ([[ArrivalRates]])
 * @param random    the engine's seeded random choices
 */
final class StateBudget(caps: IndexedSeq[Int], total: Long, retention: IndexedSeq[Double], rates: ArrivalRates,
    random: SplittableRandom) {
  private val cap = caps.toArray
  private val seconds = retention.toArray

  /** Whether an arriving row of `input` is stored, its window holding `size` rows and all windows `all`. */
  def admits(input: Int, size: Int, all: Long): Boolean = size < cap(input) && all < total && {
    val full = rates.perSecond(input) * seconds(input)
    full <= cap(input) || random.nextDouble() * full < cap(input)
  }
}
