package wjoin

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.{Column, DataFrame}

import wjoin.core.{Algorithm, JoinHow, WindowStrategy, WindowTermParser}
import wjoin.core.cost.AccessPath

/** The event-time argument of a W-join, before input names are resolved. */
sealed trait TimeArgument
object TimeArgument {
  /** Each input's only timestamp (or timestamp_ntz) column. */
  case object Default extends TimeArgument
  /** The same column name in every input. */
  final case class Same(column: String) extends TimeArgument
  /** One column per input, in input order. */
  final case class PerInput(columns: Seq[String]) extends TimeArgument
  /** Input name -> column, every input once (names resolved as in window terms). */
  final case class ByInput(columns: Seq[(String, String)]) extends TimeArgument
}

/**
 * The arguments of a W-join as plain data: names, strings, a boolean and a condition, what a
 * client that cannot build a [[WJoin.Builder]] sends (the Python package through py4j today).
 * Every check of their values happens here or in [[WJoin.plan]], so all front ends share it.
 *
 * @param names              one name per input; None: each input's alias, else A, B, C, ...
 * @param windows            window terms in the papers' syntax, AND-ed (None: only `window`)
 * @param accessPaths        "auto", "cost", "A:hash, B:ttree", "auto, C:scan"; None: "auto"
 * @param expirationInterval "0" (eager), "auto" or a length; None: eager
 * @param how                "inner", "left", "left_semi" or "left_anti" ([[JoinHow]])
 * @param limits             resource limits, allocation and seed as given ([[LimitsArgument]])
 */
final case class WJoinArguments(
    names: Option[Seq[String]] = None,
    onColumns: Seq[String] = Nil,
    onCondition: Option[Column] = None,
    time: TimeArgument = TimeArgument.Default,
    window: Option[String] = None,
    windows: Option[Seq[String]] = None,
    algorithm: String = "auto",
    windowStrategy: String = "auto",
    bidirectional: Boolean = false,
    accessPaths: Option[String] = None,
    expirationInterval: Option[String] = None,
    how: String = "inner",
    limits: LimitsArgument = LimitsArgument()) {

  /** The W-join of `inputs`; IllegalArgumentException naming the argument, input or term at fault. */
  def toDF(inputs: Seq[DataFrame]): DataFrame = {
    val inputNames = names.getOrElse(WJoin.defaultNames(inputs.asJava).asScala.toSeq)
    val algorithm = this.algorithm.trim.toLowerCase(Locale.ROOT) // names are case-insensitive
    WJoin.requireInputNames(inputNames, inputs.size, algorithm)
    WJoin.create(inputs.asJava, inputNames.asJava, onColumns.asJava, onCondition.orNull,
      timeColumns(inputNames).asJava, window.orNull, windows.map(_.mkString(" AND ")).orNull, algorithm,
      windowStrategy, bidirectional, accessPaths.orNull, expirationInterval.orNull, how, limits)
  }

  /** The time columns as [[WJoin.create]] takes them: none, one for all, or one per input. */
  private def timeColumns(inputNames: Seq[String]): Seq[String] = time match {
    case TimeArgument.Default => Nil
    case TimeArgument.Same(column) => Seq(column)
    case TimeArgument.PerInput(columns) =>
      require(columns.size == inputNames.size, s"time: got ${columns.size} columns for ${inputNames.size} inputs; " +
        "give one time column for all inputs or one per input")
      columns
    case TimeArgument.ByInput(columns) =>
      val resolved = columns.map { case (name, col) => (WindowTermParser.indexOfName(name, inputNames), name, col) }
      val unknown = resolved.collect { case (None, name, _) => name }
      require(unknown.isEmpty, s"time: unknown input(s) ${unknown.mkString(", ")}; the inputs are " +
        inputNames.mkString(", "))
      val byIndex = resolved.groupBy(_._1.get)
      byIndex.find(_._2.size > 1).foreach { case (i, _) =>
        throw new IllegalArgumentException(s"time: input ${inputNames(i)} is given twice") }
      val missing = inputNames.indices.filterNot(byIndex.contains).map(inputNames)
      require(missing.isEmpty, s"time: no time column for input(s) ${missing.mkString(", ")}")
      inputNames.indices.map(i => byIndex(i).head._3)
  }
}

