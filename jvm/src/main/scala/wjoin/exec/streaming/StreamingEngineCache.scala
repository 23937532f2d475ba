package wjoin.exec
package streaming

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId
import org.apache.spark.sql.wjoin.{KeptEngineMemory, SparkBridge}

/**
 * The executor's streaming W-join engines kept in memory between micro-batches, one per state
 * store (query run, checkpoint, operator, partition: Spark's [[StateStoreProviderId]]), each
 * tagged with the store version it reflects and the plan it was built for. The state store
 * stays the durable truth; an engine here is only a copy that saves reading it back.
 *
 * {{{
 *   task of batch b, store version v:  checkOut(id, v, plan) ── hit: the kept engine
 *                                                            └─ miss: None, rebuild from the store
 *   ... the batch runs, the store commits version v' ...
 *   after the commit:                   keep(id, v', plan, engine)
 * }}}
 *
 * An engine is taken out of the map while a task uses it, so a retried or speculative task of
 * the same partition never sees one half-updated: it finds nothing and rebuilds. It is put
 * back only after its store committed; a failed task drops it. A re-run of an older batch
 * loads an older version than the kept one and rebuilds ("version mismatch"); so does a
 * restart (a new run id), a moved partition, a re-planned engine (another access path or
 * probe order: another `plan` fingerprint). Engines are released when Spark unloads their
 * state store provider (its maintenance does so once the query run stops or the partition
 * moves away: `StateStore.isLoaded` turns false).
 *
 * Memory. While a task runs an engine, its windows are that task's execution memory
 * (`StreamingPartition.memory`, bound to the task). A kept engine belongs to no task, and
 * Spark has no task memory for it; so keeping one moves its accounted bytes from the task to
 * Spark's storage memory ([[KeptEngineMemory]]), where data held across tasks is counted, and
 * checking it out moves them back to the next task. An engine is kept only if
 *  - the rows of all kept engines stay within `maxRows` (`spark.wjoin.streaming.keptEngineRows`),
 *  - their bytes stay within `fraction` of the memory Spark manages
 *    (`spark.wjoin.streaming.keptEngineMemoryFraction`): Spark cannot evict them as it evicts
 *    cached blocks, so this share is what running tasks may lose to them at most, and
 *  - the storage pool has its bytes free without evicting a cached block;
 * otherwise it is dropped (garbage), and its partition's next batch rebuilds it from the store.
 * Dropping is always sound here, which is why the cache bounds itself rather than blocking.
 */
object StreamingEngineCache {
  private final case class Entry(version: Long, plan: String, partition: StreamingPartition, bytes: Long)

  private val entries = new ConcurrentHashMap[StateStoreProviderId, Entry]()

  /**
   * Takes the engine of `id` out of the cache if it reflects store version `version` and was
   * built for `plan`; otherwise drops whatever was there and returns None. Either way its
   * storage memory is released: the caller binds a kept engine to its task.
   */
  def checkOut(id: StateStoreProviderId, version: Long, plan: String): Option[StreamingPartition] = synchronized {
    val e = entries.remove(id)
    if (e != null) KeptEngineMemory.release(e.bytes)
    Option(e).filter(e => e.version == version && e.plan == plan).map(_.partition)
  }

  /**
   * Keeps `partition` as the engine of `id` at store version `version`, within the bounds of
   * the object comment (rows: `maxRows`; bytes: `fraction` of Spark's memory); its windows'
   * memory is released from the task either way.
   */
  def keep(id: StateStoreProviderId, version: Long, plan: String, partition: StreamingPartition,
      maxRows: Long, fraction: Double = 1.0): Unit = synchronized {
    def rowsOf(p: StreamingPartition) = if (p == null) 0L else p.bufferedRows
    val bytes = if (partition == null) 0L else partition.memory.unbind()
    dropUnloaded()
    var rows = rowsOf(partition)
    var kept = 0L
    entries.values.forEach { e => rows += rowsOf(e.partition); kept += e.bytes }
    if (rows <= maxRows && kept + bytes <= KeptEngineMemory.cap(fraction) && KeptEngineMemory.reserve(bytes)) {
      val before = entries.put(id, Entry(version, plan, partition, bytes))
      if (before != null) KeptEngineMemory.release(before.bytes)
    }
  }

  /** The engines kept now (for tests and the docs' memory figures). */
  def size: Int = entries.size

  /** Bytes the kept engines hold (reserved as storage memory). */
  def keptBytes: Long = { var b = 0L; entries.values.forEach(e => b += e.bytes); b }

  /** Tests: shifts every kept engine's version, as if a task re-ran an older batch. */
  private[wjoin] def shiftVersions(by: Long): Unit =
    entries.replaceAll((_, e) => e.copy(version = e.version + by))

  /** Tests and shutdown: forgets every kept engine, releasing its memory. */
  private[wjoin] def clear(): Unit = synchronized {
    entries.values.forEach(e => KeptEngineMemory.release(e.bytes))
    entries.clear()
  }

  /** Under the object's lock (as every removal), so each entry's bytes are released once. */
  private def dropUnloaded(): Unit = entries.entrySet.removeIf { e =>
    val unloaded = !SparkBridge.stateStoreLoaded(e.getKey)
    if (unloaded) KeptEngineMemory.release(e.getValue.bytes)
    unloaded
  }
}
