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

import wjoin.{BuildVersions, WJoin}
import wjoin.connect.proto.WJoinRelation

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
 *                                                  options   ─► the plain map of WJoinArguments.fromMap
 *                                                  WJoin.fromArguments(DataFrames, map) ─► analyzed plan
 * }}}
 * Every check of the arguments is the classic one ([[wjoin.WJoinArguments]], [[wjoin.WJoin.plan]]):
 * a misuse throws the same IllegalArgumentException, which the server sends back to the client
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

  /**
   * The message as the plain map [[wjoin.WJoinArguments.fromMap]] reads (what py4j makes of the
   * Python API's dict): unset fields are absent; `how` is passed on when set, so a server
   * whose arguments do not know it rejects it by name instead of ignoring it.
   */
  /** The allocation as the Python API gives it: a name, a map input -> share, or a map per budget. */
  private def allocationOf(m: WJoinRelation): Option[AnyRef] = m.getAllocationCase match {
    case WJoinRelation.AllocationCase.ALLOCATION_NAME => Some(m.getAllocationName)
    case WJoinRelation.AllocationCase.ALLOCATION_SHARES =>
      Some(new java.util.LinkedHashMap[String, java.lang.Double](m.getAllocationShares.getValuesMap))
    case WJoinRelation.AllocationCase.ALLOCATION_PER_BUDGET =>
      val perBudget = new java.util.LinkedHashMap[String, AnyRef]()
      m.getAllocationPerBudget.getBudgetsMap.asScala.foreach { case (budget, shares) =>
        perBudget.put(budget, new java.util.LinkedHashMap[String, java.lang.Double](shares.getValuesMap)) }
      Some(perBudget)
    case _ => None
  }

  def arguments(m: WJoinRelation, condition: Option[AnyRef]): Map[String, AnyRef] = {
    def list(values: java.util.List[String]): java.util.List[String] = new java.util.ArrayList(values)
    val time: Option[AnyRef] = m.getTimeCase match {
      case WJoinRelation.TimeCase.TIME_COLUMN => Some(m.getTimeColumn)
      case WJoinRelation.TimeCase.TIME_PER_INPUT => Some(list(m.getTimePerInput.getValuesList))
      case WJoinRelation.TimeCase.TIME_BY_INPUT =>
        val byInput = new java.util.LinkedHashMap[String, String]()
        m.getTimeByInput.getColumnsList.asScala.foreach(c => byInput.put(c.getInput, c.getColumn))
        Some(byInput)
      case _ => None
    }
    Seq(
      "names" -> Option.when(m.hasNames)(list(m.getNames.getValuesList)),
      "on" -> Some(list(m.getOnList)),
      "condition" -> condition,
      "time" -> time,
      "window" -> Option.when(m.hasWindow)(m.getWindow),
      "windows" -> Option.when(m.hasWindows)(list(m.getWindows.getValuesList)),
      "algorithm" -> Option.when(m.hasAlgorithm)(m.getAlgorithm),
      "window_strategy" -> Option.when(m.hasWindowStrategy)(m.getWindowStrategy),
      "bidirectional" -> Some(java.lang.Boolean.valueOf(m.getBidirectional)),
      "access_paths" -> Option.when(m.hasAccessPaths)(m.getAccessPaths),
      "expiration_interval" -> Option.when(m.hasExpirationInterval)(m.getExpirationInterval),
      "how" -> Option.when(m.hasHow)(m.getHow),
      "limits" -> Option.when(m.hasLimits)(new java.util.LinkedHashMap[String, java.lang.Double](m.getLimits.getValuesMap)),
      "allocation" -> allocationOf(m),
      "seed" -> Option.when(m.hasSeed)(java.lang.Long.valueOf(m.getSeed))
    ).collect { case (key, Some(value)) => key -> value }.toMap
  }
}
