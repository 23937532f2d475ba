package wjoin.exec.state

import scala.collection.immutable.ListMap

import org.apache.spark.sql.catalyst.expressions.{Attribute, EqualTo, Expression}
import org.json4s._

import wjoin.core.{JoinHow, StreamRows}
import wjoin.errors.WJoinErrors
import wjoin.plan.logical.{WindowJoin, WindowSpec}

/**
 * Everything a streaming W-join's state depends on, recorded with the state
 * ([[WindowJoinStateMetadata]]) and compared when a query run starts: one rendered value per
 * setting, in the user's terms (input names, durations), so a refusal can show both values.
 *
 * What the state holds (see [[WindowJoinStateStore]]) decides what a restart may change:
 * {{{
 *   setting             recorded because                                  on a change
 *   inputs              records are per input index                       refused
 *   input columns       rows are stored with the input's columns          refused
 *   time columns        a row's place in its window and its eviction      refused
 *   keys                the state's partitioning and hash buckets         refused
 *   condition           combinations already emitted used the old one     refused
 *   condition (Python   the same, for the conjuncts Spark tests above     refused
 *   UDFs)               an inner W-join (Python UDFs)
 *   windows             matrix, ROWS counts, exclusions: emitted and      refused
 *                       evicted under the old windows
 *   algorithm           eager (nlw, hw) vs ordered (mw) state: what was   refused between the
 *                       emitted, the sweep frontier                       two; nlw <-> hw goes on
 *   how                 the anchors' matched marks and decisions          refused
 *   limits              which rows were shed, and the budgets             refused
 *   state partitioning  which partition holds which rows                  refused
 * }}}
 * Not recorded, so a restart may change them, each exact: access paths, probe orders and the
 * expiration interval (the engine's in-memory structures; the planner changes them between
 * micro-batches too), the window strategy (exact, GCA and LCA refine to the same matrix, and
 * state is kept at least as long as the exact matrix needs), the spelling of a window
 * ("1 minute" or "60 seconds": the matrix is compared), filters above an anchored W-join
 * (they apply to combinations), the shuffle partitions (the checkpoint's count is kept), the
 * state store provider's own settings, and the spark-wjoin version within one state format.
 * On streams no conjunct of the condition is pushed into an input (`PushFiltersIntoWindowJoin`),
 * so the condition recorded is the whole condition. The inputs' own plans (their filters and
 * computed columns) are not recorded, as Spark's own stateful operators do not: a changed input
 * filter applies to rows read after the restart, not to rows already in the state.
 *
 * @param settings the rendered value of each setting, in the order above
 */
final case class StateQuery(settings: ListMap[String, String]) {

  def json: JValue = JObject(settings.toList.map { case (k, v) => k -> JString(v) })

  /**
   * Fails with `WJOIN_STATE_QUERY_CHANGED` when this query's settings differ from those the
   * `stored` state was written for (only settings recorded in both are compared: a setting an
   * older version did not record is taken as unchanged).
   */
  def requireSameAs(stored: StateQuery, path: String): Unit = {
    val changed = settings.toSeq.collect {
      case (k, now) if stored.settings.get(k).exists(_ != now) => (k, stored.settings(k), now)
    }
    if (changed.nonEmpty)
      WJoinErrors.raise("WJOIN_STATE_QUERY_CHANGED",
        "setting" -> changed.map(_._1).mkString(", "),
        "changes" -> changed.map { case (k, was, now) => s"$k: '$was' in the checkpoint, '$now' now" }.mkString("; "),
        "path" -> path)
  }
}

object StateQuery {
  val Inputs = "inputs"
  val InputColumns = "input columns"
  val TimeColumns = "time columns"
  val Keys = "keys"
  val Condition = "condition"
  val ConditionAbove = "condition (Python UDFs)"
  val Windows = "windows"
  val Algorithm = "algorithm"
  val How = "how"
  val Limits = "limits"
  val Partitioning = "state partitioning"

  /**
   * The eager state of the NLW- and HW-join (backward evaluation) and the ordered state of
   * the MW-join (forward evaluation): the two algorithms of one kind share their state.
   */
  def algorithm(forward: Boolean): String =
    if (forward) "mw (forward evaluation, ordered state)" else "nlw or hw (backward evaluation, eager state)"

  def apply(settings: (String, String)*): StateQuery = StateQuery(ListMap(settings: _*))

  /**
   * The settings of a streaming W-join node, rendered with input names instead of expression
   * ids (which differ on every run).
   *
   * @param names        the inputs, in order
   * @param columns      each input's columns, as its rows are stored
   * @param timeColumns  each input's event-time column
   * @param keys         each input's key expressions (hash buckets, partitioning); empty: none
   * @param residual     the conjuncts the engine tests (key equalities among them are dropped:
   *                     whether they are tested depends on the access paths, not the query)
   * @param conditionAbove the condition's conjuncts tested above the node (Python UDFs), as text;
   *                     recorded under their own name, which checkpoints of earlier versions
   *                     lack (so they are not compared there)
   * @param windows      the window constraints
   * @param forward      MW-join (ordered state) rather than NLW / HW-join (eager state)
   * @param limits       the resource limits, described; None: exact W-join
   * @param partitioning how rows are spread over the state's partitions, described
   */
  def of(names: Seq[String], columns: Seq[Seq[Attribute]], timeColumns: Seq[Expression], keys: Seq[Seq[Expression]],
      residual: Seq[Expression], conditionAbove: Seq[String], windows: WindowSpec, forward: Boolean, how: JoinHow,
      limits: Option[String], partitioning: String): StateQuery = {
    def text(e: Expression): String = WindowJoin.qualifiedSql(e, columns, names)
    val keyed = keys.flatten
    def isKey(e: Expression) = keyed.exists(_.semanticEquals(e))
    val condition = residual.filterNot { case EqualTo(l, r) => isKey(l) && isKey(r); case _ => false }
    apply(
      Inputs -> names.mkString(", "),
      InputColumns -> names.indices.map(i =>
        s"${names(i)}(${columns(i).map(a => s"${a.name} ${a.dataType.simpleString}").mkString(", ")})").mkString(", "),
      TimeColumns -> timeColumns.map(text).mkString(", "),
      Keys -> (if (keys.isEmpty) "none" else keys.map(_.map(text).mkString("(", ", ", ")")).mkString(" = ")),
      Condition -> (if (condition.isEmpty) "none" else condition.map(text).mkString(" AND ")),
      ConditionAbove -> (if (conditionAbove.isEmpty) "none" else conditionAbove.mkString(" AND ")),
      Windows -> (windows.matrix.render(names, windows.integralTime) +
        windows.rowLimits.zipWithIndex.collect { case (k, i) if k != StreamRows.NoLimit => s", ROWS(${names(i)}) = $k" }
          .mkString + windows.excluding.fold("")(e => s", excluding ${e.matrix.render(names, e.integralTime)}")),
      Algorithm -> algorithm(forward),
      How -> how.name,
      Limits -> limits.getOrElse("none"),
      Partitioning -> partitioning)
  }

  /** A recorded query (unknown fields, of a newer version, are ignored by the comparison). */
  def parse(value: JValue): Option[StateQuery] = value match {
    case JObject(fields) => Some(StateQuery(ListMap(fields.collect { case (k, JString(v)) => k -> v }: _*)))
    case _ => None
  }
}
