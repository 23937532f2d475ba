package wjoin.core

import java.util.Locale

/** The W-join algorithms of paper 000 Sec. 3 / paper 002. */
sealed abstract class Algorithm(val name: String) extends Serializable {
  override def toString: String = name
}
object Algorithm {
  /** Nested-loops W-join, backward evaluation: the newest row probes every other window. */
  case object NLW extends Algorithm("nlw")
  /** Hash W-join, backward evaluation: the newest row probes its key's bucket in each window. */
  case object HW extends Algorithm("hw")
  /** Merge W-join, forward evaluation: Mode 1 sweep to the oldest row, Mode 2 enumeration. */
  case object MW extends Algorithm("mw")

  val all: Seq[Algorithm] = Seq(NLW, HW, MW)

  def parse(text: String): Option[Algorithm] = all.find(_.name == text.toLowerCase(Locale.ROOT))

  /**
   * The rule behind algorithm = "auto": HW-join when an equality key is shared by all inputs
   * (buckets make each probe touch only same-key rows); otherwise MW-join, whose Mode 2
   * enumerates each oldest row's period without per-row window tests where the window
   * matrix implies them, while NLW-join tests every buffered row against the period.
   */
  def auto(hasKey: Boolean): Algorithm = if (hasKey) HW else MW
}

/**
 * What the engine needs to run one W-join: the closed window matrix, the algorithm and
 * whether rows are looked up by key. Derived per origin input (the input of the row that
 * triggers an enumeration): the probe order of the other inputs and which pairs still need
 * a window test once a member is bound. Built on the driver, shipped to tasks.
 *
 * Periods, narrowing, probe orders and eviction horizons come from the period matrix
 * `periods` of the window strategy ([[WindowStrategy]]: the true matrix for "exact", a
 * conservative one for GCA / LCA); a complete candidate is emitted only if it satisfies the
 * true `matrix` on every pair where `periods` is looser (`checkPairs`, the refinement) and,
 * with `exclude`, does not satisfy every bound of `exclude` (the second half of a
 * bidirectional path query).
 *
 * @param matrix    closed difference bounds, upper(i, j) >= ts_i - ts_j
 * @param algorithm NLW / HW (backward evaluation) or MW (forward evaluation)
 * @param hashed    rows carry an equality key and windows are hash buckets on it
 * @param requestedStrategy how periods are bounded; "auto" is resolved by [[WindowStrategy.resolve]]
 * @param exclude   combinations satisfying every bound of this closed matrix are not emitted
 * @param explicitPeriods a period matrix to use instead of the strategy's (benchmarks: GCA / LCA
 *                  computed from the user's terms before closure, as in paper 000); must not be
 *                  tighter than `matrix` on any pair
 * @param rowLimits per input, its ROWS window (the last k rows of the input) or
 *                  [[StreamRows.NoLimit]]; null for none at all
 */
