package wjoin.core

import wjoin.core.cost.AccessPath

/** The W-join algorithms of Hammad et al. Sec. 3 and Hammad et al. (SSDBM). */
sealed abstract class Algorithm(name: String) extends Named(name)
object Algorithm extends NamedValues[Algorithm] {
  /** Nested-loops W-join, backward evaluation: the newest row probes every other window. */
  case object NLW extends Algorithm("nlw")
  /** Hash W-join, backward evaluation: the newest row probes its key's bucket in each window. */
  case object HW extends Algorithm("hw")
  /** Merge W-join, forward evaluation: Mode 1 sweep to the oldest row, Mode 2 enumeration. */
  case object MW extends Algorithm("mw")

  val all: Seq[Algorithm] = Seq(NLW, HW, MW)

  def parse(text: String): Option[Algorithm] = byName(text)

  /**
   * The rule behind algorithm = "auto": HW-join when an equality key is shared by all inputs
   * (buckets make each probe touch only same-key rows); otherwise MW-join, whose Mode 2
   * enumerates each oldest row's period without per-row window tests where the window
   * matrix implies them, while NLW-join tests every buffered row against the period.
   */
  def auto(hasKey: Boolean): Algorithm = if (hasKey) HW else MW
}

/**
 * A band or inequality predicate seen from the input it lets us search by range (access paths):
 * once the row of `source` is bound, the rows of `target` that can match have their range
 * attribute `targetAttr` in `[x + lowOffset, x + highOffset]` (inclusive, saturating), where
 * x is the source row's attribute `sourceAttr`. `Long.MinValue` as `lowOffset` (and
 * `Long.MaxValue` as `highOffset`) means unbounded on that side.
 *
 * {{{
 *   abs(A.x - B.x) <= d                 target A, source B: [-d, d]   (and the mirror binding)
 *   A.x < B.x                           target A, source B: [MinValue, -1]; target B, source A: [1, MaxValue]
 *   A.pos BETWEEN B.pos - 5 AND B.pos + 5   target A, source B: [-5, 5]
 * }}}
 *
 * Real-valued attributes (`real`: float, double, decimal) have [[RealKeys]] as keys, which
 * are not additive: their range comes from the [[RealBand]]'s offsets, widened for rounding,
 * and the Long offsets only say which sides are bounded.
 *
 * Attributes are numbered per input (see [[RangeValues]]); the predicate itself stays in the
 * residual, so a binding only has to be a superset of the matches, never exact.
 *
 * A NaN is the largest double, yet a conjunct with a difference on its accepting side holds
 * for a NaN target below its range's upper bound (`B.x - A.x >= 1` with A.x = NaN): such a
 * binding says so (`nanMatches`), and a probe whose every binding says so reaches NaN too.
 *
 * @param real       the band's offsets in the attributes' own (real) units; None: integral keys
 * @param nanMatches the conjunct holds for a NaN target whatever the (non-NaN) source's value
 */
final case class RangeBinding(target: Int, targetAttr: Int, source: Int, sourceAttr: Int, lowOffset: Long,
    highOffset: Long, real: Option[RealBand] = None, nanMatches: Boolean = false) {
  assert(target != source, s"a range binding relates two inputs, got input $target twice")
  assert(lowOffset <= highOffset, s"range binding offsets [$lowOffset, $highOffset] are empty")

  /** The inclusive key range of the target's attribute for a source key x (saturating). */
  def low(x: Long): Long = real match {
    case Some(r) => r.lowKey(x)
    case None => if (lowOffset == Long.MinValue) Long.MinValue else SaturatingTime.plus(x, lowOffset)
  }
  def high(x: Long): Long = real match {
    case Some(r) => r.highKey(x)
    case None => if (highOffset == Long.MaxValue) Long.MaxValue else SaturatingTime.plus(x, highOffset)
  }

  /** Bounded on both sides (a band, not a one-sided inequality). */
  def bounded: Boolean = lowOffset != Long.MinValue && highOffset != Long.MaxValue

  /** How many attribute units the range spans (integral: values; real: the length). */
  def width: Double = real match {
    case Some(r) => r.high - r.low
    case None => if (!bounded) Double.PositiveInfinity else highOffset.toDouble - lowOffset.toDouble + 1
  }
}


/**
 * The range attributes of buffered rows, as `Long` keys (integral, date and timestamp columns
 * as they are, real-valued ones as [[RealKeys]]): `value(input, attr, row)` for the
 * attributes the [[RangeBinding]]s name. A NULL reads as `Long.MinValue` (its band predicate
 * cannot hold; the residual rejects it).
 */
