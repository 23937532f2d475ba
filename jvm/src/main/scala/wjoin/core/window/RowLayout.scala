package wjoin.core.window

/**
 * Where a window built whole keeps its rows in memory: given its rows in the order probes read
 * them (a [[StaticHashWindow]]'s buckets one after the other, each by time; a ring by time),
 * a layout may replace each row by an equal one whose bytes sit next to its neighbours', so a
 * probe that reads a bucket's rows, and the output that copies them, touch a few cache lines
 * instead of one per row scattered over the input (rows arrive in the input's order, not the
 * bucket's). The engine never looks into rows; the exec layer knows their format.
 */
trait RowLayout {
  /** Replaces `rows(0 until count)` in place by equal rows laid out in that order. */
  def lay(rows: Array[AnyRef], count: Int): Unit
}

object RowLayout {
  /** Rows stay where they are (core tests, rows that are not byte rows). */
  val AsTheyAre: RowLayout = (_, _) => ()
}
