package wjoin.core

/**
 * A [[WJoinEngine]] driven by a feed of rows: the one loop of the engine's protocol, for a
 * batch partition and for a micro-batch alike. The combinations it completes come out one at
 * a time (the engine's tuple array, valid until the next call).
 *
 * {{{
 *   engine.next() ──true──> a combination is ready
 *        │false
 *   feed.hasNext ──true──> offer(feed.next())                   ┐ after each step: pause?
 *        │false                                                 │ (the caller has output of
 *   the next end step (finish(); a batch's anchors: evictAll()) ┘  its own, e.g. decided anchors)
 *        │none left
 *   exhausted
 * }}}
 *
 * @param engine   the engine (batch or streaming mode)
 * @param feed     the rows, in arrival order
 * @param offer    what a row does: [[WJoinEngine.feed]], or (ordered streaming mode) wait for a
 *                 later batch
 * @param endSteps run once the feed is exhausted, one at a time, each drained before the next
 */
final class EngineDrive(engine: WJoinEngine, feed: Iterator[EngineRow], offer: EngineRow => Unit,
    endSteps: Seq[() => Unit]) extends Iterator[Array[AnyRef]] {
  private var ready = false
  private var steps = endSteps.toList
  private var done = false

  /** Every row was offered, every end step run and every combination read. */
  def exhausted: Boolean = done

  /**
   * Works until a combination is ready (true), the input is exhausted (false), or `pause`
   * holds after a step that may have changed what the caller has to output (false, not
   * exhausted: call again).
   */
  def advance(pause: => Boolean): Boolean = {
    while (!ready && !done) {
      if (engine.next()) ready = true
      else if (feed.hasNext) { offer(feed.next()); if (pause) return false }
      else steps match {
        case step :: rest => steps = rest; step(); if (pause) return false
        case Nil => done = true
      }
    }
    ready
  }

  override def hasNext: Boolean = advance(pause = false)

  override def next(): Array[AnyRef] = {
    if (!ready && !hasNext) throw new NoSuchElementException("the engine's input is exhausted")
    ready = false
    engine.tuple
  }
}
