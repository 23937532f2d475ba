package wjoin.core.cost

import org.scalatest.funsuite.AnyFunSuite

class CalibrationSuite extends AnyFunSuite {

  test("every window driver answers probes like a brute-force window") {
    val rnd = new scala.util.Random(3)
    val keys = Array.fill(4000)(rnd.nextInt(60).toLong)
    for (path <- AccessPath.all) {
      val driver = WindowDriver(path, capacity = 500, nodeSize = 4)
      for (i <- keys.indices) {
        driver.slide(keys(i))
        val live = keys.slice(math.max(0, i - 499), i + 1)
        assert(driver.size == live.length)
        if (i % 37 == 0) {
          val k = keys((i * 7) % keys.length)
          assert(driver.pointProbe(k) == live.count(_ == k), s"$path point probe")
          if (path.answersRanges) assert(driver.rangeProbe(k - 2, k + 2) == live.count(x => x >= k - 2 && x <= k + 2), s"$path band probe")
        }
      }
    }
    intercept[UnsupportedOperationException](WindowDriver(AccessPath.Hash, 10).rangeProbe(0, 1))
  }

  test("the calibration's timer orders controlled workloads by their work (10x the work, > 3x the time)") {
    val data = Array.tabulate(4096)(i => (i * 2654435761L) ^ (i >>> 3))
    var sink = 0L
    def work(perOp: Int): Int => Unit = ops => {
      var i = 0
      var acc = sink
      while (i < ops) { var k = 0; while (k < perOp) { acc += data((i * 31 + k) & 4095) * 3; k += 1 }; i += 1 }
      sink = acc
    }
    val medians = Calibration.interleavedMedians(Calibration.Settings(millisPerRun = 20, runs = 3), Seq(work(40), work(400)))
    val (light, heavy) = (medians(0), medians(1))
    assert(heavy > 3 * light, s"400 reads per op took $heavy ns, 40 took $light ns")
    assert(sink != 42L) // keeps the loops observable
  }

  for (onEngine <- Seq(true, false))
    test(s"calibration: a scan probe, which touches the whole window, costs more than a hash or tree probe (on engine: $onEngine)") {
      // 2000-row windows: a scan probe examines 2000 rows, a hash probe a bucket of about 10,
      // a tree probe a descent (plus about one match on the engine). Ratios of 30-200 were
      // measured; the bounds leave a wide margin for a loaded machine, no wall-clock threshold.
      val s = Calibration.Settings(windowRows = 2000, bucketSize = 10, millisPerRun = 20, runs = 3, onEngine = onEngine)
      val result = Calibration.measure(s)
      assert(result.measurements.size == 8)
      assert(result.table.linesIterator.size == 9)
      assert(WeightFactors.fromProperties(result.weights.toProperties) == result.weights)
      def perOp(path: AccessPath, workload: String): Double =
        result.measurements.find(m => m.path == path && m.workload == workload).get.nanosPerOp
      val scan = perOp(AccessPath.Scan, "probe")
      for (path <- Seq(AccessPath.Hash, AccessPath.TTree, AccessPath.BPlusTree))
        assert(scan > 3 * perOp(path, "probe"), s"scan probe $scan ns vs $path ${perOp(path, "probe")} ns\n${result.table}")
      // The model's counts behind the factors: a scan probe touches the window, a hash probe a bucket.
      val touched = result.measurements.filter(_.workload == "probe").map(m => m.path -> m.accessesPerOp).toMap
      assert(touched(AccessPath.Scan) == 2000.0 && touched(AccessPath.Hash) < touched(AccessPath.Scan) / 10, touched)
      // A factor is time per touched tuple: the scan's is its probe time over the window's rows.
      assert(math.abs(result.weights.probe(AccessPath.Scan) * 2000.0 - scan) <= 1e-6 * scan)
    }

  test("the engine calibration's probe workload examines a window, a bucket, or a tree's few matches") {
    val s = Calibration.Settings(windowRows = 200, bucketSize = 10)
    for (path <- AccessPath.all) {
      // Candidates per probe: all 200 rows for scan, a bucket of about 10 rows for hash (keys
      // from 200 / 10 values), about one match for the trees (keys from 200 values).
      val perProbe = EngineWorkloads.candidatesPerProbe(path, s, ops = 100)
      path match {
        case AccessPath.Scan => assert(perProbe >= 200 && perProbe <= 201, s"$path: $perProbe") // + B's <= 1 row per A arrival
        case AccessPath.Hash => assert(perProbe > 5 && perProbe < 20, s"$path: $perProbe")
        case _ => assert(perProbe > 0.5 && perProbe < 2, s"$path: $perProbe")
      }
    }
  }
}
