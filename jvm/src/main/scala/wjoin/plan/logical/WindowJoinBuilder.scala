package wjoin.plan
package logical

import java.util.Locale

import scala.util.Try

import org.apache.spark.sql.catalyst.analysis.{Resolver, UnresolvedAttribute}
import org.apache.spark.sql.catalyst.expressions.{Alias, And, Attribute, EqualTo, Expression, PredicateHelper}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan, Project, SubqueryAlias, UnaryNode, Union, View}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.types._
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.core.{Algorithm, DirectedWindow, Durations, UniformWindow, WindowMatrix, WindowStrategy, WindowTerm, WindowTermParser}
import wjoin.errors.WJoinErrors
import wjoin.request.{OutputNames, RequestLimits, TimeColumns, WJoinRequest}

/**
 * The one place a [[WJoinRequest]] becomes a logical plan, and the one place its values are
 * checked against the inputs, each rule once, before any job runs (errors are `WJOIN_`
 * conditions naming the input, column or term). What needs the analyzed condition (a key for
 * HW-join, forced access paths, watermarks of streams) is checked by [[WindowJoinChecks]] once
 * the SQL form's WHERE clause is resolved too.
 *
 * {{{
 *   request ─ input count, text lengths ─ names (alias or A, B, C), unique ─ how x limits x bidirectional
 *           ─ each input under SubqueryAlias(name) with its own attribute ids
 *           ─ time columns (one kind) ─ key equalities of `on` ─ Python UDF conjuncts apart
 *           ─ window terms ─ closed WindowMatrix (contradictions, unbounded inputs)
 *   = WindowJoin (a Union of two for bidirectional), under a Filter for an inner one's Python UDFs and a
 *     Project keeping each `on` column once and naming the columns ([[OutputNaming]])
 * }}}
 */
object WindowJoinBuilder extends PredicateHelper {
  /** Metadata key of the columns of an input that repeats another's ids: the input's name. */
  val InputMetadataKey = "wjoin.input"

  /** Fails unless there are 2 to [[RequestLimits.MaxInputs]] inputs. */
  def requireInputCount(n: Int): Unit = RequestLimits.requireInputCount(n)

  /** Names for inputs given as a list: their `alias` where set, else A, B, C, ... by position. */
  def defaultNames(plans: Seq[LogicalPlan]): Seq[String] = plans.zipWithIndex.map { case (plan, i) =>
    aliasOf(plan).getOrElse(if (i < 26) ('A' + i).toChar.toString else s"S${i + 1}")
  }

  /**
   * The name `DataFrame.alias` gave, also under later filters and projections (which keep the
   * qualifier); not the name of a table or view.
   */
  private def aliasOf(plan: LogicalPlan): Option[String] = {
    def find(p: LogicalPlan): Option[String] = p match {
      case SubqueryAlias(_, _: View) => None
      case SubqueryAlias(id, _) if id.qualifier.isEmpty => Some(id.name)
      case u: UnaryNode => find(u.child)
      case _ => None
    }
    find(plan).filter(name => plan.output.nonEmpty && plan.output.forall(_.qualifier == Seq(name)))
  }

