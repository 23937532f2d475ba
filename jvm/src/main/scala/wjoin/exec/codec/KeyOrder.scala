package wjoin.exec
package codec

import java.util.Comparator

import org.apache.spark.sql.catalyst.expressions.Expression

/**
 * The order of hash keys for key groups ([[wjoin.core.FeedGroups.ByKey]]): a key of one
 * integral column in every input (any width, dates and timestamps too), which
 * [[RowCodec.keyReader]] reads as a `java.lang.Long`, ordered by its value as Spark's sorter
 * orders the column (a signed 64-bit prefix that is the whole key, so its radix sort applies).
 * Two keys compare 0 exactly when they are equal, so sorted rows meet each key in one run.
 */
object KeyOrder {
  /** Whether keys of `keys` (each input's key expressions) are single integral columns. */
  def exists(keys: Seq[Seq[Expression]]): Boolean =
    keys.nonEmpty && keys.forall(k => k.size == 1 && RowCodec.integralKey(k.head.dataType))

  /** Integral keys by value. */
  object Longs extends Comparator[AnyRef] with Serializable {
    def compare(a: AnyRef, b: AnyRef): Int =
      java.lang.Long.compare(a.asInstanceOf[java.lang.Long].longValue, b.asInstanceOf[java.lang.Long].longValue)
  }
}
