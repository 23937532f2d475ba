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

  for (onEngine <- Seq(true, false))
    test(s"a short calibration run yields a positive, finite factor per path and operation (on engine: $onEngine)") {
      val result = Calibration.measure(Calibration.Settings(windowRows = 500, millisPerRun = 5, runs = 1, onEngine = onEngine))
      assert(result.measurements.size == 8)
      for (p <- AccessPath.all; w <- Seq(result.weights.probe(p), result.weights.update(p)))
        assert(w > 0 && !w.isInfinite && !w.isNaN, s"$p: $w")
      assert(result.table.linesIterator.size == 9)
      assert(WeightFactors.fromProperties(result.weights.toProperties) == result.weights)
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