trait RangeValues {
  def value(input: Int, attr: Int, row: AnyRef): Long
}

object RangeValues {
  val None: RangeValues = new RangeValues {
    def value(input: Int, attr: Int, row: AnyRef): Long =
      throw new IllegalStateException("this plan has an indexed input but the engine got no RangeValues")
  }
}

/**
 * What the engine needs to run one W-join: the closed window matrix, the algorithm, the
 * access path of every input and the probe order per origin input (the input of the row that
 * triggers an enumeration), plus which pairs still need a window test once a member is bound.
 * Built on the driver, shipped to tasks.
 *
 * Access paths (Kang et al.'s asymmetric joins): each input's window is held in its own
 * structure, independently of the others ([[wjoin.core.window.InputWindow]]):
 *  - `Scan`: every probe looks at the whole window (NLW-join, nested loops);
 *  - `Hash`: per-key buckets; only where rows carry the shared equality key (`keyed`);
 *  - `TTree` / `BPlusTree`: an ordered index on one range attribute, probed with the range a
 *    [[RangeBinding]] gives from a row bound earlier in the probe order;
 *  - `HashTTree` / `HashBPlusTree`: per-key buckets, each such an index: the probe's key
 *    picks the bucket, the range searches it (`keyed` only).
 * A key equality is guaranteed by buckets only when every input is bucketed by it (`allHashed`);
 * otherwise the caller keeps it in the filter. NLW-join scans every window.
 *
 * Probe order: per origin, the given `orders` (a cost-based choice, see
 * `wjoin.core.cost.AccessPlanner`) or else narrowest period first; either way an indexed input
 * is moved after the first input that binds one of its ranges (Golab & Özsu Sec. 5.4: a valid
 * order through the join graph), unless the origin binds it already.
 *
 * Periods, narrowing, probe orders and eviction horizons come from the period matrix
 * `periods` of the window strategy ([[WindowStrategy]]: the true matrix for "exact", a
 * conservative one for GCA / LCA); a complete candidate is emitted only if it satisfies the
 * true `matrix` on every pair where `periods` is looser (`checkPairs`, the refinement) and,
 * with `exclude`, does not satisfy every bound of `exclude` (the second half of a
 * bidirectional path query).
 *
 * @param matrix      closed difference bounds, upper(i, j) >= ts_i - ts_j
 * @param algorithm   NLW / HW (backward evaluation) or MW (forward evaluation)
 * @param hashed      rows carry the equality key shared by all inputs (`keyed`); without
 *                    `paths`, every window is then hash buckets on it
 * @param paths       access path per input; default: all hash when keyed, else all scan
 * @param bindings    band / inequality predicates usable by indexed inputs
 * @param orders      probe order per origin (each a permutation of the other inputs), or null
 * @param expirationInterval tau of Golab & Özsu (lazy expiration): backward evaluation evicts
 *                    expired rows only once the eviction limit has moved by tau since the last
 *                    eviction (0 = eager, every row). Results do not change: periods are tested
 *                    on every candidate. Forward evaluation drops each row after its sweep.
 * @param nodeSize    entries per T-tree node / B+tree leaf
 * @param requestedStrategy how periods are bounded; "auto" is resolved by [[WindowStrategy.resolve]]
 * @param exclude   combinations satisfying every bound of this closed matrix are not emitted
 * @param rowLimits per input, its ROWS window (the last k rows of the input) or
 *                  [[StreamRows.NoLimit]]; null for none at all
 */
