package wjoin.exec.state

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{BinaryType, DataType, IntegerType, LongType}

/**
 * State format version 1 ([[StateRecordKind]] has the layout): each record kind to its
 * (key, value) pair of UnsafeRows and back. One per task: the rows it returns are reused by
 * its next call of the same side (keys by the next key, values by the next value), which is
 * enough for `StateStore.put(key, value)` (both providers copy or encode them at once).
 */
final class StateRecordCodec {
  import StateRecordKind._

  private val keyProjection = UnsafeProjection.create(Array[DataType](IntegerType, LongType))
  private val valueProjection = UnsafeProjection.create(Array[DataType](LongType, BinaryType))
  private val keyFields = new GenericInternalRow(2)
  private val valueFields = new GenericInternalRow(2)

  private def key(input: Int, chunk: Long): UnsafeRow = {
    keyFields.setInt(0, input)
    keyFields.setLong(1, chunk)
    keyProjection(keyFields)
  }

  private def value(time: Long, bytes: Array[Byte]): UnsafeRow = {
    valueFields.setLong(0, time)
    valueFields.update(1, bytes)
    valueProjection(valueFields)
  }

  /** The key of input `input`'s chunk written by micro-batch `chunk`. */
  def chunkKey(input: Int, chunk: Long): UnsafeRow = {
    assert(input >= 0, s"a chunk belongs to an input (>= 0), not $input")
    key(input, chunk)
  }

  /** The key of the matched bits of anchor chunk `chunk`. */
  def matchesKey(chunk: Long): UnsafeRow = key(AnchorMatches.tag, chunk)

  /** The key of a kind with one record: SweepFrontier, DecidedUpTo, ShedBudgets. */
  def singleKey(kind: StateRecordKind): UnsafeRow =
    key(kind.tag, kind.chunk.getOrElse(throw new IllegalArgumentException(s"$kind has a record per chunk")))

  def chunkValue(maxTime: Long, rows: Array[Byte]): UnsafeRow = value(maxTime, rows)

  def frontierValue(time: Long, input: Int): UnsafeRow =
    value(time, java.nio.ByteBuffer.allocate(4).putInt(input).array())

  def decidedValue(watermark: Long): UnsafeRow = value(watermark, Array.emptyByteArray)

  def matchesValue(bits: java.util.BitSet): UnsafeRow = value(0L, bits.toByteArray)

  def budgetsValue(bytes: Array[Byte]): UnsafeRow = value(0L, bytes)

  /** The record stored as (`key`, `value`); its bytes are copied out of the rows (which a store iterator may reuse). */
  def decode(key: UnsafeRow, value: UnsafeRow): StateRecord = {
    val (input, chunk) = (key.getInt(0), key.getLong(1))
    StateRecordKind.of(input, chunk) match {
      case RowChunk => StateRecord.Chunk(input, chunk, value.getLong(0), value.getBinary(1))
      case SweepFrontier => StateRecord.Frontier(value.getLong(0), java.nio.ByteBuffer.wrap(value.getBinary(1)).getInt())
      case DecidedUpTo => StateRecord.Decided(value.getLong(0))
      case AnchorMatches => StateRecord.Matches(chunk, java.util.BitSet.valueOf(value.getBinary(1)))
      case ShedBudgets => StateRecord.Budgets(value.getBinary(1))
    }
  }
}
