package wjoin.exec.state

/**
 * One record of the W-join state as read back from the store ([[StateRecordCodec.decode]]):
 * a case class per [[StateRecordKind]], holding the record's decoded fields.
 */
sealed trait StateRecord {
  def kind: StateRecordKind
}

object StateRecord {
  /** A chunk of `input`'s rows written by micro-batch `chunk`; `rows` packed as (time, size, UnsafeRow bytes)*. */
  final case class Chunk(input: Int, chunk: Long, maxTime: Long, rows: Array[Byte]) extends StateRecord {
    def kind: StateRecordKind = StateRecordKind.RowChunk
  }

  /** The forward sweep's last (time, input). */
  final case class Frontier(time: Long, input: Int) extends StateRecord {
    def kind: StateRecordKind = StateRecordKind.SweepFrontier
  }

  /** Anchors with ts + horizon(0) <= `watermark` were decided by earlier batches. */
  final case class Decided(watermark: Long) extends StateRecord {
    def kind: StateRecordKind = StateRecordKind.DecidedUpTo
  }

  /** The matched rows of anchor chunk `chunk`, a bit per row by its place in the chunk. */
  final case class Matches(chunk: Long, bits: java.util.BitSet) extends StateRecord {
    def kind: StateRecordKind = StateRecordKind.AnchorMatches
  }

  /** The shedding budgets as `ShedBudgets.save()` wrote them. */
  final case class Budgets(bytes: Array[Byte]) extends StateRecord {
    def kind: StateRecordKind = StateRecordKind.ShedBudgets
  }
}
