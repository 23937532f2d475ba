package wjoin.connect

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.wjoin.{ConnectApi, SparkBridge}
import org.sparkproject.connect.protobuf.{Any => ProtoAny}

import wjoin.connect.proto.WJoinRelation
import wjoin.WJoin

/**
 * The W-join on a Spark Connect server: what the relation plugin ([[WJoinRelationPlugin]], one
 * thin class per Spark version: the plugin interface changed in Spark 4) does with the client's
 * `WJoinRelation` message (proto/wjoin_connect.proto): it builds the same plan the classic API
 * builds. A Connect server loads the plugin with
 * {{{
 *   spark.connect.extensions.relation.classes=wjoin.connect.WJoinRelationPlugin
 *   spark.sql.extensions=wjoin.WJoinExtensions
 * }}}
 * {{{
 *   client: wjoin.wjoin([a, b, c], ...)            server (this plugin)
 *     Relation.extension = Any(WJoinRelation) ──►  unpack, check (WJoinRelationDecoder): version,
 *                                                    input count, unknown fields, sizes
 *                                                  inputs    ─ planner.transformRelation ─► DataFrames
 *                                                  condition ─ planner.transformExpression ─► Column
 *                                                  options   ─► the plain map of RequestCodec.fromMap
 *                                                  WJoin.fromArguments(DataFrames, map) ─► analyzed plan
 * }}}
 * Every check of the arguments is the classic one ([[wjoin.request.RequestCodec]], [[wjoin.plan.logical.WindowJoinBuilder]]):
 * a misuse throws the same `WJOIN_` AnalysisException, which the server sends back to the client
 * while it analyzes the plan (the Python client asks for the schema at the call, before any job).
 * What only a message can get wrong (bytes that do not parse, unknown fields, W-joins nested too
 * deep) is checked by [[WJoinRelationDecoder]], and so are the size limits of
 * [[wjoin.request.RequestLimits]] (inputs, texts, lists), before any input is planned.
 *
 * Protobuf classes: the Java classes of `WJoinRelation` are generated at build time by protoc
 * from the .proto and relocated to `org.sparkproject.connect.protobuf`, the protobuf runtime
 * the server jar shades and hands to plugins (see build.sbt), so they parse with the server's
 * own runtime. Inputs and the condition arrive as serialized `spark.connect.Relation` /
 * `Expression` bytes and are parsed with the server's recursion limit.
 */
object WJoinRelationPlanner {
  /** The plan of the client's `Relation.extension`, or None when it is not a W-join's message. */
  def transformAny(any: ProtoAny, planner: SparkConnectPlanner): Option[LogicalPlan] =
    if (!any.is(classOf[WJoinRelation])) None else Some(plan(WJoinRelationDecoder.unpack(any), planner))

  /** Spark's setting (and default) for how deeply a client's plan may nest. */
  private val RecursionLimitKey = "spark.connect.grpc.marshallerRecursionLimit"

  /** The analyzed W-join plan of `message`, built and checked by [[WJoin.fromArguments]]. */
  def plan(message: WJoinRelation, planner: SparkConnectPlanner): LogicalPlan = WJoinRelationDecoder.nested {
    WJoinRelationDecoder.check(message)
    val session = ConnectApi.session(planner)
    val limit = session.sparkContext.getConf.getInt(RecursionLimitKey, 1024)
    val inputs: Seq[DataFrame] = message.getInputsList.asScala.toSeq.zipWithIndex.map { case (bytes, i) =>
      SparkBridge.toDataFrame(session, planner.transformRelation(WJoinRelationDecoder.relation(bytes, i, limit)))
    }
    val condition = if (!message.hasCondition) None else {
      val expression = WJoinRelationDecoder.expression(message.getCondition, limit)
      Some(SparkBridge.column(planner.transformExpression(expression)))
    }
    SparkBridge.analyzedPlan(WJoin.fromArguments(inputs.asJava,
      WJoinRelationDecoder.arguments(message, condition).asJava))
  }
}
