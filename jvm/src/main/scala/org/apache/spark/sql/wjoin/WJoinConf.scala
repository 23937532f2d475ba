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

  /** Forces registration of the entries (called when the extension is installed). */
  def register(): Unit = ()

  /**
   * [[TimeBands]] of `conf`, else `spark.sql.shuffle.partitions`. A value that is not an
   * integer >= 1 fails with an IllegalArgumentException naming the key and the value.
   */
  def timeBands(conf: SQLConf): Int = conf.getConf(TimeBands).getOrElse(conf.numShufflePartitions)
}
