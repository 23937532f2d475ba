package wjoin.core.index

import TTreeNodes.Node

/**
 * T-tree (Lehman & Carey 1986; the "TJ" access path of Kang et al.): an AVL tree whose nodes
 * hold up to `nodeSize` entries each, sorted, in primitive arrays.
 *
 * {{{
 *                    [ 40 41 41 45 ]              one node: keys Array[Long], values
 *                   /               \             Array[AnyRef], count; min = keys(0),
 *        [ 12 20 33 40 ]         [ 45 50 61 ]     max = keys(count - 1)
 *        /                            \
 *   [ 3 7 ]                        [ 70 ]         in-order: 3 7 12 20 33 40 40 41 41 45 45 50 61 70
 * }}}
 *
 * Invariants (checked by `checkInvariants` after every operation in the tests):
 *  - the in-order sequence of entries is sorted by key, ties in insertion order;
 *    equivalently, within a node keys ascend, the left subtree holds keys <= min and the
 *    right subtree keys >= max (equal keys may straddle a node boundary);
 *  - every node holds 1 to `nodeSize` entries; no node is ever empty;
 *  - AVL: the heights of the two subtrees of any node differ by at most one.
 * Occupancy (a goal, not an invariant): internal nodes (two children) are kept at least
 * `nodeSize - 2` full, as Lehman & Carey prescribe, so the height stays near
 * log2(size / nodeSize). A delete from an internal node borrows the greatest entry of its
 * left subtree (the greatest lower bound); a rotation that makes a sparse leaf internal
 * pulls entries from its in-order neighbours (the T-tree "special rotation", generalized to
 * single rotations). Leaves and half-leaves (one child) may be sparse; a half-leaf absorbs
 * its leaf child as soon as both fit in one node.
 *
 * Operations, for n entries, node size N and d equal keys before the one sought:
 *  - search path: O(log2(n / N)) nodes, 1-2 key comparisons each (against min and max),
 *    then one binary search of O(log2 N) inside the bounding node (Kang et al. Eq. 6);
 *  - insert: the descent, then an array shift of O(N); a full bounding node moves its
 *    minimum down to the greatest lower bound, so no insert ever splits a node;
 *  - delete(key, value): the descent, O(d) to skip older duplicates, an O(N) shift;
 *    expiring the oldest row of a window has d = 0;
 *  - range probe [lo, hi] (inclusive): the descent plus the matching entries;
 *  - rebalancing: at most one single or double rotation per level, each O(1) plus an
 *    O(N) array copy when a rotation refills a sparse new root.
 *
 * Why a T-tree for windows: it keeps the entries themselves in every node (a B+tree keeps
 * them only in leaves and repeats separators above), which gives it the best memory use of
 * the three access paths in Kang et al.; its weakness is that a probe touches more nodes.
 * Not thread-safe.
 */
final class TTree[T](val nodeSize: Int = 100) extends RangeIndex[T] {
  assert(nodeSize >= 2, s"a T-tree node must hold at least 2 entries, got $nodeSize")

  /** Fewest entries an internal node should hold (Lehman & Carey: nodeSize minus one or two). */
  val minInternal: Int = math.max(1, nodeSize - 2)

  private var root: Node = null
  private var count = 0
  // Results of the recursive helpers, kept in fields so that the recursion allocates nothing.
  private var deleted = false
  private var movedKey = 0L
  private var movedValue: AnyRef = null

  def size: Int = count

  /** Number of nodes and tree height (0 when empty): for benchmarks and memory estimates. */
  def nodeCount: Int = countNodes(root)
  def height: Int = TTreeNodes.height(root)

  def insert(key: Long, value: T): Unit = {
    root = insertInto(root, key, value.asInstanceOf[AnyRef])
    count += 1
  }

  def delete(key: Long, value: T): Boolean = {
    deleted = false
    root = deleteFrom(root, key, value.asInstanceOf[AnyRef])
    if (deleted) count -= 1
    deleted
  }

  def foreachInRange(lo: Long, hi: Long)(visit: (Long, T) => Unit): Unit =
    if (lo <= hi) visitRange(root, lo, hi, visit)

  def cursor(lo: Long, hi: Long): RangeCursor[T] = new TTreeCursor[T](root, lo, hi)

  // ---- insert ------------------------------------------------------------------------------

