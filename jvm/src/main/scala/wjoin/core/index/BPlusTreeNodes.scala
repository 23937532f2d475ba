package wjoin.core.index

import BPlusTreeNodes.Leaf

/** The B+tree's nodes and cursor (see [[BPlusTree]]). */
private[index] object BPlusTreeNodes {

  private[index] sealed abstract class Node {
    /** Entries of a leaf, children of an inner node. */
    var count = 0
  }

  /** Entries in sorted primitive keys plus parallel values; one spare slot for the split. */
  private[index] final class Leaf(capacity: Int) extends Node with SortedSlots {
    val keys = new Array[Long](capacity + 1)
    val values = new Array[AnyRef](capacity + 1)
    var next: Leaf = null

    /** Moves entries [from, count) into a new leaf linked right after this one. */
    def splitOff(from: Int): Leaf = {
      val right = new Leaf(keys.length - 1)
      val moved = count - from
      System.arraycopy(keys, from, right.keys, 0, moved)
      System.arraycopy(values, from, right.values, 0, moved)
      java.util.Arrays.fill(values, from, count, null)
      right.count = moved
      count = from
      right.next = next
      next = right
      right
    }

    /** Appends every entry of the next leaf and unlinks it. */
    def absorb(right: Leaf): Unit = {
      System.arraycopy(right.keys, 0, keys, count, right.count)
      System.arraycopy(right.values, 0, values, count, right.count)
      count += right.count
      next = right.next
    }
  }

  /** `count` children and `count - 1` separators; one spare slot each for the split. */
  private[index] final class Inner(maxChildren: Int) extends Node {
    val keys = new Array[Long](maxChildren)
    val children = new Array[Node](maxChildren + 1)

    /** First separator index >= k (count - 1 if none): the child where keys >= k begin. */
    def lowerBound(k: Long): Int = {
      var lo = 0
      var hi = count - 1
      while (lo < hi) { val mid = (lo + hi) >>> 1; if (keys(mid) < k) lo = mid + 1 else hi = mid }
      lo
    }

    /** First separator index > k (count - 1 if none): the child where k is inserted. */
    def upperBound(k: Long): Int = {
      var lo = 0
      var hi = count - 1
      while (lo < hi) { val mid = (lo + hi) >>> 1; if (keys(mid) <= k) lo = mid + 1 else hi = mid }
      lo
    }

    /** Child i split: `right` follows it, separated by `separator`. */
    def insertChild(i: Int, separator: Long, right: Node): Unit = {
      System.arraycopy(keys, i, keys, i + 1, count - 1 - i)
      System.arraycopy(children, i + 1, children, i + 2, count - 1 - i)
      keys(i) = separator
      children(i + 1) = right
      count += 1
    }

    /** Removes child i (i >= 1) and the separator before it, or child 0 and the one after. */
    def removeChild(i: Int): Unit = {
      val sep = math.max(0, i - 1)
      System.arraycopy(keys, sep + 1, keys, sep, count - 2 - sep)
      System.arraycopy(children, i + 1, children, i, count - 1 - i)
      count -= 1
      children(count) = null
    }

    /** Moves children [from, count) to a new node; returns it and the separator between. */
    def splitOff(from: Int): (Inner, Long) = {
      val right = new Inner(keys.length)
      val moved = count - from
      System.arraycopy(children, from, right.children, 0, moved)
      System.arraycopy(keys, from, right.keys, 0, moved - 1)
      java.util.Arrays.fill(children.asInstanceOf[Array[AnyRef]], from, count, null)
      right.count = moved
      count = from
      (right, keys(from - 1))
    }

    def insertChildFirst(child: Node, separator: Long): Unit = {
      System.arraycopy(keys, 0, keys, 1, count - 1)
      System.arraycopy(children, 0, children, 1, count)
      keys(0) = separator
      children(0) = child
      count += 1
    }

    def appendChild(separator: Long, child: Node): Unit = {
      keys(count - 1) = separator
      children(count) = child
      count += 1
    }

    def removeLastChild(): Unit = {
      count -= 1
      children(count) = null
    }

    def removeFirstChild(): Unit = {
      System.arraycopy(keys, 1, keys, 0, count - 2)
      System.arraycopy(children, 1, children, 0, count - 1)
      count -= 1
      children(count) = null
    }

    /** Appends the children of the next sibling, with the parent's separator between. */
    def absorb(separator: Long, right: Inner): Unit = {
      keys(count - 1) = separator
      System.arraycopy(right.keys, 0, keys, count, right.count - 1)
      System.arraycopy(right.children, 0, children, count, right.count)
      count += right.count
    }
  }
}

/** Position in the leaf chain; stops at the first key > hi. */
private final class BPlusTreeCursor[T](private var leaf: Leaf, start: Int, hi: Long) extends RangeCursor[T] {
  private var index = start - 1
  def key: Long = leaf.keys(index)
  def value: T = leaf.values(index).asInstanceOf[T]

  def next(): Boolean = {
    if (leaf == null) return false
    index += 1
    while (index >= leaf.count) {
      leaf = leaf.next
      index = 0
      if (leaf == null) return false
    }
    if (leaf.keys(index) > hi) { leaf = null; false } else true
  }
}
