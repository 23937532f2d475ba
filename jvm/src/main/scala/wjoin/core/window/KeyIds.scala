package wjoin.core.window

/**
 * Ids in [0, idCount) of the distinct hash keys of a window built whole ([[StaticHashWindow]]),
 * whose buckets they index; a lookup gives a key's id or -1. Which kind is chosen once, from the
 * keys, when the window is built:
 *
 * {{{
 *   every key a java.lang.Long, max - min < 2 x rows     DenseLongKeyIds  id = key - min: no memory read,
 *                                                                         no hashing; ids no row has
 *                                                                         (empty buckets) in between
 *   every key a java.lang.Long (one integral key column)  LongKeyIds      open addressing over one long[]:
 *                                                                         no entry objects, no boxing
 *   any other key (several columns: an UnsafeRow)         ObjectKeyIds    a java.util.HashMap
 * }}}
 *
 * The others number keys in the order they are first met (id i: the i-th distinct key). The long
 * kinds are Spark's `LongToUnsafeRowMap` ideas (one primitive array probed linearly, or the
 * key's offset as its place when the keys are dense), for the case where a broadcast input
 * has almost as many keys as rows: with a map entry and a boxed id per key, building the window
 * of 150k rows with 100k keys took 70 ms, with the open table 10 ms (`StaticHashBenchmark`, warm).
 */
abstract class KeyIds {
  /** Distinct keys. */
  def size: Int
  /** Ids are in [0, idCount): `size` of them, or all the offsets of a dense key range. */
  def idCount: Int
  /** The id of `key`: -1 when no row has it, except in a dense range, where it is an id no row has. */
  def idOf(key: AnyRef): Int
  /** Heap bytes of the lookup structure (not the key objects: see [[holdsKeys]]). */
  def footprint: Long
  /** Whether it keeps a key object per distinct key (whose bytes its owner charges). */
  def holdsKeys: Boolean
}

object KeyIds {
  /**
   * Ids of `keys` (none null): `ids(k)` is the id of `keys(k)`. Long keys get a [[DenseLongKeyIds]]
   * when their span is under twice their count, else a [[LongKeyIds]]; any other a map.
   */
  def of(keys: Array[AnyRef], ids: Array[Int]): KeyIds = {
    assert(ids.length == keys.length, "an id per key")
    var min = Long.MaxValue
    var max = Long.MinValue
    var k = 0
    while (k < keys.length) {
      keys(k) match {
        case l: java.lang.Long => min = math.min(min, l.longValue); max = math.max(max, l.longValue)
        case _ => return ObjectKeyIds(keys, ids)
      }
      k += 1
    }
    val span = max - min // negative when it overflows: the keys are far from dense then
    if (keys.nonEmpty && span >= 0 && span < 2L * keys.length) DenseLongKeyIds(keys, ids, min, span.toInt + 1)
    else LongKeyIds(keys, ids)
  }
}

/**
 * Long keys in [min, min + idCount): a key's id is its offset `key - min`, found with no memory
 * read; `size` of the offsets are keys of rows. A lookup's `key - min` may wrap around, but only
 * to outside the range, since `min + idCount - 1` (the greatest key) does not overflow.
 */
final class DenseLongKeyIds private (min: Long, val idCount: Int, val size: Int) extends KeyIds {
  def idOf(key: AnyRef): Int = key match {
    case l: java.lang.Long =>
      val offset = l.longValue - min
      if (offset >= 0 && offset < idCount) offset.toInt else -1
    case _ => -1
  }
  def holdsKeys: Boolean = false
  def footprint: Long = WindowFootprint.obj(24)
}

object DenseLongKeyIds {
  /** Ids of `keys`, every one a Long in [min, min + span). */
  def apply(keys: Array[AnyRef], ids: Array[Int], min: Long, span: Int): DenseLongKeyIds = {
    val seen = new java.util.BitSet(span)
    var k = 0
    while (k < keys.length) {
      val offset = (keys(k).asInstanceOf[java.lang.Long].longValue - min).toInt
      seen.set(offset)
      ids(k) = offset
      k += 1
    }
    new DenseLongKeyIds(min, span, seen.cardinality)
  }
}