  /**
   * Lehman & Carey's insert, placing the new entry after all equal keys: descend to the
   * bounding node (min <= key < max) or, failing that, to the last node on the path; insert
   * into it if it has room; otherwise a bounding node hands its minimum to the greatest
   * lower bound and a leaf or half-leaf grows a new child.
   */
  private def insertInto(n: Node, key: Long, value: AnyRef): Node = {
    if (n == null) return Node.leaf(nodeSize, key, value)
    if (key < n.minKey) {
      if (n.left != null) n.left = insertInto(n.left, key, value)
      else if (n.count < nodeSize) n.insertAt(0, key, value)
      else n.left = Node.leaf(nodeSize, key, value)
    } else if (key >= n.maxKey) {
      if (n.right != null) n.right = insertInto(n.right, key, value)
      else if (n.count < nodeSize) n.insertAt(n.count, key, value)
      else n.right = Node.leaf(nodeSize, key, value)
    } else {
      val at = n.upperBound(key)
      if (n.count < nodeSize) n.insertAt(at, key, value)
      else {
        // Full bounding node: its minimum is the in-order successor of the left subtree, so it
        // becomes that subtree's greatest entry and the in-order sequence stays the same.
        val minKey = n.keys(0)
        val minValue = n.values(0)
        n.removeAt(0)
        n.insertAt(at - 1, key, value)
        n.left = insertGreatest(n.left, minKey, minValue)
      }
    }
    settle(n)
  }

  /** Appends an entry that is >= every key of the subtree rooted at `n`. */
  private def insertGreatest(n: Node, key: Long, value: AnyRef): Node = {
    if (n == null) return Node.leaf(nodeSize, key, value)
    if (n.right != null) n.right = insertGreatest(n.right, key, value)
    else if (n.count < nodeSize) n.insertAt(n.count, key, value)
    else n.right = Node.leaf(nodeSize, key, value)
    settle(n)
  }

  // ---- delete ------------------------------------------------------------------------------

  /**
   * Removes the first in-order entry equal to (key, value). Equal keys can straddle node
   * boundaries, so a node whose min equals `key` looks into its left subtree first and a node
   * whose max equals `key` continues into its right subtree: the in-order order is kept.
   * Subtrees where nothing was removed are returned untouched (no rebalancing work).
   */
  private def deleteFrom(n: Node, key: Long, value: AnyRef): Node = {
    if (n == null) return null
    if (key < n.minKey) n.left = deleteFrom(n.left, key, value)
    else if (key > n.maxKey) n.right = deleteFrom(n.right, key, value)
    else {
      if (key == n.minKey && n.left != null) n.left = deleteFrom(n.left, key, value)
      if (!deleted) {
        val at = n.indexOf(key, value)
        if (at >= 0) {
          n.removeAt(at)
          deleted = true
          // An internal node that falls under its minimum borrows the greatest lower bound.
          while (n.left != null && n.right != null && n.count < minInternal) {
            n.left = removeGreatest(n.left)
            n.insertAt(0, movedKey, movedValue)
          }
          if (n.count == 0) return if (n.left != null) n.left else n.right
        } else if (key == n.maxKey && n.right != null) n.right = deleteFrom(n.right, key, value)
      }
    }
    if (deleted) settle(n) else n
  }

  /** Removes the greatest entry of the subtree into `movedKey`/`movedValue`. */
  private def removeGreatest(n: Node): Node = {
    if (n.right != null) {
      n.right = removeGreatest(n.right)
    } else {
      movedKey = n.keys(n.count - 1)
      movedValue = n.values(n.count - 1)
      n.removeAt(n.count - 1)
      // The rightmost node has no right child: a leaf or half-leaf, which may become empty.
      if (n.count == 0) return n.left
    }
    settle(n)
  }

  // ---- balance -----------------------------------------------------------------------------

  /**
   * Restores the node after a change below it: a half-leaf absorbs its leaf child when both
   * fit, the height is recomputed, and an AVL violation is repaired by a single or double
   * rotation whose new root is then refilled if it became a sparse internal node.
   */
  private def settle(n: Node): Node = {
    absorbLeafChild(n)
    n.updateHeight()
    val balance = TTreeNodes.height(n.left) - TTreeNodes.height(n.right)
    if (balance > 1) {
      if (TTreeNodes.height(n.left.left) < TTreeNodes.height(n.left.right)) n.left = rotateLeft(n.left)
      refill(rotateRight(n))
    } else if (balance < -1) {
      if (TTreeNodes.height(n.right.right) < TTreeNodes.height(n.right.left)) n.right = rotateRight(n.right)
      refill(rotateLeft(n))
    } else n
  }

