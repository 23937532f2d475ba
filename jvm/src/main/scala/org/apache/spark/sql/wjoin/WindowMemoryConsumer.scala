package org.apache.spark.sql.wjoin

import org.apache.spark.TaskContext
import org.apache.spark.memory.{MemoryConsumer, MemoryMode, TaskMemoryManager}

import wjoin.core.window.MemoryBudget

/**
 * The W-join's windows as one consumer of a task's execution memory (on-heap: they are JVM
 * objects), so Spark's memory manager counts them like a sort's or an aggregation's buffers
 * and shares the pool fairly between the tasks of an executor. `TaskContext.taskMemoryManager`
 * is `private[spark]`, which is why this class lives in the bridge package.
 *
 * {{{
 *   WindowMemory (chunks) ──acquire(bytes)──> MemoryConsumer.acquireMemory
 *        ──> TaskMemoryManager.acquireExecutionMemory: first asks the task's other consumers
 *            (sorts, aggregations) to spill, then this one (spill = 0), then grants what the
 *            pool has for this task (at most 1/N of it with N running tasks)
 * }}}
 *
 * The windows cannot spill: a row must be probeable until it expires, and the engine keeps no
 * sorted runs to merge, so [[spill]] frees nothing and returns 0. A refused grant fails the
 * query with `WJOIN_WINDOW_MEMORY_EXCEEDED` instead (`wjoin.exec.TaskWindowMemory`).
 *
 * @param tmm the task's memory manager
 */
final class WindowMemoryConsumer private (tmm: TaskMemoryManager)
    extends MemoryConsumer(tmm, MemoryMode.ON_HEAP) with MemoryBudget {
  def acquire(bytes: Long): Long = acquireMemory(bytes)
  def release(bytes: Long): Unit = freeMemory(bytes)

  /** Nothing to spill (see the class comment). */
  override def spill(size: Long, trigger: MemoryConsumer): Long = 0L

  override def toString: String = s"WindowMemoryConsumer(${getUsed} bytes)"
}

object WindowMemoryConsumer {
  /** The windows' consumer of the running task's memory. */
  def of(task: TaskContext): WindowMemoryConsumer = new WindowMemoryConsumer(task.taskMemoryManager())

  /** Bytes of execution memory the task holds, all consumers together (tests). */
  def taskExecutionBytes(task: TaskContext): Long = task.taskMemoryManager().getMemoryConsumptionForThisTask
}
