package wjoin.connect;

import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;

/**
 * The W-join's Spark Connect relation plugin as Spark 3.5 calls it: the client's
 * {@code Relation.extension} as an {@code Any}, planned by {@link WJoinRelationPlanner}
 * ({@code spark.connect.extensions.relation.classes=wjoin.connect.WJoinRelationPlugin}).
 *
 * <p>Java, not Scala: Spark 3.5's server jar relocates protobuf to
 * {@code org.sparkproject.connect.protobuf} in its bytecode but not in the Scala signature of
 * {@code RelationPlugin}, which still names {@code com.google.protobuf.Any}. Scala compiles
 * against that signature, Java against the bytecode, which is what the server calls.
 */
public final class WJoinRelationPlugin implements RelationPlugin {
  @Override
  public scala.Option<LogicalPlan> transform(org.sparkproject.connect.protobuf.Any relation, SparkConnectPlanner planner) {
    return WJoinRelationPlanner.transformAny(relation, planner);
  }
}
