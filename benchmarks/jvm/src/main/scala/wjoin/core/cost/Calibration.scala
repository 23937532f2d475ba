package wjoin.core.cost

import java.io.{File, FileOutputStream}

/**
 * Measures Kang et al.'s weight factors on this machine ("Estimating the weight factors",
 * Sec. 4.2) by timing the real code.
 *
 * Method, per access path d, on a full sliding window of `windowRows` rows:
 *  - search-only workload: equality probes with random keys; the time per probe divided by
 *    the tuples the model says a probe touches (`UnitTimeCost.probeAccesses`) is P_d;
 *  - insert/invalidate-only workload: insert a row and expire the oldest; the time per
 *    step divided by `UnitTimeCost.updateAccesses` is I_d.
 * By default the workloads run through the join engine ([[EngineWorkloads]]: a two-input join
 * whose probes pay the engine's per-candidate work, minus a baseline of the same arrivals
 * with nothing to probe), because that is what the planner chooses between; `--structures`
 * times the bare structures instead ([[WindowDriver]]; scans then cost 7-10x less than in the
 * engine, and the model put every scan/tree crossover at far less skewed rates than measured).
 * The paper fitted the same two quantities by regression over 20 input rates; timing many
 * operations at full speed measures the slope directly (a fit through the origin). Keys:
 * `windowRows / bucketSize` distinct values for scan and hash, so a bucket holds about
 * `bucketSize` rows as in the model; for the trees a wide domain, so a probe is the pure
 * search the formulas count (about no matches). Each figure is the median of `runs` timed
 * rounds of `millisPerRun` after as many warm-up rounds (the JIT compiles the loops first);
 * the timed rounds go round-robin over all workloads, so that load from other
 * processes on a shared machine skews all of them alike rather than one.
 *
 * Run: `bin/sbt "bench/runMain wjoin.core.cost.Calibration"` prints the factors in nanoseconds
 * per touched tuple; `--write <file>` also stores them as properties (a relative path is relative to
 * `jvm/`, where the forked run starts), e.g. `--write src/main/resources/wjoin/cost/weights.properties`, which `WeightFactors.bundled`
 * then loads (the factors ship with the build). `measure()` runs it from code (start-up).
 */
object Calibration {

  final case class Settings(windowRows: Int = 5000, bucketSize: Int = 10, nodeSize: Int = 100,
      millisPerRun: Int = 100, runs: Int = 5, seed: Long = 20030301L, onEngine: Boolean = true) {
    require(windowRows >= 2 && bucketSize >= 1 && nodeSize >= 2 && millisPerRun >= 1 && runs >= 1, s"bad settings $this")
    def shape: WindowShape = WindowShape(windowRows, bucketSize.toDouble, nodeSize)
  }

  /** One timed workload: nanoseconds per operation and the tuples the model counts for it. */
  final case class Measurement(path: AccessPath, workload: String, nanosPerOp: Double, accessesPerOp: Double) {
    def weight: Double = nanosPerOp / accessesPerOp
  }

  final case class Result(weights: WeightFactors, measurements: Seq[Measurement], settings: Settings) {
    def table: String = {
      val lines = measurements.map(m => f"${m.path.name}%-10s ${m.workload}%-7s ${m.nanosPerOp}%12.1f ${m.accessesPerOp}%9.1f ${m.weight}%10.3f")
      (f"${"path"}%-10s ${"op"}%-7s ${"ns/op"}%12s ${"touched"}%9s ${"ns/tuple"}%10s" +: lines).mkString("\n")
    }
  }

  def measure(settings: Settings = Settings()): Result = {
    val measurements = if (settings.onEngine) onEngine(settings) else onStructures(settings)
    def w(path: AccessPath, workload: String) = measurements.find(m => m.path == path && m.workload == workload).get.weight
    val weights = WeightFactors(
      w(AccessPath.Scan, "probe"), w(AccessPath.Scan, "update"),
      w(AccessPath.Hash, "probe"), w(AccessPath.Hash, "update"),
      w(AccessPath.TTree, "probe"), w(AccessPath.TTree, "update"),
      w(AccessPath.BPlusTree, "probe"), w(AccessPath.BPlusTree, "update"))
    Result(weights, measurements, settings)
  }

  private def onStructures(settings: Settings): Seq[Measurement] = {
    val workloads = AccessPath.all.flatMap(path => Seq(probeWorkload(path, settings), updateWorkload(path, settings)))
    val nanos = interleavedMedians(settings, workloads.map(_._2))
    workloads.zip(nanos).map { case ((m, _), ns) => m.copy(nanosPerOp = ns) }
  }

