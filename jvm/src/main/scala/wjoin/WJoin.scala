package wjoin

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.wjoin.SparkBridge

import wjoin.core.{Algorithm, JoinHow, WindowStrategy}
import wjoin.errors.WJoinErrors
import wjoin.extension.SessionRegistration
import wjoin.plan.logical.WindowJoinBuilder
import wjoin.request.{Choice, LimitsArgument, OutputNames, RequestCodec, TimeColumns, WJoinRequest}

/**
 * The Scala API of the W-join (the Python package calls [[WJoin.fromArguments]]):
 * {{{
 *   import wjoin.implicits._
 *   val joined = a.wjoin(b, c).on("obj_id").time("ts").window("2 minutes").toDF
 *   val paths  = WJoin("A" -> a, "B" -> b, "C" -> c).on("obj_id").time("ts")
 *     .windows("DWINDOW(A,B) = [30 seconds, 2 minutes] AND DWINDOW(B,C) = 3 minutes").toDF
 * }}}
 * The session needs `spark.sql.extensions=wjoin.WJoinExtensions`, or [[register]] on a running
 * session whose jar is loaded (the DataFrame API only; SQL's window clause needs the
 * extension from the session's start). Every misuse fails here,
 * before any job runs, with a [[wjoin.errors.WJoinAnalysisException]] (an AnalysisException
 * of a `WJOIN_` condition) naming the input, column or term.
 */
object WJoin {
  /** Inputs named by the given names. */
  def apply(inputs: (String, DataFrame)*): Builder = new Builder(inputs.map(_._2), Some(inputs.map(_._1)))

  /** Inputs named by their `alias`, else A, B, C, ... by position. */
  def of(inputs: Seq[DataFrame]): Builder = new Builder(inputs, None)

  /**
   * Immutable builder of a [[WJoinRequest]]; each call returns a new one. Names of closed sets
   * (algorithm, window strategy, how) are checked when given; everything else at [[toDF]].
   */
  final case class Builder private[WJoin] (
      inputs: Seq[DataFrame],
      names: Option[Seq[String]],
      onColumns: Seq[String] = Nil,
      onCondition: Option[Column] = None,
      request: WJoinRequest = WJoinRequest(Nil)) {
    /** Equi-join on columns present in every input; each appears once in the output. */
    def on(columns: String*): Builder = copy(onColumns = onColumns ++ columns)
    /** A boolean condition over the inputs' columns (AND-ed with earlier ones). */
    def on(condition: Column): Builder = copy(onCondition = Some(onCondition.fold(condition)(_ && condition)))
    /** The event-time column: one name for all inputs, or one per input. */
    def time(columns: String*): Builder = set(_.copy(time = TimeColumns.of(columns)))
    /** Form 1: every pair within `length` ("2 seconds", "INTERVAL 5 MINUTES", or a number). */
    def window(length: String): Builder = set(_.copy(window = Some(length)))
    /** The papers' syntax: "WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [1 minute, 3 minutes]". */
    def windows(terms: String): Builder = set(_.copy(windows = Some(terms)))
    /** "auto" (default), "nlw", "hw" or "mw". */
    def algorithm(name: String): Builder = set(_.copy(algorithm = Choice.parse(name, Algorithm, "algorithm")))
    /** How periods are bounded: "auto" (default), "exact", "gca" or "lca" ([[WindowStrategy]]). */
    def windowStrategy(name: String): Builder =
      set(_.copy(windowStrategy = Choice.parse(name, WindowStrategy, "window strategy")))
    /**
     * With only DWINDOW terms: the path and the reversed path (every DWINDOW(A,B) = [lo, hi]
     * read as DWINDOW(B,A) = [lo, hi]), each combination once (Hammad et al. Sec. 5.2: ABCD or DCBA).
     */
    def bidirectional(enabled: Boolean): Builder = set(_.copy(bidirectional = enabled))
    /**
     * What is emitted, the first input being the anchor: "inner" (default), "left" (also each
     * anchor row in no combination, NULLs for the others), "left_semi" (each anchor row in some
     * combination, once), "left_anti" (each anchor row in none, once). See [[JoinHow]].
     */
    def how(name: String): Builder = set(_.copy(how = JoinHow.parseOrFail(name)))

    /**
     * Access path per input (Kang et al.): "A:hash, B:ttree", "auto" (default: every path an input
     * allows competes by cost; "cost" is a synonym), or "auto" followed by forced inputs
     * ("auto, C:scan").
     */
    def accessPaths(spec: String): Builder = set(_.copy(accessPaths = spec))
    /** Lazy expiration interval tau: "0" (eager, default), "auto" or a length ("5 seconds", 10). */
    def expirationInterval(tau: String): Builder = set(_.copy(expirationInterval = tau))

    /**
     * Resource limits per partition (Kang et al. Sec. 5.2): `Map("state_rows" -> M)`
     * and / or `"probe_rate" -> mu`; the result is then a sub-bag of the exact W-join.
     */
    def limits(values: Map[String, Any]): Builder = setLimits(_.copy(limits = Some(values)))
    /** How the limits are split: "auto" (default), "equal", "proportional". */
    def allocation(name: String): Builder = setLimits(_.copy(allocation = Some(name)))
    /** Fixed shares: `Map("A" -> 0.8, "B" -> 0.2)`, or one map per budget under "state_rows" / "probe_rate". */
    def allocation(shares: Map[String, Any]): Builder = setLimits(_.copy(allocation = Some(shares)))
    /** The seed of the shedding's random choices (default 0). */
    def seed(value: Long): Builder = setLimits(_.copy(seed = Some(value)))

    /**
     * How output columns are named ([[wjoin.request.OutputNames]]): "join" (as `DataFrame.join`:
     * k, ts, v, ts, v) or "prefixed" (k, A_ts, A_v, B_ts, B_v: names a file can hold). Unset:
     * the session's `spark.wjoin.outputNames` (default "join").
     */
    def outputNames(naming: String): Builder = set(_.copy(outputNames = Some(OutputNames.parseOrFail(naming))))

    private def set(change: WJoinRequest => WJoinRequest): Builder = copy(request = change(request))
    private def setLimits(change: LimitsArgument => LimitsArgument): Builder =
      set(r => r.copy(limits = change(r.limits)))

    def toDF: DataFrame = dataFrame(inputs) { (session, plans) =>
      request.copy(inputs = plans, names = names, on = onColumns,
        condition = onCondition.map(SparkBridge.expression(session, _)))
    }
  }