  /**
   * The logical plan of `request`: the [[WindowJoin]] (a Union of two for `bidirectional`),
   * under a Filter for Python UDFs and a Project that keeps each `on`
   * column once and names the output ([[OutputNaming]]: the request's `outputNames`, else the
   * session's `spark.wjoin.outputNames`), when there are such.
   */
  def build(request: WJoinRequest): LogicalPlan = {
    val plans = request.inputs
    val n = plans.size
    requireInputCount(n)
    RequestLimits.requireRequest(request)
    val inputNames = request.names.getOrElse(defaultNames(plans))
    requireNames(inputNames, n)
    val streaming = inputNames.zip(plans).filter(_._2.isStreaming).map(_._1)
    WJoinErrors.check(streaming.isEmpty || streaming.size == n, "WJOIN_MIXED_BATCH_AND_STREAMING",
      Seq("streaming" -> streaming, "batch" -> inputNames.filterNot(streaming.contains)))
    val how = request.how
    val resourceLimits = request.limits.resolve(inputNames)
    WJoinErrors.check(resourceLimits.isEmpty || !how.anchored, "WJOIN_LIMITS_NEED_INNER",
      Seq("how" -> how, "anchor" -> inputNames.head))
    WJoinErrors.check(!(request.bidirectional && how.anchored), "WJOIN_BIDIRECTIONAL_NEEDS_INNER",
      Seq("how" -> how, "anchor" -> inputNames.head))
    val strategy = request.windowStrategy.getOrElse(WindowStrategy.Auto)
    val resolver = SQLConf.get.resolver
    val children = namedChildren(plans, inputNames)

    val times = timeColumns(children, inputNames, request.time, resolver)
    val kinds = times.map(a => timeKind(a.dataType).get).distinct
    WJoinErrors.check(kinds.size == 1, "WJOIN_MIXED_TIME_TYPES", Seq("kinds" -> kinds.mkString(" and "),
      "columns" -> inputNames.zip(times).map { case (nm, a) => s"$nm.${a.name}: ${a.dataType.simpleString}" }))
    val integral = kinds.head == "integral"

    val keyEqualities: Seq[Expression] = request.on.flatMap { name =>
      val cols = children.indices.map(i => column(children(i), name, inputNames(i), "join", resolver))
      cols.tail.map(c => EqualTo(cols.head, c))
    }
    val userCondition = request.condition.map(DataFrameColumns.resolve(_, plans, children, inputNames))
    requireConditionColumns(userCondition, children, inputNames, resolver)
    // Where Python UDFs run: see PythonConjuncts (inner: a Filter above; else in the condition).
    val (pythonAbove, joinConjuncts) = userCondition.toSeq.flatMap(PythonConjuncts.split)
      .partition(c => !how.anchored && PushFiltersIntoWindowJoin.callsPython(c))
    val condition = (keyEqualities ++ joinConjuncts).reduceOption(And)

    val terms: Seq[WindowTerm] =
      request.window.map(w => UniformWindow(Durations.parse(w, integral, "window"), s"WINDOW = $w")).toSeq ++
        request.windows.toSeq.flatMap(WindowTermParser.parse(_, inputNames, integral))
    WJoinErrors.check(terms.nonEmpty, "WJOIN_MISSING_WINDOW", Nil)
    val spec = WindowSpec(terms, WindowMatrix.close(terms, inputNames), integral, strategy)
    WindowStrategy.requireExactWithRows(strategy, spec.counted)
    val accessSpec = AccessOptions(request.accessPaths, request.expirationInterval).parse(inputNames, integral)
    if (streaming.nonEmpty) {
      WJoinErrors.check(!(spec.counted && request.algorithm.toOption.exists(_ != Algorithm.MW)),
        "WJOIN_STREAMING_ROWS_NEED_MW", Seq("algorithm" -> request.algorithm))
      if (resourceLimits.isDefined) {
        WJoinErrors.check(!request.algorithm.toOption.contains(Algorithm.MW), "WJOIN_STREAMING_LIMITS_NEED_EAGER", Nil)
        WJoinErrors.check(!spec.counted, "WJOIN_STREAMING_LIMITS_WITH_ROWS", Nil)
      }
    }

    val output = WindowJoin.outputOf(children, times.head, how)
    val forward = WindowJoin(children, inputNames, times, condition, spec, request.algorithm.toOption, output,
      accessSpec, how, resourceLimits, pythonAbove.map(WindowJoin.qualifiedSql(_, children.map(_.output), inputNames)))
    val join = if (!request.bidirectional) forward else {
      Union(Seq(forward, forward.copy(windows = reversedPath(terms, inputNames, spec))))
    }
    val filtered = if (pythonAbove.isEmpty) join else Filter(pythonAbove.reduce(And), join)
    val keyCols = request.on.map(name => column(children.head, name, inputNames.head, "join", resolver))
    val keyIds = request.on.flatMap(name => children.map(c => column(c, name, "", "join", resolver).exprId)).toSet
    val naming = request.outputNames.getOrElse(OutputNames.parseOrFail(WJoinConf.outputNames(SQLConf.get)))
    OutputNaming(filtered, output, keyCols, keyIds, children.zip(inputNames), naming)
  }

