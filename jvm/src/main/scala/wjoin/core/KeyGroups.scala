package wjoin.core

/**
 * Where the rows of an [[EngineDrive]]'s feed start a new, independent W-join: the drive
 * closes the last one (its combinations out, its windows emptied) before it offers such a row.
 * Chosen once, with the feed's order.
 */
sealed abstract class FeedGroups {
  /** Whether `r`, the feed's next row, starts a new group. */
  def starts(r: EngineRow): Boolean
}

object FeedGroups {
  /** The feed is in time order: it is one W-join. */
  case object Whole extends FeedGroups {
    def starts(r: EngineRow): Boolean = false
  }

  /**
   * Key-grouped evaluation of a batch W-join whose every input is bucketed on one shared key:
   * each input is sorted by a value of its key (`order`: equal keys, equal values), then time,
   * the inputs are merged in that order, and each value's rows are joined on their own, one
   * group after the other, by the same engine.
   *
   * {{{
   *   feed:   (k1,t1) (k1,t4) (k1,t9) | (k2,t2) (k2,t3) | (k3,t0) ...   each group's rows in time order
   *                                   ^ order.compare(r.key, last key) != 0: close the group, offer r
   *   close:  finish(); drain      every combination of k1's rows is out
   *           evictAll(); drain    k1's rows leave the windows (anchored joins decide them there)
   *           restart()            time order starts over for k2 ([[WJoinEngine.restart]])
   * }}}
   *
   * Exact: the members of a combination share one key (every window is bucketed on it), so the
   * combinations of the partition are the disjoint union over keys of each key's combinations,
   * and the engine finds those of key k among k's rows alone, each once, as it would in time
   * order. An anchor row's matches share its key too, so it is decided within its group. Keys
   * whose values are equal (a hash collision) share a group: in it their rows are in time order
   * and the windows' buckets keep them apart, as in the time order of the whole partition.
   *
   * Why: in time order a partition's windows hold every key's rows of the window's span; with
   * many keys and wide windows that is most of the partition, each row an object the garbage
   * collector copies until it is old. A group holds one key's rows; the others wait in Spark's
   * sorter, in its memory pages (as a sort-merge join's rows do). The feed's rows must come in
   * groups: equal keys (`equals`, byte equality for the types hashing accepts) compare 0, so a
   * key never recurs after its group is closed.
   *
   * @param order the order of the feed's keys; two keys are in one group when they compare 0
   */
  final class ByKey(order: java.util.Comparator[AnyRef]) extends FeedGroups {
    private var key: AnyRef = null
    def starts(r: EngineRow): Boolean = {
      val k = r.key
      assert(k != null, "a key-grouped feed has no row without a key")
      val changed = key != null && order.compare(k, key) != 0
      key = k
      changed
    }
  }

  /**
   * What the first rows (in time order) of one input of a partition show, for [[byKeyPays]].
   *
   * @param rows         rows seen that can join (a time and a key)
   * @param first        their least time
   * @param last         their greatest time
   * @param distinctKeys distinct keys among them
   * @param exhausted    they are the input's every row
   */
  final case class InputPrefix(rows: Int, first: Long, last: Long, distinctKeys: Int, exhausted: Boolean)

  /** An input's prefix shorter than this says nothing about its keys. */
  val MinPrefixRows = 64

  /**
   * Whether a partition pays to be joined key by key, from its inputs' prefixes: its windows
   * would hold more than `heldRows` rows in time order, and its keys hardly repeat, so a key's
   * group holds far fewer rows than the windows would.
   *
   * {{{
   *   held_j = k_j                                          prefix exhausted (the whole input)
   *          = k_j / (last_j - first_j + 1) x (horizon_j + 1)   its rate x how long a row stays
   *   pays  <=>  sum_j held_j > heldRows  and  2 d_j > k_j for every input with k_j >= MinPrefixRows
   *              (and at least one such input); always when heldRows = 0
   * }}}
   *
   * Otherwise the time order is kept: it reads the inputs as sorted once, where key groups sort
   * them again by key; with few keys a group is most of a window anyway.
   *
   * @param prefixes each input's prefix
   * @param horizon  per input, how long (time units) its rows stay in its window ([[EnginePlan.horizon]])
   * @param heldRows the rows of time-ordered windows above which key groups pay; 0: always
   */
  def byKeyPays(prefixes: Seq[InputPrefix], horizon: Seq[Long], heldRows: Long): Boolean = heldRows == 0 || {
    val held = prefixes.indices.map { j =>
      val p = prefixes(j)
      if (p.exhausted || p.rows == 0) p.rows.toDouble
      else p.rows / (p.last.toDouble - p.first.toDouble + 1) * (horizon(j).toDouble + 1)
    }.sum
    val sized = prefixes.filter(_.rows >= MinPrefixRows)
    held > heldRows && sized.nonEmpty && sized.forall(p => 2L * p.distinctKeys > p.rows)
  }
}