  /**
   * [[EngineWorkloads]]: per path a probe, a baseline and an update workload. A probe's time is
   * what the probe workload takes beyond its A arrival (the update) and its B arrivals' own
   * work (the baseline), per probe; floored at 1% of the workload's time so that noise on a
   * tiny window cannot make a factor zero or negative.
   */
  private def onEngine(s: Settings): Seq[Measurement] = {
    val workloads = AccessPath.all.flatMap(path =>
      Seq(EngineWorkloads.probe(path, s), EngineWorkloads.baseline(path, s), EngineWorkloads.update(path, s)))
    val nanos = interleavedMedians(s, workloads)
    val k = EngineWorkloads.ProbesPerArrival
    AccessPath.all.zipWithIndex.flatMap { case (path, p) =>
      val (mixed, empty, update) = (nanos(3 * p), nanos(3 * p + 1), nanos(3 * p + 2))
      val probed = if (path == AccessPath.TTree || path == AccessPath.BPlusTree) s.shape.copy(matchesPerProbe = EngineWorkloads.treeMatches) else s.shape
      val probe = math.max(mixed - update - empty, 0.01 * mixed) / k
      Seq(Measurement(path, "probe", probe, UnitTimeCost.probeAccesses(path, probed)),
        Measurement(path, "update", update, UnitTimeCost.updateAccesses(path, s.shape)))
    }
  }

  /** Key domain of the synthetic rows: bucket-sized groups for scan and hash, wide for trees. */
  private def keyDomain(path: AccessPath, s: Settings): Long =
    if (path == AccessPath.TTree || path == AccessPath.BPlusTree) 1L << 40 else math.max(1L, s.windowRows.toLong / s.bucketSize)

  private def filledWindow(path: AccessPath, s: Settings, rnd: scala.util.Random): WindowDriver = {
    val window = WindowDriver(path, s.windowRows, s.nodeSize)
    val domain = keyDomain(path, s)
    for (_ <- 0 until s.windowRows) window.slide(rnd.nextLong(domain))
    window
  }

  /** Equality probes with random keys into a full window; the measurement awaits its time. */
  private def probeWorkload(path: AccessPath, s: Settings): (Measurement, Int => Unit) = {
    val rnd = new scala.util.Random(s.seed)
    val window = filledWindow(path, s, rnd)
    val keys = Array.fill(4096)(rnd.nextLong(keyDomain(path, s)))
    var sink = 0L
    val work = (ops: Int) => {
      var i = 0
      while (i < ops) { sink += window.pointProbe(keys(i & 4095)); i += 1 }
      if (sink == Long.MinValue) println(sink) // keeps the probes observable to the JIT
    }
    (Measurement(path, "probe", Double.NaN, UnitTimeCost.probeAccesses(path, s.shape)), work)
  }

  /** Steady-state sliding: insert a row and expire the oldest. */
  private def updateWorkload(path: AccessPath, s: Settings): (Measurement, Int => Unit) = {
    val rnd = new scala.util.Random(s.seed + 1)
    val window = filledWindow(path, s, rnd)
    val keys = Array.fill(4096)(rnd.nextLong(keyDomain(path, s)))
    var next = 0
    val work = (ops: Int) => {
      var i = 0
      while (i < ops) { window.slide(keys(next & 4095)); next += 1; i += 1 }
    }
    (Measurement(path, "update", Double.NaN, UnitTimeCost.updateAccesses(path, s.shape)), work)
  }

  /**
   * Times each workload (`work(ops)` runs ops operations) in rounds of `millisPerRun`:
   * `runs` warm-up rounds each, then `runs` timed rounds taken round-robin, so a burst of
   * load from other processes hits all workloads alike instead of one; returns each
   * workload's median nanoseconds per operation. `clock` is `System.nanoTime` except in tests,
   * which check the bookkeeping with a clock the workloads advance themselves.
   */
  def interleavedMedians(s: Settings, workloads: Seq[Int => Unit], clock: () => Long = () => System.nanoTime()): Seq[Double] = {
    val budget = s.millisPerRun * 1000000L
    def round(work: Int => Unit): Double = {
      var batch = 64
      var ops = 0L
      val start = clock()
      var elapsed = 0L
      while (elapsed < budget) {
        work(batch)
        ops += batch
        elapsed = clock() - start
        if (elapsed < budget / 8) batch = math.min(batch * 2, 1 << 20)
      }
      elapsed.toDouble / ops
    }
    for (work <- workloads; _ <- 0 until s.runs) round(work)
    val timed = Array.fill(s.runs)(workloads.map(round))
    workloads.indices.map { w =>
      val sorted = timed.map(_(w)).sorted
      sorted(sorted.length / 2)
    }
  }

  def main(args: Array[String]): Unit = {
    def arg(name: String): Option[String] = args.sliding(2).collectFirst { case Array(`name`, v) => v }
    val defaults = Settings()
    val settings = Settings(
      windowRows = arg("--rows").map(_.toInt).getOrElse(defaults.windowRows),
      bucketSize = arg("--bucket").map(_.toInt).getOrElse(defaults.bucketSize),
      nodeSize = arg("--node").map(_.toInt).getOrElse(defaults.nodeSize),
      millisPerRun = arg("--millis").map(_.toInt).getOrElse(defaults.millisPerRun),
      runs = arg("--runs").map(_.toInt).getOrElse(defaults.runs),
      onEngine = !args.contains("--structures"))
    val result = measure(settings)
    println(s"Weight factors for $settings")
    println(result.table)
    println(result.weights)
    arg("--write").foreach { path =>
      val file = new File(path)
      Option(file.getParentFile).foreach(_.mkdirs())
      val out = new FileOutputStream(file)
      try result.weights.toProperties.store(out, s"wjoin weight factors, ns per touched tuple, measured by wjoin.core.cost.Calibration $settings")
      finally out.close()
      println(s"written to $path")
    }
  }
}
