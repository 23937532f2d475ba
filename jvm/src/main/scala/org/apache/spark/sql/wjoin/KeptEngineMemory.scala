package org.apache.spark.sql.wjoin

import java.util.UUID

import org.apache.spark.SparkEnv
import org.apache.spark.memory.MemoryMode
import org.apache.spark.storage.TempLocalBlockId

/**
 * The executor memory held by streaming engines kept between micro-batches, as Spark's memory
 * manager sees it: storage memory (what Spark holds across tasks, like cached blocks), not
 * task execution memory, since no task runs while an engine is kept. `SparkEnv.memoryManager`
 * is `private[spark]`, which is why this object lives in the bridge package.
 *
 * {{{
 *   engine kept after its batch  ──reserve(bytes)──> storage pool (only if free without
 *                                                    evicting a cached block, and within `cap`)
 *   engine checked out / dropped ──release(bytes)──> storage pool
 * }}}
 *
 * Reserving never evicts a cached block: an engine is a cache of the state store, cheaper to
 * rebuild than a user's cached data. Spark cannot evict the engines either (they are not
 * blocks of its memory store), which is why their total is capped ([[cap]]) below what Spark
 * may give to storage, so running tasks keep their execution memory.
 */
object KeptEngineMemory {
  /** The block id the reservations are made under (storage pools want one; no block has it). */
  private val block = TempLocalBlockId(UUID.nameUUIDFromBytes("spark-wjoin kept engines".getBytes("UTF-8")))
  private val held = new java.util.concurrent.atomic.AtomicLong()

  /** Bytes reserved here now (all kept engines of this JVM). */
  def reserved: Long = held.get

  /**
   * Reserves `bytes` of on-heap storage memory, if they are free without evicting a cached
   * block; true when reserved. Outside an executor (no `SparkEnv`): true, nothing reserved.
   */
  def reserve(bytes: Long): Boolean = {
    val ok = Option(SparkEnv.get).forall { env =>
      val mm = env.memoryManager
      mm.synchronized {
        bytes <= mm.maxOnHeapStorageMemory - mm.onHeapStorageMemoryUsed &&
          mm.acquireStorageMemory(block, bytes, MemoryMode.ON_HEAP)
      }
    }
    if (ok) held.addAndGet(bytes)
    ok
  }

  /** Gives back `bytes` reserved before. */
  def release(bytes: Long): Unit = if (bytes > 0) {
    held.addAndGet(-bytes)
    Option(SparkEnv.get).foreach(_.memoryManager.releaseStorageMemory(bytes, MemoryMode.ON_HEAP))
  }

  /**
   * Forgets `bytes` reserved from a memory manager that is gone (its Spark context stopped):
   * only this object's count goes down, nothing is given back to the new one.
   */
  def forget(bytes: Long): Unit = if (bytes > 0) held.addAndGet(-bytes)

  /** The executor's Spark environment now (null outside one): reservations belong to it. */
  def environment: AnyRef = SparkEnv.get

  /**
   * The most bytes kept engines may hold together: `fraction` of the memory Spark manages on
   * the heap (execution and storage, `spark.memory.fraction` of it). Outside an executor: no bound.
   */
  def cap(fraction: Double): Long = Option(SparkEnv.get).fold(Long.MaxValue) { env =>
    val mm = env.memoryManager
    (fraction * (mm.maxOnHeapStorageMemory + mm.onHeapExecutionMemoryUsed)).toLong
  }

  /** On-heap storage memory in use, cached blocks and kept engines (tests). */
  def storageUsed: Long = Option(SparkEnv.get).fold(0L)(_.memoryManager.onHeapStorageMemoryUsed)
}
