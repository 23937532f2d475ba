package wjoin.core.cost

import java.util.Locale

import wjoin.core.{Named, NamedValues}

/**
 * How an input window is searched when another input's row probes it (Kang et al. Sec. 4.2):
 * the structure that holds the window's rows. The letter is the paper's: a two-input plan
 * "TN" keeps window A in a T-tree and window B unindexed. The keyed range paths (hash buckets,
 * each a tree) are ours; their letters K and J name no structure of the paper.
 */
sealed abstract class AccessPath(name: String, val letter: Char) extends Named(name) {
  /** Hash buckets answer equality probes only; the others also answer ranges. */
  def answersRanges: Boolean = this != AccessPath.Hash
  /** The tree a probe searches by range (in the key's bucket for a keyed path), or None. */
  def tree: Option[AccessPath] = None
  /** The rows are bucketed by the shared equality key: a probe sees only rows with its key. */
  def bucketsByKey: Boolean = this == AccessPath.Hash
  /** The window is probed by range (`probe(key, lo, hi)`) rather than scanned. */
  final def indexed: Boolean = this == AccessPath.TTree || this == AccessPath.BPlusTree || tree.isDefined
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

  /**
   * Hash buckets on the shared key, each bucket a T-tree on the range attribute
   * (`KeyedRangeWindow`): `same key AND band` searches one bucket by range.
   */
  case object HashTTree extends AccessPath("hash+ttree", 'K') {
    override def tree: Option[AccessPath] = Some(TTree)
    override def bucketsByKey: Boolean = true
  }
  /** Hash buckets on the shared key, each bucket a B+tree on the range attribute. */
  case object HashBPlusTree extends AccessPath("hash+bplustree", 'J') {
    override def tree: Option[AccessPath] = Some(BPlusTree)
    override def bucketsByKey: Boolean = true
  }

  /**
   * Entries per node or leaf of a keyed range path's trees (at most; the plan's node size if
   * smaller): every key has its own tree, whose first node is allocated whole, so a key with
   * one row should not cost a 100-slot node.
   */
  val KeyedNodeSize: Int = 16

  /** The structures of Kang et al.'s model, each with its own calibrated weight factors. */
  val all: Seq[AccessPath] = Seq(Scan, Hash, TTree, BPlusTree)
  /** The keyed range paths: a hash lookup, then a tree search, weighted as those two. */
  val keyedRanges: Seq[AccessPath] = Seq(HashTTree, HashBPlusTree)
  /** Every path a user may name. */
  val choices: Seq[AccessPath] = all ++ keyedRanges

  override def byName(text: String): Option[AccessPath] =
    Option(text).flatMap(t => choices.find(_.name == t.toLowerCase(Locale.ROOT)))

  def parse(text: String): Option[AccessPath] = {
    val t = text.trim.toLowerCase(Locale.ROOT).replaceAll("\\s+", "")
    byName(t) orElse choices.find(_.letter.toString.equalsIgnoreCase(t)) orElse (t match {
      case "nlj" | "nested-loops" => Some(Scan)
      case "b+tree" | "btree" => Some(BPlusTree)
      case "t-tree" => Some(TTree)
      case "hash+b+tree" | "hash+btree" => Some(HashBPlusTree)
      case "hash+t-tree" => Some(HashTTree)
      case _ => None
    })
  }
}
