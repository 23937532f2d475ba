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
 * With key groups ([[FeedGroups.ByKey]]) a row that starts a new group is held back while the
 * last group is closed, one step at a time as above: finish(), evictAll(), restart().
 *
 * @param engine   the engine (batch or streaming mode)
 * @param feed     the rows, in arrival order
 * @param offer    what a row does: [[WJoinEngine.feed]], or (ordered streaming mode) wait for a
 *                 later batch
 * @param endSteps run once the feed is exhausted, one at a time, each drained before the next
 * @param groups   where the feed starts a new, independent W-join (batch); Whole: nowhere
 */
final class EngineDrive(engine: WJoinEngine, feed: Iterator[EngineRow], offer: EngineRow => Unit,
    endSteps: Seq[() => Unit], groups: FeedGroups = FeedGroups.Whole) extends Iterator[Array[AnyRef]] {
  private var ready = false
  private var steps = endSteps.toList
  private var done = false
  /** The first row of the next group, offered once the last group is closed; or null. */
  private var held: EngineRow = null
  /** The steps still to run to close the last group. */
  private var closing: List[() => Unit] = Nil
  private val closeGroup: List[() => Unit] = List(() => engine.finish(), () => engine.evictAll(), () => engine.restart())

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
      else if (closing.nonEmpty) { val step = closing.head; closing = closing.tail; step(); if (pause) return false }
      else if (held != null) { val r = held; held = null; offer(r); if (pause) return false }
      else if (feed.hasNext) {
        val r = feed.next()
        if (groups.starts(r)) { held = r; closing = closeGroup }
        else { offer(r); if (pause) return false }
      }
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
