package org.apache.spark.sql.wjoin

import org.apache.spark.internal.config.OptionalConfigEntry
import org.apache.spark.sql.internal.SQLConf

/**
 * Every `spark.wjoin.*` session setting, declared once as a typed Spark config entry (doc,
 * type, default, check), the way Spark declares its own in `SQLConf`. `SQLConf.buildConf` and
 * `ConfigEntry` are `private[sql]` / `private[spark]`, which is why the entries live in this
 * bridge package; the rest of spark-wjoin reads them through the typed accessors below.
 *
 * {{{
 *   spark.conf.set("spark.wjoin.timeBands", "16")   -- checked here, at SET time
 *   WJoinConf.timeBands(SQLConf.get)                 -- 16 (else spark.sql.shuffle.partitions)
 * }}}
 *
 * Entries are registered with `SQLConf` when this object is first used (`WJoinExtensions`
 * touches it when a session installs the extension), so `SET spark.wjoin.timeBands=0` fails
 * at once, naming the key; a value set before that fails when the W-join is planned, with
 * the same message.
 */
object WJoinConf {
  /** Key of [[TimeBands]]. */
  val TimeBandsKey = "spark.wjoin.timeBands"

  /**
   * The most event-time bands (= partitions) a batch W-join without a shared equality key is
   * split into; 1 runs it in a single partition. Unset: `spark.sql.shuffle.partitions`.
   */
  val TimeBands: OptionalConfigEntry[Int] = SQLConf.buildConf(TimeBandsKey)
    .doc("The most event-time bands (partitions) a batch W-join without a shared equality key is split " +
      "into; each band joins the rows whose windows reach it and emits the combinations whose earliest " +
      "member lies in it. 1 runs such a W-join in a single partition. Unset: spark.sql.shuffle.partitions. " +
      "Ignored with a shared key (hash partitioning) and with ROWS windows (one partition).")
    .version("0.1.0")
    .intConf
    .checkValue(_ >= 1, s"$TimeBandsKey must be an integer >= 1 (1 = one partition)")
    .createOptional

  /** Key of [[KeptEngineRows]]. */
  val KeptEngineRowsKey = "spark.wjoin.streaming.keptEngineRows"

  /**
   * The most buffered rows an executor keeps in streaming W-join engines between
   * micro-batches (all queries together); 0 keeps none, so every micro-batch rebuilds its
   * engines from the state store. Read when a micro-batch is planned.
   */
  val KeptEngineRows = SQLConf.buildConf(KeptEngineRowsKey)
    .doc("The most buffered rows an executor keeps in streaming W-join engines between micro-batches, all " +
      "queries together. A kept engine saves reading the partition's state back from the state store; the " +
      "state store stays the durable copy, and an engine not kept (over this bound, after a restart, a " +
      "moved partition or a re-planned batch) is rebuilt from it. 0 rebuilds every engine every micro-batch.")
    .version("0.1.0")
    .longConf
    .checkValue(_ >= 0, s"$KeptEngineRowsKey must be an integer >= 0 (0 = rebuild every micro-batch)")
    .createWithDefault(50000000L)

  /** Forces registration of the entries (called when the extension is installed). */
  def register(): Unit = ()

  /**
   * [[TimeBands]] of `conf`, else `spark.sql.shuffle.partitions`. A value that is not an
   * integer >= 1 fails with an IllegalArgumentException naming the key and the value.
   */
  def timeBands(conf: SQLConf): Int = conf.getConf(TimeBands).getOrElse(conf.numShufflePartitions)

  /** [[KeptEngineRows]] of `conf`. */
  def keptEngineRows(conf: SQLConf): Long = conf.getConf(KeptEngineRows)
}
