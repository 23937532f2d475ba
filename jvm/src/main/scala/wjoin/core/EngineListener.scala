package wjoin.core

/**
 * What an engine reports about its rows besides the combinations, given when the engine is
 * built (never assigned afterwards): the streaming state's bookkeeping and the anchor
 * decisions of left / semi / anti W-joins listen here.
 */
trait EngineListener {
  /** Row `row` of input `input` at `time` left the windows (eager: out of reach; ordered: swept). */
  def evicted(input: Int, time: Long, row: AnyRef): Unit = ()
  /** Under resource limits: `row` of `input`, just offered, was not kept in its window. */
  def shed(input: Int, row: AnyRef): Unit = ()
}

object EngineListener {
  /** Nothing listens. */
  object Silent extends EngineListener
}
