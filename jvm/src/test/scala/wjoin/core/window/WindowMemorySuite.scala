package wjoin.core.window

import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.{Algorithm, EngineFixtures, EnginePlan, EngineRunner, TRow, UniformWindow, WJoinEngine, WindowMatrix}
import wjoin.core.index.RangeWindow

/**
 * The windows' memory account ([[WindowMemory]]): reserved in chunks from a budget, given
 * back as windows empty and all at once when unbound, refused with the input, its rows and
 * the bytes; every window type charges and gives back the same bytes for the same rows.
 */
class WindowMemorySuite extends AnyFunSuite {
  import WindowMemorySuite._

  private val chunk = 1L << 16
  private def ledger(refusal: WindowMemory.Refusal = (i, r, h, a) => throw Refused(i, r, h, a)) =
    new WindowMemory(_ => RowBytes, chunk, refusal)

  private val kinds = Seq("scan", "hash", "ttree", "bplustree", "hash+ttree", "hash+bplustree")

  /** A window of `kind` on `account` (keys kept beside unbucketed rows). */
  private def window(kind: String, account: WindowAccount): InputWindow = kind match {
    case "scan" => new ScanWindow(keepKeys = true, account)
    case "hash" => new HashWindow(account)
    case "ttree" => new IndexedWindow(RangeWindow.tTree(8, account), _.asInstanceOf[TRow].x, true, account)
    case "bplustree" => new IndexedWindow(RangeWindow.bPlusTree(8, account), _.asInstanceOf[TRow].x, true, account)
    case keyed => KeyedRangeWindow(keyed == "hash+ttree", 8, _.asInstanceOf[TRow].x, account)
  }

  test("reserved in chunks as rows arrive, given back as they leave, and all of it when unbound") {
    val budget = new CountingBudget()
    val memory = ledger()
    memory.bind(budget)
    val window = new ScanWindow(false, memory.account(0))
    for (t <- 0 until 50000) window.insert(null, t, TRow(0, t, 0, t))
    assert(memory.held >= 50000L * RowBytes)
    assert(budget.held >= memory.held && budget.held <= memory.held + 3 * chunk, s"${budget.held} for ${memory.held}")
    assert(budget.held % chunk == 0)
    assert(budget.calls <= memory.held / chunk + 1, s"${budget.calls} calls: one per chunk, not per row")
    while (window.size > 0) window.evictOldest()
    assert(memory.held == WindowFootprint.ring(64), "an empty window holds its ring's initial capacity")
    assert(budget.held <= memory.held + 3 * chunk, "bytes go back as the window empties")
    assert(memory.unbind() == memory.held)
    assert(budget.held == 0 && memory.reservedBytes == 0)
  }

  test("every window type gives back exactly what it charged, sliding or emptied") {
    val rnd = new scala.util.Random(3)
    for (keys <- Seq(1, 50, 100000)) {
      val memory = ledger()
      for ((name, j) <- kinds.zipWithIndex) {
        val account = memory.account(j)
        val w = window(name, account)
        val empty = account.bytes
        assert(empty > 0, s"$name: a new window holds its initial structures")
        val live = scala.collection.mutable.Queue[Int]()
        for (t <- 0 until 20000) {
          val k = rnd.nextInt(keys)
          w.insert(java.lang.Long.valueOf(k.toLong), t, TRow(0, t, k, t, x = rnd.nextInt(1000).toLong))
          live.enqueue(t)
          if (rnd.nextInt(10) < (if (t < 10000) 3 else 10)) { w.evictOldest(); live.dequeue() }
          assert(account.rows == w.size)
        }
        assert(account.bytes >= empty + w.size.toLong * RowBytes, s"$name: each row at least its own bytes")
        while (w.size > 0) w.evictOldest()
        assert(account.rows == 0)
        assert(account.bytes == empty, s"$name with $keys keys: ${account.bytes} after emptying, $empty when new")
      }
      assert(memory.rows == 0)
    }
  }

