package wjoin.exec
package batch

import org.apache.spark.{Partitioner, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, SortOrder, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.execution.{LeafExecNode, SortExec, UnsafeRowSerializer}
import org.apache.spark.sql.wjoin.SparkBridge

import wjoin.core.{TimeBands, WindowMatrix}
import wjoin.exec.codec.TimeColumn

/** Sends each record to the partition its key names (the key is the band). */
private[exec] final class BandPartitioner(override val numPartitions: Int) extends Partitioner {
  override def getPartition(key: Any): Int = key.asInstanceOf[Int]
  override def equals(other: Any): Boolean = other match {
    case p: BandPartitioner => p.numPartitions == numPartitions
    case _ => false
  }
  override def hashCode: Int = numPartitions
}

/** A stand-in leaf with the input's columns, so that [[SortExec.createSorter]] can be reused. */
private[exec] final case class RowsOf(output: Seq[Attribute]) extends LeafExecNode {
  override protected def doExecute(): RDD[InternalRow] =
    throw new UnsupportedOperationException("RowsOf only describes rows for a sorter")
}

/**
 * The time-band partitioning of a keyless batch W-join, at RDD level inside
 * [[WindowJoinExec.doExecute]]:
 * {{{
 *   inputs ──sample (1 job for all)──> TimeBands (equal-depth, width >= max reach)
 *   input i ──row at t: (b, row) for b in firstBand(i, t) .. bandOf(t)──> shuffle into bands
 *           ──sort each band by time (Spark's spilling sorter)──> band b of every input,
 *                                                                 zipped into one task
 * }}}
 * Rows with NULL time are counted (numNullRows) before the shuffle and never sent anywhere.
 * Like Spark's range partitioning, the sampling job reads the inputs once more (a cached
 * input is read from the cache); the sample is about 100 times per band, at least 10,000.
 */
private[exec] object TimeBandShuffle {
  /** Sample size for all inputs together, as Spark's RangePartitioner: about 100 per band. */
  private def sampleSize(maxBands: Int): Double = math.min(math.max(100.0 * maxBands, 10000.0), 1e6)

  /**
   * Equal-depth bands from one sampling job over all inputs (reservoir per partition, each sampled
   * time weighted by its partition's non-null row count / sample size); as many as
   * [[TimeBands.countFor]] gives for the rows counted, one per `rowsPerBand` and at least one
   * per core of the cluster, at most `maxBands`.
   */
  def bands(inputs: Seq[RDD[InternalRow]], times: Seq[TimeColumn], maxBands: Int, rowsPerBand: Long,
      matrix: WindowMatrix): TimeBands = {
    if (maxBands <= 1) return TimeBands.single(matrix)
    val partitions = inputs.map(_.getNumPartitions).sum
    if (partitions == 0) return TimeBands.single(matrix)
    val perPartition = math.max(1, math.ceil(3.0 * sampleSize(maxBands) / partitions).toInt)
    // One job over the union of the inputs: a job per input would cost a scheduling round each.
    val sketchesOf = inputs.zip(times).zipWithIndex.map { case ((rdd, time), i) =>
      rdd.mapPartitionsWithIndex { (p, rows) =>
        val rnd = new scala.util.Random(31L * i + p)
        val readTime = time.reader
        val sample = new Array[Long](perPartition)
        var seen = 0L
        rows.foreach { row =>
          if (!time.isNull(row)) {
            val t = readTime(row)
            if (seen < perPartition) sample(seen.toInt) = t
            else {
              val slot = (rnd.nextDouble() * (seen + 1)).toLong
              if (slot < perPartition) sample(slot.toInt) = t
            }
            seen += 1
          }
        }
        Iterator.single((seen, sample.take(math.min(seen, perPartition.toLong).toInt)))
      }
    }
    val sketches = inputs.head.sparkContext.union(sketchesOf).collect()
    val sampled = sketches.filter(_._2.nonEmpty)
    val sampleTimes = sampled.flatMap(_._2)
    val weights = sampled.flatMap { case (count, s) => Array.fill(s.length)(count.toDouble / s.length) }
    val count = TimeBands.countFor(sketches.map(_._1.toDouble).sum, rowsPerBand,
      inputs.head.sparkContext.defaultParallelism, maxBands)
    TimeBands.fromSample(sampleTimes.toArray, weights.toArray, count, matrix)
  }

  /**
   * Input `input`'s rows, each sent to the bands it can reach and sorted by time within each
   * band. The result has `numPartitions` partitions (>= bands.count); partition b holds band b.
   *
   * @param rows       the input's rows
   * @param attributes the input's columns
   * @param time       how to read its event time
   * @param metrics    numInputRows, numInputRows`input`, numNullRows, numReplicatedRows
   */
  def partition(rows: RDD[InternalRow], input: Int, attributes: Seq[Attribute], time: Attribute,
      bands: TimeBands, numPartitions: Int, metrics: WindowJoinMetrics): RDD[InternalRow] = {
    assert(bands.count <= numPartitions, s"${bands.count} time bands do not fit into $numPartitions partitions")
    val column = TimeColumn.of(attributes, time)
    val readTime = column.reader
    val types = attributes.map(_.dataType).toArray
    val (inputRows, ownRows, nullRows, copies) =
      (metrics.numInputRows, metrics.numInputRowsOf(input), metrics.numNullRows, metrics.numReplicatedRows.get)
    val serializer = new UnsafeRowSerializer(attributes.size)
    // A writer that buffers records needs each row copied: input iterators reuse their row object.
    val copyRows = !SparkBridge.shuffleWritesRecordsAtOnce(numPartitions, serializer)
    val keyed: RDD[(Int, InternalRow)] = rows.mapPartitions { it =>
      val toUnsafe = UnsafeProjection.create(types)
      it.flatMap { row =>
        inputRows += 1
        if (column.isNull(row)) { nullRows += 1; Iterator.empty }
        else {
          ownRows += 1
          val t = readTime(row)
          val first = bands.firstBand(input, t)
          val last = bands.lastBand(t)
          copies += last - first
          val unsafe = row match {
            case u: UnsafeRow => u
            case r => toUnsafe(r)
          }
          val bandRow: InternalRow = if (copyRows) unsafe.copy() else unsafe
          Iterator.range(first, last + 1).map(b => (b, bandRow))
        }
      }
    }
    val shuffled = new ShuffledRDD[Int, InternalRow, InternalRow](keyed, new BandPartitioner(numPartitions))
      .setSerializer(serializer)
    val sort = SortExec(Seq(SortOrder(time, Ascending)), global = false, child = RowsOf(attributes))
    shuffled.mapPartitions(records => sortedBy(sort, records.map(_._2)), preservesPartitioning = true)
  }

  private def sortedBy(sort: SortExec, rows: Iterator[InternalRow]): Iterator[InternalRow] = {
    val sorter = sort.createSorter()
    Option(TaskContext.get()).foreach(_.addTaskCompletionListener[Unit](_ => sorter.cleanupResources()))
    sorter.sort(rows.asInstanceOf[Iterator[UnsafeRow]])
  }
}
