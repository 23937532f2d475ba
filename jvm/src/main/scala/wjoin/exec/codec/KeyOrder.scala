package wjoin.exec
package codec

import java.util.Comparator

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * The order in which key groups ([[wjoin.core.FeedGroups.ByKey]]) meet the keys: a signed
 * 64-bit value per key, the whole prefix of Spark's radix sort, equal for equal keys. Rows
 * sorted by it (stably, so each group keeps its time order) meet each key in one run; keys
 * whose values are equal share a run, which only joins them in one group (the windows bucket
 * them apart). Chosen once, by the keys' types:
 *
 * {{{
 *   Longs:   one integral column in every input (any width, dates and timestamps too), or
 *            one float or double (its normalized bits), read as [[RowCodec.keyReader]] reads
 *            it (a java.lang.Long): its value, so distinct keys never share a run
 *   Hashes:  any other key (strings, decimals, several columns: an UnsafeRow of the key
 *            columns, [[RowCodec.keyReader]]): its hashCode (Murmur3 over its bytes, as Spark
 *            hashes an UnsafeRow), so equal keys (equal bytes) share a value and a colliding
 *            pair of keys shares a run
 *   NULL:    Long.MinValue, never a NULL prefix (the sorter moves a row to make room for each
 *            NULL prefix, which would break the time order); rows with a NULL key never join
 * }}}
 *
 * As a `Comparator` it orders the keys of the merged rows by that value: two keys compare 0
 * exactly when they share a run.
 */
sealed abstract class KeyOrder extends Comparator[AnyRef] with Serializable {
  /** The value of input i's key in a row of input i, as the sort's prefix. */
  def prefix(codec: RowCodec, i: Int): InternalRow => Long
}

object KeyOrder {
  /** The order for keys `keys` (each input's key expressions; a hashed plan's). */
  def of(keys: Seq[Seq[Expression]]): KeyOrder =
    if (keys.nonEmpty && keys.forall(k => k.size == 1 && RowCodec.longKey(k.head))) Longs else Hashes

  /** Integral keys by value. */
  case object Longs extends KeyOrder {
    def compare(a: AnyRef, b: AnyRef): Int =
      java.lang.Long.compare(a.asInstanceOf[java.lang.Long].longValue, b.asInstanceOf[java.lang.Long].longValue)
    def prefix(codec: RowCodec, i: Int): InternalRow => Long = codec.integralKeyValue(i)
  }

  /** Other keys by their hash. */
  case object Hashes extends KeyOrder {
    def compare(a: AnyRef, b: AnyRef): Int = Integer.compare(a.hashCode, b.hashCode)
    def prefix(codec: RowCodec, i: Int): InternalRow => Long = codec.keyHash(i)
  }
}
