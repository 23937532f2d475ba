package wjoin.core.index

import org.scalatest.funsuite.AnyFunSuite

class RangeWindowSuite extends AnyFunSuite {
  private val kinds = Seq[(String, () => RangeWindow)]("T-tree" -> (() => RangeWindow.tTree(3)), "B+tree" -> (() => RangeWindow.bPlusTree(3)))

  for ((kind, make) <- kinds) {
    test(s"$kind window: oldest-first expiry and band probes equal a brute-force window") {
      val window = make()
      val rnd = new scala.util.Random(11)
      val live = scala.collection.mutable.Queue.empty[(Long, Long, AnyRef)] // (time, key, row)
      for (t <- 0L until 3000L) {
        val key = rnd.nextInt(200).toLong - 100
        val row = new Object
        window.insert(key, t, row)
        live.enqueue((t, key, row))
        // A time window of 150: expire everything older, oldest first.
        while (window.oldestTime < t - 150) {
          val (ot, ok, orow) = live.dequeue()
          assert(window.oldestTime == ot && window.oldestRangeKey == ok && (window.oldestRow eq orow))
          window.evictOldest()
        }
        assert(window.size == live.size)
        val lo = key - 3
        val hi = key + 3
        val expected = live.filter(e => e._2 >= lo && e._2 <= hi).sortBy(_._2).toVector // stable: ties by arrival
        val cursor = window.probe(lo, hi)
        val got = Iterator.continually(cursor).takeWhile(_.next()).map(c => (c.value.time, c.key, c.value.row)).toVector
        assert(got.size == expected.size, s"probe at $t")
        for ((g, e) <- got.zip(expected)) assert(g._1 == e._1 && g._2 == e._2 && (g._3 eq e._3), s"probe at $t")
      }
    }

    test(s"$kind window: a row older than buffered ones (streaming) is placed by time and expires first") {
      val window = make()
      window.insert(5, 10L, "a")
      window.insert(6, 9L, "b")
      assert(window.size == 2 && window.index.size == 2)
      assert(window.oldestTime == 9L)
      window.evictOldest()
      assert(window.size == 1 && window.oldestTime == 10L && window.index.size == 1)
      window.evictOldest()
      assert(window.isEmpty && window.index.isEmpty)
    }
  }
}
