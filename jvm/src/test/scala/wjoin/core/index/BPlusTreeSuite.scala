package wjoin.core.index

import org.scalatest.funsuite.AnyFunSuite


class BPlusTreeSuite extends AnyFunSuite with RangeIndexBehaviours {
  private def subject(leafCapacity: Int, fanout: Int = -1): (BPlusTree[Int], Subject) = {
    val tree = new BPlusTree[Int](leafCapacity, fanout)
    (tree, Subject(tree, () => tree.checkInvariants(), () => tree.entries))
  }

  rangeIndexBehaviours("B+tree", leafCapacity => subject(leafCapacity)._2)

  // The smallest fan-out (3) with larger leaves: deep trees whose inner nodes borrow and merge.
  rangeIndexBehaviours("B+tree fan-out 3", leafCapacity => subject(leafCapacity, fanout = 3)._2)

  test("leaf capacity must be at least 2 and fan-out at least 3") {
    intercept[AssertionError](new BPlusTree[Int](1))
    intercept[AssertionError](new BPlusTree[Int](10, 2))
    assert(new BPlusTree[Int](2).maxChildren == 3)
    assert(new BPlusTree[Int](100).maxChildren == 101)
  }

  test("height follows Kang et al.'s ceil(log_{N+1} ceil(B/N)) + 1 within the fill guarantees") {
    for (nodeSize <- Seq(4, 10, 100)) {
      val (tree, _) = subject(nodeSize)
      val rnd = new scala.util.Random(nodeSize)
      val n = 50000
      for (i <- 0 until n) tree.insert(rnd.nextLong(), i)
      tree.checkInvariants()
      // Upper bound: half-full nodes; lower bound: full nodes.
      def levels(entries: Double, perLeaf: Double, perInner: Double): Int =
        math.ceil(math.log(math.ceil(entries / perLeaf)) / math.log(perInner) - 1e-9).toInt + 1
      val most = levels(n, tree.minLeaf, tree.minChildren)
      val least = levels(n, nodeSize, tree.maxChildren)
      assert(tree.height >= least && tree.height <= most, s"height ${tree.height} not in [$least, $most]")
    }
  }

  test("draining a deep tree collapses it back to one leaf") {
    val (tree, s) = subject(2, 3)
    for (i <- 0 until 2000) tree.insert((i * 7919 % 2000).toLong, i)
    assert(tree.height > 5)
    for (i <- 0 until 2000) { assert(tree.delete((i * 7919 % 2000).toLong, i)); if (i % 50 == 0) s.checkInvariants() }
    assert(tree.isEmpty && tree.height == 1 && tree.nodeCount == 1)
    s.checkInvariants()
  }
}
