package wjoin.core.cost

import java.util.Locale

import wjoin.core.{Named, NamedValues}

/**
 * How an input window is searched when another input's row probes it (Kang et al. Sec. 4.2):
 * the structure that holds the window's rows. The letter is the paper's: a two-input plan
 * "TN" keeps window A in a T-tree and window B unindexed.
 */
sealed abstract class AccessPath(name: String, val letter: Char) extends Named(name) {
  /** Hash buckets answer equality probes only; the others also answer ranges. */
  def answersRanges: Boolean = this != AccessPath.Hash
}

object AccessPath extends NamedValues[AccessPath] {
  /** Nested loops: the ring buffer in arrival order, scanned whole (NLJ; `TimeSortedBuffer`). */
  case object Scan extends AccessPath("scan", 'N')
  /** Per-key buckets, each a ring buffer in arrival order (HJ; the ICEIS 2005 study; `HashWindow`). */
  case object Hash extends AccessPath("hash", 'H')
  /** T-tree over the range attribute (TJ; `wjoin.core.index.TTree`). */
  case object TTree extends AccessPath("ttree", 'T')
  /** B+tree over the range attribute (BJ; `wjoin.core.index.BPlusTree`). */
  case object BPlusTree extends AccessPath("bplustree", 'B')

  val all: Seq[AccessPath] = Seq(Scan, Hash, TTree, BPlusTree)

  def parse(text: String): Option[AccessPath] = {
    val t = text.trim.toLowerCase(Locale.ROOT)
    byName(t) orElse all.find(_.letter.toString.equalsIgnoreCase(t)) orElse
      (if (t == "nlj" || t == "nested-loops") Some(Scan) else if (t == "b+tree" || t == "btree") Some(BPlusTree)
      else if (t == "t-tree") Some(TTree) else None)
  }
}
