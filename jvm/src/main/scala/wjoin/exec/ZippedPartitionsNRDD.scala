package wjoin.exec

import scala.reflect.ClassTag

import org.apache.spark.{OneToOneDependency, Partition, TaskContext}
import org.apache.spark.rdd.RDD

private[exec] final class ZippedNPartition(val index: Int, val parents: Array[Partition]) extends Partition

/**
 * Zips N co-partitioned RDDs partition by partition (Spark's own zipPartitions stops at
 * four). Partition i of the result computes `f(i, iterators of partition i of each parent)`.
 */
final class ZippedPartitionsNRDD[T: ClassTag, U: ClassTag](
    @transient private var parents: Seq[RDD[T]],
    f: (Int, Seq[Iterator[T]]) => Iterator[U])
  extends RDD[U](parents.head.sparkContext, parents.map(new OneToOneDependency(_))) {

  override protected def getPartitions: Array[Partition] = {
    val counts = parents.map(_.getNumPartitions).distinct
    assert(counts.size == 1, s"W-join inputs are not co-partitioned: partition counts ${counts.mkString(", ")}")
    Array.tabulate[Partition](counts.head)(i => new ZippedNPartition(i, parents.map(_.partitions(i)).toArray))
  }

  override def compute(split: Partition, context: TaskContext): Iterator[U] = {
    val p = split.asInstanceOf[ZippedNPartition]
    val iterators = dependencies.zip(p.parents).map { case (dep, parent) =>
      dep.rdd.asInstanceOf[RDD[T]].iterator(parent, context)
    }
    f(p.index, iterators)
  }

  override def clearDependencies(): Unit = {
    super.clearDependencies()
    parents = null
  }
}
