package wjoin.core.index

import BPlusTreeNodes.{Inner, Leaf, Node}

/**
 * In-memory B+tree (the "BJ" access path of Kang et al.): entries live only in the leaves,
 * which are chained left to right so a range probe descends once and then walks the chain;
 * inner nodes hold separators that route the descent.
 *
 * {{{
 *                       inner: seps [ 20 | 41 ]
 *                     /            |            \
 *   leaf [ 3 7 12 20 ] --> leaf [ 20 33 40 41 ] --> leaf [ 41 45 50 ] --> null
 * }}}
 *
 * Layout: a leaf keeps its keys in one `Array[Long]` and its values in a parallel
 * `Array[AnyRef]`; an inner node keeps its separators in an `Array[Long]`. A probe
 * therefore binary-searches contiguous primitive keys at every level (the cache argument
 * for B+trees over T-trees that Kang et al. cites).
 *
 * Invariants (checked by `checkInvariants` after every operation in the tests):
 *  - all leaves are at the same depth; the leaf chain visits the leaves in key order;
 *  - in an inner node with children c(0..m) and separators s(0..m-1):
 *    keys(c(i)) <= s(i) <= keys(c(i+1)). Equal keys may therefore straddle a separator
 *    (duplicates are allowed), and the entries in chain order are sorted by key with ties
 *    in insertion order;
 *  - fill: a leaf other than the root holds `minLeaf` to `leafCapacity` entries, an inner
 *    node other than the root `minChildren` to `fanout` children; an inner root has at
 *    least 2 children. Deletes rebalance eagerly (borrow from a sibling, else merge), so
 *    memory stays proportional to the entries however the window's keys come and go.
 *
 * Operations, for n entries, leaf capacity N, fan-out F and d equal keys before the one
 * sought:
 *  - descent: ceil(log_F(n / N)) + 1 levels, a binary search of O(log2 N) in each
 *    (Kang et al. Eq. 5 with F = N + 1);
 *  - insert: the descent, an O(N) shift, a split per full level (amortized O(1));
 *  - delete(key, value): the descent to the first entry of `key`, O(d) further entries, an
 *    O(N) shift, a borrow or merge per underfull level; expiring the oldest row has d = 0;
 *  - range probe [lo, hi] (inclusive): the descent plus the matching entries.
 * Not thread-safe.
 *
 * @param leafCapacity entries per leaf (Kang et al.'s node size N; 100 there)
 * @param fanout       children per inner node, at least 3; 0 or less (the default) means
 *                     leafCapacity + 1 (but at least 3), as in Eq. 5's log_{N+1}
 */
final class BPlusTree[T](val leafCapacity: Int = 100, val fanout: Int = -1) extends RangeIndex[T] {
  assert(leafCapacity >= 2, s"a B+tree leaf must hold at least 2 entries, got $leafCapacity")
  /** Children per inner node; a split of fanout + 1 children needs fanout >= 3. */
  val maxChildren: Int = if (fanout > 0) fanout else math.max(3, leafCapacity + 1)
  assert(maxChildren >= 3, s"a B+tree inner node needs a fan-out of at least 3, got $fanout")

  /** A split of leafCapacity + 1 entries leaves at least this many on each side. */
  val minLeaf: Int = (leafCapacity + 1) / 2
  val minChildren: Int = (maxChildren + 1) / 2

  private var root: Node = new Leaf(leafCapacity)
  private var count = 0
  // Result of a split, handed from a child to its parent without allocating a tuple.
  private var splitSeparator = 0L

  def size: Int = count

  /** Levels from the root to the leaves (1 for a single leaf). */
  def height: Int = {
    var h = 1
    var n = root
    while (n.isInstanceOf[Inner]) { n = n.asInstanceOf[Inner].children(0); h += 1 }
    h
  }

  def nodeCount: Int = {
    def walk(n: Node): Int = n match {
      case leaf: Leaf => 1
      case inner: Inner => 1 + (0 until inner.count).map(i => walk(inner.children(i))).sum
    }
    walk(root)
  }

  def leafCount: Int = {
    var leaf = firstLeafFor(Long.MinValue)
    var leaves = 0
    while (leaf != null) { leaves += 1; leaf = leaf.next }
    leaves
  }

