package org.apache.spark.sql.wjoin

import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.expressions.{CommonExpressionRef, Expression, With}
import org.apache.spark.sql.execution.streaming.state.{NoPrefixKeyStateEncoderSpec, StateStoreConf, StateStoreId,
  StateStoreProvider}
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.wjoin.StreamingClasses.StreamExecution

/** What the tests use of Spark 4 beyond [[StreamingTestClasses]] (Spark 3.5 has its own copy of this object). */
object TestApi {
  /** Starts a state store provider as a task does: one column family, no prefix key, a query run id. */
  def initProvider(p: StateStoreProvider, id: StateStoreId, keySchema: StructType, valueSchema: StructType,
      conf: StateStoreConf): Unit = {
    val hadoopConf = new Configuration()
    hadoopConf.set(StreamExecution.RUN_ID_KEY, UUID.randomUUID().toString)
    p.init(id, keySchema, valueSchema, NoPrefixKeyStateEncoderSpec(keySchema), false, conf, hadoopConf, false, None)
  }

  /** Spark 4's common-expression form `With`, as its child with the definitions put back in place. */
  object InlinedWith {
    def unapply(e: Expression): Option[Expression] = e match {
      case w: With =>
        val defs = w.defs.map(d => d.id -> d.child).toMap
        Some(w.child.transform { case ref: CommonExpressionRef => defs(ref.id) })
      case _ => None
    }
  }
}
