package wjoin.core.index

import org.scalatest.funsuite.AnyFunSuite


class TTreeSuite extends AnyFunSuite with RangeIndexBehaviours {
  private def subject(nodeSize: Int): (TTree[Int], Subject) = {
    val tree = new TTree[Int](nodeSize)
    (tree, Subject(tree, () => tree.checkInvariants(), () => tree.entries))
  }

  rangeIndexBehaviours("T-tree", nodeSize => subject(nodeSize)._2)

  test("node size must be at least 2") {
    intercept[AssertionError](new TTree[Int](1))
  }

  test("height stays logarithmic in the number of nodes (AVL bound)") {
    for (nodeSize <- Seq(2, 10, 100)) {
      val (tree, _) = subject(nodeSize)
      val rnd = new scala.util.Random(nodeSize)
      for (i <- 0 until 50000) tree.insert(rnd.nextLong(), i)
      val nodes = tree.nodeCount
      // An AVL tree of n nodes is at most 1.44 log2(n + 2) high.
      assert(tree.height <= math.ceil(1.4405 * math.log(nodes + 2) / math.log(2)).toInt, s"height ${tree.height} for $nodes nodes")
      assert(nodes <= 2 * math.ceil(50000.0 / nodeSize).toInt + 1, s"$nodes nodes for node size $nodeSize")
    }
  }

  test("a sliding window keeps internal nodes full and the tree compact") {
    // Oldest-first expiry with random or drifting keys deletes from every node, so this is
    // where sparse internal nodes would pile up without the greatest-lower-bound borrow and
    // the refill after rotations (without the refill, node sizes 4 and 8 end with dozens).
    // Occupancy is a goal of the structure, not a proven invariant: these are measured runs.
    for (nodeSize <- Seq(4, 8, 32, 100); drifting <- Seq(false, true)) {
      val (tree, _) = subject(nodeSize)
      val rnd = new scala.util.Random(nodeSize)
      val window = 5000
      val keys = Array.tabulate(60000)(i => if (drifting) (i / 3 + rnd.nextInt(40)).toLong else rnd.nextInt(1 << 20).toLong)
      for (i <- keys.indices) {
        tree.insert(keys(i), i)
        if (i >= window) assert(tree.delete(keys(i - window), i - window))
      }
      tree.checkInvariants()
      val fill = tree.size.toDouble / (tree.nodeCount * nodeSize)
      assert(tree.sparseInternalNodes == 0, s"${tree.sparseInternalNodes} sparse internal nodes of ${tree.nodeCount}")
      assert(fill >= 0.6, f"average fill $fill%.2f for node size $nodeSize")
    }
  }
}
