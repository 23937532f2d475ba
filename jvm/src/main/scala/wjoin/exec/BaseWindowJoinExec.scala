package wjoin.exec

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, RowOrdering, SortOrder}
import org.apache.spark.sql.execution.SparkPlan

import wjoin.core.{Algorithm, EnginePlan, JoinHow, StreamRows}
import wjoin.exec.codec.RowCodec
import wjoin.plan.logical.WindowSpec
import wjoin.plan.physical.WindowJoinPlanner.{PlannedAccess, PlannedJoin}

/**
 * What the batch ([[WindowJoinExec]]) and the streaming ([[StreamingWindowJoinExec]]) W-join
 * nodes share (one trait, as Sedona's `TraitJoinQueryExec` for its join nodes): the planner's
 * decisions they carry, the engine plan, the arrival ordering they require of their children,
 * the row codec and typed metrics their evaluators get, and EXPLAIN's common text.
 *
 * {{{
 *   WindowJoinPlanner.JoinChoice ──> BaseWindowJoinExec ──enginePlan / rowCodec / joinMetrics──> evaluator
 *                                     ├─ WindowJoinExec           (batch: one task, hash, time bands or one partition)
 *                                     └─ StreamingWindowJoinExec  (state store per partition)
 * }}}
 */
trait BaseWindowJoinExec extends SparkPlan {
  /** The planner's decisions besides the expressions: names, windows, algorithm, access paths. */
  def planned: PlannedJoin
  /** Input names, for EXPLAIN and metrics. */
  def inputNames: Seq[String] = planned.inputNames
  /** Each input's event-time column. */
  def timeColumns: Seq[Expression]
  /** Each input's hash-key expressions; empty when there is no shared key. */
  def keys: Seq[Seq[Expression]]
  /** The conjuncts the engine tests (the keys guarantee the others). */
  def residual: Seq[Expression]
  /** The window constraints and their closed matrix. */
  def windows: WindowSpec = planned.windows
  /** The chosen algorithm (never auto). */
  def algorithm: Algorithm = planned.algorithm
  /** Access path per input, range predicates, probe orders, expiration interval. */
  def access: PlannedAccess = planned.access
  /** What is emitted: inner, left, left_semi or left_anti (the first input is the anchor). */
  def how: JoinHow
  /** Whether the node is the streaming one. */
  protected def streaming: Boolean

  /** Rows go to per-key buckets: a shared key, and not NLW-join. */
  def hashed: Boolean = algorithm != Algorithm.NLW && keys.nonEmpty

  /** Children are hash-partitioned on the keys (not with ROWS windows, whose counts span keys). */
  def hashPartitioned: Boolean = windows.partitionedBy(keys)

  @transient lazy val enginePlan: EnginePlan = access.enginePlan(windows, algorithm, hashed)

  /** Each input's name and window, for an error about the windows' memory. */
  def windowNames: WindowNames = WindowNames(inputNames, enginePlan.horizon.toSeq.map(h =>
    s"${windows.terms.map(_.text).mkString(" AND ")}; its rows are kept ${windows.render(h)} for later rows"),
    if (hashPartitioned) WindowNames.SpreadKeyed else if (windows.counted) WindowNames.SpreadCounted else WindowNames.SpreadUnkeyed,
    planned.shed.fold(WindowNames.BoundByLimits)(s => WindowNames.boundLower(s.limits.describe(inputNames))))

  /** The node's metrics, typed. */
  def joinMetrics: WindowJoinMetrics = new WindowJoinMetrics(metrics, inputNames.size, streaming)

  /** The row codec of the evaluators; `storeAlso`: columns to buffer besides output and residual. */
  protected def rowCodec(storeAlso: Seq[Attribute] = Nil): RowCodec =
    new RowCodec(children.map(_.output), timeColumns, keys, residual, output, enginePlan, storeAlso,
      access.rangeAttributes)

  /**
   * Each input's order: event time. An input with a ROWS window also orders rows of equal
   * time by its other (orderable) columns, so which of them "arrived" last, and so which are
   * in the window, does not depend on how Spark shuffled them; identical rows are
   * interchangeable, so the result is deterministic. Under resource limits every input does,
   * so the seeded random choices meet the rows in the same order on every run.
   */
  protected def arrivalOrdering: Seq[Seq[SortOrder]] = {
    val limits = windows.rowLimits
    timeColumns.indices.map { i =>
      val tieBreak = if (limits(i) == StreamRows.NoLimit && planned.shed.isEmpty) Nil
        else children(i).output.filter(a => a.semanticHash() != timeColumns(i).semanticHash() &&
          RowOrdering.isOrderable(a.dataType)).map(a => SortOrder(a, Ascending))
      SortOrder(timeColumns(i), Ascending) +: tieBreak
    }
  }

  /** Batch, time bands: partitioned by event-time bands. */
  def banded: Boolean = false

  /** EXPLAIN's partitioning: how the rows are spread over the tasks, and why. */
  def partitioningText: String

  /** What decides the node's metrics ([[WindowJoinMetrics.declared]]). */
  def metricPlan: WindowJoinMetrics.MetricPlan = WindowJoinMetrics.MetricPlan(inputNames, streaming, hashed,
    how.anchored, banded, bidirectional = windows.excluding.isDefined, limits = planned.shed.isDefined,
    refined = enginePlan.checkPairs.nonEmpty, residual = residual.nonEmpty, rechecked = access.recheck.isDefined)

  /** EXPLAIN's tree line ([[ExplainText]]). */
  override def simpleString(maxFields: Int): String = ExplainText.treeLine(this)

  /** `explain("formatted")`: Input, Output and the Arguments block ([[ExplainText]]). */
  override def verboseStringWithOperatorId(): String = ExplainText.formatted(this, formattedNodeName)
}