class EnginePlan(val matrix: WindowMatrix, val algorithm: Algorithm, val hashed: Boolean,
    paths: Seq[AccessPath] = null, val bindings: Seq[RangeBinding] = Nil, orders: Seq[Seq[Int]] = null,
    val expirationInterval: Long = 0L, val nodeSize: Int = 100,
    requestedStrategy: WindowStrategy = WindowStrategy.Exact, val exclude: Option[WindowMatrix] = None,
    rowLimits: Array[Long] = null) extends Serializable {
  assert(algorithm != Algorithm.HW || hashed, "HW-join needs an equality key shared by all inputs")
  assert(algorithm != Algorithm.NLW || !hashed, "NLW-join scans whole windows; it takes no hash key")
  assert(expirationInterval >= 0, s"the expiration interval must be >= 0, got $expirationInterval")
  assert(exclude.forall(_.n == matrix.n), s"the excluded matrix must have ${matrix.n} inputs")

  val n: Int = matrix.n
  /** Per input, the length of its count-based window ([[StreamRows.NoLimit]]: none). */
  val rowLimit: Array[Long] = if (rowLimits == null) Array.fill(n)(StreamRows.NoLimit) else rowLimits.clone()
  assert(rowLimit.length == n, s"${rowLimit.length} row limits for $n inputs")
  /** Some input has a ROWS window: the engine counts rows per input. */
  val counting: Boolean = rowLimit.exists(_ != StreamRows.NoLimit)
  /** Forward evaluation (MW-join): a combination is found from its oldest member. */
  val forward: Boolean = algorithm == Algorithm.MW
  /** The strategy in effect (never Auto). */
  val strategy: WindowStrategy = WindowStrategy.resolve(requestedStrategy)
  WindowStrategy.requireExactWithRows(strategy, counting)
  /** The conservative matrix behind periods and horizons; `matrix` itself for "exact". */
  val periods: WindowMatrix = periodMatrix(strategy)
  assert(periods.n == n, s"the period matrix must have $n inputs")
  assert((0 until n).forall(i => (0 until n).forall(j => periods.upper(i, j) >= matrix.upper(i, j))),
    s"the period matrix of strategy $strategy must not be tighter than the window matrix")
  /** Flat pairs i * n + j refined on each candidate: periods.upper(i, j) > matrix.upper(i, j). */
  val checkPairs: Array[Int] =
    (0 until n * n).filter(ij => periods.upper(ij / n, ij % n) > matrix.upper(ij / n, ij % n)).toArray
  /** A row of input j can join only with rows at most horizon(j) later than it (per `periods`). */
  val horizon: Array[Long] = Array.tabulate(n)(periods.horizon)

  /**
   * The period matrix of `strategy` over `matrix`. The one hook of this class: a subclass may
   * bound its periods otherwise (the benchmarks compute GCA / LCA from the user's terms before
   * closure, as Hammad et al. do); the result must not be tighter than `matrix` on any pair.
   * Called during construction, so an override may read only its own constructor parameters.
   */
  protected def periodMatrix(strategy: WindowStrategy): WindowMatrix = WindowStrategy.periodMatrix(strategy, matrix)

  /** Width of input j's initial period around a row of input o. */
  private def periodWidth(o: Int, j: Int): Long = {
    val later = if (forward) periods.upper(j, o) else math.min(0L, periods.upper(j, o))
    val earlier = if (forward) math.min(0L, periods.upper(o, j)) else periods.upper(o, j)
    WindowMatrix.add(later, earlier)
  }

  /** Access path per input. */
  val accessPath: Array[AccessPath] =
    if (paths == null) Array.fill(n)(if (hashed) AccessPath.Hash else AccessPath.Scan) else paths.toArray
  assert(accessPath.length == n, s"${accessPath.length} access paths for $n inputs")
  assert(accessPath.forall(!_.bucketsByKey) || hashed,
    s"a hash access path needs the equality key shared by all inputs; inputs ${hashInputs.mkString(", ")} are hash")
  assert(algorithm != Algorithm.NLW || accessPath.forall(_ == AccessPath.Scan),
    "NLW-join scans every window (nested loops); use hw, mw or auto for other access paths")
  /** Every window is bucketed by the key (hash, or hash + tree): the key equality needs no test. */
  val allHashed: Boolean = hashed && accessPath.forall(_.bucketsByKey)
  /** The input's window is an ordered index on a range attribute (in the key's bucket for a keyed one). */
  val indexed: Array[Boolean] = accessPath.map(_.indexed)
  bindings.foreach(b => assert(b.target < n && b.source < n, s"range binding $b names an input outside 0..${n - 1}"))
  /** The attribute an indexed input's tree is built on: the first binding's target attribute. */
  val indexAttr: Array[Int] = Array.tabulate(n) { j =>
    if (!indexed(j)) -1 else bindings.find(_.target == j).map(_.targetAttr).getOrElse(throw new AssertionError(
      s"input $j has access path ${accessPath(j)} but no band or inequality predicate to search it by"))
  }
  /** Per input, the bindings that search its tree (same attribute). */
  val bindingsOf: Array[Array[RangeBinding]] =
    Array.tabulate(n)(j => if (indexed(j)) bindings.filter(b => b.target == j && b.targetAttr == indexAttr(j)).toArray else Array.empty)

  private def hashInputs = accessPath.indices.filter(accessPath(_).bucketsByKey)

  /**
   * Per origin: the given order, else the other inputs narrowest period first (the most
   * selective probe first); then every indexed input waits until a source of its ranges is
   * bound.
   */
  val probeOrder: Array[Array[Int]] = Array.tabulate(n) { o =>
    val wanted = if (orders == null) (0 until n).filter(_ != o).sortBy(j => (periodWidth(o, j), j))
      else {
        assert(orders.size == n && orders(o).sorted == (0 until n).filter(_ != o),
          s"probe order ${Option(orders.lift(o)).flatten.getOrElse(Nil).mkString(",")} of origin $o is not an order of the other inputs")
        orders(o)
      }
    EnginePlan.validOrder(o, wanted, j => if (indexed(j)) bindingsOf(j).map(_.source).toSeq else Nil).toArray
  }

  /**
   * Per origin, flat (m * n + j): after binding a row of input m, must input j's period be
   * narrowed by the bounds between m and j? Backward evaluation always narrows (the paper's
   * period update). Forward evaluation narrows only where the origin's period does not
   * already imply the m-j bounds: that is Mode 2 with no per-row window tests; with a uniform
   * window nothing is ever narrowed.
   */
  val refine: Array[Array[Boolean]] = narrowings(cutAtOrigin = forward)

  /**
   * Per origin, per depth: is the probed input's slice fixed by the origin alone (no earlier
   * member narrows it)? Forward evaluation then finds that slice once per origin.
   */
  val fixedSlice: Array[Array[Boolean]] = fixedSlices(refine)

  /**
   * [[refine]] and [[fixedSlice]] for periods not cut at the origin ([[PeriodShape.fromOrigin]]
   * false): every bound narrows, since the forward shortcut relies on the origin being the
   * oldest member. The same arrays for backward evaluation, built on first use otherwise (the
   * broadcast probe, [[BroadcastProbe]], uses any plan's uncut).
   */
  lazy val refineUncut: Array[Array[Boolean]] = if (forward) narrowings(cutAtOrigin = false) else refine
  lazy val fixedSliceUncut: Array[Array[Boolean]] = if (forward) fixedSlices(refineUncut) else fixedSlice

  private def narrowings(cutAtOrigin: Boolean): Array[Array[Boolean]] = Array.tabulate(n) { o =>
    Array.tabulate(n * n) { mj =>
      val (m, j) = (mj / n, mj % n)
      if (m == j || m == o || j == o) false
      else if (!cutAtOrigin) true
      else {
        val loOf = (x: Int) => math.max(0L, -periods.upper(o, x))
        val hiOf = (x: Int) => periods.upper(x, o)
        def implied(a: Int, b: Int): Boolean = // max(ts_a - ts_b) over both periods <= upper(a, b)
          periods.upper(a, b) == WindowMatrix.Inf || hiOf(a) - loOf(b) <= periods.upper(a, b)
        !(implied(j, m) && implied(m, j))
      }
    }
  }

  private def fixedSlices(narrowing: Array[Array[Boolean]]): Array[Array[Boolean]] = Array.tabulate(n) { o =>
    val order = probeOrder(o)
    Array.tabulate(n - 1)(d => (0 until d).forall(k => !narrowing(o)(order(k) * n + order(d))))
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

  /** "A=hash, B=ttree" */
  def describePaths(names: Seq[String]): String =
    (0 until n).map(j => s"${names(j)}=${accessPath(j).name}").mkString(", ")
}

object EnginePlan {
  /**
   * `wanted` reordered as little as possible so that every input with range sources comes
   * after one of them (or the origin is one): inputs whose sources are not bound yet wait and
   * are placed as soon as one is. Inputs without sources never wait.
   */
  def validOrder(origin: Int, wanted: Seq[Int], sources: Int => Seq[Int]): Seq[Int] = {
    val bound = scala.collection.mutable.LinkedHashSet(origin)
    val out = Seq.newBuilder[Int]
    var waiting = wanted
    while (waiting.nonEmpty) {
      val next = waiting.find(j => sources(j).isEmpty || sources(j).exists(bound)).getOrElse(waiting.head)
      out += next
      bound += next
      waiting = waiting.filter(_ != next)
    }
    out.result()
  }

  /** True when every input of every origin's order comes after a source of its ranges. */
  def isValidOrder(origin: Int, order: Seq[Int], sources: Int => Seq[Int]): Boolean =
    order.indices.forall(d => sources(order(d)).isEmpty || sources(order(d)).exists(s => s == origin || order.take(d).contains(s)))
}