  def insert(key: Long, value: T): Unit = {
    val right = insertInto(root, key, value.asInstanceOf[AnyRef])
    if (right != null) {
      val newRoot = new Inner(maxChildren)
      newRoot.children(0) = root
      newRoot.children(1) = right
      newRoot.keys(0) = splitSeparator
      newRoot.count = 2
      root = newRoot
    }
    count += 1
  }

  def delete(key: Long, value: T): Boolean = {
    val found = deleteFrom(root, key, value.asInstanceOf[AnyRef])
    if (found) {
      count -= 1
      root match {
        case inner: Inner if inner.count == 1 => root = inner.children(0) // the tree shrinks
        case _ =>
      }
    }
    found
  }

  def foreachInRange(lo: Long, hi: Long)(visit: (Long, T) => Unit): Unit = {
    if (lo > hi) return
    var leaf = firstLeafFor(lo)
    var i = leaf.lowerBound(lo)
    while (leaf != null) {
      while (i < leaf.count) {
        val k = leaf.keys(i)
        if (k > hi) return
        visit(k, leaf.values(i).asInstanceOf[T])
        i += 1
      }
      leaf = leaf.next
      i = 0
    }
  }

  def cursor(lo: Long, hi: Long): RangeCursor[T] = {
    val leaf = if (lo > hi) null else firstLeafFor(lo)
    new BPlusTreeCursor[T](leaf, if (leaf == null) 0 else leaf.lowerBound(lo), hi)
  }

  /**
   * The leaf where entries >= lo begin: at each level the child before the first separator
   * >= lo (the children further left hold only keys <= a separator < lo). If that leaf holds
   * no key >= lo, the chain continues to the right one.
   */
  private def firstLeafFor(lo: Long): Leaf = {
    var n = root
    while (n.isInstanceOf[Inner]) {
      val inner = n.asInstanceOf[Inner]
      n = inner.children(inner.lowerBound(lo))
    }
    n.asInstanceOf[Leaf]
  }

  // ---- insert ------------------------------------------------------------------------------

  /**
   * Inserts after all equal keys: at each level the child after the last separator <= key.
   * Returns the new right sibling when `n` split (its separator in `splitSeparator`).
   * Nodes have one spare slot, so a split happens after the insert, on a full array.
   */
  private def insertInto(n: Node, key: Long, value: AnyRef): Node = n match {
    case leaf: Leaf =>
      leaf.insertAt(leaf.upperBound(key), key, value)
      if (leaf.count <= leafCapacity) null
      else {
        val right = leaf.splitOff(leaf.count / 2)
        splitSeparator = right.keys(0)
        right
      }
    case inner: Inner =>
      val i = inner.upperBound(key)
      val newChild = insertInto(inner.children(i), key, value)
      if (newChild == null) null
      else {
        inner.insertChild(i, splitSeparator, newChild)
        if (inner.count <= maxChildren) null
        else {
          val (right, separator) = inner.splitOff(inner.count / 2)
          splitSeparator = separator
          right
        }
      }
  }

  // ---- delete ------------------------------------------------------------------------------

  /**
   * Removes the first entry equal to (key, value) below `n`. The entries of `key` start in
   * the child before the first separator >= key and continue into the next child only while
   * the separator between them equals `key`, so older duplicates come first.
   */
  private def deleteFrom(n: Node, key: Long, value: AnyRef): Boolean = n match {
    case leaf: Leaf =>
      val at = leaf.indexOf(key, value)
      if (at >= 0) leaf.removeAt(at)
      at >= 0
    case inner: Inner =>
      var i = inner.lowerBound(key)
      while (true) {
        if (deleteFrom(inner.children(i), key, value)) {
          repairUnderflow(inner, i)
          return true
        }
        if (i + 1 < inner.count && inner.keys(i) == key) i += 1 else return false
      }
      false
  }

