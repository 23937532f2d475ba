package wjoin.connect

import scala.jdk.CollectionConverters._

import org.apache.spark.connect.proto.{Expression, Relation}
import org.apache.spark.sql.wjoin.ConnectApi
import org.sparkproject.connect.protobuf.{Any => ProtoAny, ByteString, InvalidProtocolBufferException, Message}

import wjoin.connect.proto.{BudgetShares, InputColumns, NumberMap, StringList, WJoinRelation}
import wjoin.errors.WJoinErrors
import wjoin.extension.BuildVersions
import wjoin.request.RequestLimits

/**
 * What the Connect plugin reads from a client's bytes, checked: any client that reaches the
 * server can send any bytes, so a malformed or hostile `WJoinRelation` fails that request alone,
 * with a `WJOIN_` error, before the work it could make large.
 *
 * {{{
 *   Relation.extension (Any) ─ unpack ─────────── WJoinRelation, or WJOIN_INVALID_CONNECT_MESSAGE
 *   WJoinRelation ─ check, cheapest first:        client version; 2..64 inputs (a count: no input
 *                                                 read yet); no unknown fields; every text, list
 *                                                 and map within RequestLimits
 *   inputs(i), condition ─ relation / expression: parsed with Spark's recursion limit; malformed
 *                                                 or empty bytes: WJOIN_INVALID_CONNECT_MESSAGE
 *   a W-join in an input of a W-join ─ nested:    at most MaxNesting deep (WJOIN_NESTING_TOO_DEEP)
 * }}}
 *
 * Depth. Spark parses a client's plan with the recursion limit
 * `spark.connect.grpc.marshallerRecursionLimit` (default 1024 message levels), but not the
 * bytes of a `google.protobuf.Any`: a relation extension's content is parsed by its plugin. This
 * plugin parses each input and the condition with the same limit, so each W-join's inputs are
 * as deep as Spark allows any plan; a W-join inside an input starts a new parse, so without a
 * bound on nesting a client could build a plan of any depth from a message of bounded size.
 * [[nested]] counts the W-joins being planned on the thread (the planner plans an input's
 * extension within the call that plans the W-join), so a plan is at most (MaxNesting + 1) times
 * Spark's limit deep. Spark's analyzer recurses over the plan and may exhaust the stack before
 * that (a few hundred nested projections do it on Spark 4.3, W-join or not): Spark's error
 * handler then fails that request alone, as for any deep plan.
 *
 * Self-reference: a protobuf message is a tree, so an input cannot contain its own W-join;
 * references by plan id (`WithRelations`, `CachedRemoteRelation`) resolve to plans Spark
 * has built already.
 */
object WJoinRelationDecoder {
  /** The most W-joins nested in one another's inputs (16: one W-join inside each of 15 others). */
  val MaxNesting = 16

  private val nesting: ThreadLocal[Integer] = ThreadLocal.withInitial(() => 0)

  /**
   * `plan` of one W-join, counted as nested in the W-joins this thread is planning: fails with
   * WJOIN_NESTING_TOO_DEEP when [[MaxNesting]] W-joins are planned already.
   */
  def nested[T](plan: => T): T = {
    val depth: Int = nesting.get
    WJoinErrors.check(depth < MaxNesting, "WJOIN_NESTING_TOO_DEEP", Seq("max" -> MaxNesting))
    nesting.set(depth + 1)
    try plan finally nesting.set(depth)
  }

  /** The W-join message of an extension known to hold one (`any.is(classOf[WJoinRelation])`). */
  def unpack(any: ProtoAny): WJoinRelation =
    try any.unpack(classOf[WJoinRelation])
    catch { case e: InvalidProtocolBufferException => invalid("WJoinRelation", e.getMessage) }

  /**
   * Every check that needs the message only, cheapest first, before any input is read: the
   * client's version, the number of inputs, unknown fields, the size of every text, list and map.
   */
  def check(m: WJoinRelation): Unit = {
    RequestLimits.requireText("client_version", m.getClientVersion)
    BuildVersions.requireSameClient(m.getClientVersion)
    RequestLimits.requireInputCount(m.getInputsCount)
    val unknown = unknownFields(m, "").distinct
    val shown = unknown.take(10).mkString(", ") + (if (unknown.size > 10) s" (${unknown.size} in all)" else "")
    if (unknown.nonEmpty) invalid("WJoinRelation", s"field number(s) $shown are not fields of " +
      s"spark-wjoin ${BuildVersions.version}'s message (proto/wjoin_connect.proto); " +
      "it was not written by this version's client")
    RequestLimits.requireArguments(arguments(m, None))
  }