final class EnginePlan(val matrix: WindowMatrix, val algorithm: Algorithm, val hashed: Boolean,
    requestedStrategy: WindowStrategy = WindowStrategy.Exact, val exclude: Option[WindowMatrix] = None,
    explicitPeriods: Option[WindowMatrix] = None, rowLimits: Array[Long] = null) extends Serializable {
  require(algorithm != Algorithm.HW || hashed, "HW-join needs an equality key shared by all inputs")
  require(algorithm != Algorithm.NLW || !hashed, "NLW-join scans whole windows; it takes no hash key")
  require(exclude.forall(_.n == matrix.n), s"the excluded matrix must have ${matrix.n} inputs")

  val n: Int = matrix.n
  /** Per input, the length of its count-based window ([[StreamRows.NoLimit]]: none). */
  val rowLimit: Array[Long] = if (rowLimits == null) Array.fill(n)(StreamRows.NoLimit) else rowLimits.clone()
  require(rowLimit.length == n, s"${rowLimit.length} row limits for $n inputs")
  /** Some input has a ROWS window: the engine counts rows per input. */
  val counting: Boolean = rowLimit.exists(_ != StreamRows.NoLimit)
  /** Forward evaluation (MW-join): a combination is found from its oldest member. */
  val forward: Boolean = algorithm == Algorithm.MW
  /** The strategy in effect (never Auto). */
  val strategy: WindowStrategy = WindowStrategy.resolve(requestedStrategy)
  require(strategy == WindowStrategy.Exact || !rowLimit.exists(_ != StreamRows.NoLimit),
    s"window strategy '$strategy' widens every window to the largest one, and a ROWS window leaves some pairs " +
      "without a time bound, so nothing would ever leave the state; use window strategy 'exact' or 'auto'")
  /** The conservative matrix behind periods and horizons; `matrix` itself for "exact". */
  val periods: WindowMatrix = explicitPeriods.getOrElse(WindowStrategy.periodMatrix(strategy, matrix))
  require(periods.n == n, s"the period matrix must have $n inputs")
  require((0 until n).forall(i => (0 until n).forall(j => periods.upper(i, j) >= matrix.upper(i, j))),
    s"the period matrix of strategy $strategy must not be tighter than the window matrix")
  /** Flat pairs i * n + j refined on each candidate: periods.upper(i, j) > matrix.upper(i, j). */
  val checkPairs: Array[Int] =
    (0 until n * n).filter(ij => periods.upper(ij / n, ij % n) > matrix.upper(ij / n, ij % n)).toArray
  /** A row of input j can join only with rows at most horizon(j) later than it (per `periods`). */
  val horizon: Array[Long] = Array.tabulate(n)(periods.horizon)

  /** Width of input j's initial period around a row of input o. */
  private def periodWidth(o: Int, j: Int): Long = {
    val later = if (forward) periods.upper(j, o) else math.min(0L, periods.upper(j, o))
    val earlier = if (forward) math.min(0L, periods.upper(o, j)) else periods.upper(o, j)
    WindowMatrix.add(later, earlier)
  }

  /** Per origin: the other inputs, narrowest period first (the most selective probe first). */
  val probeOrder: Array[Array[Int]] = Array.tabulate(n) { o =>
    (0 until n).filter(_ != o).sortBy(j => (periodWidth(o, j), j)).toArray
  }

  /**
   * Per origin, flat (m * n + j): after binding a row of input m, must input j's period be
   * narrowed by the bounds between m and j? Backward evaluation always narrows (the paper's
   * period update). Forward evaluation narrows only where the origin's period does not
   * already imply the m-j bounds: that is Mode 2 with no per-row window tests; with a uniform
   * window nothing is ever narrowed.
   */
  val refine: Array[Array[Boolean]] = Array.tabulate(n) { o =>
    Array.tabulate(n * n) { mj =>
      val (m, j) = (mj / n, mj % n)
      if (m == j || m == o || j == o) false
      else if (!forward) true
      else {
        val loOf = (x: Int) => math.max(0L, -periods.upper(o, x))
        val hiOf = (x: Int) => periods.upper(x, o)
        def implied(a: Int, b: Int): Boolean = // max(ts_a - ts_b) over both periods <= upper(a, b)
          periods.upper(a, b) == WindowMatrix.Inf || hiOf(a) - loOf(b) <= periods.upper(a, b)
        !(implied(j, m) && implied(m, j))
      }
    }
  }

  /**
   * Per origin, per depth: is the probed input's slice fixed by the origin alone (no earlier
   * member narrows it)? Forward evaluation then finds that slice once per origin.
   */
  val fixedSlice: Array[Array[Boolean]] = Array.tabulate(n) { o =>
    val order = probeOrder(o)
    Array.tabulate(n - 1)(d => (0 until d).forall(k => !refine(o)(order(k) * n + order(d))))
  }

  def describe(names: Seq[String]): String =
    (0 until n).map(o => s"${names(o)}: ${probeOrder(o).map(names).mkString("->")}").mkString("; ")

  /** EXPLAIN's text for the strategy: its name, and for GCA / LCA the pairs refined. */
  def describeStrategy(names: Seq[String], render: Long => String): String = strategy match {
    case WindowStrategy.Exact => "exact"
    case s =>
      val local = WindowStrategy.localWindows(matrix)
      val how = if (s == WindowStrategy.GCA) s"single window ${render(local.max)}"
        else s"local windows ${names.indices.map(j => s"${names(j)}=${render(local(j))}").mkString(" ")}"
      s"${s.name} ($how, refine ${checkPairs.length} bounds)"
  }
}
