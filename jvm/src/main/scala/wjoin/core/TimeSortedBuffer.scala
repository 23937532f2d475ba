package wjoin.core

/**
 * A growable ring buffer of (time, row) in non-decreasing time order: rows arrive at the
 * back and expire from the front, both O(1) (the circular buffer of paper 004 / paper 001
 * Sec. 3.6). Time order lets a probe find its period with a binary search.
 */
class TimeSortedBuffer(initialCapacity: Int = 8) {
  private var capacity = Integer.highestOneBit(math.max(2, initialCapacity) * 2 - 1)
  private var times = new Array[Long](capacity)
  private var rows = new Array[AnyRef](capacity)
  private var head = 0
  private var count = 0

  final def size: Int = count
  final def isEmpty: Boolean = count == 0
  final def time(i: Int): Long = times((head + i) & (capacity - 1))
  final def row(i: Int): AnyRef = rows((head + i) & (capacity - 1))
  final def oldestTime: Long = times(head)
  final def oldestRow: AnyRef = rows(head)
  final def newestTime: Long = time(count - 1)

  /**
   * Adds a row after every row with time <= t. In arrival order (the batch W-join) that is
   * the back, O(1); a streaming row older than buffered ones (within the watermark delay)
   * shifts the newer rows by one, O(rows newer than t).
   */
  final def append(t: Long, r: AnyRef): Unit = {
    if (count == capacity) grow()
    var at = count
    if (count > 0 && t < newestTime) {
      at = upperBound(t)
      var i = count
      while (i > at) {
        val to = (head + i) & (capacity - 1)
        val from = (head + i - 1) & (capacity - 1)
        times(to) = times(from)
        rows(to) = rows(from)
        i -= 1
      }
    }
    val slot = (head + at) & (capacity - 1)
    times(slot) = t
    rows(slot) = r
    count += 1
  }

  final def popOldest(): AnyRef = {
    val r = rows(head)
    rows(head) = null
    head = (head + 1) & (capacity - 1)
    count -= 1
    r
  }

  /** First index whose time is >= t (size if none). */
  final def lowerBound(t: Long): Int = {
    var lo = 0
    var hi = count
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (time(mid) < t) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** First index whose time is > t (size if none). */
  final def upperBound(t: Long): Int = {
    var lo = 0
    var hi = count
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (time(mid) <= t) lo = mid + 1 else hi = mid
    }
    lo
  }

  private def grow(): Unit = {
    val newTimes = new Array[Long](capacity * 2)
    val newRows = new Array[AnyRef](capacity * 2)
    var i = 0
    while (i < count) { newTimes(i) = time(i); newRows(i) = row(i); i += 1 }
    times = newTimes
    rows = newRows
    head = 0
    capacity *= 2
  }
}

/** A hash bucket: the rows of one key in arrival order. */
final class Bucket(val key: AnyRef) extends TimeSortedBuffer(2)

/**
 * The window of one input: the rows that can still join, in arrival (= event-time) order.
 * `candidates(key)` is what a probe scans: the whole window for a scan access path, the
 * key's bucket for a hash access path; an indexed window ([[IndexedWindow]]) is probed by
 * range instead (`probe`), and `candidates` is not defined for it.
 */
sealed trait InputWindow {
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit
  /** Rows a probe with this key must look at, or null when there are none. */
  def candidates(key: AnyRef): TimeSortedBuffer
  def size: Int
  def oldestTime: Long
  def oldestRow: AnyRef
  def oldestKey: AnyRef
  def evictOldest(): Unit
}

/**
 * Nested-loops access path: one buffer, every probe scans it (NLW-join). With `keepKeys` the
 * rows' keys are kept beside them ([[ArrivalKeys]]).
 */
final class ScanWindow(keepKeys: Boolean = false) extends InputWindow {
  private val buffer = new TimeSortedBuffer(64)
  private val keys = new ArrivalKeys(keepKeys)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = { buffer.append(time, row); keys.append(time, key) }
  def candidates(key: AnyRef): TimeSortedBuffer = buffer
  def size: Int = buffer.size
  def oldestTime: Long = buffer.oldestTime
  def oldestRow: AnyRef = buffer.oldestRow
  def oldestKey: AnyRef = keys.oldest
  def evictOldest(): Unit = { buffer.popOldest(); keys.popOldest() }
}

/**
 * The keys of a window that does not bucket its rows, in arrival order beside them (when
 * `enabled`: a keyed plan where other inputs are hashed), so forward evaluation can probe the
 * hashed windows with the oldest row's key. Rows leave oldest first, so key and row stay paired.
 */
private final class ArrivalKeys(enabled: Boolean) {
  private val keys = if (enabled) new TimeSortedBuffer(64) else null
  def append(time: Long, key: AnyRef): Unit = if (keys != null) keys.append(time, key)
  def oldest: AnyRef = if (keys == null) null else keys.oldestRow
  def popOldest(): Unit = if (keys != null) keys.popOldest()
}

/**
 * T-tree or B+tree access path (paper 003): the rows in a [[wjoin.core.index.RangeWindow]],
 * indexed on one `Long` range attribute (`rangeOf(row)`), probed with `probe(lo, hi)`. The
 * cursor yields candidates in attribute order, so the engine tests both period bounds on
 * each. Keys are kept as in [[ScanWindow]] when `keepKeys`.
 */
final class IndexedWindow(val range: wjoin.core.index.RangeWindow, rangeOf: AnyRef => Long, keepKeys: Boolean)
    extends InputWindow {
  private val keys = new ArrivalKeys(keepKeys)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = { range.insert(rangeOf(row), time, row); keys.append(time, key) }
  def candidates(key: AnyRef): TimeSortedBuffer =
    throw new UnsupportedOperationException("an indexed window is probed by range, not scanned")
  def probe(lo: Long, hi: Long): wjoin.core.index.RangeCursor[wjoin.core.index.RangeWindow.Entry] = range.probe(lo, hi)
  def size: Int = range.size
  def oldestTime: Long = range.oldestTime
  def oldestRow: AnyRef = range.oldestRow
  def oldestKey: AnyRef = keys.oldest
  def evictOldest(): Unit = { range.evictOldest(); keys.popOldest() }
}

/**
 * Hash access path (HW-join, hash MW-join): per-key buckets in arrival order, plus one
 * arrival-ordered queue of bucket references. The oldest row of the input is always the
 * front of the bucket at the front of that queue, so expiring it is O(1) and every bucket
 * is cleaned as time passes, including the rarely probed ones (paper 000 Sec. 3.1.2).
 */
final class HashWindow extends InputWindow {
  private val buckets = new java.util.HashMap[AnyRef, Bucket]()
  private val arrivals = new TimeSortedBuffer(64)
  def insert(key: AnyRef, time: Long, row: AnyRef): Unit = {
    var bucket = buckets.get(key)
    if (bucket == null) { bucket = new Bucket(key); buckets.put(key, bucket) }
    bucket.append(time, row)
    arrivals.append(time, bucket)
  }
  def candidates(key: AnyRef): TimeSortedBuffer = buckets.get(key)
  def size: Int = arrivals.size
  def oldestTime: Long = arrivals.oldestTime
  def oldestRow: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].oldestRow
  def oldestKey: AnyRef = arrivals.oldestRow.asInstanceOf[Bucket].key
  def bucketCount: Int = buckets.size
  def evictOldest(): Unit = {
    val bucket = arrivals.popOldest().asInstanceOf[Bucket]
    bucket.popOldest()
    if (bucket.isEmpty) buckets.remove(bucket.key)
  }
}
