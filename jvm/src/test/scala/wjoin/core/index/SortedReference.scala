package wjoin.core.index

import scala.collection.mutable.ArrayBuffer

/**
 * The obviously correct model of a [[RangeIndex]]: one array of (key, value) sorted by key,
 * ties in insertion order, with linear-time operations.
 */
final class SortedReference[T] {
  private val entries = ArrayBuffer.empty[(Long, T)]

  def size: Int = entries.size
  def all: Vector[(Long, T)] = entries.toVector
  def apply(i: Int): (Long, T) = entries(i)

  def insert(key: Long, value: T): Unit = {
    val at = entries.indexWhere(_._1 > key) // after every equal key
    if (at < 0) entries += ((key, value)) else entries.insert(at, (key, value))
  }

  def delete(key: Long, value: T): Boolean = {
    val at = entries.indexWhere(e => e._1 == key && e._2 == value)
    if (at >= 0) entries.remove(at)
    at >= 0
  }

  def range(lo: Long, hi: Long): Vector[(Long, T)] = entries.iterator.filter(e => e._1 >= lo && e._1 <= hi).toVector
}