  /** Input `index`: its bytes as a Connect relation, parsed with Spark's recursion `limit`. */
  def relation(bytes: ByteString, index: Int, limit: Int): Relation = {
    val field = s"inputs[$index]"
    val relation = parsed(field, ConnectApi.parseRelation(bytes.toByteArray, limit))
    if (relation.getRelTypeCase == Relation.RelTypeCase.RELTYPE_NOT_SET)
      invalid(field, "an empty spark.connect.Relation (no relation type set)")
    relation
  }

  /** The condition's bytes as a Connect expression, parsed with Spark's recursion `limit`. */
  def expression(bytes: ByteString, limit: Int): Expression = {
    val expression = parsed("condition", ConnectApi.parseExpression(bytes.toByteArray, limit))
    if (expression.getExprTypeCase == Expression.ExprTypeCase.EXPRTYPE_NOT_SET)
      invalid("condition", "an empty spark.connect.Expression (no expression type set)")
    expression
  }

  private def parsed[T](field: String, parse: => T): T =
    try parse catch { case e: InvalidProtocolBufferException => invalid(field, e.getMessage) }

  private def invalid(field: String, reason: String): Nothing =
    WJoinErrors.raise("WJOIN_INVALID_CONNECT_MESSAGE", "field" -> field, "reason" -> reason)

  /**
   * The numbers of the fields of `m` and its messages that its type does not declare ("22",
   * "names.5"): proto3 keeps them aside, and an option a newer client sent must not be dropped
   * silently. The message types are at most four levels deep.
   */
  private def unknownFields(m: Message, prefix: String): Seq[String] =
    m.getUnknownFields.asMap.keySet.asScala.toSeq.map(n => s"$prefix$n") ++
      m.getAllFields.asScala.toSeq.flatMap { case (field, value) =>
        val path = s"$prefix${field.getName}."
        value match {
          case nested: Message => unknownFields(nested, path)
          case values: java.util.List[_] =>
            values.asScala.toSeq.collect { case nested: Message => unknownFields(nested, path) }.flatten
          case _ => Nil
        }
      }

  /** Fields that are not options: the inputs, the condition (both planned by the plugin) and the client's version. */
  private val NotOptions = Set("inputs", "condition", "client_version")

  /**
   * The options of `m` as the plain map [[wjoin.request.RequestCodec]] reads (what py4j makes of
   * the Python API's dict), read off the message's descriptor, so a new option needs only its
   * field in the .proto: each set field under its name (a field of a `oneof` under the oneof's
   * name: `time`, `allocation`), strings and numbers as they are, `StringList` as a list,
   * `InputColumns` and `NumberMap` as maps in the client's order, `BudgetShares` as a map of maps.
   * Unset fields are absent, so the codec applies its defaults.
   */
  def arguments(m: WJoinRelation, condition: Option[AnyRef]): Map[String, AnyRef] = {
    val options = m.getAllFields.asScala.toSeq.collect {
      case (field, value) if !NotOptions(field.getName) =>
        val key = Option(field.getRealContainingOneof).map(_.getName).getOrElse(field.getName)
        key -> plain(value)
    }
    (options ++ condition.map("condition" -> _)).toMap
  }

  /** A field's value as plain Java data. */
  private def plain(value: AnyRef): AnyRef = value match {
    case l: StringList => new java.util.ArrayList[String](l.getValuesList)
    case c: InputColumns =>
      val byInput = new java.util.LinkedHashMap[String, String]()
      c.getColumnsList.asScala.foreach { col =>
        RequestLimits.requireText("time (an input name)", col.getInput)
        // A dict cannot hold an input twice, a message can: refused as the codec refuses "A" and "a".
        WJoinErrors.check(byInput.put(col.getInput, col.getColumn) == null, "WJOIN_INPUT_GIVEN_TWICE",
          Seq("what" -> "time", "input" -> col.getInput))
      }
      byInput
    case n: NumberMap => new java.util.LinkedHashMap[String, java.lang.Double](n.getValuesMap)
    case b: BudgetShares =>
      val perBudget = new java.util.LinkedHashMap[String, AnyRef]()
      b.getBudgetsMap.asScala.foreach { case (budget, shares) => perBudget.put(budget, plain(shares)) }
      perBudget
    case l: java.util.List[_] => new java.util.ArrayList[AnyRef](l.asInstanceOf[java.util.List[AnyRef]])
    case other => other // String, java.lang.Boolean, java.lang.Long
  }
}
