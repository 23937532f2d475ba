package wjoin.request

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import wjoin.core.{Algorithm, JoinHow, WindowStrategy}
import wjoin.errors.WJoinErrors

/**
 * A [[WJoinRequest]] from its options as plain data, keyed by the Python argument names: what
 * py4j makes of the Python package's dict (lists are java.util.List, dicts java.util.Map, None
 * is null or absent), and what the Connect plugin makes of its message. The one codec of the
 * options; their sizes are checked here ([[RequestLimits]]), their values by
 * [[wjoin.plan.logical.WindowJoinBuilder]].
 *
 * {{{
 *   names       list of strings            window            text
 *   on          list of column names       windows           list of terms (AND-ed)
 *   condition   a Column (converted by the caller)           algorithm, window_strategy, how: text
 *   time        a name, a list per input or a map input -> name
 *   bidirectional  boolean                 access_paths, expiration_interval: text
 *   limits      map   allocation  text or map   seed  number   (see LimitsArgument)
 *   output_names   text ("join", "prefixed"); absent: the session's spark.wjoin.outputNames
 * }}}
 */
object RequestCodec {
  /** The keys of the map, in the order of the Python signature. */
  val Keys: Seq[String] = Seq("names", "on", "condition", "time", "window", "windows", "algorithm", "window_strategy",
    "bidirectional", "access_paths", "expiration_interval", "how", "limits", "allocation", "seed", "output_names")

  /**
   * The request of `inputs` with the options of `arguments`; `condition` turns the map's
   * condition (a Column of the caller's API) into an expression.
   */
  def fromMap(inputs: Seq[LogicalPlan], arguments: java.util.Map[String, AnyRef],
      condition: AnyRef => Option[Expression]): WJoinRequest = {
    val args = arguments.asScala.toMap.filter(_._2 != null)
    val unknown = args.keySet -- Keys
    WJoinErrors.check(unknown.isEmpty, "WJOIN_UNKNOWN_ARGUMENT", Seq("arguments" -> unknown.toSeq.sorted))
    RequestLimits.requireArguments(args)
    def get[T](key: String, what: String)(convert: PartialFunction[AnyRef, T]): Option[T] =
      args.get(key).map(v => convert.applyOrElse(v, (_: AnyRef) => WJoinErrors.raise("WJOIN_INVALID_ARGUMENT",
        "argument" -> key, "reason" -> s"expected $what, got ${v.getClass.getSimpleName} $v")))
    def text(key: String): Option[String] = get(key, "a string") { case s: String => s }
    def texts(key: String): Option[Seq[String]] = get(key, "a list of strings") {
      case l: java.util.List[_] if l.asScala.forall(_.isInstanceOf[String]) => l.asScala.map(_.toString).toSeq
    }
    val time = get("time", "a column name, a list of names or a map input -> name") {
      case s: String => TimeColumns.Same(s)
      case l: java.util.List[_] if l.asScala.forall(_.isInstanceOf[String]) =>
        TimeColumns.PerInput(l.asScala.map(_.toString).toSeq)
      case m: java.util.Map[_, _] if m.asScala.forall(kv => kv._1.isInstanceOf[String] && kv._2.isInstanceOf[String]) =>
        TimeColumns.ByInput(m.asScala.toSeq.map { case (k, v) => (k.toString, v.toString) })
    }
    WJoinRequest(
      inputs = inputs,
      names = texts("names"),
      on = texts("on").getOrElse(Nil),
      condition = args.get("condition").flatMap(condition),
      time = time.getOrElse(TimeColumns.Default),
      window = text("window"),
      windows = texts("windows").map(_.mkString(" AND ")),
      algorithm = text("algorithm").fold[Choice[Algorithm]](Choice.Auto)(Choice.parse(_, Algorithm, "algorithm")),
      windowStrategy = text("window_strategy").fold[Choice[WindowStrategy]](Choice.Auto)(
        Choice.parse(_, WindowStrategy, "window strategy")),
      bidirectional = get("bidirectional", "true or false") { case b: java.lang.Boolean => b.booleanValue }
        .getOrElse(false),
      accessPaths = text("access_paths").getOrElse("auto"),
      expirationInterval = text("expiration_interval").getOrElse("0"),
      how = text("how").fold[JoinHow](JoinHow.Inner)(JoinHow.parseOrFail),
      limits = LimitsArgument(args.get("limits"), args.get("allocation"), args.get("seed")),
      outputNames = text("output_names").map(OutputNames.parseOrFail))
  }
}
