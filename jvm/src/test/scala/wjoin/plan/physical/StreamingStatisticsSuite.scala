package wjoin.plan
package physical

import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.cost.{AccessPlanner, AccessRequest, InputStats}
import wjoin.core.RangeBinding

/** Statistics of a streaming W-join's inputs from its recent micro-batches, without Spark. */
class StreamingStatisticsSuite extends AnyFunSuite {
  import StreamingStatistics._
  import wjoin.exec.WindowJoinMetrics.{inputRowsMetric, stateKeysMetric}

  private val second = 1000000L // microseconds
  private val assumed = Seq.fill(2)(InputStats(100000, 10000.0 * second, 10000, Map.empty, "assumed"))
  private val horizon = Seq(10 * second, 10 * second)

  private def sample(batch: Long, minS: Long, maxS: Long, a: Long, b: Long, keys: Option[(Long, Long)] = None) =
    Sample(batch, a + b, Some(minS * 1000), Some(maxS * 1000),
      Map(inputRowsMetric(0) -> a, inputRowsMetric(1) -> b, "numStateRows0" -> 0L, "numStateRows1" -> 0L) ++
        keys.toSeq.flatMap { case (ka, kb) => Seq(stateKeysMetric(0) -> ka, stateKeysMetric(1) -> kb) })

  test("no usable progress: the assumptions, unchanged") {
    assert(derive(horizon, keyed = true, Nil, assumed) == assumed)
    // no event time, no rows, or metrics of another operator shape
    assert(derive(horizon, keyed = true, Seq(sample(0, 0, 9, 5, 5).copy(eventTimeMinMs = None)), assumed) == assumed)
    assert(derive(horizon, keyed = true, Seq(sample(0, 0, 9, 0, 0).copy(inputRows = 0)), assumed) == assumed)
    assert(derive(horizon, keyed = true, Seq(sample(0, 0, 9, 5, 5).copy(metrics = Map("numStateRows0" -> 1L))),
      assumed) == assumed)
  }

  test("rates are the rows per time unit over the recent batches' event-time span; source names the batches") {
    // batches 3-4: A 90 + 110 rows, B 2 + 0 rows over 0 s .. 20 s
    val s = derive(horizon, keyed = false, Seq(sample(3, 0, 10, 90, 2), sample(4, 10, 20, 110, 0)), assumed)
    assert(s.map(_.source).distinct == Seq("recent micro-batches 3-4 (rows/s: #0 10.0, #1 0.100)"))
    assert(math.abs(s(0).rate * second - 10.0) < 1e-9, s(0)) // 200 rows / 20 s
    assert(math.abs(s(1).rate * second - 0.1) < 1e-9, s(1)) // 2 rows / 20 s
    // an unbounded stream: many windows' worth of rows, so the window holds rate x T
    assert(s.forall(x => x.rows >= x.rate * 100 * horizon.max))
    assert(s(0).distinct == assumed(0).distinct) // unkeyed: key counts not read
    val one = derive(horizon, keyed = false, Seq(sample(7, 0, 10, 10, 10)), assumed)
    assert(one.head.source.startsWith("recent micro-batch 7 "))
  }

  test("a stalled input counts one row; no-data batches and re-reported batches are not counted twice") {
    val s = derive(horizon, keyed = false, Seq(sample(1, 0, 10, 50, 0), sample(1, 0, 10, 50, 0),
      sample(2, 10, 10, 0, 0).copy(inputRows = 0, eventTimeMinMs = None, eventTimeMaxMs = None)), assumed)
    assert(s.head.source.startsWith("recent micro-batch 1 "))
    assert(math.abs(s(0).rate * second - 5.0) < 1e-9 && math.abs(s(1).rate * second - 0.1) < 1e-9, s)
  }

  test("only the last MaxBatches batches count") {
    val old = sample(0, 0, 1000, 100000, 0)
    val recent = (1 to MaxBatches).map(b => sample(b, 1000 + 10 * (b - 1), 1000 + 10 * b, 10, 10))
    val s = derive(horizon, keyed = false, old +: recent, assumed)
    assert(s.head.source.startsWith(s"recent micro-batches 1-$MaxBatches "))
    assert(math.abs(s(0).rate - s(1).rate) < 1e-12)
  }

  test("keyed: distinct keys from the latest batch's state-key metric, else assumed") {
    val s = derive(horizon, keyed = true, Seq(sample(1, 0, 10, 10, 10, Some((50L, 3L))),
      sample(2, 10, 20, 10, 10, Some((7L, 0L)))), assumed)
    assert(s(0).distinct == 7 && s(1).distinct == assumed(1).distinct)
  }

  test("the planner follows the observed rates: skewed rates change the access paths the assumptions give") {
    val band = Seq(RangeBinding(0, 0, 1, 0, -1, 1), RangeBinding(1, 0, 0, 0, -1, 1))
    val names = Seq("A", "B")
    def plan(stats: Seq[InputStats]) = AccessPlanner.plan(names, horizon, keyed = false, band, stats,
      AccessRequest.none(2), scanOnly = false, Some(0L))
    val before = plan(assumed)
    // A: 2000 rows/s, B: 200 rows/s (the assumption: 100 rows/s each for a 10 s window)
    val skewed = derive(horizon, keyed = false, Seq(sample(5, 0, 10, 20000, 2000)), assumed, names = names)
    val after = plan(skewed)
    info(s"assumed: ${before.describe(names)}")
    info(s"observed: ${after.describe(names)}")
    assert(after.describe(names).contains("stats: recent micro-batch 5 (rows/s: A 2.00e+03, B 200)"))
    assert(before.describe(names).contains("stats: assumed"))
    assert(after.paths != before.paths, (before, after))
  }
}
