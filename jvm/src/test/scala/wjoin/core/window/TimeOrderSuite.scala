package wjoin.core.window

import org.scalatest.funsuite.AnyFunSuite

class TimeOrderSuite extends AnyFunSuite {

  /** The reference: a stable sort of the indices by time. */
  private def reference(times: Array[Long]): Seq[Int] = times.indices.sortBy(times(_))

  test("every sort TimeOrder picks gives the stable time order (ties in index order)") {
    val rnd = new scala.util.Random(11)
    // Spans for each of its sorts: radix (up to 44 bits, 1 to 4 passes), the packed primitive
    // sort (45-50 bits, with the index bits), the generic one (span + index bits over 63, or a
    // span that overflows a long).
    def below(bits: Int): Long = rnd.nextLong() >>> (64 - bits) // [0, 2^bits) (Scala 2.12 has no nextLong(bound))
    val spans: Seq[(String, () => Long)] = Seq(
      "ties only" -> (() => 5L),
      "10 bits" -> (() => rnd.nextInt(1 << 10).toLong),
      "12 bits" -> (() => rnd.nextInt(1 << 12).toLong),
      "28 bits" -> (() => rnd.nextInt(1 << 28).toLong - (1L << 27)),
      "44 bits" -> (() => below(44)),
      "48 bits" -> (() => below(48) + Long.MinValue / 2),
      "62 bits" -> (() => below(62)),
      "overflowing" -> (() => Seq(Long.MinValue, Long.MaxValue, 0L, rnd.nextLong())(rnd.nextInt(4))))
    for ((name, time) <- spans; m <- Seq(0, 1, 2, 3, 100, 4095, 5000)) {
      val times = Array.fill(m)(time())
      assert(TimeOrder.of(times).toSeq == reference(times), s"$name, $m rows")
      val sorted = times.sorted
      assert(TimeOrder.of(sorted).toSeq == sorted.indices, s"$name, $m rows, sorted")
    }
    // Few distinct times: every digit pass has to keep the earlier ones' order.
    val few = Array.tabulate(5000)(i => Seq(0L, 1L << 11, 1L << 22, (1L << 33) + 1)((i * 7) % 4))
    assert(TimeOrder.of(few).toSeq == reference(few))
  }
}
