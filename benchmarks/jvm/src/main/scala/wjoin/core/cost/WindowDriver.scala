package wjoin.core.cost

import wjoin.core.index.{BPlusTree, RangeWindow, TTree}
import wjoin.core.window.{HashWindow, ScanWindow, TimeSortedBuffer}

/**
 * A count-based sliding window of `capacity` rows held in one access path, driven the way
 * the join drives it: `slide` inserts a row and expires the oldest once the window is
 * full; probes count the rows they find. The real structures underneath (the engine's
 * `ScanWindow` and `HashWindow`, [[RangeWindow]] over a T-tree or B+tree) are what
 * [[Calibration]] times to obtain the weight factors, and what `wjoin.bench.IndexBenchmark`
 * reports.
 */
abstract class WindowDriver(val path: AccessPath, val capacity: Int) {
  private var clock = 0L

  /** Inserts a row with this key and, once the window is full, expires the oldest row. */
  final def slide(key: Long): Unit = {
    clock += 1
    insert(key, clock)
    if (size > capacity) expireOldest()
  }

  def size: Int
  /** Rows with exactly this key (an equality probe). */
  def pointProbe(key: Long): Int
  /** Rows with lo <= key <= hi (a band probe); hash buckets cannot answer it. */
  def rangeProbe(lo: Long, hi: Long): Int
  /** Shape of the structure (nodes, height) where it has one. */
  def describe: String = ""

  protected def insert(key: Long, time: Long): Unit
  protected def expireOldest(): Unit
}

object WindowDriver {

  /** A buffered row: the engine keeps rows as objects, so the drivers do too. */
  final class KeyedRow(val key: Long)

  def apply(path: AccessPath, capacity: Int, nodeSize: Int = 100): WindowDriver = path match {
    case AccessPath.Scan => new ScanDriver(capacity)
    case AccessPath.Hash => new HashDriver(capacity)
    case AccessPath.TTree => new RangeDriver(path, capacity, RangeWindow.tTree(nodeSize))
    case AccessPath.BPlusTree => new RangeDriver(path, capacity, RangeWindow.bPlusTree(nodeSize))
  }

  private final class ScanDriver(capacity: Int) extends WindowDriver(AccessPath.Scan, capacity) {
    private val window = new ScanWindow
    def size: Int = window.size
    protected def insert(key: Long, time: Long): Unit = window.insert(null, time, new KeyedRow(key))
    protected def expireOldest(): Unit = window.evictOldest()
    def pointProbe(key: Long): Int = rangeProbe(key, key)
    def rangeProbe(lo: Long, hi: Long): Int = {
      val rows: TimeSortedBuffer = window.candidates(null)
      // lo <= k <= hi as one unsigned comparison (exact for any lo <= hi): no branch to
      // mispredict, so a point and a band probe cost the same per scanned row.
      val width = hi - lo
      var found = 0
      var i = 0
      val n = rows.size
      while (i < n) {
        val k = rows.row(i).asInstanceOf[KeyedRow].key
        found += (if (java.lang.Long.compareUnsigned(k - lo, width) <= 0) 1 else 0)
        i += 1
      }
      if (lo > hi) 0 else found
    }
  }

  private final class HashDriver(capacity: Int) extends WindowDriver(AccessPath.Hash, capacity) {
    private val window = new HashWindow
    def size: Int = window.size
    protected def insert(key: Long, time: Long): Unit = window.insert(java.lang.Long.valueOf(key), time, new KeyedRow(key))
    protected def expireOldest(): Unit = window.evictOldest()
    def pointProbe(key: Long): Int = {
      val bucket = window.candidates(java.lang.Long.valueOf(key))
      if (bucket == null) 0
      else {
        // The engine tests each candidate's predicate; count them the same way.
        var found = 0
        var i = 0
        while (i < bucket.size) { if (bucket.row(i).asInstanceOf[KeyedRow].key == key) found += 1; i += 1 }
        found
      }
    }
    def rangeProbe(lo: Long, hi: Long): Int =
      throw new UnsupportedOperationException("hash buckets answer equality probes only")
  }

  private final class RangeDriver(path: AccessPath, capacity: Int, window: RangeWindow) extends WindowDriver(path, capacity) {
    private var found = 0
    private val count: (Long, RangeWindow.Entry) => Unit = (_, _) => found += 1
    def size: Int = window.size
    protected def insert(key: Long, time: Long): Unit = window.insert(key, time, new KeyedRow(key))
    protected def expireOldest(): Unit = window.evictOldest()
    def pointProbe(key: Long): Int = rangeProbe(key, key)
    override def describe: String = window.index match {
      case t: TTree[_] => f"${t.nodeCount} nodes, height ${t.height}, fill ${t.size.toDouble / (t.nodeCount * t.nodeSize)}%.2f"
      case b: BPlusTree[_] => f"${b.nodeCount} nodes, height ${b.height}, leaf fill ${b.size.toDouble / (b.leafCount * b.leafCapacity)}%.2f"
      case _ => ""
    }
    def rangeProbe(lo: Long, hi: Long): Int = {
      found = 0
      window.foreachInRange(lo, hi)(count)
      found
    }
  }
}
