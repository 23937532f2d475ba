package wjoin.core.window

import org.scalatest.funsuite.AnyFunSuite

/** [[LongBucketMap]] against `java.util.HashMap` on random puts, gets and removes. */
class LongBucketMapSuite extends AnyFunSuite {
  test("the same answers as a HashMap: dense, sparse, negative and extreme keys, runs emptied and refilled") {
    val rnd = new scala.util.Random(5)
    val domains: Seq[() => Long] = Seq(
      () => rnd.nextInt(8).toLong, // few keys: long runs, frequent backward shifts
      () => rnd.nextInt(5000).toLong - 2500,
      () => rnd.nextLong(),
      () => Seq(Long.MinValue, Long.MaxValue, 0L, -1L, 1L)(rnd.nextInt(5)),
      () => rnd.nextInt(300).toLong << 32) // keys equal in their low bits
    for ((next, d) <- domains.zipWithIndex) {
      val map = new LongBucketMap
      val truth = new java.util.HashMap[Long, Bucket]()
      for (step <- 0 until 20000) {
        val key = next()
        rnd.nextInt(3) match {
          case 0 => val b = new Bucket(java.lang.Long.valueOf(key)); map.put(key, b); truth.put(key, b)
          case 1 => map.remove(key); truth.remove(key)
          case _ =>
        }
        assert(map.get(key) eq truth.get(key), s"domain $d, step $step, key $key")
        assert(map.size == truth.size, s"domain $d, step $step")
      }
      truth.forEach((k, b) => assert(map.get(k) eq b))
    }
  }
}