/**
 * Long keys in an open-addressing table (linear probing, load at most 1/2), each slot two longs
 * side by side, so a lookup reads one cache line: `slots(2s)` a key, `slots(2s + 1)` its id + 1
 * (0: an empty slot).
 */
final class LongKeyIds private (slots: Array[Long], val size: Int) extends KeyIds {
  def idCount: Int = size
  private val mask = slots.length / 2 - 1

  def idOf(key: AnyRef): Int = key match {
    case l: java.lang.Long => find(l.longValue)
    case _ => -1 // no row has a key of another kind: Long.equals would be false too
  }

  private def find(k: Long): Int = {
    var s = LongKeyIds.slot(k) & mask
    while (slots(2 * s + 1) != 0) {
      if (slots(2 * s) == k) return slots(2 * s + 1).toInt - 1
      s = (s + 1) & mask
    }
    -1
  }

  def holdsKeys: Boolean = false
  def footprint: Long = WindowFootprint.obj(16) + WindowFootprint.array(slots.length, 8)
}

object LongKeyIds {
  /** The table's home slot of `k` (before the mask): a multiplicative mix of both halves. */
  private def slot(k: Long): Int = { val h = k * 0x9E3779B97F4A7C15L; (h ^ (h >>> 29)).toInt }

  def apply(keys: Array[AnyRef], ids: Array[Int]): LongKeyIds = {
    var slots = new Array[Long](2 * 16)
    var size = 0
    var k = 0
    while (k < keys.length) {
      if (size * 4 >= slots.length) slots = rehash(slots, slots.length * 2) // grow before the load passes 1/2
      val key = keys(k).asInstanceOf[java.lang.Long].longValue
      val mask = slots.length / 2 - 1
      var s = slot(key) & mask
      while (slots(2 * s + 1) != 0 && slots(2 * s) != key) s = (s + 1) & mask
      if (slots(2 * s + 1) == 0) {
        slots(2 * s) = key
        size += 1
        slots(2 * s + 1) = size
      }
      ids(k) = slots(2 * s + 1).toInt - 1
      k += 1
    }
    new LongKeyIds(slots, size)
  }

  private def rehash(slots: Array[Long], length: Int): Array[Long] = {
    val grown = new Array[Long](length)
    val mask = length / 2 - 1
    var s = 0
    while (s < slots.length / 2) {
      if (slots(2 * s + 1) != 0) {
        var t = slot(slots(2 * s)) & mask
        while (grown(2 * t + 1) != 0) t = (t + 1) & mask
        grown(2 * t) = slots(2 * s)
        grown(2 * t + 1) = slots(2 * s + 1)
      }
      s += 1
    }
    grown
  }
}

/** Keys of any kind in a `java.util.HashMap` (equality and hash of the key objects). */
final class ObjectKeyIds private (map: java.util.HashMap[AnyRef, Integer]) extends KeyIds {
  def size: Int = map.size
  def idCount: Int = size
  def idOf(key: AnyRef): Int = { val id = map.get(key); if (id == null) -1 else id.intValue }
  def holdsKeys: Boolean = true
  def footprint: Long = WindowFootprint.obj(48) + size * (WindowFootprint.BucketEntry + WindowFootprint.obj(16))
}

object ObjectKeyIds {
  def apply(keys: Array[AnyRef], ids: Array[Int]): ObjectKeyIds = {
    val map = new java.util.HashMap[AnyRef, Integer](math.max(16, keys.length / 2))
    var k = 0
    while (k < keys.length) {
      var id = map.get(keys(k))
      if (id == null) {
        id = Integer.valueOf(map.size)
        map.put(keys(k), id)
      }
      ids(k) = id
      k += 1
    }
    new ObjectKeyIds(map)
  }
}
