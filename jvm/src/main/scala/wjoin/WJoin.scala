package wjoin

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame}
import org.apache.spark.sql.catalyst.analysis.Resolver
import org.apache.spark.sql.catalyst.expressions.{Alias, And, Attribute, EqualTo, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, SubqueryAlias, UnaryNode, Union, View}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.sql.wjoin.SparkBridge

import wjoin.core.{Algorithm, DirectedWindow, Durations, JoinHow, UniformWindow, WindowMatrix, WindowStrategy, WindowTerm,
  WindowTermParser}
import wjoin.core.cost.AccessRequest

import wjoin.plan.{AccessOptions, PushFiltersIntoWindowJoin, WindowJoin, WindowJoinPlanner, WindowSpec}

/**
 * The Scala API of the W-join (the Python package calls [[WJoin.fromArguments]]):
 * {{{
 *   import wjoin.implicits._
 *   val joined = a.wjoin(b, c).on("obj_id").time("ts").window("2 minutes").toDF
 *   val paths  = WJoin("A" -> a, "B" -> b, "C" -> c).on("obj_id").time("ts")
 *     .windows("DWINDOW(A,B) = [30 seconds, 2 minutes] AND DWINDOW(B,C) = 3 minutes").toDF
 * }}}
 * The session needs `spark.sql.extensions=wjoin.WJoinExtensions`. Every misuse fails here,
 * before any job runs, with an IllegalArgumentException naming the input, column or term.
 */
object WJoin extends PredicateHelper {
  /** Inputs named by the given names. */
  def apply(inputs: (String, DataFrame)*): Builder = new Builder(inputs.map(_._1), inputs.map(_._2))

  /** Inputs named by their `alias`, else A, B, C, ... by position. */
  def of(inputs: Seq[DataFrame]): Builder = new Builder(defaultNames(inputs.asJava).asScala.toSeq, inputs)

