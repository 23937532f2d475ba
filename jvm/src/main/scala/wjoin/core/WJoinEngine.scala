package wjoin.core

import wjoin.core.shedding.{SheddingBackwardEvaluation, SheddingForwardEvaluation, ShedPlan}
import wjoin.core.window.{InputWindow, WindowAccount, WindowFootprint, WindowMemory}

/**
 * The W-join state machine of one partition: N input windows and one resumable enumeration
 * (results are pulled one at a time and never materialized in bulk).
 *
 * {{{
 *   offer(i, t, key, row) ──> windows(0..N-1) ──> next(): tuple = (r_0 .. r_N-1)
 *      rows of all inputs,     ring buffers,        one combination per call,
 *      merged by event time    buckets or trees     all bounds of the matrix hold
 * }}}
 *
 * A combination (r_0..r_N-1) is emitted iff ts_i - ts_j <= upper(i, j) for all i, j
 * (inclusive), every ROWS window holds its member and the filter holds. Each combination has
 * exactly one trigger, so it is emitted exactly once. The algorithm of the plan fixes the
 * evaluation, the mode fixes what "complete" means; both are chosen once, here:
 *
 * {{{
 *   algorithm   evaluation                          batch         streaming (watermark W)
 *   NLW, HW     BackwardEvaluation: trigger newest  offer order   eager: state preloaded
 *   MW          ForwardEvaluation: trigger oldest   Mode 1 sweep  ordered: sweep up to W
 * }}}
 *
 * With resource limits (Kang et al. Sec. 5.2) the factory builds the shedding variant of
 * either evaluation instead ([[wjoin.core.shedding.SheddingBackwardEvaluation]],
 * [[wjoin.core.shedding.SheddingForwardEvaluation]]); the exact engines run no shedding code.
 *
 * The parts, one file each: [[ProbeEnumerator]] (the depth-first enumeration over the probe
 * order), [[BackwardEvaluation]], [[ForwardEvaluation]], [[CountWindows]] (ROWS windows),
 * [[Refinement]] (GCA / LCA and the bidirectional exclusion), and the windows of the access
 * paths in `wjoin.core.window` (scan, hash, T-tree / B+tree).
 *
 * Protocol: offer rows in non-decreasing time order; after each offer call next() until it
 * returns false (the tuple array is valid after each true); call finish() at the end of
 * input and drain next() once more. `listener` hears of every row that leaves the windows.
 *
 * @param plan       closed window matrix, algorithm, access paths, per-origin probe orders
 * @param filter     non-window predicate, tested as soon as its inputs are bound
 * @param ranges     the range attributes of rows, for indexed inputs
 * @param mode       batch or streaming (and then the watermark W)
 * @param listener   hears of evicted (and, under limits, shed) rows
 * @param shape      the enumeration's period shape ([[PeriodShape]]), fixed by the evaluation and mode
 * @param memory     the memory account of the windows ([[WindowMemory]]; unaccounted in core tests)
 */
