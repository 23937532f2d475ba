package wjoin.bench

import wjoin.core.cost.{AccessPath, Calibration, UnitTimeCost, WeightFactors, WindowDriver, WindowShape}

/**
 * Spark-free microbenchmark of the window access paths: a 5000-row sliding window whose
 * rows carry keys from 500 values (10 rows per key, Kang et al.'s bucket size), per structure
 *  - insert+expire: insert a row and expire the oldest (the window's maintenance);
 *  - point probe:   an equality probe (about 10 matches);
 *  - band probe:    [k, k + 4] (about 50 matches; hash buckets cannot answer it);
 *  - step:          insert+expire then one point probe, the work per arrival of a
 *                   symmetric two-input join with equal rates.
 * Each figure is the median of 5 timed rounds of 200 ms after 5 warm-up rounds, the rounds
 * of all structures interleaved (`Calibration.interleavedMedians`). With the
 * calibrated weight factors bundled (`WeightFactors.bundled`), the last columns give the
 * unit-time model's estimate of insert+expire and of a point probe (with its ~10 matches).
 *
 * Run: `bin/sbt "bench/runMain wjoin.bench.IndexBenchmark"` (optional: `--rows n --keys n`).
 */
object IndexBenchmark {

  def main(args: Array[String]): Unit = {
    def arg(name: String, default: Int): Int = args.sliding(2).collectFirst { case Array(`name`, v) => v.toInt }.getOrElse(default)
    val rows = arg("--rows", 5000)
    val keys = arg("--keys", 500)
    val settings = Calibration.Settings(windowRows = rows, millisPerRun = arg("--millis", 200), runs = 5)
    val variants = Seq((AccessPath.Scan, 0), (AccessPath.Hash, 0), (AccessPath.TTree, 16), (AccessPath.TTree, 100),
      (AccessPath.BPlusTree, 16), (AccessPath.BPlusTree, 100))
    println(s"window $rows rows, keys uniform in [0, $keys), ns per operation (median of ${settings.runs} rounds)")
    val weights = WeightFactors.bundled
    println(f"${"structure"}%-15s ${"insert+expire"}%14s ${"point probe"}%12s ${"band probe"}%11s ${"step"}%9s ${"model i+e"}%10s ${"model probe"}%12s  shape")
    // Four workloads per structure, all timed round-robin (see Calibration.interleavedMedians).
    final case class Variant(path: AccessPath, nodeSize: Int, window: WindowDriver, workloads: Seq[Int => Unit])
    var sink = 0L
    val built = variants.map { case (path, nodeSize) =>
      val window = WindowDriver(path, rows, math.max(2, nodeSize))
      val rnd = new scala.util.Random(7)
      val stream = Array.fill(1 << 16)(rnd.nextInt(keys).toLong)
      for (i <- 0 until rows) window.slide(stream(i))
      var next = rows
      def nextKey(): Long = { val k = stream(next & 0xffff); next += 1; k }
      val update = (ops: Int) => { var i = 0; while (i < ops) { window.slide(nextKey()); i += 1 } }
      val point = (ops: Int) => { var i = 0; while (i < ops) { sink += window.pointProbe(nextKey()); i += 1 } }
      val band = (ops: Int) => { var i = 0; while (i < ops) { val k = nextKey(); sink += window.rangeProbe(k, k + 4); i += 1 } }
      val step = (ops: Int) => { var i = 0; while (i < ops) { window.slide(nextKey()); sink += window.pointProbe(nextKey()); i += 1 } }
      Variant(path, nodeSize, window, if (path.answersRanges) Seq(update, point, band, step) else Seq(update, point, step))
    }
    val medians = Calibration.interleavedMedians(settings, built.flatMap(_.workloads)).iterator
    for (v <- built) {
      val update = medians.next()
      val point = medians.next()
      val band = if (v.path.answersRanges) medians.next() else Double.NaN
      val step = medians.next()
      val name = if (v.nodeSize > 0) s"${v.path.name}(${v.nodeSize})" else v.path.name
      val bandText = if (band.isNaN) "n/a" else f"$band%.0f"
      val shape = WindowShape(rows, bucketSize = rows.toDouble / keys, nodeSize = math.max(2, v.nodeSize),
        matchesPerProbe = if (v.path == AccessPath.TTree || v.path == AccessPath.BPlusTree) rows.toDouble / keys else 0)
      val (modelUpdate, modelProbe) = weights.fold(("-", "-")) { w =>
        (f"${UnitTimeCost.maintenanceCost(v.path, shape, w)}%.0f", f"${UnitTimeCost.probeCost(v.path, shape, w)}%.0f")
      }
      println(f"$name%-15s $update%14.0f $point%12.0f $bandText%11s $step%9.0f $modelUpdate%10s $modelProbe%12s  ${v.window.describe}")
    }
    if (sink == Long.MinValue) println(sink)
  }
}
