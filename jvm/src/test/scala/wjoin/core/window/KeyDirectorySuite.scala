package wjoin.core.window

import org.scalatest.funsuite.AnyFunSuite

/** The hash windows' shared key -> buckets map, against a model of each window's rows. */
class KeyDirectorySuite extends AnyFunSuite {

  test("windows sharing a directory see their own buckets; an entry lives while any window holds its key") {
    val rnd = new scala.util.Random(5)
    for (n <- Seq(2, 3); values <- Seq(2, 30, 500); capacity <- Seq(3, 40)) {
      val directory = new KeyDirectory(n)
      val windows = Array.tabulate(n)(j => new HashWindow(WindowAccount.None, directory, j))
      val live = Array.fill(n)(scala.collection.mutable.Queue[Long]())
      for (step <- 0 until 4000) {
        val j = rnd.nextInt(n)
        val key = rnd.nextInt(values).toLong
        // A fresh key object each time: the cache is by reference, equality must still hold.
        val probe = java.lang.Long.valueOf(rnd.nextInt(values).toLong)
        val other = (j + 1) % n
        // A probe before the insert, as the engine does (it may cache a miss for the inserted key).
        assert(Option(windows(other).candidates(java.lang.Long.valueOf(key))).fold(0)(_.size) == live(other).count(_ == key))
        windows(j).insert(java.lang.Long.valueOf(key), step, java.lang.Long.valueOf(key))
        live(j).enqueue(key)
        if (live(j).size > capacity) { windows(j).evictOldest(); live(j).dequeue() }
        for (i <- 0 until n) {
          val bucket = windows(i).candidates(probe)
          assert((if (bucket == null) 0 else bucket.size) == live(i).count(_ == probe.longValue), s"n $n input $i step $step")
          assert(windows(i).bucketCount == live(i).distinct.size)
        }
        assert(directory.size == live.flatMap(_.distinct).distinct.length, s"n $n step $step")
      }
    }
  }

  test("the cached lookup follows inserts and removals of its key") {
    val directory = new KeyDirectory(2)
    val a = new HashWindow(WindowAccount.None, directory, 0)
    val b = new HashWindow(WindowAccount.None, directory, 1)
    val k1 = java.lang.Long.valueOf(1000L)
    assert(b.candidates(k1) == null) // caches a miss for k1
    a.insert(java.lang.Long.valueOf(1000L), 1, "a1") // an equal key, another object
    assert(a.candidates(k1).size == 1 && b.candidates(k1) == null)
    b.insert(k1, 2, "b1")
    assert(b.candidates(java.lang.Long.valueOf(1000L)).size == 1)
    a.evictOldest() // a's bucket empties; the entry stays for b's
    assert(a.candidates(k1) == null && b.candidates(k1).size == 1 && directory.size == 1)
    b.evictOldest() // the last bucket: the entry and the cache go
    assert(b.candidates(k1) == null && a.candidates(k1) == null && directory.size == 0)
    a.insert(k1, 3, "a2") // the same key object as the removed entry's: a new entry, in the map
    assert(a.candidates(k1).size == 1 && (a.oldestKey eq k1))
    assert(directory.size == 1 && a.candidates(java.lang.Long.valueOf(1000L)).size == 1)
  }
}
