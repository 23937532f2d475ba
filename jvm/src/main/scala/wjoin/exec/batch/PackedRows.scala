package wjoin.exec
package batch

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.catalyst.plans.physical.BroadcastMode
import org.apache.spark.unsafe.Platform

/**
 * How the broadcast W-join broadcasts an input: its rows packed into the bytes of one row, so that
 * Spark serializes, compresses and (on each executor, once) deserializes one byte array instead of
 * one object per row, as its own hash joins broadcast a `HashedRelation` as flat bytes.
 *
 * {{{
 *   collected rows r_0 .. r_m-1 (UnsafeRow) ──pack──> one UnsafeRow of one BINARY field:
 *     [null bits: 8][offset << 32 | length: 8][ size_0: 8 | bytes of r_0 | size_1: 8 | bytes of r_1 | ... ]
 *   Array(packed)   what BroadcastExchange broadcasts: Spark takes an Array[InternalRow] of UnsafeRows,
 *                   and its size, the packed row's, is what spark.sql.maxBroadcastTableSize limits
 *   unpack(packed, fields) ──> r_0 .. r_m-1 as UnsafeRows over the packed bytes: no copy
 * }}}
 *
 * Every size is a multiple of 8 (UnsafeRow's), so every row stays 8-byte aligned in the array.
 * Spark's `IdentityBroadcastMode` broadcasts the array of rows itself: for 150k rows, per-row
 * serialization made Spark's time to broadcast 59-95 ms an input against 14-30 ms packed, and
 * every reader deserializes the rows again (Spark 3.4+ broadcasts serialized only).
 */
case object PackedRows extends BroadcastMode {
  /** Bytes before the first packed row: the null bits and the field's offset and length. */
  private val Header = 16

  override def transform(rows: Array[InternalRow]): Array[InternalRow] = transform(rows.iterator, Some(rows.length.toLong))

  override def transform(rows: Iterator[InternalRow], sizeHint: Option[Long]): Array[InternalRow] = Array(pack(rows))

  override def canonicalized: BroadcastMode = this

  /** The rows (UnsafeRows, as Spark collects them) packed into one row. */
  def pack(rows: Iterator[InternalRow]): UnsafeRow = {
    var bytes = new Array[Byte](1 << 12)
    var at = Platform.BYTE_ARRAY_OFFSET.toLong + Header
    def ensure(more: Long): Unit = if (at + more > Platform.BYTE_ARRAY_OFFSET + bytes.length) {
      val needed = at - Platform.BYTE_ARRAY_OFFSET + more
      if (needed > Int.MaxValue - 15) throw new IllegalStateException(s"$needed bytes of broadcast rows do not fit one array")
      bytes = java.util.Arrays.copyOf(bytes, math.max(needed, math.min(Int.MaxValue - 15L, 2L * bytes.length)).toInt)
    }
    rows.foreach {
      case row: UnsafeRow =>
        val size = row.getSizeInBytes
        ensure(8L + size)
        Platform.putLong(bytes, at, size.toLong)
        row.writeToMemory(bytes, at + 8)
        at += 8 + size
      case other => throw new IllegalStateException(s"a broadcast row must be an UnsafeRow, got ${other.getClass.getName}")
    }
    val length = at - Platform.BYTE_ARRAY_OFFSET - Header
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET, 0L)
    Platform.putLong(bytes, Platform.BYTE_ARRAY_OFFSET + 8, (Header.toLong << 32) | length)
    val packed = new UnsafeRow(1)
    packed.pointTo(bytes, Platform.BYTE_ARRAY_OFFSET, (Header + length).toInt)
    packed
  }

  /** The rows of `broadcast` (what [[transform]] made), each of `fields` fields, over its bytes. */
  def unpack(broadcast: Array[InternalRow], fields: Int): Array[InternalRow] = {
    assert(broadcast.length == 1, s"one packed row, got ${broadcast.length}")
    val packed = broadcast(0).asInstanceOf[UnsafeRow]
    val base = packed.getBaseObject
    val start = packed.getBaseOffset + (packed.getLong(0) >>> 32)
    val end = start + (packed.getLong(0) & 0xFFFFFFFFL)
    var count = 0
    var at = start
    while (at < end) { count += 1; at += 8 + Platform.getLong(base, at) }
    val rows = new Array[InternalRow](count)
    at = start
    var k = 0
    while (k < count) {
      val size = Platform.getLong(base, at).toInt
      val row = new UnsafeRow(fields)
      row.pointTo(base, at + 8, size)
      rows(k) = row
      at += 8 + size
      k += 1
    }
    rows
  }
}