abstract class WJoinEngine(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues, mode: EngineMode,
    protected val listener: EngineListener, shape: PeriodShape, memory: WindowMemory) {
  protected final val n = plan.n
  protected final val horizon = plan.horizon
  /** Every row with time <= completeBound has been offered once finish() is called. */
  protected final var completeBound = mode.completeBound
  final val stats = new JoinStats(n)
  /** Count-based windows, or null when no input has a ROWS window. */
  protected final val counts: CountWindows = if (plan.counting) new CountWindows(plan.rowLimit) else null
  protected final val windows: Array[InputWindow] = Array.tabulate(n) { j =>
    val attr = plan.indexAttr(j)
    InputWindow(plan, j, row => ranges.value(j, attr, unstamped(row)),
      memory.account(j, if (counts == null) 0L else WindowFootprint.stamp(n)))
  }
  /** The account of the engine's own per-row structures (forward evaluation's arrival ring). */
  protected final val engineAccount: WindowAccount = memory.account(-1)
  protected final val probe = new ProbeEnumerator(plan, filter, ranges, windows, stats, counts,
    new Refinement(plan, stats), shape)

  /** The current combination, indexed by input; valid after next() returned true. */
  final val tuple: Array[AnyRef] = probe.tuple
  final val times: Array[Long] = probe.times

  /** The latest offered time. */
  protected final var now = Long.MinValue
  /** Every row with time <= complete has been offered. */
  protected final var complete = Long.MinValue


  final def bufferedRows: Long = stats.buffered

  /** Offers a row of `input` at `time` with hash key `key` (null if unhashed). */
  def offer(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit

  /**
   * A row that can never match (e.g. a NULL key) but still takes a place in its input's
   * count-based window, so the window holds the last k rows of the input, not of its
   * joinable rows. Same order rules as [[offer]].
   */
  def countOnly(input: Int, time: Long): Unit

  /**
   * Offers `r`, or only counts it when it has no key in a hashed plan (a NULL key never
   * matches, but it takes its place in a ROWS window): the one rule for rows of every feed.
   */
  final def feed(r: EngineRow): Unit =
    if (plan.hashed && r.key == null) countOnly(r.input, r.time) else offer(r.input, r.time, r.key, r.row)

  /** Streaming, eager: a row of the state, already joined in earlier batches (see [[BackwardEvaluation]]). */
  def preload(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit =
    throw new AssertionError("only the eager streaming engine preloads its state")

  /**
   * Streaming: the next micro-batch, with eviction watermark `watermark` (W). The windows keep
   * what the last batch left in them; the batch's rows may be older than that batch's newest
   * ones (never older than its W: Spark drops them as late), so time order restarts here.
   */
  final def startMicroBatch(watermark: Long): Unit = {
    assert(completeBound != Long.MaxValue, "only a streaming engine runs micro-batches")
    assert(!probe.active, "a micro-batch starts once the last one is drained")
    assert(watermark >= completeBound, s"the watermark went back from $completeBound to $watermark")
    completeBound = watermark
    now = Long.MinValue
    complete = Long.MinValue
    stats.resetCounters()
  }

  /**
   * Distinct keys among the rows of input j's window: exact for hash buckets, else estimated
   * from at most `sample` keys spread over the window; -1 for an unhashed plan.
   */
  final def distinctKeys(j: Int, sample: Int = 1024): Long = windows(j).distinctKeys(sample)

  /** End of input (batch) or of the micro-batch's rows (streaming). */
  def finish(): Unit

  /** The next combination; false when there is none until the next offer or finish(). */
  def next(): Boolean

  /**
   * Batch, after finish() and the last next(): every row left in the windows leaves them
   * (reported to the listener), so the W-joins that decide anchor rows at eviction
   * ([[AnchorDecisions]]) decide the rest. The inner join never calls it.
   */
  final def evictAll(): Unit = {
    assert(completeBound == Long.MaxValue && !probe.active, "evictAll ends a drained batch engine")
    var j = 0
    while (j < n) { while (windows(j).size > 0) evictOldest(j); j += 1 }
  }

  /**
   * Batch, key groups ([[FeedGroups.ByKey]]): after finish(), the last next() and evictAll(),
   * the windows are empty and the next rows (another key's) start a new time order.
   */
  final def restart(): Unit = {
    assert(completeBound == Long.MaxValue && !probe.active && counts == null, "restart follows a drained batch engine")
    assert(windows.forall(_.size == 0), "restart follows evictAll")
    now = Long.MinValue
    complete = Long.MinValue
    restarted()
  }

  /** What an evaluation resets for [[restart]], besides the time order. */
  protected def restarted(): Unit = ()

  /** Checks the time order and counts the arrival; then every row up to `complete` is in. */
  protected final def arrive(input: Int, time: Long): Unit = {
    assert(time >= now, s"rows must be offered in event-time order: $time after $now")
    now = time
    complete = math.min(SaturatingTime.before(time), completeBound)
    if (counts != null) counts.arrive(input)
  }

  /** The row as the windows store it (stamped with its arrival counts for ROWS windows). */
  protected final def stored(row: AnyRef): AnyRef = if (counts != null) counts.stamp(row) else row

  protected final def unstamped(r: AnyRef): AnyRef = if (counts != null) r.asInstanceOf[Stamped].row else r

  protected final def store(input: Int, time: Long, key: AnyRef, row: AnyRef): Unit = {
    windows(input).insert(key, time, row)
    stats.buffered += 1
    if (stats.buffered > stats.peakBuffered) stats.peakBuffered = stats.buffered
  }

  protected final def evictOldest(j: Int): Unit = {
    val w = windows(j)
    val t = w.oldestTime
    val r = w.oldestRow
    w.evictOldest()
    stats.evicted += 1
    stats.buffered -= 1
    listener.evicted(j, t, unstamped(r))
  }
}

object WJoinEngine {
  /**
   * The engine of the plan's algorithm (NLW / HW: backward, MW: forward) in `mode`; with a
   * `shed` plan (the query has resource limits), its load-shedding variant, whose random
   * choices are seeded by the plan's seed, `partition` and `batch`.
   */
  def apply(plan: EnginePlan, filter: TupleFilter, mode: EngineMode, ranges: RangeValues,
      shed: Option[ShedPlan] = None, partition: Int = 0, batch: Long = 0L,
      listener: EngineListener = EngineListener.Silent, memory: WindowMemory = WindowMemory.Unaccounted): WJoinEngine =
    shed match {
      case None =>
        if (plan.forward) new ForwardEvaluation(plan, filter, ranges, mode, listener, memory)
        else new BackwardEvaluation(plan, filter, ranges, mode, listener, memory)
      case Some(s) =>
        if (plan.forward) new SheddingForwardEvaluation(plan, filter, ranges, mode, s, partition, batch, listener, memory)
        else new SheddingBackwardEvaluation(plan, filter, ranges, mode, s, partition, batch, listener, memory)
    }

  /**
   * A batch W-join: the whole input is offered, then finish(); `shed`: under resource limits;
   * `memory`: the task's account of the windows.
   */
  def batch(plan: EnginePlan, filter: TupleFilter, ranges: RangeValues = RangeValues.None,
      shed: Option[ShedPlan] = None, partition: Int = 0, listener: EngineListener = EngineListener.Silent,
      memory: WindowMemory = WindowMemory.Unaccounted): WJoinEngine =
    apply(plan, filter, EngineMode.Batch, ranges, shed, partition, listener = listener, memory = memory)

  /**
   * One micro-batch of a streaming W-join with eviction watermark `watermark` (W, in time
   * units; Long.MinValue while there is none): eager for backward evaluation, ordered for
   * forward evaluation (see [[MicroBatchWJoin]]).
   */
  def streaming(plan: EnginePlan, filter: TupleFilter, watermark: Long,
      ranges: RangeValues = RangeValues.None): WJoinEngine =
    apply(plan, filter, EngineMode.Streaming(watermark), ranges)
}

/** What the engine may assume about rows that have not been offered yet. */
sealed abstract class EngineMode {
  /** Once finish() is called, every row with time <= completeBound has been offered. */
  def completeBound: Long
}

object EngineMode {
  /** Batch: every row is offered before finish(). */
  case object Batch extends EngineMode {
    def completeBound: Long = Long.MaxValue
  }

  /**
   * One micro-batch of a stream: rows of earlier batches come from the state, and every future
   * row has time > `watermark` (Spark drops later ones as late).
   */
  final case class Streaming(watermark: Long) extends EngineMode {
    def completeBound: Long = watermark
  }
}
