package wjoin.exec

import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{DataType, DoubleType, LongType, TimestampType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.index.RangeWindow
import wjoin.core.cost.AccessPath
import wjoin.core.window.{HashWindow, IndexedWindow, InputWindow, KeyedRangeWindow, ScanWindow, WindowAccount, WindowMemory}

/**
 * What the windows' account charges ([[TaskWindowMemory.RowSizes]] for the codec's rows, plus
 * [[wjoin.core.window.WindowFootprint]] for the structures) against the live heap the window
 * adds, per window type, for a typical row of three columns (timestamp, long key, double)
 * after the window slid for a while: never less (the account is what stops a query before the
 * heap runs out), and not much more (else a query that fits would be refused). The figures
 * printed are the user guide's bytes per held row.
 *
 * The heap is measured with the JVM's class histogram (`jcmd GC.class_histogram`, through its
 * MBean): a full collection, then every live object counted exactly, before and after the
 * window is built. Spark's `SizeEstimator` samples large arrays and counts objects reached
 * from two sampled arrays twice (a hash window's arrival ring and its map both reach every
 * bucket), which makes it off by 2x and more on these structures.
 */
class WindowFootprintSuite extends AnyFunSuite {
  private val types: Array[DataType] = Array(TimestampType, LongType, DoubleType)
  private val toUnsafe = UnsafeProjection.create(types)
  private def row(t: Long, k: Long, x: Double): UnsafeRow = toUnsafe(InternalRow(t, k, x)).copy()

  /** A window of `kind` charged to `account`; `keyed`: its keys are kept beside unbucketed rows. */
  private def window(kind: String, account: WindowAccount, keyed: Boolean): InputWindow = {
    val rangeOf = (r: AnyRef) => java.lang.Double.doubleToLongBits(r.asInstanceOf[UnsafeRow].getDouble(2))
    kind match {
      case "scan" => new ScanWindow(keyed, account)
      case "hash" => new HashWindow(account)
      case "ttree" => new IndexedWindow(RangeWindow.tTree(100, account), rangeOf, keyed, account)
      case "bplustree" => new IndexedWindow(RangeWindow.bPlusTree(100, account), rangeOf, keyed, account)
      case "hash+bplustree" => KeyedRangeWindow(tTree = false, AccessPath.KeyedNodeSize, rangeOf, account)
    }
  }

  private val cases = Seq(("scan", false, 1), ("ttree", false, 1), ("bplustree", false, 1),
    ("hash", true, 1000), ("hash", true, Int.MaxValue), ("scan", true, 1000), ("ttree", true, 1000),
    ("hash+bplustree", true, 1000), ("hash+bplustree", true, Int.MaxValue))

  for ((kind, keyed, keys) <- cases) {
    val what = s"$kind${if (!keyed) "" else if (keys == Int.MaxValue) ", a key per row" else s", $keys keys"}"
    test(s"$what: the account is at least the measured heap and at most a third more") {
      val rnd = new scala.util.Random(7)
      val memory = TaskWindowMemory.ledger(WindowNames.numbered(1))
      val account = memory.account(0)
      val w = window(kind, account, keyed)
      val empty = account.bytes
      val before = liveHeap()
      // Slides: 150,000 rows in, 50,000 evicted along the way (trees split, merge and empty nodes).
      for (t <- 0 until 150000) {
        val k = if (keys == Int.MaxValue) t.toLong else rnd.nextInt(keys).toLong
        w.insert(if (keyed) java.lang.Long.valueOf(k) else null, t, row(t, k, rnd.nextDouble() * 1e6))
        if (t % 3 == 0) w.evictOldest()
      }
      val measured = liveHeap() - before
      val charged = account.bytes - empty
      assert(w.size == 100000)
      val perRow = measured.toDouble / w.size
      info(f"$what: ${w.size} rows, measured $perRow%.1f bytes a row, charged ${charged.toDouble / w.size}%.1f " +
        f"(empty window ${empty} bytes)")
      // The histogram also counts what the JVM allocated meanwhile besides the window (a few KiB).
      assert(charged >= measured - (64L << 10), s"charged $charged < measured $measured")
      assert(charged <= measured * 4 / 3, s"charged $charged > 4/3 of measured $measured")
    }
  }

  /** Bytes of all live objects, after a full collection (the class histogram's total). */
  private def liveHeap(): Long = {
    val server = java.lang.management.ManagementFactory.getPlatformMBeanServer
    val command = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")
    val histogram = server.invoke(command, "gcClassHistogram", Array[AnyRef](Array.empty[String]),
      Array(classOf[Array[String]].getName)).asInstanceOf[String]
    val total = histogram.linesIterator.find(_.trim.startsWith("Total")).getOrElse(fail(histogram))
    total.trim.split("\\s+")(2).toLong
  }

  test("an unaccounted window is charged nothing") {
    val w = new ScanWindow(false, WindowMemory.Unaccounted.account(0))
    w.insert(null, 0L, row(0, 0, 0))
    assert(WindowMemory.Unaccounted.held == 0 && (WindowMemory.Unaccounted.account(0) eq WindowAccount.None))
  }
}
