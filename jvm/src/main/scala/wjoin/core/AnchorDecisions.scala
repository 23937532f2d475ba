package wjoin.core

import wjoin.errors.WJoinErrors

/**
 * What a W-join emits (Spark's join-type names); the first input is the anchor.
 *
 * {{{
 *   inner       every combination (r_1 .. r_N)
 *   left        every combination, plus each r_1 in none of them, with NULLs for the others
 *   left_semi   each r_1 in at least one combination, once (r_1's columns only)
 *   left_anti   each r_1 in no combination, once (r_1's columns only)
 * }}}
 */
sealed abstract class JoinHow(name: String) extends Named(name) {
  /** The anchor's rows must be decided (matched or not): every how but inner. */
  def anchored: Boolean = this != JoinHow.Inner
}

object JoinHow extends NamedValues[JoinHow] {
  case object Inner extends JoinHow("inner")
  case object LeftOuter extends JoinHow("left")
  case object LeftSemi extends JoinHow("left_semi")
  case object LeftAnti extends JoinHow("left_anti")

  val all: Seq[JoinHow] = Seq(Inner, LeftOuter, LeftSemi, LeftAnti)

  /** Our names and Spark's other spellings of these join types, as its `JoinType(...)` reads them: '_' removed. */
  private val sparkSpellings: Map[String, JoinHow] = all.map(h => h.name.replace("_", "") -> h).toMap ++
    Map("leftouter" -> LeftOuter, "semi" -> LeftSemi, "anti" -> LeftAnti)

  /**
   * The how named `text`: one of [[all]]'s names or Spark's spelling of the same join type
   * (`left_outer`, `leftsemi`, `anti`, ...), in any case; WJOIN_UNKNOWN_CHOICE naming it and
   * the accepted names otherwise (Spark's right, full and cross joins have no anchor here).
   */
  def parseOrFail(text: String): JoinHow = Option(text)
    .flatMap(t => sparkSpellings.get(t.trim.toLowerCase(java.util.Locale.ROOT).replace("_", "")))
    .getOrElse(WJoinErrors.raise("WJOIN_UNKNOWN_CHOICE", "option" -> "how", "value" -> text, "choices" -> all.map(_.name)))

  /** The decisions of an anchored how (never inner: an inner join decides nothing). */
  def decisions(how: JoinHow, firstMatch: AnyRef => Unit = _ => ()): AnchorDecisions = how match {
    case LeftOuter => new AnchorDecisions.Outer(firstMatch)
    case LeftSemi => new AnchorDecisions.Semi(firstMatch)
    case LeftAnti => new AnchorDecisions.Anti(firstMatch)
    case Inner => throw new AssertionError("an inner W-join has no anchor decisions")
  }
}

/**
 * Decides each anchor row (a row of input 0) exactly once, for the left outer, left semi and
 * left anti W-join. The engine only produces combinations; this class watches them and the
 * anchor's evictions. One subclass per how, chosen once when the evaluator is built, so the
 * inner join never runs any of it.
 *
 * {{{
 *   combination (r_1 .. r_N) ──> combination(tuple): r_1 matched (first time: firstMatch)
 *                                 returns: is the combination itself output? (left: yes)
 *   r_1 leaves the windows   ──> evicted(r_1): matched or not, it is decided now
 *   r_1 never joins (NULL)   ──> unjoinable(r_1): decided unmatched at once
 *                                        │
 *                                        v
 *                          pending: anchor rows to output, in decision order
 * }}}
 *
 * Why eviction decides: an engine drops a row of input 0 only once no later row can join it
 * (backward evaluation: ts + horizon(0) <= min(t - 1, W); forward evaluation: after its sweep,
 * by which every combination holding it was enumerated, its oldest member being no later;
 * count windows: k newer rows of its input), and only after every combination already
 * possible was enumerated. So at eviction the anchor row's membership is final:
 * {{{
 *   left       emits r_1 ++ NULLs   iff  r_1 in no combination     (at eviction)
 *   left_semi  emits r_1            iff  r_1 in some combination   (at its first combination)
 *   left_anti  emits r_1            iff  r_1 in no combination     (at eviction)
 * }}}
 * A batch partition ends with [[WJoinEngine.evictAll]]; a streaming batch evicts up to its
 * watermark W, which decides exactly the anchors with ts + horizon(0) <= W.
 *
 * Rows are told apart by identity: the engine hands the same object to the combination's tuple
 * and to its eviction. Only matched anchors still in the windows are remembered (`matched`).
 *
 * @param firstMatch called once per anchor row at its first combination (streaming: the mark is
 *                   persisted with the row)
 */
sealed abstract class AnchorDecisions(firstMatch: AnyRef => Unit) {
  private val matched = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[AnyRef, java.lang.Boolean])
  /** Anchor rows decided for output, oldest first (see [[JoinHow]] for which). */
  final val pending = new java.util.ArrayDeque[AnyRef]()

  /** A combination; true when the combination itself is output. */
  def combination(tuple: Array[AnyRef]): Boolean

  /** An anchor row leaves the windows: decided. */
  def evicted(row: AnyRef): Unit

  /** An anchor row that never joins (NULL time or NULL key): decided unmatched. */
  def unjoinable(row: AnyRef): Unit

  /** An anchor row of the streaming state already matched in an earlier batch. */
  final def restoreMatched(row: AnyRef): Unit = matched.add(row)

  /** Matched anchor rows still in the windows (decided for every how: never output as unmatched). */
  final def matchedInWindows: Int = matched.size

  /** Marks r matched; true the first time. */
  protected final def mark(row: AnyRef): Boolean = matched.add(row) && { firstMatch(row); true }
  /** Forgets r; true when it was matched. */
  protected final def release(row: AnyRef): Boolean = matched.remove(row)
  protected final def out(row: AnyRef): Unit = pending.add(row)
}

object AnchorDecisions {
  /** Left outer: every combination, and each unmatched anchor once, padded with NULLs. */
  final class Outer(firstMatch: AnyRef => Unit) extends AnchorDecisions(firstMatch) {
    def combination(tuple: Array[AnyRef]): Boolean = { mark(tuple(0)); true }
    def evicted(row: AnyRef): Unit = if (!release(row)) out(row)
    def unjoinable(row: AnyRef): Unit = out(row)
  }

  /** Left semi: each anchor at its first combination (without waiting for eviction). */
  final class Semi(firstMatch: AnyRef => Unit) extends AnchorDecisions(firstMatch) {
    def combination(tuple: Array[AnyRef]): Boolean = { if (mark(tuple(0))) out(tuple(0)); false }
    def evicted(row: AnyRef): Unit = release(row)
    def unjoinable(row: AnyRef): Unit = ()
  }

  /** Left anti: each anchor in no combination, at its eviction. */
  final class Anti(firstMatch: AnyRef => Unit) extends AnchorDecisions(firstMatch) {
    def combination(tuple: Array[AnyRef]): Boolean = { mark(tuple(0)); false }
    def evicted(row: AnyRef): Unit = if (!release(row)) out(row)
    def unjoinable(row: AnyRef): Unit = out(row)
  }
}
