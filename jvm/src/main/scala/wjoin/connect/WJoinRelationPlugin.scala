package wjoin.connect

import java.util.Optional

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.ConnectProtoUtils
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin
import org.apache.spark.sql.wjoin.SparkBridge
import org.sparkproject.connect.protobuf.{Any => ProtoAny}

import wjoin.connect.proto.{BudgetShares, InputColumns, NumberMap, StringList, WJoinRelation}
import wjoin.extension.BuildVersions
import wjoin.WJoin

/**
 * The W-join on a Spark Connect server: the relation plugin that turns the client's
 * `WJoinRelation` message (proto/wjoin_connect.proto) into the same plan the classic API
 * builds. A Connect server loads it with
 * {{{
 *   spark.connect.extensions.relation.classes=wjoin.connect.WJoinRelationPlugin
 *   spark.sql.extensions=wjoin.WJoinExtensions
 * }}}
 * {{{
 *   client: wjoin.wjoin([a, b, c], ...)            server (this plugin)
 *     Relation.extension = Any(WJoinRelation) ──►  inputs    ─ planner.transformRelation ─► DataFrames
 *                                                  condition ─ planner.transformExpression ─► Column
 *                                                  options   ─► the plain map of RequestCodec.fromMap
 *                                                  WJoin.fromArguments(DataFrames, map) ─► analyzed plan
 * }}}
 * Every check of the arguments is the classic one ([[wjoin.request.RequestCodec]], [[wjoin.plan.logical.WindowJoinBuilder]]):
 * a misuse throws the same `WJOIN_` AnalysisException, which the server sends back to the client
 * while it analyzes the plan (the Python client asks for the schema at the call, before any job).
 *
 * Protobuf classes: the Java classes of `WJoinRelation` are generated at build time by protoc
 * from the .proto and relocated to `org.sparkproject.connect.protobuf`, the protobuf runtime
 * the server jar shades and hands to plugins (see build.sbt), so they parse with the server's
 * own runtime. Inputs and the condition arrive as serialized `spark.connect.Relation` /
 * `Expression` bytes and are parsed with the server's recursion limit.
 */
class WJoinRelationPlugin extends RelationPlugin {
  override def transform(relation: Array[Byte], planner: SparkConnectPlanner): Optional[LogicalPlan] = {
    val any = ProtoAny.parseFrom(relation)
    if (!any.is(classOf[WJoinRelation])) Optional.empty()
    else Optional.of(WJoinRelationPlugin.plan(any.unpack(classOf[WJoinRelation]), planner))
  }
}

object WJoinRelationPlugin {
  /** Spark's setting (and default) for how deeply a client's plan may nest. */
  private val RecursionLimitKey = "spark.connect.grpc.marshallerRecursionLimit"

  /** The analyzed W-join plan of `message`, built and checked by [[WJoin.fromArguments]]. */
  def plan(message: WJoinRelation, planner: SparkConnectPlanner): LogicalPlan = {
    BuildVersions.requireSameClient(message.getClientVersion)
    val session = planner.session
    val limit = session.sparkContext.getConf.getInt(RecursionLimitKey, 1024)
    val inputs: Seq[DataFrame] = message.getInputsList.asScala.toSeq.map { bytes =>
      val relation = ConnectProtoUtils.parseRelationWithRecursionLimit(bytes.toByteArray, limit)
      SparkBridge.toDataFrame(session, planner.transformRelation(relation))
    }
    val condition = if (!message.hasCondition) None else {
      val expression = ConnectProtoUtils.parseExpressionWithRecursionLimit(message.getCondition.toByteArray, limit)
      Some(SparkBridge.column(planner.transformExpression(expression)))
    }
    SparkBridge.analyzedPlan(WJoin.fromArguments(inputs.asJava, arguments(message, condition).asJava))
  }

  /** Fields that are not options: the inputs, the condition (both planned above) and the client's version. */
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
      c.getColumnsList.asScala.foreach(col => byInput.put(col.getInput, col.getColumn))
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