  private def absorbLeafChild(n: Node): Unit = {
    val child = if (n.left == null) n.right else if (n.right == null) n.left else null
    if (child != null && child.isLeaf && n.count + child.count <= nodeSize) {
      if (child eq n.left) { n.prepend(child); n.left = null }
      else { n.append(child); n.right = null }
    }
  }

  private def rotateRight(a: Node): Node = {
    val b = a.left
    a.left = b.right
    b.right = a
    a.updateHeight()
    b.updateHeight()
    b
  }

  private def rotateLeft(a: Node): Node = {
    val b = a.right
    a.right = b.left
    b.left = a
    a.updateHeight()
    b.updateHeight()
    b
  }

  /**
   * A rotation can turn a sparse leaf or half-leaf into an internal node (the only node of
   * the rotation whose role changes that way is its new root). Fill it from its in-order
   * neighbours, the greatest lower bound and the least upper bound, which are leaves or
   * half-leaves, leaving each at least one entry so that no structure changes.
   */
  private def refill(n: Node): Node = {
    if (n.left != null && n.right != null && n.count < minInternal) {
      var glb = n.left
      while (glb.right != null) glb = glb.right
      val fromGlb = math.min(minInternal - n.count, glb.count - 1)
      if (fromGlb > 0) n.takeTailOf(glb, fromGlb)
      var lub = n.right
      while (lub.left != null) lub = lub.left
      val fromLub = math.min(minInternal - n.count, lub.count - 1)
      if (fromLub > 0) n.takeHeadOf(lub, fromLub)
    }
    n
  }

  // ---- probe -------------------------------------------------------------------------------

  private def visitRange(n: Node, lo: Long, hi: Long, visit: (Long, T) => Unit): Unit = {
    if (n == null) return
    if (lo <= n.minKey) visitRange(n.left, lo, hi, visit)
    if (n.maxKey >= lo && n.minKey <= hi) {
      var i = if (lo <= n.minKey) 0 else n.lowerBound(lo)
      while (i < n.count && n.keys(i) <= hi) {
        visit(n.keys(i), n.values(i).asInstanceOf[T])
        i += 1
      }
    }
    if (hi >= n.maxKey) visitRange(n.right, lo, hi, visit)
  }

  // ---- inspection (tests, benchmarks) --------------------------------------------------------

  private def countNodes(n: Node): Int = if (n == null) 0 else 1 + countNodes(n.left) + countNodes(n.right)

  /** Every entry in in-order (key, then insertion order among equal keys). */
  private[index] def entries: Vector[(Long, T)] = {
    val out = Vector.newBuilder[(Long, T)]
    def walk(n: Node): Unit = if (n != null) {
      walk(n.left)
      var i = 0
      while (i < n.count) { out += ((n.keys(i), n.values(i).asInstanceOf[T])); i += 1 }
      walk(n.right)
    }
    walk(root)
    out.result()
  }

  /** Internal nodes holding fewer than `minInternal` entries (the occupancy goal, not an invariant). */
  private[index] def sparseInternalNodes: Int = {
    def walk(n: Node): Int =
      if (n == null) 0
      else walk(n.left) + walk(n.right) + (if (n.left != null && n.right != null && n.count < minInternal) 1 else 0)
    walk(root)
  }

  /** Throws if a structural invariant of the class comment does not hold. */
  private[index] def checkInvariants(): Unit = {
    // Returns the subtree's entry count; checks heights, balance, node fill and key bounds.
    def check(n: Node, lowest: Long, highest: Long): Int = {
      if (n == null) return 0
      assert(n.count >= 1 && n.count <= nodeSize, s"node fill ${n.count} outside 1..$nodeSize")
      var i = 1
      while (i < n.count) { assert(n.keys(i - 1) <= n.keys(i), "keys within a node out of order"); i += 1 }
      assert(n.minKey >= lowest && n.maxKey <= highest, s"node [${n.minKey}, ${n.maxKey}] outside [$lowest, $highest]")
      val entries = n.count + check(n.left, lowest, n.minKey) + check(n.right, n.maxKey, highest)
      val (hl, hr) = (TTreeNodes.height(n.left), TTreeNodes.height(n.right))
      assert(n.height == 1 + math.max(hl, hr), "stale height")
      assert(math.abs(hl - hr) <= 1, s"AVL balance violated: $hl vs $hr")
      entries
    }
    assert(check(root, Long.MinValue, Long.MaxValue) == count, "size does not match the entries")
  }
}