  /** One unique, non-empty name per input (ignoring case). */
  private def requireNames(names: Seq[String], n: Int): Unit = {
    WJoinErrors.check(names.size == n, "WJOIN_NAME_COUNT_MISMATCH", Seq("names" -> names.size, "count" -> n))
    WJoinErrors.check(names.forall(s => s != null && s.nonEmpty), "WJOIN_EMPTY_INPUT_NAME", Nil)
    val duplicated = names.groupBy(_.toLowerCase(Locale.ROOT)).values.filter(_.size > 1)
      .map(_.distinct.mkString(" / ")).toSeq.sorted
    WJoinErrors.check(duplicated.isEmpty, "WJOIN_DUPLICATE_INPUT_NAME", Seq("names" -> duplicated))
  }

  /**
   * Every input under its name as qualifier, with its own attribute ids (the same DataFrame
   * may be several inputs). The aliases carry the input's name in their metadata: Spark's
   * RemoveRedundantAliases keeps the aliases under the sides of a Join apart, but not under
   * the children of another node, and it removes an alias of a column to its own name and
   * metadata, which would give two inputs the same ids (and `A.k = B.k` would become true).
   */
  private def namedChildren(plans: Seq[LogicalPlan], names: Seq[String]): Seq[LogicalPlan] = {
    val seen = scala.collection.mutable.HashSet.empty[Long]
    plans.zip(names).map { case (plan, name) =>
      val distinct = if (plan.output.exists(a => seen.contains(a.exprId.id)))
        Project(plan.output.map(a => Alias(a, a.name)(explicitMetadata = Some(
          new MetadataBuilder().withMetadata(a.metadata).putString(InputMetadataKey, name).build()))), plan)
      else plan
      distinct.output.foreach(a => seen += a.exprId.id)
      SubqueryAlias(name, distinct)
    }
  }

  /** The time column of each input, of a time type. */
  private def timeColumns(children: Seq[LogicalPlan], names: Seq[String], time: TimeColumns,
      resolver: Resolver): Seq[Attribute] = {
    val n = names.size
    val perInput: Seq[Option[String]] = time match {
      case TimeColumns.Default => Seq.fill(n)(None)
      case TimeColumns.Same(column) => Seq.fill(n)(Some(column))
      case TimeColumns.PerInput(columns) =>
        WJoinErrors.check(columns.size == n, "WJOIN_TIME_COLUMN_COUNT", Seq("columns" -> columns.size, "count" -> n))
        columns.map(Some(_))
      case TimeColumns.ByInput(columns) =>
        val resolved = columns.map { case (name, col) => (WindowTermParser.indexOfName(name, names), name, col) }
        val unknown = resolved.collect { case (None, name, _) => name }
        WJoinErrors.check(unknown.isEmpty, "WJOIN_UNKNOWN_INPUT", Seq("what" -> "time:", "names" -> unknown,
          "inputs" -> names))
        val byIndex = resolved.groupBy(_._1.get)
        byIndex.find(_._2.size > 1).foreach { case (i, _) =>
          WJoinErrors.raise("WJOIN_INPUT_GIVEN_TWICE", "what" -> "time", "input" -> names(i)) }
        val missing = names.indices.filterNot(byIndex.contains).map(names)
        WJoinErrors.check(missing.isEmpty, "WJOIN_MISSING_TIME_COLUMN", Seq("inputs" -> missing))
        names.indices.map(i => Some(byIndex(i).head._3))
    }
    children.indices.map { i =>
      val attr = perInput(i).fold(onlyTimestampColumn(children(i), names(i)))(
        column(children(i), _, names(i), "time", resolver))
      WJoinErrors.check(timeKind(attr.dataType).isDefined, "WJOIN_INVALID_TIME_TYPE",
        Seq("column" -> attr.name, "input" -> names(i), "type" -> attr.dataType.simpleString))
      attr
    }
  }

