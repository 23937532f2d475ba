package wjoin.core.window

import org.scalatest.funsuite.AnyFunSuite

/** The hash access path's window: per-key ring-buffer buckets behind one arrival ring. */
class HashWindowSuite extends AnyFunSuite {

  test("one bucket per key the window holds: buckets follow the window's keys as it slides") {
    val rnd = new scala.util.Random(11)
    for (capacity <- Seq(5, 50, 500); values <- Seq(3, 40, 1000)) {
      val window = new HashWindow
      val live = scala.collection.mutable.Queue[Long]()
      for (t <- 0 until 3000) {
        val key = rnd.nextInt(values).toLong
        window.insert(java.lang.Long.valueOf(key), t, java.lang.Long.valueOf(key))
        live.enqueue(key)
        if (live.size > capacity) { window.evictOldest(); live.dequeue() }
        assert(window.bucketCount == live.distinct.size, s"capacity $capacity, $values keys, t $t")
        val probe = java.lang.Long.valueOf(rnd.nextInt(values).toLong)
        val bucket = window.candidates(probe)
        val expected = live.count(_ == probe.longValue)
        assert((if (bucket == null) 0 else bucket.size) == expected)
        if (bucket != null) assert((0 until bucket.size).map(bucket.time).sorted == (0 until bucket.size).map(bucket.time))
      }
    }
  }
}
