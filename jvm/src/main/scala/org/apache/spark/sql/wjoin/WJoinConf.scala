package org.apache.spark.sql.wjoin

import org.apache.spark.SparkConf
import org.apache.spark.internal.config.{ConfigBuilder, ConfigEntry, OptionalConfigEntry, TypedConfigBuilder}
import org.apache.spark.network.util.{ByteUnit, JavaUtils}
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.util.Utils

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
  /**
   * A size in bytes ("10MB", "-1") as Spark's `bytesConf` reads it, with the key named when the
   * text is no size at all (Spark 3.5's own message does not name it).
   */
  private def byteSize(builder: ConfigBuilder): TypedConfigBuilder[Long] =
    new TypedConfigBuilder[Long](builder, text =>
      try {
        val t = text.trim
        if (t.startsWith("-")) -JavaUtils.byteStringAs(t.substring(1), ByteUnit.BYTE) // -1: off
        else JavaUtils.byteStringAs(t, ByteUnit.BYTE)
      } catch { case e: NumberFormatException =>
        throw new IllegalArgumentException(s"${builder.key} must be a size in bytes (e.g. 10MB), got '$text'", e) },
      bytes => s"${bytes}b")

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

  /** Key of [[TimeBandRows]]. */
  val TimeBandRowsKey = "spark.wjoin.timeBandRows"

  /**
   * Rows (of all inputs, as sampled before the band shuffle) a time band is cut for: a keyless
   * batch W-join takes about rows / this many bands, at least one per core of the cluster and at
   * most [[TimeBands]] ([[wjoin.core.TimeBands.countFor]]).
   */
  val TimeBandRows: ConfigEntry[Long] = SQLConf.buildConf(TimeBandRowsKey)
    .doc("Rows (of all inputs together) per event-time band of a batch W-join without a shared equality key: " +
      "its inputs are cut into about (their rows / this) bands, at least as many as the cluster has cores " +
      "(spark.default.parallelism) and at most spark.wjoin.timeBands. Each band is a task with a fixed cost " +
      "(a shuffle read, a sort, an engine, the rows copied at its edges), so many small bands are slower than " +
      "a few large ones. 1: always the most bands.")
    .version("0.1.0")
    .longConf
    .checkValue(_ >= 1, s"$TimeBandRowsKey must be an integer >= 1 (1 = always spark.wjoin.timeBands bands)")
    .createWithDefault(100000L)

  /** Key of [[SmallInputBytes]]. */
  val SmallInputBytesKey = "spark.wjoin.smallInputBytes"

  /**
   * A batch W-join whose inputs' estimated sizes (Spark's logical-plan statistics) sum to at
   * most this many bytes runs in one task without a shuffle; -1 never does. The default is
   * Spark's own default for broadcasting a join side, `spark.sql.autoBroadcastJoinThreshold`.
   */
  val SmallInputBytes: ConfigEntry[Long] = byteSize(SQLConf.buildConf(SmallInputBytesKey)
    .doc("A batch W-join whose inputs' estimated sizes (Spark's plan statistics, as for " +
      "spark.sql.autoBroadcastJoinThreshold) sum to at most this many bytes runs in a single task without a " +
      "shuffle: each input's partitions are read in that task (coalesced, not shuffled) and sorted by event " +
      "time there. Saves the shuffle and its fixed cost on small inputs. Where an input is computed rather than " +
      "already in memory (cached, local rows, a finished shuffle) and the broadcast plan applies, it is taken " +
      "instead: one task would compute every input on one core. -1 disables it (hash, time-band or " +
      "single-partition shuffles as for large inputs).")
    .version("0.1.0"))
    .checkValue(_ >= -1, s"$SmallInputBytesKey must be a size in bytes >= 0 (e.g. 10MB), or -1 to disable " +
      "the single-task plan")
    .createWithDefaultString("10MB")

  /** Key of [[BroadcastBytes]]. */
  val BroadcastBytesKey = "spark.wjoin.broadcastBytes"

  /**
   * A batch inner W-join broadcasts every input but the largest when each one's estimated size
   * is at most this many bytes (`wjoin.plan.physical.BroadcastPlan`); -1 never does. Unset:
   * Spark's `spark.sql.autoBroadcastJoinThreshold`, so one setting turns off Spark's broadcasts
   * and ours.
   */
  val BroadcastBytes: ConfigEntry[Long] = SQLConf.buildConf(BroadcastBytesKey)
    .doc("A batch inner W-join broadcasts every input but the largest when each one's estimated size (Spark's " +
      "plan statistics) is at most this many bytes, as Spark broadcasts each build side of its joins under " +
      "spark.sql.autoBroadcastJoinThreshold: the largest input is read where it is, without a " +
      "shuffle, and each executor indexes the broadcast inputs once for all its tasks. -1 disables it. " +
      "Unset: spark.sql.autoBroadcastJoinThreshold.")
    .version("0.1.0")
    .fallbackConf(SQLConf.AUTO_BROADCASTJOIN_THRESHOLD)

  /** Key of [[BroadcastFallback]]. */
  val BroadcastFallbackKey = "spark.wjoin.broadcastFallback"

  /**
   * Whether a broadcast W-join whose collected inputs' index would not fit a task's memory
   * runs the shuffled plan instead (`wjoin.plan.physical.BroadcastFallback`).
   */
  val BroadcastFallback: ConfigEntry[Boolean] = SQLConf.buildConf(BroadcastFallbackKey)
    .doc("When a batch W-join planned to broadcast (spark.wjoin.broadcastBytes) collects its broadcast inputs " +
      "and their index would take more than a task is sure to get of an executor's memory (Spark's size " +
      "estimate was short, e.g. well-compressed Parquet), it runs the shuffled plan instead. false keeps the " +
      "broadcast plan, which then fails with WJOIN_BROADCAST_MEMORY_EXCEEDED where the index does not fit.")
    .version("0.1.0")
    .booleanConf
    .createWithDefault(true)

  /** Key of [[KeyGroupRows]]. */
  val KeyGroupRowsKey = "spark.wjoin.keyGroupRows"

  /**
   * Rows above which a partition of a shuffled batch W-join on one integral key, whose windows
   * would hold that many rows in time order, is joined key by key instead
   * (`wjoin.core.FeedGroups.ByKey`); 0 always is, -1 never.
   */
  val KeyGroupRows: ConfigEntry[Long] = SQLConf.buildConf(KeyGroupRowsKey)
    .doc("A batch W-join shuffled on a shared key of one integral column (no ROWS window, band predicate or " +
      "resource limit) estimates in each partition, from the first rows of each input, how many rows its " +
      "windows would hold in time order. Above this many, and with keys that hardly repeat among those rows, " +
      "the partition sorts each input by key (Spark's sorter, which spills) and joins each key's rows on their " +
      "own: its windows hold one key's rows at a time, where in time order they would hold every key's rows of " +
      "the window's span, each an object the garbage collector copies. Results never depend on it. 0 joins every " +
      "such partition key by key; -1 keeps the time order.")
    .version("0.1.0")
    .longConf
    .checkValue(r => r == -1 || r >= 0, s"$KeyGroupRowsKey must be -1 (never) or an integer >= 0")
    .createWithDefault(100000L)

  /** Key of [[AccessCheckRows]]. */
  val AccessCheckRowsKey = "spark.wjoin.accessCheckRows"

  /**
   * Rows of its merged inputs each batch W-join partition reads before it builds its engine,
   * to check the planned access paths and probe orders against what they show
   * (`wjoin.core.cost.AccessRecheck`); 0 keeps the planned ones.
   */
  val AccessCheckRows: ConfigEntry[Int] = SQLConf.buildConf(AccessCheckRowsKey)
    .doc("Rows of its merged inputs each partition of a batch W-join reads (and keeps) before it builds its " +
      "engine: their rates, key counts and band selectivities replace the planner's estimates (Spark has no " +
      "distinct counts or band selectivities for an input that was not analyzed) in the same unit-time cost " +
      "model, and the partition takes other access paths when they promise at least 20% less work, and probe " +
      "orders from the measured selectivities. Results never depend on it. 0 keeps the planned paths and orders.")
    .version("0.1.0")
    .intConf
    .checkValue(r => r >= 0 && r <= (1 << 20), s"$AccessCheckRowsKey must be an integer between 0 (off) and 1048576")
    .createWithDefault(4096)

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

  /** Key of [[KeptEngineMemoryFraction]]. */
  val KeptEngineMemoryFractionKey = "spark.wjoin.streaming.keptEngineMemoryFraction"

  /**
   * The most of the memory Spark manages on an executor's heap that streaming W-join engines
   * kept between micro-batches may hold together (reserved as storage memory, which Spark
   * cannot evict); an engine beyond it is rebuilt from the state store by its next batch.
   */
  val KeptEngineMemoryFraction: ConfigEntry[Double] = SQLConf.buildConf(KeptEngineMemoryFractionKey)
    .doc("The most of an executor's Spark-managed heap memory (spark.memory.fraction of the heap) that " +
      "streaming W-join engines kept between micro-batches may hold together, all queries together. A kept " +
      "engine's windows are reserved as storage memory, which Spark cannot evict, so this share is what running " +
      "tasks may lose to them at most; an engine beyond it, or whose bytes the storage pool does not have free, " +
      "is not kept and its next micro-batch rebuilds it from the state store. 0 keeps none.")
    .version("0.1.0")
    .doubleConf
    .checkValue(f => f >= 0 && f <= 1, s"$KeptEngineMemoryFractionKey must be a fraction between 0 and 1")
    .createWithDefault(0.25)

  /** Key of [[WarmUp]]. */
  val WarmUpKey = "spark.wjoin.warmUp"

  /**
   * Whether the first session of a JVM warms the W-join up in a background thread (a static
   * setting: set it when the session is built).
   */
  val WarmUp: ConfigEntry[Boolean] = SQLConf.buildStaticConf(WarmUpKey)
    .doc("When the first session of a JVM with the W-join extension is created, plan a few tiny W-joins and " +
      "run their evaluators on generated rows in a background daemon thread, with no Spark job: the classes, " +
      "generated code and JIT-compiled engine loops the first W-join of a session would otherwise pay for " +
      "are ready when it comes. A few seconds of one core, once per JVM (driver; the engine runs there in " +
      "local mode).")
    .version("0.1.0")
    .booleanConf
    .createWithDefault(true)

  /** Key of [[OutputNames]]. */
  val OutputNamesKey = "spark.wjoin.outputNames"

  /**
   * How a W-join names its output columns when the call does not say (`output_names`), and
   * how a SQL W-join does: "join" (as `DataFrame.join`, the default) or "prefixed"
   * (`wjoin.request.OutputNames`). Read when the W-join is built (analyzed).
   */
  val OutputNames: ConfigEntry[String] = SQLConf.buildConf(OutputNamesKey)
    .doc("How a W-join names its output columns when its call has no output_names argument (and how a SQL " +
      "W-join does): 'join' keeps each input's column names, as DataFrame.join does (inputs with the same " +
      "columns give repeated names, told apart by their input's qualifier, A.ts, which a file sink cannot " +
      "write); 'prefixed' names every column except the on= keys <input>_<column> (A_ts, B_ts, ...).")
    .version("0.1.0")
    .stringConf
    .transform(_.trim.toLowerCase(java.util.Locale.ROOT))
    .checkValues(Set("join", "prefixed"))
    .createWithDefault("join")

  /** Forces registration of the entries (called when the extension is installed). */
  def register(): Unit = ()

  /**
   * [[TimeBands]] of `conf`, else `spark.sql.shuffle.partitions`. A value that is not an
   * integer >= 1 fails with an IllegalArgumentException naming the key and the value.
   */
  def timeBands(conf: SQLConf): Int = conf.getConf(TimeBands).getOrElse(conf.numShufflePartitions)

  /** [[TimeBandRows]] of `conf`; a bad value fails naming the key. */
  def timeBandRows(conf: SQLConf): Long = conf.getConf(TimeBandRows)

  /**
   * [[SmallInputBytes]] of `conf`, None when disabled (-1). A bad value fails with an
   * IllegalArgumentException naming the key and the value.
   */
  def smallInputBytes(conf: SQLConf): Option[Long] = Some(conf.getConf(SmallInputBytes)).filter(_ >= 0)

  /** [[BroadcastBytes]] of `conf` (else Spark's broadcast threshold), None when negative (disabled). */
  def broadcastBytes(conf: SQLConf): Option[Long] = Some(conf.getConf(BroadcastBytes)).filter(_ >= 0)

  /** [[BroadcastFallback]] of `conf`. */
  def broadcastFallback(conf: SQLConf): Boolean = conf.getConf(BroadcastFallback)

  /** [[KeyGroupRows]] of `conf` (-1: never). */
  def keyGroupRows(conf: SQLConf): Long = conf.getConf(KeyGroupRows)

  /** [[AccessCheckRows]] of `conf` (0: off). */
  def accessCheckRows(conf: SQLConf): Int = conf.getConf(AccessCheckRows)

  /** A byte count as Spark prints sizes in its UI and EXPLAIN ("1.2 MiB"). */
  def bytesText(bytes: BigInt): String = Utils.bytesToString(bytes)

  /** [[WarmUp]] of a Spark context's conf (a static setting). */
  def warmUp(conf: SparkConf): Boolean = conf.get(WarmUp)

  /** [[OutputNames]] of `conf`, lower case: "join" or "prefixed". */
  def outputNames(conf: SQLConf): String = conf.getConf(OutputNames)

  /** [[KeptEngineRows]] of `conf`. */
  def keptEngineRows(conf: SQLConf): Long = conf.getConf(KeptEngineRows)

  /** [[KeptEngineMemoryFraction]] of `conf`. */
  def keptEngineMemoryFraction(conf: SQLConf): Double = conf.getConf(KeptEngineMemoryFraction)
}