  /**
   * Every column the condition names by name is a column of some input: else the error names
   * the input (when the name is qualified by one) and its columns, before Spark's analyzer
   * would report it without the inputs.
   */
  private def requireConditionColumns(condition: Option[Expression], children: Seq[LogicalPlan], names: Seq[String],
      resolver: Resolver): Unit =
    condition.toSeq.flatMap(_.collect { case u: UnresolvedAttribute => u }).foreach { u =>
      val found = children.exists(c => Try(c.resolve(u.nameParts, resolver)).toOption.forall(_.isDefined))
      if (!found) {
        val qualified = if (u.nameParts.size < 2) None else names.indices.find(i => resolver(names(i), u.nameParts.head))
        qualified match {
          case Some(i) => WJoinErrors.raise("WJOIN_UNKNOWN_COLUMN", "what" -> "condition", "column" -> u.name,
            "input" -> names(i), "columns" -> children(i).output.map(_.name))
          case None => WJoinErrors.raise("WJOIN_UNKNOWN_CONDITION_COLUMN", "column" -> u.name,
            "columns" -> children.flatMap(c => c.output.map(a => s"${a.qualifier.mkString(".")}.${a.name}")))
        }
      }
    }

  private def timeKind(t: DataType): Option[String] = t match {
    case TimestampType => Some("timestamp")
    case TimestampNTZType => Some("timestamp_ntz")
    case LongType | IntegerType | ShortType | ByteType => Some("integral")
    case _ => None
  }

  private def column(plan: LogicalPlan, name: String, input: String, what: String, resolver: Resolver): Attribute = {
    val found = plan.output.filter(a => resolver(a.name, name))
    WJoinErrors.check(found.nonEmpty, "WJOIN_UNKNOWN_COLUMN", Seq("what" -> what, "column" -> name, "input" -> input,
      "columns" -> plan.output.map(_.name)))
    WJoinErrors.check(found.size == 1, "WJOIN_AMBIGUOUS_COLUMN", Seq("what" -> what, "column" -> name, "input" -> input))
    found.head
  }

  /** The default time column: the input's only timestamp or timestamp_ntz column. */
  private def onlyTimestampColumn(plan: LogicalPlan, input: String): Attribute = {
    val stamps = plan.output.filter(a => a.dataType == TimestampType || a.dataType == TimestampNTZType)
    WJoinErrors.check(stamps.nonEmpty, "WJOIN_NO_TIME_COLUMN", Seq("input" -> input,
      "columns" -> plan.output.map(a => s"${a.name} ${a.dataType.simpleString}").mkString(", ")))
    WJoinErrors.check(stamps.size == 1, "WJOIN_AMBIGUOUS_TIME_COLUMN", Seq("input" -> input, "count" -> stamps.size,
      "columns" -> stamps.map(_.name).mkString(", ")))
    stamps.head
  }

  /**
   * The second half of a bidirectional path query: every DWINDOW(A,B) = [lo, hi] reversed to
   * DWINDOW(B,A) = [lo, hi], excluding the combinations the path `spec` itself matches.
   */
  private def reversedPath(terms: Seq[WindowTerm], names: Seq[String], spec: WindowSpec): WindowSpec = {
    val undirected = terms.filterNot(_.isInstanceOf[DirectedWindow]).map(t => s"'${t.text}'")
    WJoinErrors.check(undirected.isEmpty, "WJOIN_BIDIRECTIONAL_NEEDS_DWINDOW", Seq("terms" -> undirected.mkString(", "),
      "verb" -> (if (undirected.size == 1) "is" else "are")))
    val reversed = terms.collect { case d: DirectedWindow =>
      val value = d.text.substring(d.text.lastIndexOf('=') + 1).trim // a length has no '=', a quoted name may
      DirectedWindow(d.b, d.a, d.lo, d.hi,
        s"DWINDOW(${WindowTermParser.nameText(names(d.b))},${WindowTermParser.nameText(names(d.a))}) = $value")
    }
    WindowSpec(reversed, WindowMatrix.close(reversed, names), spec.integralTime, spec.strategy, excluding = Some(spec))
  }
}
