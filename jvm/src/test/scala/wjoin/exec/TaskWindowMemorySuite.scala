package wjoin.exec

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection
import org.apache.spark.sql.types.{DataType, DoubleType, LongType}
import org.apache.spark.sql.wjoin.WindowMemoryConsumer
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.window.{HashWindow, WindowMemory}
import wjoin.testkit.SharedSparkSession

/**
 * The windows' memory in a Spark task ([[TaskWindowMemory]]): reserved from the task's
 * execution memory while the windows fill, all of it released when the task ends, whether it
 * finished or failed.
 */
class TaskWindowMemorySuite extends AnyFunSuite with SharedSparkSession {
  /** Runs a one-task job (local mode: the task runs in this JVM) that fills a hash window with `rows` rows (then fails if `fail`); (during, after) the task. */
  private def runTask(rows: Int, fail: Boolean): (Long, Long) = {
    import TaskWindowMemorySuite.{after, during}
    during.set(-1)
    after.set(-1)
    val job = spark.sparkContext.parallelize(Seq(0), 1).mapPartitions(_ => TaskWindowMemorySuite.fill(rows, fail))
    if (fail) intercept[Exception](job.collect()) else assert(job.collect().toSeq == Seq(rows))
    (during.get, after.get)
  }

  test("a task's windows are its execution memory while they fill, and none of it is held once the task ends") {
    val (during, after) = runTask(100000, fail = false)
    assert(during >= 100000L * 88 && during <= 100000L * 200, s"$during bytes for 100,000 rows")
    assert(after == 0, s"$after bytes still held after the task")
  }

  test("the memory error's advice fits the plan: a key, a ROWS window, no key; limits in effect") {
    import spark.implicits._
    val ins = Seq("A", "B", "C").map(n => n -> Seq((1, 10L), (1, 12L), (2, 11L)).toDF("k", "t"))
    def names(b: wjoin.WJoin.Builder): WindowNames = {
      val plan = withConf("spark.wjoin.smallInputBytes" -> "-1", "spark.wjoin.broadcastBytes" -> "-1",
          "spark.sql.adaptive.enabled" -> "false") {
        b.toDF.queryExecution.executedPlan
      }
      plan.collectFirst { case e: BaseWindowJoinExec => e }.getOrElse(fail(plan.toString)).windowNames
    }
    val keyed = names(wjoin.WJoin(ins: _*).on("k").time("t").window("5"))
    assert(keyed.spread == WindowNames.SpreadKeyed && keyed.bound == WindowNames.BoundByLimits, keyed)
    assert(names(wjoin.WJoin(ins: _*).time("t").window("5")).spread == WindowNames.SpreadUnkeyed)
    val counted = names(wjoin.WJoin(ins: _*).on("k").time("t").windows("ROWS(B) = 2 AND RANGE(A) = 5 AND RANGE(C) = 5"))
    assert(counted.spread == WindowNames.SpreadCounted, counted)
    val limited = names(wjoin.WJoin(ins: _*).on("k").time("t").window("5").limits(Map("state_rows" -> 1000)))
    assert(limited.bound.startsWith("lower limits' state_rows (now state_rows=1000"), limited)
  }

  test("a failed task releases its windows' memory too") {
    val (during, after) = runTask(20000, fail = true)
    assert(during >= 20000L * 88)
    assert(after == 0, s"$after bytes still held after the failed task")
  }

  test("outside a task (the warm-up's evaluator on the driver) windows are unaccounted") {
    assert(TaskContext.get() == null)
    assert(TaskWindowMemory(WindowNames.numbered(2)) eq WindowMemory.Unaccounted)
  }
}

object TaskWindowMemorySuite {
  private val types: Array[DataType] = Array(LongType, LongType, DoubleType)
  /** What the last task saw (accumulators of a failed task are not merged, so plain values in this JVM). */
  val during, after = new java.util.concurrent.atomic.AtomicLong(-1)

  /** In a task: fills a hash window with `rows` rows of three columns; adds the task's execution memory then and after the task. */
  def fill(rows: Int, fail: Boolean): Iterator[Int] = {
    val task = TaskContext.get()
    // Registered first, so called last (Spark calls completion listeners in reverse order).
    task.addTaskCompletionListener[Unit](t => after.set(WindowMemoryConsumer.taskExecutionBytes(t)))
    val memory = TaskWindowMemory(WindowNames.numbered(1))
    val window = new HashWindow(memory.account(0))
    val toUnsafe = UnsafeProjection.create(types)
    for (t <- 0 until rows) window.insert(java.lang.Long.valueOf(t % 100L), t, toUnsafe(InternalRow(t.toLong, 1L, 2.0)).copy())
    during.set(WindowMemoryConsumer.taskExecutionBytes(task))
    require(memory.reservedBytes >= memory.held && memory.held > rows * 88L, "the windows' bytes are reserved")
    if (fail) throw new IllegalStateException("the task fails")
    Iterator(window.size)
  }
}
