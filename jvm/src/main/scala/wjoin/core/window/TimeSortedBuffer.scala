package wjoin.core.window

/**
 * A growable ring buffer of (time, row) in non-decreasing time order: rows arrive at the
 * back and expire from the front, both O(1) (the circular buffer of the ICEIS 2005 study and
 * of Golab & Özsu Sec. 3.6). Time order lets a probe find its period with a binary search.
 *
 * {{{
 *   head                         head + size - 1
 *    v                                v
 *   [t0 r0][t1 r1] ... [tk rk]  ...  (slots modulo capacity, a power of two)
 *    oldest: popOldest()      newest: append(t, r), t >= newest in arrival order
 * }}}
 *
 * The capacity doubles when the buffer is full and halves when it is a quarter full (never
 * below the initial capacity), so the arrays stay within 4x the rows held, amortized O(1)
 * per row either way. Each change of capacity, and the buffer itself when built, is charged
 * to `account` ([[WindowFootprint.ring]]); whoever drops a buffer gives back its [[footprint]].
 *
 * @param initialCapacity slots before the first doubling (rounded up to a power of two)
 * @param account         the window's memory account
 */
class TimeSortedBuffer private (initialCapacity: Int, account: WindowAccount, view: TimeSortedBuffer.Slice) {
  def this(initialCapacity: Int = 8, account: WindowAccount = WindowAccount.None) = this(initialCapacity, account, null)

  private val minCapacity = Integer.highestOneBit(math.max(2, initialCapacity) * 2 - 1)
  private var capacity = if (view == null) minCapacity else view.times.length
  private var times = if (view == null) new Array[Long](capacity) else view.times
  private var rows = if (view == null) new Array[AnyRef](capacity) else view.rows
  private var head = if (view == null) 0 else view.from
  private var count = if (view == null) 0 else view.count
  if (view == null) account.resized(footprintOf(capacity))

  /** Heap bytes of the buffer at `capacity` slots (the object and its arrays, not the rows). */
  protected def footprintOf(capacity: Int): Long = WindowFootprint.ring(capacity)
  /** Heap bytes of the buffer now (what its account was charged for it). */
  final def footprint: Long = footprintOf(capacity)

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
    if (count < (capacity >>> 2) && capacity > minCapacity) resize(capacity / 2)
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

  /**
   * A [[TimeSortedBuffer.slice]] moved to slots [from, from + count) of the same arrays (the
   * caller keeps within them, as `slice` checks): one view re-pointed per probe.
   */
  private[window] final def repoint(from: Int, count: Int): TimeSortedBuffer = {
    head = from
    this.count = count
    this
  }

  private def grow(): Unit = resize(capacity * 2)

  private def resize(to: Int): Unit = {
    val newTimes = new Array[Long](to)
    val newRows = new Array[AnyRef](to)
    var i = 0
    while (i < count) { newTimes(i) = time(i); newRows(i) = row(i); i += 1 }
    account.resized(footprintOf(to) - footprintOf(capacity))
    times = newTimes
    rows = newRows
    head = 0
    capacity = to
  }
}

object TimeSortedBuffer {
  /**
   * `count` slots from `from` of arrays shared by many read-only buffers (a window built whole,
   * [[StaticHashWindow]]): the length is a power of two and from + count <= length, so no slot
   * wraps around.
   */
  private final case class Slice(times: Array[Long], rows: Array[AnyRef], from: Int, count: Int)

  /**
   * A read-only buffer over slots [from, from + count) of `times` and `rows` (length a power of
   * two, times non-decreasing there): searched and read, never appended to or popped (the
   * slots belong to other buffers too). Charges nothing: the arrays' owner accounts for them.
   */
  def slice(times: Array[Long], rows: Array[AnyRef], from: Int, count: Int): TimeSortedBuffer = {
    assert(Integer.bitCount(times.length) == 1 && rows.length == times.length, "arrays of a power-of-two length")
    assert(from >= 0 && count >= 0 && from + count <= times.length, s"slots [$from, ${from + count}) of ${times.length}")
    new TimeSortedBuffer(2, WindowAccount.None, Slice(times, rows, from, count))
  }
}
