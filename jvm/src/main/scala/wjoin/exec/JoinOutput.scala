package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow

import wjoin.core.{AnchorDecisions, EngineDrive, TimeBands}

/**
 * What a partition outputs from its engine's combinations, chosen once per partition by the
 * how (and, for batch, the time bands): the one place combination rows and decided anchor rows
 * are written, for batch partitions and micro-batches alike.
 *
 * {{{
 *   Combinations   inner: every combination                    ──emit──> row
 *   BandCombinations inner, time bands: the combinations whose earliest member is in this band
 *   Anchored       left / left_semi / left_anti: every combination to the decisions; the
 *                  ones they keep (left) and the decided anchor rows (pending) ──> rows
 * }}}
 */
sealed abstract class JoinOutput {
  /** Rows output so far. */
  final var rowsOut = 0L

  /** Pulls from `drive` until a row is ready (true) or the drive is exhausted (false). */
  def ready(drive: EngineDrive): Boolean

  /** The row that is ready. */
  protected def take(): InternalRow

  final def next(): InternalRow = { rowsOut += 1; take() }

  /** Combinations of a banded partition that belong to a later band (not output). */
  def foreign: Long = 0L
}

object JoinOutput {
  /** Inner: every combination. */
  final class Combinations(emit: Array[AnyRef] => InternalRow) extends JoinOutput {
    private var tuple: Array[AnyRef] = _
    def ready(drive: EngineDrive): Boolean = tuple != null || (drive.hasNext && { tuple = drive.next(); true })
    protected def take(): InternalRow = { val t = tuple; tuple = null; emit(t) }
  }

  /**
   * Inner, time bands: band b owns the combinations whose earliest member is at or before
   * `lastOwned` (and at or after its start; earlier members were not sent to it). Every member
   * of a foreign one is a replica; forward evaluation finds combinations in order of their
   * earliest member, so all that follow the first foreign one are foreign too (`forward`: stop).
   *
   * @param times the engine's times of the current combination
   */
  final class BandCombinations(emit: Array[AnyRef] => InternalRow, lastOwned: Long, times: Array[Long],
      forward: Boolean) extends JoinOutput {
    private var tuple: Array[AnyRef] = _
    private var foreignSeen = 0L
    private var stopped = false
    override def foreign: Long = foreignSeen
    def ready(drive: EngineDrive): Boolean = {
      while (tuple == null && !stopped && drive.hasNext) {
        val t = drive.next()
        if (TimeBands.earliest(times) <= lastOwned) tuple = t
        else { foreignSeen += 1; stopped = forward }
      }
      tuple != null
    }
    protected def take(): InternalRow = { val t = tuple; tuple = null; emit(t) }
  }

  /**
   * Left outer, left semi, left anti: the decisions see every combination (the engine reports
   * evictions and the merger unjoinable anchors to them); decided anchors leave as soon as they
   * are decided, so the output streams and memory is the window's, not the partition's.
   */
  final class Anchored(decisions: AnchorDecisions, emit: Array[AnyRef] => InternalRow,
      anchorOut: AnyRef => InternalRow) extends JoinOutput {
    private var tuple: Array[AnyRef] = _
    def ready(drive: EngineDrive): Boolean = {
      while (tuple == null && decisions.pending.isEmpty && !drive.exhausted)
        if (drive.advance(pause = !decisions.pending.isEmpty)) {
          val t = drive.next()
          if (decisions.combination(t)) tuple = t
        }
      !decisions.pending.isEmpty || tuple != null
    }
    protected def take(): InternalRow =
      if (!decisions.pending.isEmpty) anchorOut(decisions.pending.poll())
      else { val t = tuple; tuple = null; emit(t) }
  }
}