  /** Immutable builder; each call returns a new one. */
  final case class Builder private[WJoin] (
      names: Seq[String],
      inputs: Seq[DataFrame],
      onColumns: Seq[String] = Nil,
      onCondition: Option[Column] = None,
      timeColumns: Seq[String] = Nil,
      window: Option[String] = None,
      windowTerms: Option[String] = None,
      algorithmName: String = "auto",
      strategyName: String = "auto",
      bothDirections: Boolean = false,
      access: AccessOptions = AccessOptions(),
      howName: String = "inner",
      limitsArg: LimitsArgument = LimitsArgument()) {
    /** Equi-join on columns present in every input; each appears once in the output. */
    def on(columns: String*): Builder = copy(onColumns = onColumns ++ columns)
    /** A boolean condition over the inputs' columns (AND-ed with earlier ones). */
    def on(condition: Column): Builder = copy(onCondition = Some(onCondition.fold(condition)(_ && condition)))
    /** The event-time column: one name for all inputs, or one per input. */
    def time(columns: String*): Builder = copy(timeColumns = columns)
    /** Form 1: every pair within `length` ("2 seconds", "INTERVAL 5 MINUTES", or a number). */
    def window(length: String): Builder = copy(window = Some(length))
    /** The papers' syntax: "WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [1 minute, 3 minutes]". */
    def windows(terms: String): Builder = copy(windowTerms = Some(terms))
    /** "auto" (default), "nlw", "hw" or "mw". */
    def algorithm(name: String): Builder = copy(algorithmName = name)
    /** How periods are bounded: "auto" (default), "exact", "gca" or "lca" ([[WindowStrategy]]). */
    def windowStrategy(name: String): Builder = copy(strategyName = name)
    /**
     * With only DWINDOW terms: the path and the reversed path (every DWINDOW(A,B) = [lo, hi]
     * read as DWINDOW(B,A) = [lo, hi]), each combination once (Hammad et al. Sec. 5.2: ABCD or DCBA).
     */
    def bidirectional(enabled: Boolean): Builder = copy(bothDirections = enabled)
    /**
     * What is emitted, the first input being the anchor: "inner" (default), "left" (also each
     * anchor row in no combination, NULLs for the others), "left_semi" (each anchor row in some
     * combination, once), "left_anti" (each anchor row in none, once). See [[JoinHow]].
     */
    def how(name: String): Builder = copy(howName = name)

    /**
     * Access path per input (Kang et al.): "A:hash, B:ttree", "auto" (default: every path an input
     * allows competes by cost; "cost" is a synonym), or "auto" followed by forced inputs
     * ("auto, C:scan").
     */
    def accessPaths(spec: String): Builder = copy(access = access.copy(paths = spec))
    /** Lazy expiration interval tau: "0" (eager, default), "auto" or a length ("5 seconds", 10). */
    def expirationInterval(tau: String): Builder = copy(access = access.copy(expiration = tau))

    /**
     * Resource limits per partition (Kang et al. Sec. 5.2): `Map("state_rows" -> M)`
     * and / or `"probe_rate" -> mu`; the result is then a sub-bag of the exact W-join.
     */
    def limits(values: Map[String, Any]): Builder = copy(limitsArg = limitsArg.copy(limits = Some(values)))
    /** How the limits are split: "auto" (default), "equal", "proportional". */
    def allocation(name: String): Builder = copy(limitsArg = limitsArg.copy(allocation = Some(name)))
    /** Fixed shares: `Map("A" -> 0.8, "B" -> 0.2)`, or one map per budget under "state_rows" / "probe_rate". */
    def allocation(shares: Map[String, Any]): Builder = copy(limitsArg = limitsArg.copy(allocation = Some(shares)))
    /** The seed of the shedding's random choices (default 0). */
    def seed(value: Long): Builder = copy(limitsArg = limitsArg.copy(seed = Some(value)))

    def toDF: DataFrame = create(inputs.asJava, names.asJava, onColumns.asJava, onCondition.orNull,
      timeColumns.asJava, window.orNull, windowTerms.orNull, algorithmName, strategyName, bothDirections,
      access.paths, access.expiration, howName, limitsArg)
  }

  /**
   * The name `DataFrame.alias` gave, also under later filters and projections (which keep the
   * qualifier); not the name of a table or view.
   */
  private def aliasOf(df: DataFrame): Option[String] = {
    def find(plan: LogicalPlan): Option[String] = plan match {
      case SubqueryAlias(id, _: View) => None
      case SubqueryAlias(id, _) if id.qualifier.isEmpty => Some(id.name)
      case u: UnaryNode => find(u.child)
      case _ => None
    }
    val plan = SparkBridge.analyzedPlan(df)
    find(plan).filter(name => plan.output.nonEmpty && plan.output.forall(_.qualifier == Seq(name)))
  }

  /**
   * The W-join of `inputs` from its arguments as plain data (see [[WJoinArguments.fromMap]]):
   * the one call of the Python package, and of any client that cannot build a [[Builder]].
   */
  def fromArguments(inputs: java.util.List[DataFrame], arguments: java.util.Map[String, AnyRef]): DataFrame =
    WJoinArguments.fromMap(arguments).toDF(inputs.asScala.toSeq)

  /** Names for inputs given as a list: their `alias` where set, else A, B, C, ... by position. */
  def defaultNames(inputs: java.util.List[DataFrame]): java.util.List[String] =
    inputs.asScala.zipWithIndex.map { case (df, i) =>
      aliasOf(df).getOrElse(if (i < 26) ('A' + i).toChar.toString else s"S${i + 1}")
    }.asJava

  private def timeKind(t: DataType): Option[String] = t match {
    case TimestampType => Some("timestamp")
    case TimestampNTZType => Some("timestamp_ntz")
    case LongType | IntegerType | ShortType | ByteType => Some("integral")
    case _ => None
  }

