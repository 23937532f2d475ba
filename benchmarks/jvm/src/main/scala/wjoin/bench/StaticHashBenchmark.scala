package wjoin.bench

import wjoin.core.window.{StaticHashWindow, WindowAccount}

/**
 * Spark-free microbenchmark of the broadcast W-join's hash index ([[StaticHashWindow]]): building
 * it whole from `rows` time-ordered rows with keys uniform over `keys` values, and probing it with
 * one lookup per streamed row (the bucket, then a binary search of its times), as a broadcast
 * input of the matrix's `key:keys 100k` cell is built and probed on every executor.
 *
 * Keys are boxed longs, as the codec reads a single integral key column. Each figure is the median
 * of 15 timed rounds after 20 warm-up rounds (the JIT's), a build and a probe pass a round.
 *
 * Run: `bin/sbt "bench/runMain wjoin.bench.StaticHashBenchmark"` (optional: `--rows n --keys n`).
 */
object StaticHashBenchmark {

  def main(args: Array[String]): Unit = {
    def arg(name: String, default: Int): Int = args.sliding(2).collectFirst { case Array(`name`, v) => v.toInt }.getOrElse(default)
    val rows = arg("--rows", 150000)
    val keys = arg("--keys", 100000)
    val rnd = new scala.util.Random(7)
    val keyOf: Array[AnyRef] = Array.fill(rows)(java.lang.Long.valueOf(rnd.nextInt(keys).toLong))
    val times = Array.tabulate(rows)(i => i.toLong * 3)
    val stored: Array[AnyRef] = Array.fill(rows)(new Object)
    val probes: Array[AnyRef] = Array.fill(rows / 2)(java.lang.Long.valueOf(rnd.nextInt(keys).toLong))
    var window = StaticHashWindow(keyOf, times, stored, WindowAccount.None)
    var sink = 0L
    def timed(work: => Unit): Long = { val from = System.nanoTime(); work; System.nanoTime() - from }
    def round(): (Long, Long) = (
      timed { window = StaticHashWindow(keyOf, times, stored, WindowAccount.None); sink += window.size },
      timed {
        var i = 0
        while (i < probes.length) {
          val b = window.candidates(probes(i))
          if (b != null) sink += b.lowerBound(i.toLong * 6)
          i += 1
        }
      })
    val first = round()
    for (_ <- 1 until 20) round()
    val runs = Array.fill(15)(round())
    def median(ns: Array[Long]): Double = ns.sorted.apply(ns.length / 2) / 1e6
    println(f"$rows%d rows, $keys%d keys: build ${median(runs.map(_._1))}%.1f ms, ${probes.length}%d probes " +
      f"${median(runs.map(_._2))}%.1f ms (first round: build ${first._1 / 1e6}%.1f ms, probes ${first._2 / 1e6}%.1f ms; $sink%d)")
  }
}
