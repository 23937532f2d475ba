package wjoin.plan
package physical

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.streaming.StreamingQueryProgress

import wjoin.core.cost.InputStats
import wjoin.exec.WindowJoinMetrics

/**
 * Statistics of a streaming W-join's inputs from the query's recent micro-batches, for
 * planning the next one's access paths (Kang et al. Sec. 4.2). The state store holds rows, not
 * engine structures, so access paths and probe orders may change from one batch to the next
 * without moving any state (an engine kept in memory for another plan is then rebuilt from
 * the store); each batch is planned with what the batches before it showed.
 *
 * What one finished micro-batch tells ([[StreamingStatistics.Sample]], taken from its
 * `StreamingQueryProgress` by `WindowJoinStrategy`):
 *  - `numInputRows<i>` of the W-join's state operator (`windowJoin`): the rows input i brought;
 *  - `numStateKeys<i>`: the distinct keys among input i's rows in the engine's windows after
 *    the batch (summed over partitions, which is exact because rows are hash-partitioned by
 *    the key; hash buckets count them exactly, other windows estimate from a sample); only
 *    with a hashed key;
 *  - the batch's event-time min and max (the progress' `eventTime`, over every watermarked
 *    column of the query).
 *
 * Derivation, over the last [[StreamingStatistics.MaxBatches]] samples that brought rows:
 *  - span s = max of the maxima - min of the minima (in the time column's unit, at least 1 ms);
 *  - rate of input i = max(1, rows of i over those batches) / s (at least one row, so a
 *    stalled input is slow, not free);
 *  - an unbounded stream: rows = rate x S over S = max(s, 100 x the largest horizon), so the
 *    planner's window rows, min(rows, rate x (T + tau)), are rate x (T + tau), as with the
 *    assumptions (1000 rows per window out of 100 windows);
 *  - distinct keys: `numStateKeys<i>` of the latest such batch, else the assumption;
 *  - range-attribute domains: the assumption (no metric carries them).
 * Without a usable sample (the first batch, a restart before any progress, metrics missing)
 * every input keeps its assumed statistics. EXPLAIN's `stats:` says "recent micro-batch N" or
 * "recent micro-batches M-N" (the batches the figures come from) with the observed rows per
 * second of event time per input, e.g. `recent micro-batches 3-4 (rows/s: A 10.0, B 0.100)`,
 * else "assumed".
 */
object StreamingStatistics {
  /** How many recent micro-batches with input rows the rates are taken over. */
  val MaxBatches = 10

  import WindowJoinMetrics.{inputRowsMetric, stateKeysMetric}

  /**
   * What the recent micro-batches showed of the `index`-th W-join of the query (with `n`
   * inputs): its state operator is the `index`-th `windowJoin` entry of each progress (Spark
   * lists stateful operators in plan order) that has per-input metrics for `n` inputs; a
   * progress without such an entry is left out.
   */
  def samples(progress: Seq[StreamingQueryProgress], index: Int, n: Int): Seq[Sample] =
    progress.flatMap { p =>
      val ours = Option(p.stateOperators).toSeq.flatten.filter(_.operatorName == "windowJoin")
      val metrics = ours.lift(index).map(o => Option(o.customMetrics).map(_.asScala.map { case (k, v) =>
        k -> v.longValue() }.toMap).getOrElse(Map.empty[String, Long]))
      def time(key: String): Option[Long] = Option(p.eventTime).flatMap(m => Option(m.get(key)))
        .flatMap(text => scala.util.Try(java.time.Instant.parse(text).toEpochMilli).toOption)
      metrics.filter(m => m.contains(WindowJoinMetrics.inputRowsMetric(n - 1)) &&
          !m.contains(WindowJoinMetrics.inputRowsMetric(n)))
        .map(m => Sample(p.batchId, p.numInputRows, time("min"), time("max"), m))
    }


  /**
   * What one finished micro-batch showed of one W-join.
   *
   * @param batchId       the micro-batch
   * @param inputRows     the rows the whole query read in it (the progress' numInputRows)
   * @param eventTimeMinMs earliest event time of the batch's rows, if any
   * @param eventTimeMaxMs latest event time of the batch's rows, if any
   * @param metrics       the W-join operator's custom metrics
   */
  final case class Sample(batchId: Long, inputRows: Long, eventTimeMinMs: Option[Long], eventTimeMaxMs: Option[Long],
      metrics: Map[String, Long])

  /**
   * @param horizon     per input, how long its rows stay joinable (time column's unit)
   * @param keyed       the plan hashes a shared key (only then are key counts read)
   * @param samples     recent micro-batches, oldest first (duplicates of a batch id: last wins)
   * @param assumed     per input, the statistics to fall back on
   * @param unitsPerMs  time column units per millisecond (timestamps: 1000 microseconds)
   */
  def derive(horizon: Seq[Long], keyed: Boolean, samples: Seq[Sample], assumed: Seq[InputStats],
      unitsPerMs: Double = 1000.0, names: Seq[String] = Nil): Seq[InputStats] = {
    val n = assumed.size
    val label = if (names.size == n) names else (0 until n).map(i => s"#$i")
    assert(horizon.size == n, "one horizon per input")
    val byBatch = samples.groupBy(_.batchId).map(_._2.last).toSeq.sortBy(_.batchId)
    val usable = byBatch.filter(s => s.inputRows > 0 && s.eventTimeMinMs.isDefined && s.eventTimeMaxMs.isDefined &&
      (0 until n).forall(i => s.metrics.contains(inputRowsMetric(i)))).takeRight(MaxBatches)
    if (usable.isEmpty || usable.map(s => (0 until n).map(i => s.metrics(inputRowsMetric(i))).sum).sum <= 0)
      return assumed
    val spanMs = math.max(1L, usable.flatMap(_.eventTimeMaxMs).max - usable.flatMap(_.eventTimeMinMs).min)
    val span = spanMs * unitsPerMs
    val longest = horizon.map(h => math.max(1.0, h.toDouble)).max
    val total = math.max(span, 100.0 * longest)
    val latest = usable.last
    val rows = (0 until n).map(i => math.max(1.0, usable.map(_.metrics(inputRowsMetric(i)).toDouble).sum))
    val perSecond = (0 until n).map(i => f"${label(i)} ${rows(i) / spanMs * 1000}%.3g")
    val source = (if (usable.size == 1) s"recent micro-batch ${latest.batchId}"
      else s"recent micro-batches ${usable.head.batchId}-${latest.batchId}") + s" (rows/s: ${perSecond.mkString(", ")})"
    (0 until n).map { i =>
      val rate = rows(i) / span
      val keys = if (keyed) latest.metrics.get(stateKeysMetric(i)).filter(_ > 0).map(_.toDouble) else None
      InputStats(rate * total, total, math.max(1.0, keys.getOrElse(assumed(i).distinct)), assumed(i).rangeWidths,
        source)
    }
  }
}
