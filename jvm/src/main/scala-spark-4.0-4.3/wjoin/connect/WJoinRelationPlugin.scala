package wjoin.connect

import java.util.Optional

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.connect.planner.SparkConnectPlanner
import org.apache.spark.sql.connect.plugin.RelationPlugin
import org.sparkproject.connect.protobuf.{Any => ProtoAny}

/**
 * The W-join's Spark Connect relation plugin as Spark 4 calls it: the client's
 * `Relation.extension` as bytes, planned by [[WJoinRelationPlanner]]
 * (`spark.connect.extensions.relation.classes=wjoin.connect.WJoinRelationPlugin`).
 */
class WJoinRelationPlugin extends RelationPlugin {
  override def transform(relation: Array[Byte], planner: SparkConnectPlanner): Optional[LogicalPlan] =
    WJoinRelationPlanner.transformAny(ProtoAny.parseFrom(relation), planner)
      .fold(Optional.empty[LogicalPlan]())(Optional.of(_))
}
