package wjoin.plan
package physical

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.wjoin.{SparkBridge, WJoinConf}

import wjoin.core.JoinHow
import wjoin.exec.batch.{BroadcastWindowJoinExec, WindowJoinExec}

/**
 * The broadcast plan's check once its inputs are collected ([[BroadcastPlan]] chose it from
 * Spark's size estimates, which can be far short: a Parquet file's size on disk stands for
 * its rows, and well-compressed rows take 20x more room as rows). Before any task runs, the
 * driver knows the broadcast rows themselves, so it compares what their index will take with
 * what a task is sure to get, and runs the shuffled plan the planner would have made without
 * the broadcast when the index does not fit. Spark's own broadcast joins keep their plan; ours
 * would then fail in the executors (`WJOIN_BROADCAST_MEMORY_EXCEEDED`), not degrade.
 *
 * {{{
 *   index  = sum over the broadcast inputs' rows of (row object + its bytes + its slots)
 *   share  = (smallest executor pool) / (2 x task slots per executor)
 *            (Spark's unified memory gives each of N running tasks at least pool / 2N)
 *   index <= share  or  spark.wjoin.broadcastFallback=false  -> the broadcast plan, as planned
 *   else                                                     -> the shuffled plan (hash on the
 *        keys, or time bands), the broadcast inputs read again below their exchanges
 * }}}
 *
 * Results never depend on it: both plans give every combination once.
 */
object BroadcastFallback {
  /**
   * Bytes a broadcast row takes in the index beyond its row (`TaskWindowMemory.RowSizes`
   * charges that): a reference in the rows array, its time and key slots, its bucket offset.
   */
  val SlotBytes: Long = 8L + 8 + 8 + 4

  /**
   * The check's figures.
   *
   * @param indexBytes the broadcast inputs' index, estimated from their rows
   * @param shareBytes the least memory a task of the smallest executor is sure to get
   */
  final case class Check(indexBytes: Long, shareBytes: Long) {
    def fits: Boolean = indexBytes <= shareBytes

    /** A log line and EXPLAIN-like text: "index 229.0 MiB > task share 46.0 MiB". */
    def describe: String =
      s"index ${WJoinConf.bytesText(indexBytes)} ${if (fits) "<=" else ">"} task share ${WJoinConf.bytesText(shareBytes)}"
  }

  /**
   * The least memory one task is sure to get: half the smallest pool's share per slot. None
   * when no executor has registered (the plan is kept: nothing to compare with).
   *
   * @param pools each executor's unified memory pool
   * @param slots tasks the application runs at once
   */
  def share(pools: Seq[Long], slots: Int): Option[Long] =
    if (pools.isEmpty) None
    else {
      val perExecutor = math.max(1, (math.max(1, slots) + pools.size - 1) / pools.size)
      Some(pools.min / (2L * perExecutor))
    }

  /** The check of an index of `indexBytes` in `sc`'s executors; None: nothing to check against. */
  def check(sc: SparkContext, indexBytes: Long): Option[Check] = {
    val (pools, slots) = SparkBridge.executorPools(sc)
    share(pools, slots).map(Check(indexBytes, _))
  }

  /** Whether `node`'s run takes the shuffled plan for `check` (and the setting). */
  def falls(node: BroadcastWindowJoinExec, check: Option[Check]): Boolean =
    WJoinConf.broadcastFallback(node.conf) && check.exists(!_.fits)

  /**
   * The shuffled plan of `node`'s W-join: its inputs as they were before the broadcast (the
   * broadcast ones read again), under the exchanges and sorts Spark adds for the plan, hashed
   * on the keys or banded, with the access paths (and their run-time check) and key groups,
   * as [[WindowJoinPlanner.batch]] planned it without the broadcast.
   */
  def shuffled(node: BroadcastWindowJoinExec): SparkPlan = {
    val inputs = node.children.indices.map { i =>
      if (i == node.broadcast.streamed) node.children(i) else SparkBridge.belowBroadcast(node.children(i))
    }
    val planned = node.broadcast.shuffledAccess.fold(node.planned)(a => node.planned.copy(access = a))
    SparkBridge.withRequiredExchanges(WindowJoinExec(node.timeColumns, node.keys, node.residual, node.output,
      planned, inputs, node.broadcast.shuffledBands, JoinHow.Inner, None, node.broadcast.shuffledKeyGroups))
  }
}