  /** Child i of `parent` may have fallen under its minimum: borrow from a sibling, else merge. */
  private def repairUnderflow(parent: Inner, i: Int): Unit = parent.children(i) match {
    case leaf: Leaf if leaf.count < minLeaf =>
      val left = if (i > 0) parent.children(i - 1).asInstanceOf[Leaf] else null
      val right = if (i + 1 < parent.count) parent.children(i + 1).asInstanceOf[Leaf] else null
      if (left != null && left.count > minLeaf) {
        leaf.insertAt(0, left.keys(left.count - 1), left.values(left.count - 1))
        left.removeAt(left.count - 1)
        parent.keys(i - 1) = leaf.keys(0)
      } else if (right != null && right.count > minLeaf) {
        leaf.insertAt(leaf.count, right.keys(0), right.values(0))
        right.removeAt(0)
        parent.keys(i) = right.keys(0)
      } else if (left != null) {
        left.absorb(leaf)
        parent.removeChild(i)
      } else if (right != null) {
        leaf.absorb(right)
        parent.removeChild(i + 1)
      }
    case inner: Inner if inner.count < minChildren =>
      val left = if (i > 0) parent.children(i - 1).asInstanceOf[Inner] else null
      val right = if (i + 1 < parent.count) parent.children(i + 1).asInstanceOf[Inner] else null
      if (left != null && left.count > minChildren) {
        // Rotate right through the parent: left's last child moves over, separators shift.
        inner.insertChildFirst(left.children(left.count - 1), parent.keys(i - 1))
        parent.keys(i - 1) = left.keys(left.count - 2)
        left.removeLastChild()
      } else if (right != null && right.count > minChildren) {
        inner.appendChild(parent.keys(i), right.children(0))
        parent.keys(i) = right.keys(0)
        right.removeFirstChild()
      } else if (left != null) {
        left.absorb(parent.keys(i - 1), inner)
        parent.removeChild(i)
      } else if (right != null) {
        inner.absorb(parent.keys(i), right)
        parent.removeChild(i + 1)
      }
    case _ =>
  }

  // ---- inspection (tests, benchmarks) --------------------------------------------------------

  /** Every entry in leaf-chain order. */
  private[index] def entries: Vector[(Long, T)] = {
    val out = Vector.newBuilder[(Long, T)]
    foreachInRange(Long.MinValue, Long.MaxValue)((k, v) => out += ((k, v)))
    out.result()
  }

  /** Throws if a structural invariant of the class comment does not hold. */
  private[index] def checkInvariants(): Unit = {
    val leavesInOrder = Vector.newBuilder[Leaf]
    var leafDepth = -1
    def check(n: Node, depth: Int, lowest: Long, highest: Long, isRoot: Boolean): Int = n match {
      case leaf: Leaf =>
        if (leafDepth < 0) leafDepth = depth
        assert(depth == leafDepth, "leaves at different depths")
        assert(leaf.count <= leafCapacity, s"leaf overflow ${leaf.count}")
        assert(isRoot || leaf.count >= minLeaf, s"leaf underflow ${leaf.count} < $minLeaf")
        for (j <- 0 until leaf.count) {
          assert(leaf.keys(j) >= lowest && leaf.keys(j) <= highest, s"leaf key ${leaf.keys(j)} outside [$lowest, $highest]")
          if (j > 0) assert(leaf.keys(j - 1) <= leaf.keys(j), "leaf keys out of order")
        }
        for (j <- leaf.count until leaf.values.length) assert(leaf.values(j) == null, "stale value slot")
        leavesInOrder += leaf
        leaf.count
      case inner: Inner =>
        assert(inner.count <= maxChildren, s"inner overflow ${inner.count}")
        assert(if (isRoot) inner.count >= 2 else inner.count >= minChildren, s"inner underflow ${inner.count}")
        for (j <- 1 until inner.count - 1) assert(inner.keys(j - 1) <= inner.keys(j), "separators out of order")
        (0 until inner.count).map { j =>
          val lo = if (j == 0) lowest else inner.keys(j - 1)
          val hi = if (j == inner.count - 1) highest else inner.keys(j)
          assert(lo >= lowest && hi <= highest, "separator outside the parent's bounds")
          check(inner.children(j), depth + 1, lo, hi, isRoot = false)
        }.sum
    }
    assert(check(root, 0, Long.MinValue, Long.MaxValue, isRoot = true) == count, "size does not match the entries")
    val leaves = leavesInOrder.result()
    for (j <- leaves.indices) {
      val expectedNext = if (j + 1 < leaves.size) leaves(j + 1) else null
      assert(leaves(j).next eq expectedNext, "leaf chain does not follow key order")
    }
  }
}
