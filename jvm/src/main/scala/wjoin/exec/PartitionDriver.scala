package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.EngineDrive

/**
 * Drives one partition of a batch W-join, or one micro-batch of a streaming partition: the
 * engine's combinations ([[EngineDrive]]) become rows through the partition's [[JoinOutput]],
 * and `complete` runs once, after the last row (as Spark's `CompletionIterator` does), or when
 * [[finish]] is called first (a task that stops reading early).
 *
 * {{{
 *   InputMerger ─rows─> EngineDrive ─combinations─> JoinOutput ─rows─> Spark
 *                                                      └─ at the end: complete(rows out)
 * }}}
 *
 * What batch and streaming plug in: the drive (batch: finish, and for anchors evictAll;
 * streaming: the micro-batch of [[wjoin.core.MicroBatchWJoin]]) and `complete` (batch: the
 * metrics; streaming: the state's changes written, then the metrics).
 *
 * While the task runs, `progress` is called every [[PartitionDriver.ProgressRows]] output rows:
 * the metrics are published as the task goes, so the Spark UI shows them grow (executors
 * send accumulator updates with their heartbeats), at the cost of one call per that many rows.
 *
 * @param drive    the engine and its feed
 * @param output   what the partition outputs
 * @param complete called once with the number of rows output
 * @param progress called every [[PartitionDriver.ProgressRows]] output rows
 */
final class PartitionDriver(drive: EngineDrive, output: JoinOutput, complete: Long => Unit,
    progress: () => Unit = () => ()) extends Iterator[InternalRow] {
  private var completed = false

  override def hasNext: Boolean = output.ready(drive) || { finish(); false }

  override def next(): InternalRow = {
    if (!hasNext) throw new NoSuchElementException("the W-join partition is exhausted")
    val row = output.next()
    if ((output.rowsOut & (PartitionDriver.ProgressRows - 1)) == 0) progress()
    row
  }

  /** Runs `complete` with the rows output so far, once. */
  def finish(): Unit = if (!completed) { completed = true; complete(output.rowsOut) }
}

object PartitionDriver {
  /** Output rows between two publications of the metrics (a power of two). */
  val ProgressRows = 1024L
}
