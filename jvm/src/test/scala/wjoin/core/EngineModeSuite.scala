package wjoin.core

import org.scalatest.funsuite.AnyFunSuite


/** The engine's evaluation and mode are fixed at construction; a wrong choice changes results. */
class EngineModeSuite extends AnyFunSuite {
  private val matrix = WindowMatrix.close(Seq(PairWindow(0, 1, 10, "WINDOW(A,B) = 10")), Seq("A", "B"))
  private def plan(algorithm: Algorithm) = new EnginePlan(matrix, algorithm, hashed = algorithm == Algorithm.HW)
  private def key = Integer.valueOf(1)
  private def drain(e: WJoinEngine): Seq[Seq[AnyRef]] = {
    val out = Seq.newBuilder[Seq[AnyRef]]
    while (e.next()) out += e.tuple.toSeq
    out.result()
  }

  test("the algorithm picks the evaluation: NLW / HW backward, MW forward, in batch and streaming alike") {
    for (mode <- Seq(EngineMode.Batch, EngineMode.Streaming(0L))) {
      assert(WJoinEngine(plan(Algorithm.HW), TupleFilter.AcceptAll, mode, RangeValues.None).isInstanceOf[BackwardEvaluation])
      assert(WJoinEngine(plan(Algorithm.NLW), TupleFilter.AcceptAll, mode, RangeValues.None).isInstanceOf[BackwardEvaluation])
      assert(WJoinEngine(plan(Algorithm.MW), TupleFilter.AcceptAll, mode, RangeValues.None).isInstanceOf[ForwardEvaluation])
    }
  }

  test("only eager streaming preloads: batch engines and ordered streaming refuse state rows") {
    intercept[AssertionError](WJoinEngine.batch(plan(Algorithm.HW), TupleFilter.AcceptAll).preload(0, 0, key, "a"))
    intercept[AssertionError](WJoinEngine.streaming(plan(Algorithm.MW), TupleFilter.AcceptAll, 0L).preload(0, 0, key, "a"))
    WJoinEngine.streaming(plan(Algorithm.HW), TupleFilter.AcceptAll, 0L).preload(0, 0, key, "a")
  }

  test("eager streaming probes state rows newer than the offered row (a batch period would stop at the row)") {
    for (watermark <- Seq(Long.MinValue, 0L, Long.MaxValue - 1)) {
      val e = WJoinEngine.streaming(plan(Algorithm.HW), TupleFilter.AcceptAll, watermark)
      e.preload(1, 8, key, "b8") // from an earlier batch, within the watermark delay
      e.offer(0, 5, key, "a5")
      assert(drain(e) == Seq(Seq("a5", "b8")), s"watermark $watermark")
    }
  }

  test("ordered streaming sweeps only up to the watermark; batch sweeps everything at finish()") {
    def run(e: WJoinEngine): Seq[Seq[AnyRef]] = {
      e.offer(0, 0, null, "a0"); val early = drain(e)
      e.offer(1, 3, null, "b3"); val later = drain(e)
      e.finish()
      early ++ later ++ drain(e)
    }
    assert(run(WJoinEngine.batch(plan(Algorithm.MW), TupleFilter.AcceptAll)) == Seq(Seq("a0", "b3")))
    assert(run(WJoinEngine.streaming(plan(Algorithm.MW), TupleFilter.AcceptAll, 5L)).isEmpty) // a0's period ends at 10 > W
    assert(run(WJoinEngine.streaming(plan(Algorithm.MW), TupleFilter.AcceptAll, 10L)) == Seq(Seq("a0", "b3")))
  }
}
