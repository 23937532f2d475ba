package wjoin.exec.state

import wjoin.errors.WJoinErrors

/**
 * The kinds of record a streaming W-join keeps in its state store, and how each is told
 * apart on disk. Every record is one (key, value) pair of the operator's default store, key
 * `(input: int, chunk: bigint)`, value `(maxTime: bigint, rows: binary)` ([[StateFormat]]);
 * the kind is the key's `input` field, a real input's index or a negative tag:
 * {{{
 *   kind            key (input, chunk)       value (maxTime, rows)
 *   RowChunk        (i >= 0, batch id)       (newest time of the chunk, rows of input i packed)
 *   SweepFrontier   (-1, 0)                  (frontier time, frontier input as 4 bytes, big-endian)
 *   DecidedUpTo     (-1, 1)                  (eager: the last batch's W; rows out of reach up to it, no bytes)
 *   AnchorMatches   (-2, batch id)           (0, java.util.BitSet bytes of the chunk's matched rows)
 *   ShedBudgets     (-3, 0)                  (0, ShedBudgets.save() bytes)
 *
 *   rows = (time: bigint, size: int, UnsafeRow bytes)*        in the order the rows were added
 * }}}
 * This is state format version 1, the layout of every checkpoint written before the format
 * had a version; changing any of it is a new format version ([[StateFormat]]).
 *
 * @param tag   the key's `input` field of the kind (a RowChunk's is the input index, >= 0)
 * @param chunk the key's `chunk` field when the kind has one record only (None: the batch id)
 */
sealed abstract class StateRecordKind(val tag: Int, val chunk: Option[Long]) {
  def name: String = toString
}

object StateRecordKind {
  /**
   * The rows one input contributed in one micro-batch, packed into one value; kept until none
   * of them can join again (eager: its newest row is out of reach of W; ordered: all swept).
   */
  case object RowChunk extends StateRecordKind(0, None)

  /** Ordered mode (MW-join): the last (time, input) the forward sweep reached; rows up to it are gone. */
  case object SweepFrontier extends StateRecordKind(-1, Some(0L))

  /** Anchored W-joins in eager mode: anchor rows with ts + horizon(0) <= this W were decided. */
  case object DecidedUpTo extends StateRecordKind(-1, Some(1L))

  /** Anchored W-joins: per chunk of the first input, a bit per row (by place) that took part in a combination. */
  case object AnchorMatches extends StateRecordKind(-2, None)

  /** Under resource limits: the shedding budgets' measured rates and probe counts. */
  case object ShedBudgets extends StateRecordKind(-3, Some(0L))

  val all: Seq[StateRecordKind] = Seq(RowChunk, SweepFrontier, DecidedUpTo, AnchorMatches, ShedBudgets)

  /** The kind of the record with key (`input`, `chunk`); fails on a key format version 1 does not have. */
  def of(input: Int, chunk: Long): StateRecordKind =
    if (input >= 0) RowChunk
    else all.find(k => k.tag == input && k.chunk.forall(_ == chunk)).getOrElse(WJoinErrors.raise(
      "WJOIN_STATE_UNKNOWN_RECORD", "key" -> s"($input, $chunk)", "version" -> StateFormat.Version1))
}