object WJoinArguments {
  /** The accepted names of the algorithm, window-strategy and access-path arguments ("auto" first). */
  def choices(argument: String): java.util.List[String] = (argument match {
    case "algorithm" => "auto" +: Algorithm.all.map(_.name)
    case "window_strategy" => WindowStrategy.all.map(_.name)
    case "access_paths" => AccessPath.all.map(_.name)
    case "how" => JoinHow.all.map(_.name)
    case other => throw new IllegalArgumentException(s"no choices for '$other'")
  }).asJava

  private val Keys = Set("names", "on", "condition", "time", "window", "windows", "algorithm", "window_strategy",
    "bidirectional", "access_paths", "expiration_interval", "how", "limits", "allocation", "seed")

  /**
   * The arguments from a map of plain data, keyed by the Python argument names (what py4j
   * makes of a dict: lists are java.util.List, dicts java.util.Map, None is null or absent):
   * `names` (list), `on` (list of column names), `condition` (Column), `time` (a name, a list
   * per input or a map input -> column), `window` (text), `windows` (list of terms), `algorithm`,
   * `window_strategy`, `bidirectional` (boolean), `access_paths`, `expiration_interval`, `how` (text),
   * `limits` (map), `allocation` (text or map), `seed` (number): see [[LimitsArgument]].
   */
  def fromMap(arguments: java.util.Map[String, AnyRef]): WJoinArguments = {
    val args = arguments.asScala.toMap.filter(_._2 != null)
    val unknown = args.keySet -- Keys
    require(unknown.isEmpty, s"unknown W-join arguments ${unknown.toSeq.sorted.mkString(", ")}")
    def get[T](key: String, what: String)(convert: PartialFunction[AnyRef, T]): Option[T] =
      args.get(key).map(v => convert.applyOrElse(v, (_: AnyRef) => throw new IllegalArgumentException(
        s"$key: expected $what, got ${v.getClass.getSimpleName} $v")))
    def text(key: String): Option[String] = get(key, "a string") { case s: String => s }
    def texts(key: String): Option[Seq[String]] = get(key, "a list of strings") {
      case l: java.util.List[_] if l.asScala.forall(_.isInstanceOf[String]) => l.asScala.map(_.toString).toSeq
    }
    val time = get("time", "a column name, a list of names or a map input -> name") {
      case s: String => TimeArgument.Same(s)
      case l: java.util.List[_] if l.asScala.forall(_.isInstanceOf[String]) =>
        TimeArgument.PerInput(l.asScala.map(_.toString).toSeq)
      case m: java.util.Map[_, _] if m.asScala.forall(kv => kv._1.isInstanceOf[String] && kv._2.isInstanceOf[String]) =>
        TimeArgument.ByInput(m.asScala.toSeq.map { case (k, v) => (k.toString, v.toString) })
    }
    WJoinArguments(
      names = texts("names"),
      onColumns = texts("on").getOrElse(Nil),
      onCondition = get("condition", "a Column") { case c: Column => c },
      time = time.getOrElse(TimeArgument.Default),
      window = text("window"),
      windows = texts("windows"),
      algorithm = text("algorithm").getOrElse("auto"),
      windowStrategy = text("window_strategy").getOrElse("auto"),
      bidirectional = get("bidirectional", "true or false") { case b: java.lang.Boolean => b.booleanValue }
        .getOrElse(false),
      accessPaths = text("access_paths"),
      expirationInterval = text("expiration_interval"),
      how = text("how").getOrElse("inner"),
      limits = LimitsArgument(args.get("limits"), args.get("allocation"), args.get("seed")))
  }
}
