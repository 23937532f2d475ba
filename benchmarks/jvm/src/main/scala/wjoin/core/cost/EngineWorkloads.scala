package wjoin.core.cost

import wjoin.core._

/**
 * The calibration workloads run through the real [[WJoinEngine]], so the weight factors carry
 * what a probe or an update costs inside the join and not only inside the bare structure: the
 * engine's period test per candidate, the residual filter call, the binding of a member, the
 * result hand-over, the eviction check. On the bare structures a scan costs ~1.6 ns per row;
 * inside the engine 11-18 ns (measured in docs/design/access-paths.md), which moved every
 * scan/tree crossover the model predicted.
 *
 * Two inputs, both held in the path d under test, joined on key equality the way the engine
 * runs such a join (HW-join's backward evaluation; scan and tree windows test the key in the
 * filter, trees are searched with the equality as a zero-width band). Every candidate pays a
 * filter call, as under a residual predicate; the hash filter rejects its (equal-key)
 * candidates, so no path's factor includes handing out results:
 *
 * {{{
 *   probe:    per operation one A arrival (A slides through windowRows rows) and one B arrival
 *             that probes all of A and leaves at the next time unit (RANGE(B) = 0)
 *   baseline: the same B arrivals with A empty: B's own insert, eviction and the offer itself
 *   update:   A arrivals alone, A sliding through windowRows rows, B empty: per arrival one
 *             insert and one expiry of A, and a probe that finds B empty at once
 * }}}
 *
 * P_d = (probe - update - baseline) / probe_d, I_d = update / update_d (the tuples the model
 * counts, [[UnitTimeCost]]). The update includes the per-arrival overhead of the offer; it is
 * paid once per own arrival whatever the path, so it moves no choice. Keys: windowRows /
 * bucketSize values for scan and hash (a probe finds a bucket's rows); windowRows values for
 * the trees, so a probe is a search plus about one match ([[treeMatches]], counted as a
 * touched tuple), the way a join's range probes run.
 *
 * Why a sliding window and one probe per arrival: probes into a window that never changes
 * measured a T-tree probe at 76 ns and a B+tree's at 124 ns; into a window sliding as in a join
 * (one insert and one expiry per probe, the equal-rate case) 294 and 217 ns. In the band joins
 * of `PaperAccessBenchmark` the two trees probe at about the same cost, and T-tree plans are
 * 1.2-1.3x slower than B+tree plans at equal rates, as the sliding figures predict (1.36x);
 * the static ones predicted 1.15x and picked T-trees where B+trees won.
 */
private[cost] object EngineWorkloads {

  private final class Row(val key: Long)

  /** A fresh engine for the two-input join with both windows in `path`. */
  private def engine(path: AccessPath, rangeA: Long, rangeB: Long, nodeSize: Int): WJoinEngine = {
    val matrix = WindowMatrix.close(Seq(StreamRange(0, rangeA, "RANGE(A)"), StreamRange(1, rangeB, "RANGE(B)")), Seq("A", "B"))
    val plan = new EnginePlan(matrix, Algorithm.HW, hashed = true, Seq(path, path),
      Seq(RangeBinding(0, 0, 1, 0, 0, 0), RangeBinding(1, 0, 0, 0, 0, 0)), nodeSize = nodeSize)
    // Every candidate pays one filter call and none becomes a result: results are the same for
    // every plan, so their hand-over belongs to no path's factor. Buckets hold only their key's
    // rows, so the hash filter rejects on purpose; the others reject all but the key's rows.
    val filter = new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = true
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean =
        path != AccessPath.Hash && tuple(0).asInstanceOf[Row].key == tuple(1).asInstanceOf[Row].key
    }
    val ranges = new RangeValues { def value(input: Int, attr: Int, row: AnyRef): Long = row.asInstanceOf[Row].key }
    WJoinEngine.batch(plan, filter, ranges)
  }

  /** Rows a tree probe of the workload finds on average (its keys are drawn from windowRows values). */
  val treeMatches = 1.0

  private def domain(path: AccessPath, s: Calibration.Settings): Long =
    if (path.answersRanges && path != AccessPath.Scan) math.max(1L, (s.windowRows / treeMatches).toLong)
    else math.max(1L, s.windowRows.toLong / s.bucketSize)

  /** Pre-built rows (and their boxed keys) cycled through by the timed loops. */
  private final class Rows(path: AccessPath, s: Calibration.Settings, seed: Long) {
    private val rnd = new scala.util.Random(seed)
    val rows: Array[Row] = Array.fill(4096)(new Row(rnd.nextLong(domain(path, s))))
    val keys: Array[AnyRef] = rows.map(r => java.lang.Long.valueOf(r.key))
  }

  /** B rows that probe A per A arrival in the probe workload. */
  val ProbesPerArrival = 1

  /** Per operation: one A arrival (A slides through `windowRows` rows) and `ProbesPerArrival` B probes. */
  def probe(path: AccessPath, s: Calibration.Settings): Int => Unit = loop(path, s, arrivalsOfA = true, ProbesPerArrival)._1

  /** Per operation: `ProbesPerArrival` B arrivals into an empty A (the probe's baseline). */
  def baseline(path: AccessPath, s: Calibration.Settings): Int => Unit = loop(path, s, arrivalsOfA = false, ProbesPerArrival)._1

  /** Per operation: one A arrival, A sliding through `windowRows` rows, B empty. */
  def update(path: AccessPath, s: Calibration.Settings): Int => Unit = loop(path, s, arrivalsOfA = true, 0)._1

  /** Candidates (filter calls) per B probe of the probe workload: a test's check that it probes. */
  def candidatesPerProbe(path: AccessPath, s: Calibration.Settings, ops: Int): Double = {
    val (run, candidates) = loop(path, s, arrivalsOfA = true, ProbesPerArrival)
    val before = candidates()
    run(ops)
    (candidates() - before).toDouble / (ops * ProbesPerArrival)
  }

  /**
   * The timed loop: per operation one A arrival (if `arrivalsOfA`) and then `probes` B
   * arrivals, each offer one time unit later. A's window spans windowRows x (probes + 1) time
   * units, so it holds windowRows rows and slides as in a join (a static A would be kinder to
   * the caches than any join is); B's rows leave at the next time unit. Filled before it
   * returns. The second result counts the filter calls so far.
   */
  private def loop(path: AccessPath, s: Calibration.Settings, arrivalsOfA: Boolean, probes: Int): (Int => Unit, () => Long) = {
    val e = engine(path, s.windowRows.toLong * (probes + 1) - 1, 0L, s.nodeSize)
    val as = new Rows(path, s, s.seed)
    val bs = new Rows(path, s, s.seed + 2)
    var time = 0L
    var a = 0
    var b = 0
    var results = 0L
    val run = (ops: Int) => {
      var i = 0
      while (i < ops) {
        if (arrivalsOfA) {
          e.offer(0, time, as.keys(a & 4095), as.rows(a & 4095))
          while (e.next()) results += 1
          a += 1
          time += 1
        }
        var j = 0
        while (j < probes) {
          e.offer(1, time, bs.keys(b & 4095), bs.rows(b & 4095))
          while (e.next()) results += 1
          b += 1
          time += 1
          j += 1
        }
        i += 1
      }
      if (results == Long.MinValue) println(results) // keeps the loop observable to the JIT
    }
    if (arrivalsOfA) run(s.windowRows)
    (run, () => e.stats.predicateEvals)
  }
}
