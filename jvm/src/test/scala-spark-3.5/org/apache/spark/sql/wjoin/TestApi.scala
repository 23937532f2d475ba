package org.apache.spark.sql.wjoin

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.streaming.state.{StateStoreConf, StateStoreId, StateStoreProvider}
import org.apache.spark.sql.types.StructType

/** What the tests use of Spark 3.5 beyond [[StreamingTestClasses]] (Spark 4 has its own copy of this object). */
object TestApi {
  /** Starts a state store provider as a task does: no prefix key columns. */
  def initProvider(p: StateStoreProvider, id: StateStoreId, keySchema: StructType, valueSchema: StructType,
      conf: StateStoreConf): Unit =
    p.init(id, keySchema, valueSchema, 0, conf, new Configuration())

  /** Spark 3.5 has no common-expression form `With`: nothing to inline. */
  object InlinedWith {
    def unapply(e: Expression): Option[Expression] = None
  }
}
