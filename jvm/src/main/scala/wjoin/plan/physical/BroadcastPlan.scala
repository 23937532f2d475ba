package wjoin.plan
package physical

import scala.util.Try

import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.core.JoinHow
import wjoin.core.cost.AccessPath
import wjoin.plan.logical.WindowJoin

/**
 * The broadcast plan of a batch W-join: every input but the largest is broadcast, each
 * executor indexes them once and shares the index read-only among its tasks, and the largest
 * input is read where it is, in its own partitions, without a shuffle or a sort
 * ([[wjoin.core.BroadcastProbe]]). Spark's broadcast hash join, for N inputs.
 *
 * {{{
 *   broadcast inputs j != s ── BroadcastExchange (collected, shipped once per executor) ──┐
 *                                      executor: windows of every j indexed ONCE (shared) │
 *   streamed input s (the largest) ── its own partitions, no Exchange, no Sort ── probe ──┴─> rows
 *
 *   taken iff  stats(child_j).sizeInBytes <= spark.wjoin.broadcastBytes for every j != s
 *              (unset: spark.sql.autoBroadcastJoinThreshold; -1: never)
 *         and  the W-join is inner, batch, without ROWS windows or resource limits,
 *              its algorithm is auto, and no broadcast input is searched by a tree
 *   paths      where inputs are hashed on a key, every broadcast input is ([[accessOf]])
 * }}}
 *
 * Why those conditions: a combination has exactly one member of s, so any split of s finds
 * each combination once; a ROWS window or an anchor row of a broadcast input would need rows
 * of other partitions (see [[wjoin.core.BroadcastWindows]]); resource limits budget a shuffled
 * partition's rates. A tree indexes a broadcast input whole, not its window: a band probe
 * would see every row of the input whose band matches, at any time, where the sliding window
 * shows only those of the window; hash buckets and time-sorted rings are searched by time
 * first, so they cost a probe what a sliding window does. A ring of a keyed plan, though, holds
 * every key's rows, where a hash partition's window holds its own keys' only, so in a keyed plan
 * a broadcast input the planner scans is hashed instead. A requested algorithm is evaluated
 * as requested. Like Spark, the sizes are the planner's estimates (an input Spark cannot size
 * is never broadcast); with adaptive execution on, Spark plans the W-join again from the
 * sizes of finished shuffle stages below it. The threshold applies to each broadcast input, as
 * Spark's applies to each build side of its joins: Spark's chain of N - 1 broadcast hash joins
 * broadcasts the same inputs (3 x 400k rows with a million keys, 6.1 MiB each by these
 * estimates: broadcast 0.92 s, as Spark's 0.90 s; shuffled 3.1 s).
 *
 * @param streamed   the streamed input: the largest estimate (the first of equals)
 * @param bytes      the broadcast inputs' estimated sizes, summed
 * @param threshold  the setting in effect
 * @param streamedBytes the streamed input's estimate (EXPLAIN); None: unknown to Spark
 * @param shuffledBands the time bands of the shuffled plan, should the collected inputs not
 *                      fit ([[BroadcastFallback]]); 1 with a key
 * @param shuffledAccess the shuffled plan's access paths (with its run-time check), which the
 *                      broadcast plan's replace ([[accessOf]]); None: the broadcast plan's
 * @param shuffledKeyGroups the shuffled plan's key groups ([[WindowJoinPlanner.keyGroupsApply]]);
 *                      None: never
 * @param overOneTask   the inputs' size where it was small enough for one task, which this
 *                      plan replaces because some input is computed ([[InputSize]])
 */
final case class BroadcastPlan(streamed: Int, bytes: BigInt, threshold: Long, streamedBytes: Option[BigInt],
    shuffledBands: Int = 1, overOneTask: Option[InputSize] = None,
    shuffledAccess: Option[WindowJoinPlanner.PlannedAccess] = None, shuffledKeyGroups: Option[Long] = None) {
  /**
   * EXPLAIN's partitioning: "broadcast B, C (1.2 MiB in all, each <= spark.wjoin.broadcastBytes 10.0 MiB),
   * A streamed"; where one task was possible, why not: "...; not one task: B, C computed, not in
   * memory (inputs 2.1 MiB <= spark.wjoin.smallInputBytes 10.0 MiB)".
   */
  def describe(names: Seq[String]): String =
    s"broadcast ${names.indices.filter(_ != streamed).map(names).mkString(", ")} " +
      s"(${WJoinConf.bytesText(bytes)} in all, each <= ${WJoinConf.BroadcastBytesKey} ${WJoinConf.bytesText(threshold)}), " +
      s"${names(streamed)} streamed (${streamedBytes.fold("size unknown to Spark")(WJoinConf.bytesText)}) without a shuffle" +
      overOneTask.fold("")(s => s"; not one task: ${s.computed.map(names).mkString(", ")} computed, not in memory (${s.describe})")
}

object BroadcastPlan {
  /**
   * The broadcast plan of `w` planned with `access` paths (see the object comment), or None
   * when it does not apply or the inputs are too large.
   */
  def of(w: WindowJoin, access: WindowJoinPlanner.PlannedAccess, conf: SQLConf): Option[BroadcastPlan] = {
    val eligible = !w.isStreaming && w.how == JoinHow.Inner && !w.windows.counted && w.limits.isEmpty &&
      w.algorithm.isEmpty && w.children.size >= 2
    if (!eligible) return None
    WJoinConf.broadcastBytes(conf).flatMap { threshold =>
      val sizes = w.children.map(c => Try(c.stats.sizeInBytes).getOrElse(BigInt(conf.defaultSizeInBytes)))
      val streamed = sizes.indices.maxBy(i => (sizes(i), -i))
      val broadcast = sizes.indices.filter(_ != streamed)
      val bytes = broadcast.map(sizes).sum
      val searchedByTree = broadcast.exists(j => access.paths(j).indexed)
      val unknown = broadcast.exists(j => sizes(j) >= conf.defaultSizeInBytes)
      if (searchedByTree || unknown || broadcast.exists(j => sizes(j) > threshold)) None
      else Some(BroadcastPlan(streamed, bytes, threshold, Some(sizes(streamed)).filter(_ < conf.defaultSizeInBytes)))
    }
  }

  /**
   * The access of broadcast plan `b` from the planned `access`: where inputs are hashed on a key,
   * a broadcast input the planner scans is hashed. Its window holds the whole input, so a scan
   * would show a probe every key's rows of its period, where a shuffled partition's window holds
   * its own keys' only (the matrix's 5 inputs with E scanned: 10 s broadcast, 2 s shuffled). The
   * residual still tests the key where the planner did not hash every input, so the result holds.
   * A path the query requested (`requested`, by input) is kept as requested.
   */
  def accessOf(access: WindowJoinPlanner.PlannedAccess, b: BroadcastPlan,
      requested: Seq[Option[AccessPath]]): WindowJoinPlanner.PlannedAccess =
    if (!access.paths.exists(_.bucketsByKey)) access
    else access.copy(paths = access.paths.indices.map(j =>
      if (j != b.streamed && access.paths(j) == AccessPath.Scan && requested.lift(j).flatten.isEmpty) AccessPath.Hash
      else access.paths(j)))
}
