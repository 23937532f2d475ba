package wjoin.request

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan

import wjoin.core.{Algorithm, JoinHow, WindowStrategy}

/**
 * One W-join as asked for, whatever the front end: the Scala builder ([[wjoin.WJoin]]), the
 * Python package through py4j and the Spark Connect plugin (both via [[RequestCodec]]), and the
 * SQL window clause ([[wjoin.sql.ResolveWindowJoinSql]]). Each builds this value and nothing
 * else; [[wjoin.plan.logical.WindowJoinBuilder]] alone checks it against the inputs and turns it into
 * the logical plan.
 *
 * {{{
 *   Scala builder ─┐
 *   py4j map ──────┼─ RequestCodec ─┐
 *   Connect proto ─┘                ├─> WJoinRequest ──WindowJoinBuilder──> WindowJoin (+ Project / Filter / Union)
 *   SQL window clause ──────────────┘
 * }}}
 *
 * Values whose meaning needs the inputs (window lengths: microseconds or plain numbers by the
 * time columns' type; input names in access paths, time columns and allocations) are kept as
 * the user wrote them and parsed by the builder; names of closed sets are parsed here, once.
 *
 * @param inputs             the inputs' analyzed (DataFrames) or resolved (SQL) plans, N >= 2
 * @param names              one name per input; None: each input's alias, else A, B, C, ...
 * @param on                 equi-join columns present in every input (each kept once in the output)
 * @param condition          a boolean condition over the inputs' columns
 * @param time               the event-time columns
 * @param window             Form 1: every pair within this length
 * @param windows            window terms in the papers' syntax, joined by AND
 * @param algorithm          NLW-, HW- or MW-join, or auto
 * @param windowStrategy     how periods are bounded (exact, GCA, LCA), or auto
 * @param bidirectional      only DWINDOW terms: the path or its reverse, each combination once
 * @param accessPaths        "auto", "cost", "A:hash, B:ttree", "auto, C:scan"
 * @param expirationInterval the lazy expiration interval tau: "0" (eager), "auto" or a length
 * @param how                inner, left, left_semi or left_anti (the first input is the anchor)
 * @param limits             resource limits, allocation and seed as given
 * @param outputNames        how output columns are named; None: the session's `spark.wjoin.outputNames`
 */
final case class WJoinRequest(
    inputs: Seq[LogicalPlan],
    names: Option[Seq[String]] = None,
    on: Seq[String] = Nil,
    condition: Option[Expression] = None,
    time: TimeColumns = TimeColumns.Default,
    window: Option[String] = None,
    windows: Option[String] = None,
    algorithm: Choice[Algorithm] = Choice.Auto,
    windowStrategy: Choice[WindowStrategy] = Choice.Auto,
    bidirectional: Boolean = false,
    accessPaths: String = "auto",
    expirationInterval: String = "0",
    how: JoinHow = JoinHow.Inner,
    limits: LimitsArgument = LimitsArgument(),
    outputNames: Option[OutputNames] = None)

object WJoinRequest {
  /** The accepted names of the algorithm, window-strategy, access-path, how and output-names arguments ("auto" first). */
  def choices(argument: String): Seq[String] = argument match {
    case "algorithm" => "auto" +: Algorithm.all.map(_.name)
    case "window_strategy" => WindowStrategy.all.map(_.name)
    case "access_paths" => wjoin.core.cost.AccessPath.choices.map(_.name)
    case "how" => JoinHow.all.map(_.name)
    case "output_names" => OutputNames.all.map(_.name)
    case other => throw new AssertionError(s"no choices for '$other'")
  }
}