  private def column(plan: LogicalPlan, name: String, input: String, what: String, resolver: Resolver): Attribute = {
    val found = plan.output.filter(a => resolver(a.name, name))
    require(found.nonEmpty,
      s"$what column '$name' is not a column of input $input (its columns: ${plan.output.map(_.name).mkString(", ")})")
    require(found.size == 1, s"$what column '$name' is ambiguous in input $input")
    found.head
  }

  /** Fails unless `name` is "auto" or one of the algorithms. */
  def requireKnownAlgorithm(name: String): Unit =
    require(Algorithm.parse(name).isDefined || name == "auto",
      s"unknown algorithm '$name'; use one of auto, ${Algorithm.all.map(_.name).mkString(", ")}")

  /** Fails unless `name` is a window strategy (auto, exact, gca, lca). */
  def requireKnownWindowStrategy(name: String): WindowStrategy = WindowStrategy.parseOrFail(name)

  /** The checks that need no plan: at least 2 inputs, one unique name each, a known algorithm. */
  private[wjoin] def requireInputNames(inputNames: Seq[String], n: Int, algorithm: String): Unit = {
    require(n >= 2, s"a W-join needs at least 2 inputs, got $n")
    require(inputNames.size == n, s"got ${inputNames.size} names for $n inputs")
    require(inputNames.forall(s => s != null && s.nonEmpty), "input names must be non-empty")
    val duplicated = inputNames.groupBy(_.toLowerCase(java.util.Locale.ROOT)).values.filter(_.size > 1)
      .map(_.distinct.mkString(" / ")).toSeq.sorted
    require(duplicated.isEmpty, s"input names must be unique (ignoring case), but ${duplicated.mkString(", ")} is " +
      "used twice; name the inputs (a dict in Python, DataFrame.alias, or WJoin(name -> df, ...))")
    requireKnownAlgorithm(algorithm)
  }

  /**
   * Builds the W-join of `inputs` (validated here, before any job runs).
   *
   * @param inputs      the DataFrames, N >= 2, all batch or all streaming (each with a watermark
   *                    on its time column)
   * @param names       one name per input (unique)
   * @param onColumns   equi-join columns present in every input (may be empty)
   * @param onCondition a boolean condition over the inputs' columns, or null
   * @param timeColumns one event-time column name for all inputs, or one per input; empty:
   *                    each input's only timestamp column
   * @param window      Form 1 window length, or null
   * @param windows     window terms in the papers' syntax, or null
   * @param algorithm   "auto", "nlw", "hw" or "mw"
   * @param windowStrategy "auto", "exact", "gca" or "lca" (how periods are bounded)
   * @param bidirectional  only DWINDOW terms: the path or its reverse, each combination once
   * @param accessPaths    see [[Builder.accessPaths]]; null means the default. Forced paths that
   *                       cannot apply (hash without a shared key, a tree without a band
   *                       predicate, anything but scan under nlw) fail here.
   * @param expirationInterval see [[Builder.expirationInterval]]; null means eager
   * @param how         "inner", "left", "left_semi" or "left_anti" ([[JoinHow]]); null means inner
   * @param limits      resource limits, allocation and seed ([[LimitsArgument]]); empty: exact
   */
  def create(
      inputs: java.util.List[DataFrame],
      names: java.util.List[String],
      onColumns: java.util.List[String],
      onCondition: Column,
      timeColumns: java.util.List[String],
      window: String,
      windows: String,
      algorithm: String,
      windowStrategy: String,
      bidirectional: Boolean,
      accessPaths: String,
      expirationInterval: String,
      how: String = "inner",
      limits: LimitsArgument = LimitsArgument()): DataFrame = {
    val dfs = inputs.asScala.toSeq
    val inputNames = names.asScala.toSeq
    val n = dfs.size
    requireInputNames(inputNames, n, algorithm)
    val spark = dfs.head.sparkSession
    require(dfs.forall(_.sparkSession eq spark), "all W-join inputs must belong to the same SparkSession")

    val plans = dfs.map(SparkBridge.analyzedPlan)
    val streaming = inputNames.zip(plans).filter(_._2.isStreaming).map(_._1)
    require(streaming.isEmpty || streaming.size == n,
      s"W-join inputs ${streaming.mkString(", ")} are streaming and ${inputNames.filterNot(streaming.contains)
        .mkString(", ")} are not: a W-join joins either batch DataFrames or streaming ones, not a mix")

    val condition = Option(onCondition).map(SparkBridge.expression(spark, _))
    val access = AccessOptions(Option(accessPaths).getOrElse("auto"), Option(expirationInterval).getOrElse("0"))
    val df = SparkBridge.toDataFrame(spark, plan(plans, inputNames, onColumns.asScala.toSeq, condition,
      timeColumns.asScala.toSeq, Option(window), Option(windows), algorithm, windowStrategy, bidirectional, access,
      Option(how).getOrElse("inner"), limits))
    if (access != AccessOptions()) // forced paths are checked against the analyzed condition now
      SparkBridge.analyzedPlan(df).foreach { case w: WindowJoin => WindowJoinPlanner.choose(w); case _ => }
    df
  }

