package wjoin.core.index

import TTreeNodes.Node

/** The T-tree's nodes and cursor (see [[TTree]]). */
private[index] object TTreeNodes {

  /** A T-tree node: a sorted run of entries in primitive arrays, with AVL links. */
  private[index] final class Node(capacity: Int) extends SortedSlots {
    val keys = new Array[Long](capacity)
    val values = new Array[AnyRef](capacity)
    var count = 0
    var left: Node = null
    var right: Node = null
    /** 1 for a leaf; an empty subtree has height 0. */
    var height = 1

    def minKey: Long = keys(0)
    def maxKey: Long = keys(count - 1)
    def isLeaf: Boolean = left == null && right == null
    def updateHeight(): Unit = height = 1 + math.max(TTreeNodes.height(left), TTreeNodes.height(right))


    /** Puts all entries of `other` (which precede this node's) in front. */
    def prepend(other: Node): Unit = {
      System.arraycopy(keys, 0, keys, other.count, count)
      System.arraycopy(values, 0, values, other.count, count)
      System.arraycopy(other.keys, 0, keys, 0, other.count)
      System.arraycopy(other.values, 0, values, 0, other.count)
      count += other.count
    }

    /** Puts all entries of `other` (which follow this node's) at the end. */
    def append(other: Node): Unit = {
      System.arraycopy(other.keys, 0, keys, count, other.count)
      System.arraycopy(other.values, 0, values, count, other.count)
      count += other.count
    }

    /** Moves the last `m` entries of `pred` (the in-order predecessor node) to the front. */
    def takeTailOf(pred: Node, m: Int): Unit = {
      System.arraycopy(keys, 0, keys, m, count)
      System.arraycopy(values, 0, values, m, count)
      System.arraycopy(pred.keys, pred.count - m, keys, 0, m)
      System.arraycopy(pred.values, pred.count - m, values, 0, m)
      java.util.Arrays.fill(pred.values, pred.count - m, pred.count, null)
      pred.count -= m
      count += m
    }

    /** Moves the first `m` entries of `succ` (the in-order successor node) to the end. */
    def takeHeadOf(succ: Node, m: Int): Unit = {
      System.arraycopy(succ.keys, 0, keys, count, m)
      System.arraycopy(succ.values, 0, values, count, m)
      System.arraycopy(succ.keys, m, succ.keys, 0, succ.count - m)
      System.arraycopy(succ.values, m, succ.values, 0, succ.count - m)
      java.util.Arrays.fill(succ.values, succ.count - m, succ.count, null)
      succ.count -= m
      count += m
    }
  }

  private[index] object Node {
    def leaf(capacity: Int, k: Long, v: AnyRef): Node = {
      val n = new Node(capacity)
      n.keys(0) = k
      n.values(0) = v
      n.count = 1
      n
    }
  }

  private[index] def height(n: Node): Int = if (n == null) 0 else n.height
}

/**
 * In-order walk over [lo, hi] with an explicit stack of the nodes still to visit, so a probe
 * can stop after any entry and resume. The stack never holds more than the tree height.
 */
private final class TTreeCursor[T](root: Node, lo: Long, hi: Long) extends RangeCursor[T] {
  private val stack = new Array[Node](math.max(1, TTreeNodes.height(root)))
  private var depth = 0
  private var node: Node = null
  private var index = 0
  private var done = lo > hi

  // Descend towards lo, remembering each node whose entries (or left subtree) may still
  // match; a node with min < lo <= max is the bounding node: nothing to its left can match.
  if (!done) {
    var n = root
    while (n != null) {
      if (lo > n.maxKey) n = n.right
      else {
        stack(depth) = n
        depth += 1
        n = if (lo <= n.minKey) n.left else null
      }
    }
  }

  def key: Long = node.keys(index)
  def value: T = node.values(index).asInstanceOf[T]

  def next(): Boolean = {
    if (done) return false
    if (node != null) {
      index += 1
      if (index >= node.count) {
        pushLeftSpine(node.right)
        node = null
      }
    }
    if (node == null) {
      if (depth == 0) { done = true; return false }
      depth -= 1
      node = stack(depth)
      index = if (lo <= node.minKey) 0 else node.lowerBound(lo)
    }
    if (node.keys(index) > hi) { done = true; return false }
    true
  }

  private def pushLeftSpine(from: Node): Unit = {
    var n = from
    while (n != null) { stack(depth) = n; depth += 1; n = n.left }
  }
}
