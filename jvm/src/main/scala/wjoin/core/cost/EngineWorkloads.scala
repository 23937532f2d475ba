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
 *   probe:    A: windowRows rows, never expire        B rows arrive at t, t+1, ...: each probes
 *             (RANGE(A) = 2^40)                       all of A, then leaves (RANGE(B) = 0)
 *   baseline: the same B arrivals with A empty: B's own insert, eviction and the offer itself
 *   update:   A rows arrive at t, t+1, ... with RANGE(A) = windowRows, B empty: per arrival
 *             one insert and one expiry of A, and a probe that finds B empty at once
 * }}}
 *
 * P_d = (probe - baseline) / probe_d, I_d = update / update_d (the tuples the model counts,
 * [[UnitTimeCost]]). The update includes the per-arrival overhead of the offer; it is paid
 * once per own arrival whatever the path, so it moves no choice. Keys as in the bare
 * calibration: windowRows / bucketSize values for scan and hash (a probe finds a bucket's
 * rows), 2^40 for the trees (a pure search).
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
    new WJoinEngine(plan, filter, ranges = ranges)
  }

  private def domain(path: AccessPath, s: Calibration.Settings): Long =
    if (path.answersRanges && path != AccessPath.Scan) 1L << 40 else math.max(1L, s.windowRows.toLong / s.bucketSize)

  /** Pre-built rows (and their boxed keys) cycled through by the timed loops. */
  private final class Rows(path: AccessPath, s: Calibration.Settings, seed: Long) {
    private val rnd = new scala.util.Random(seed)
    val rows: Array[Row] = Array.fill(4096)(new Row(rnd.nextLong(domain(path, s))))
    val keys: Array[AnyRef] = rows.map(r => java.lang.Long.valueOf(r.key))
  }

  /** B rows probing a full A (`fillA`) or an empty one (the baseline). */
  def probe(path: AccessPath, s: Calibration.Settings, fillA: Boolean): Int => Unit = probeLoop(path, s, fillA)._1

  /** Candidates (filter calls) of `probes` probes into a full A: a test's check that the workload probes. */
  def probeCandidates(path: AccessPath, s: Calibration.Settings, probes: Int): Long = {
    val (run, candidates) = probeLoop(path, s, fillA = true)
    run(probes)
    candidates()
  }

  private def probeLoop(path: AccessPath, s: Calibration.Settings, fillA: Boolean): (Int => Unit, () => Long) = {
    val e = engine(path, 1L << 40, 0L, s.nodeSize)
    val data = new Rows(path, s, s.seed)
    var time = 0L
    if (fillA) for (i <- 0 until s.windowRows) {
      val k = i & 4095
      e.offer(0, time, data.keys(k), data.rows(k))
      time += 1
    }
    val probes = new Rows(path, s, s.seed + 2)
    var results = 0L
    val run = (ops: Int) => {
      var i = 0
      while (i < ops) {
        val k = (time & 4095).toInt
        e.offer(1, time, probes.keys(k), probes.rows(k))
        while (e.next()) results += 1
        time += 1
        i += 1
      }
      if (results == Long.MinValue) println(results) // keeps the loop observable to the JIT
    }
    (run, () => e.stats.predicateEvals)
  }

  /** A rows sliding through a window of `windowRows` rows. */
  def update(path: AccessPath, s: Calibration.Settings): Int => Unit = {
    val e = engine(path, s.windowRows.toLong - 1, 0L, s.nodeSize)
    val data = new Rows(path, s, s.seed + 1)
    var time = 0L
    ops => {
      var i = 0
      while (i < ops) {
        val k = (time & 4095).toInt
        e.offer(0, time, data.keys(k), data.rows(k))
        while (e.next()) ()
        time += 1
        i += 1
      }
    }
  }
}