  /**
   * The one validation and construction of a W-join, shared by [[create]] (DataFrames) and the
   * SQL extension ([[wjoin.sql.ResolveWindowJoinSql]], once the relations of the FROM clause
   * are resolved). Throws IllegalArgumentException naming the input, column or term at fault.
   *
   * @param plans       the inputs' analyzed plans, in order
   * @param inputNames  one unique name per input
   * @param onColumns   equi-join columns present in every input (may be empty)
   * @param onCondition a boolean condition over the inputs' columns (resolved or not)
   * @param timeColumns one event-time column for all inputs, one per input, or none: then each
   *                    input's only timestamp (or timestamp_ntz) column
   * @param window      Form 1 window length
   * @param windows     window terms in the papers' syntax
   * @param algorithm   "auto", "nlw", "hw" or "mw"
   * @param windowStrategy "auto", "exact", "gca" or "lca" ([[WindowStrategy]])
   * @param bidirectional  only DWINDOW terms: Union(path, reversed path excluding the path)
   * @param access      access paths and expiration interval (Kang et al.; Golab & Özsu)
   * @param how         "inner", "left", "left_semi" or "left_anti" (the first input is the anchor)
   * @param limits      resource limits (Kang et al. Sec. 5.2), checked here
   * @return the [[WindowJoin]] (a Union of two for `bidirectional`), under a Filter for Python
   *         UDFs over several inputs and a Project that keeps each `onColumns` column once,
   *         when there are such
   */
  def plan(
      plans: Seq[LogicalPlan],
      inputNames: Seq[String],
      onColumns: Seq[String],
      onCondition: Option[Expression],
      timeColumns: Seq[String],
      window: Option[String],
      windows: Option[String],
      algorithm: String,
      windowStrategy: String = "auto",
      bidirectional: Boolean = false,
      access: AccessOptions = AccessOptions(),
      how: String = "inner",
      limits: LimitsArgument = LimitsArgument()): LogicalPlan = {
    val n = plans.size
    requireInputNames(inputNames, n, algorithm)
    val joinHow = JoinHow.parseOrFail(how)
    val resourceLimits = limits.resolve(inputNames)
    require(resourceLimits.isEmpty || !joinHow.anchored, s"limits approximate the inner W-join only: under how=" +
      s"'$joinHow' a shed row could turn a matched ${inputNames.head} row into an unmatched one; use how='inner' " +
      "or drop limits")
    require(!(bidirectional && joinHow.anchored), s"how='$joinHow' decides each row of ${inputNames.head} once over " +
      "one path; bidirectional=true joins two (the path and its reverse): use how='inner' with bidirectional, or " +
      "drop bidirectional")
    val strategy = requireKnownWindowStrategy(windowStrategy)
    AccessRequest.parse(access.paths, inputNames) // unknown inputs or paths fail here
    val resolver = SQLConf.get.resolver

    // Give every input its name as qualifier and its own attribute ids (the same DataFrame
    // may be several inputs). The aliases carry the input's name in their metadata: Spark's
    // RemoveRedundantAliases keeps the aliases under the sides of a Join apart, but not under
    // the children of another node, and it removes an alias of a column to its own name and
    // metadata, which would give two inputs the same ids (and `A.k = B.k` would become true).
    val seen = scala.collection.mutable.HashSet.empty[Long]
    val children: Seq[LogicalPlan] = plans.zip(inputNames).map { case (plan, name) =>
      val distinct = if (plan.output.exists(a => seen.contains(a.exprId.id)))
        Project(plan.output.map(a => Alias(a, a.name)(explicitMetadata = Some(
          new MetadataBuilder().withMetadata(a.metadata).putString(InputMetadataKey, name).build()))), plan)
      else plan
      distinct.output.foreach(a => seen += a.exprId.id)
      SubqueryAlias(name, distinct)
    }

    val timeNames = timeColumns
    require(timeNames.size <= 1 || timeNames.size == n,
      s"time: got ${timeNames.size} columns for $n inputs; give one time column for all inputs or one per input")
    val times = children.indices.map { i =>
      val attr = if (timeNames.isEmpty) onlyTimestampColumn(children(i), inputNames(i))
        else column(children(i), if (timeNames.size == 1) timeNames.head else timeNames(i), inputNames(i),
          "time", resolver)
      require(timeKind(attr.dataType).isDefined, s"time column '${attr.name}' of input ${inputNames(i)} has type " +
        s"${attr.dataType.simpleString}; use a timestamp, timestamp_ntz or integral (int/bigint) column")
      attr
    }
    val kinds = times.map(a => timeKind(a.dataType).get).distinct
    val typed = inputNames.zip(times).map { case (nm, a) => s"$nm.${a.name}: ${a.dataType.simpleString}" }
    require(kinds.size == 1,
      s"the time columns mix kinds ${kinds.mkString(" and ")} (${typed.mkString(", ")}); cast them to one kind")
    val integral = kinds.head == "integral"

    val keyEqualities: Seq[Expression] = onColumns.flatMap { name =>
      val cols = children.indices.map(i => column(children(i), name, inputNames(i), "join", resolver))
      cols.tail.map(c => EqualTo(cols.head, c))
    }
    // Python UDFs over several inputs run in a Filter above the join (Spark extracts them
    // only from Filter and Project); for an inner join that is the same answer.
    val (pythonConjuncts, userConjuncts) = onCondition.toSeq
      .flatMap(splitConjunctivePredicates).partition(PushFiltersIntoWindowJoin.callsPython)
    val condition = (keyEqualities ++ userConjuncts).reduceOption(And)
    require(pythonConjuncts.isEmpty || !joinHow.anchored, s"how='$joinHow': the condition " +
      s"${pythonConjuncts.map(_.sql).mkString(" AND ")} calls a Python UDF over several inputs, which Spark evaluates " +
      "above the join, after the anchor rows are decided; use a SQL expression or a Scala / Java UDF, or how='inner'")

    val terms: Seq[WindowTerm] =
      window.map(w => UniformWindow(Durations.parse(w, integral, "window"), s"WINDOW = $w")).toSeq ++
        windows.toSeq.flatMap(WindowTermParser.parse(_, inputNames, integral))
    require(terms.nonEmpty, "give the window: window=\"2 seconds\" (every pair) or windows=\"WINDOW(A,B) = ...\"")
    val matrix = WindowMatrix.close(terms, inputNames)

    val output = WindowJoin.outputOf(children, times.head, joinHow)
    val accessSpec = access.parse(inputNames, integral) // a bad length or path fails here
    val spec = WindowSpec(terms, matrix, integral, strategy)
    if (resourceLimits.isDefined && plans.exists(_.isStreaming)) {
      require(!Algorithm.parse(algorithm).contains(Algorithm.MW), "limits: a streaming W-join sheds load in the eager " +
        "mode (NLW-join, HW-join); the ordered mode (algorithm 'mw') holds every row newer than the watermark, which " +
        "no budget bounds. Use algorithm 'auto', 'hw' or 'nlw', or drop limits")
      require(!spec.counted, "limits: ROWS windows of a streaming W-join need the ordered mode (MW-join), which holds " +
        "every row newer than the watermark beyond any budget; use time windows (WINDOW, DWINDOW, RANGE) with " +
        "limits, or drop limits")
    }
    val forward = WindowJoin(children, inputNames, times, condition, spec, Algorithm.parse(algorithm), output,
      accessSpec, joinHow, resourceLimits)
    val join = if (!bidirectional) forward else {
      val backward = reversedPath(terms, inputNames, spec)
      Union(Seq(forward, forward.copy(windows = backward)))
    }
    val filtered = if (pythonConjuncts.isEmpty) join else Filter(pythonConjuncts.reduce(And), join)
    if (onColumns.isEmpty) filtered else {
      val keyCols = onColumns.map(name => column(children.head, name, inputNames.head, "join", resolver))
      val keyIds = onColumns.flatMap(name => children.map(c => column(c, name, "", "join", resolver).exprId)).toSet
      val byId = output.map(a => a.exprId -> a).toMap
      Project(keyCols.map(a => byId(a.exprId)) ++ output.filterNot(a => keyIds(a.exprId)), filtered)
    }
  }

