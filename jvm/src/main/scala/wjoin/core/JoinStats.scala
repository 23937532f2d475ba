package wjoin.core

/** Counters of one engine run; the exec node copies them into SQL metrics. */
final class JoinStats(n: Int) {
  val rowsIn: Array[Long] = new Array[Long](n)
  var results: Long = 0
  /** Time-stamp comparisons: period inclusion tests and binary-search steps. */
  var comparisons: Long = 0
  var predicateEvals: Long = 0
  /** Candidates of a conservative period matrix (GCA / LCA) that failed the true windows. */
  var refineRejections: Long = 0
  /** Candidates inside the excluded matrix (bidirectional: found by the other direction). */
  var excluded: Long = 0
  var evicted: Long = 0
  var buffered: Long = 0
  var peakBuffered: Long = 0
  /** Load shedding ([[wjoin.core.shedding]]): arriving rows not kept in their window. */
  var shedRows: Long = 0
  /** Load shedding: arriving rows that did not probe the other windows. */
  var shedProbes: Long = 0

  /**
   * Zeroes the counters of one run (not `buffered`, the windows' size): a streaming engine
   * kept across micro-batches reports each batch's counts.
   */
  def resetCounters(): Unit = {
    java.util.Arrays.fill(rowsIn, 0L)
    results = 0; comparisons = 0; predicateEvals = 0; refineRejections = 0; excluded = 0; evicted = 0
    shedRows = 0; shedProbes = 0
    peakBuffered = buffered
  }
}

/**
 * The non-window part of the join predicate, split by where it can first be decided: the
 * engine calls `test` right after binding the member at `depth` of `origin`'s probe order
 * (depth 0 = first probed input), only where `activeAt` said a test is due.
 */
trait TupleFilter {
  def activeAt(origin: Int, depth: Int): Boolean
  def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean
}

object TupleFilter {
  val AcceptAll: TupleFilter = new TupleFilter {
    def activeAt(origin: Int, depth: Int): Boolean = false
    def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean = true
  }
}