  test("a refused reservation names the window, its rows, the bytes held and asked, and keeps no partial grant") {
    val budget = new CountingBudget(limit = 3 * chunk + 100)
    val memory = ledger()
    memory.bind(budget)
    val first = new ScanWindow(false, memory.account(0))
    val second = new HashWindow(memory.account(1))
    for (t <- 0 until 100) first.insert(null, t, TRow(0, t, 0, t))
    val refused = intercept[Refused] {
      for (t <- 0 until 100000) second.insert(java.lang.Long.valueOf(t % 7L), t, TRow(1, t, 0, t))
    }
    assert(refused.input == 1 && refused.rows > 0 && refused.rows < 100000)
    assert(refused.asked >= chunk && refused.held > 3 * chunk - RowBytes - 1000)
    assert(budget.held == 3 * chunk, "the partial grant was given back")
    memory.unbind(budget)
    assert(budget.held == 0)
  }

  test("a kept ledger reserves what its windows hold when bound to the next task; another budget cannot unbind it") {
    val memory = ledger()
    val window = new HashWindow(memory.account(0))
    for (t <- 0 until 5000) window.insert(java.lang.Long.valueOf(t % 10L), t, TRow(0, t, 0, t))
    val (task1, task2) = (new CountingBudget(), new CountingBudget())
    memory.bind(task1)
    assert(task1.held >= memory.held && task1.held <= memory.held + chunk)
    assert(memory.unbind(task2) == memory.held && task1.held > 0, "not bound to task2: nothing released")
    memory.unbind(task1)
    assert(task1.held == 0)
    memory.bind(task2)
    assert(task2.held >= memory.held)
    val tooSmall = new CountingBudget(limit = chunk)
    memory.unbind(task2)
    val refused = intercept[Refused](memory.bind(tooSmall))
    assert(refused.input == 0 && refused.rows == 5000, "a kept engine too large for the task names its largest window")
    assert(tooSmall.held == 0)
  }

  test("an engine's windows, through WJoinEngine: every algorithm charges its rows and gives them back at evictAll") {
    val matrix = WindowMatrix.close(Seq(UniformWindow(5, "W")), EngineFixtures.names(3))
    val rows = EngineFixtures.rows(3, 400, 2000, 5, 17)
    for ((name, algorithm, hashed) <- Seq(("nlw", Algorithm.NLW, false), ("hw", Algorithm.HW, true), ("mw", Algorithm.MW, true))) {
      val plan = new EnginePlan(matrix, algorithm, hashed)
      val budget = new CountingBudget()
      val memory = ledger()
      memory.bind(budget)
      val engine = WJoinEngine.batch(plan, EngineRunner.filter(3, plan, sameKey = true, _ => true), TRow.ranges,
        memory = memory)
      val empty = memory.held
      var peak = 0L
      EngineRunner.mergeOrder(rows).foreach { r =>
        engine.offer(r.input, r.time, if (hashed) Integer.valueOf(r.key) else null, r)
        while (engine.next()) ()
        peak = math.max(peak, memory.held)
      }
      engine.finish()
      while (engine.next()) ()
      assert(peak >= empty + engine.stats.peakBuffered * RowBytes, name)
      engine.evictAll()
      assert(memory.held == empty, s"$name: ${memory.held} after evictAll, $empty at start")
      memory.unbind()
      assert(budget.held == 0, name)
    }
  }
}

object WindowMemorySuite {
  /** The bytes every test row is charged. */
  val RowBytes = 100L

  final case class Refused(input: Int, rows: Long, held: Long, asked: Long) extends RuntimeException

  /** Grants up to `limit` bytes in all, counting calls and what it holds. */
  final class CountingBudget(limit: Long = Long.MaxValue) extends MemoryBudget {
    var held = 0L
    var calls = 0
    def acquire(bytes: Long): Long = { calls += 1; val got = math.max(0L, math.min(bytes, limit - held)); held += got; got }
    def release(bytes: Long): Unit = { calls += 1; held -= bytes; assert(held >= 0, "released more than granted") }
  }
}