  /**
   * The W-join of `inputs` from its options as plain data ([[RequestCodec]]): the one call of
   * the Python package, and of any client that cannot build a [[Builder]].
   */
  def fromArguments(inputs: java.util.List[DataFrame], arguments: java.util.Map[String, AnyRef]): DataFrame =
    dataFrame(inputs.asScala.toSeq) { (session, plans) =>
      RequestCodec.fromMap(plans, arguments, {
        case c: Column => Some(SparkBridge.expression(session, c))
        case other => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT", "argument" -> "condition",
          "reason" -> s"expected a Column, got ${other.getClass.getSimpleName} $other")
      })
    }

  /**
   * Enables the DataFrame API on a running session whose classpath has this jar but whose
   * `spark.sql.extensions` lacks `wjoin.WJoinExtensions` (a no-op with it); see
   * [[wjoin.extension.SessionRegistration]]. SQL's window clause still needs the extension at
   * the session's start.
   */
  def register(session: SparkSession): Unit = SessionRegistration.register(session)

  /** The accepted names of an argument with a closed set of values (for the Python package's docs). */
  def choices(argument: String): java.util.List[String] = WJoinRequest.choices(argument).asJava

  /** The W-join of DataFrames of one session: the request `of` their session and analyzed plans, built. */
  private def dataFrame(dfs: Seq[DataFrame])(of: (SparkSession, Seq[LogicalPlan]) => WJoinRequest): DataFrame = {
    WindowJoinBuilder.requireInputCount(dfs.size)
    val session = dfs.head.sparkSession
    WJoinErrors.check(dfs.forall(_.sparkSession eq session), "WJOIN_SESSION_MISMATCH", Nil)
    SessionRegistration.requirePlannable(session)
    SessionRegistration.checked(session,
      SparkBridge.toDataFrame(session, WindowJoinBuilder.build(of(session, dfs.map(SparkBridge.analyzedPlan)))))
  }
}

/** `import wjoin.implicits._` adds `df.wjoin(others*)`. */
object implicits {
  implicit class WJoinDataFrameOps(private val df: DataFrame) extends AnyVal {
    def wjoin(others: DataFrame*): WJoin.Builder = WJoin.of(df +: others)
  }
}