  /**
   * The second half of a bidirectional path query: every DWINDOW(A,B) = [lo, hi] reversed to
   * DWINDOW(B,A) = [lo, hi], excluding the combinations the path `spec` itself matches.
   */
  private def reversedPath(terms: Seq[WindowTerm], names: Seq[String], spec: WindowSpec): WindowSpec = {
    val undirected = terms.filterNot(_.isInstanceOf[DirectedWindow]).map(t => s"'${t.text}'")
    require(undirected.isEmpty, s"bidirectional=true reverses a path of DWINDOW terms, but " +
      s"${undirected.mkString(", ")} ${if (undirected.size == 1) "is" else "are"} not directed; write every term as " +
      "DWINDOW(A,B) = <length> or [<low>, <high>], or drop bidirectional")
    val reversed = terms.collect { case d: DirectedWindow =>
      val value = d.text.substring(d.text.indexOf('=') + 1).trim
      DirectedWindow(d.b, d.a, d.lo, d.hi, s"DWINDOW(${names(d.b)},${names(d.a)}) = $value")
    }
    WindowSpec(reversed, WindowMatrix.close(reversed, names), spec.integralTime, spec.strategy, excluding = Some(spec))
  }

  /** Metadata key of the columns of an input that repeats another's ids: the input's name. */
  val InputMetadataKey = "wjoin.input"

  /** The default time column: the input's only timestamp or timestamp_ntz column. */
  private def onlyTimestampColumn(plan: LogicalPlan, input: String): Attribute = {
    val stamps = plan.output.filter(a => a.dataType == TimestampType || a.dataType == TimestampNTZType)
    require(stamps.size == 1, s"input $input has ${stamps.size} timestamp columns " +
      s"(${if (stamps.isEmpty) "none" else stamps.map(_.name).mkString(", ")}), so its event-time column must be " +
      "named: time= in Python, time(...) in Scala, USING TIME in SQL")
    stamps.head
  }
}

/** `import wjoin.implicits._` adds `df.wjoin(others*)`. */
object implicits {
  implicit class WJoinDataFrameOps(private val df: DataFrame) extends AnyVal {
    def wjoin(others: DataFrame*): WJoin.Builder = WJoin.of(df +: others)
  }
}
