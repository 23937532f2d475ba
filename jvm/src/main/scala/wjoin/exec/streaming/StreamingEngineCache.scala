package wjoin.exec
package streaming

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.execution.streaming.state.StateStoreProviderId
import org.apache.spark.sql.wjoin.SparkBridge

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
 * probe order: another `plan` fingerprint). Memory: engines are released when Spark unloads
 * their state store provider (its maintenance does so once the query run stops or the
 * partition moves away: `StateStore.isLoaded` turns false), and at most `maxRows` buffered
 * rows are kept per executor (a larger engine is dropped and rebuilt by its next batch).
 */
object StreamingEngineCache {
  private final case class Entry(version: Long, plan: String, partition: StreamingPartition)

  private val entries = new ConcurrentHashMap[StateStoreProviderId, Entry]()

  /**
   * Takes the engine of `id` out of the cache if it reflects store version `version` and was
   * built for `plan`; otherwise drops whatever was there and returns None.
   */
  def checkOut(id: StateStoreProviderId, version: Long, plan: String): Option[StreamingPartition] =
    Option(entries.remove(id)).filter(e => e.version == version && e.plan == plan).map(_.partition)

  /** Keeps `partition` as the engine of `id` at store version `version` (see the object comment for the bound). */
  def keep(id: StateStoreProviderId, version: Long, plan: String, partition: StreamingPartition,
      maxRows: Long): Unit = {
    entries.keySet.removeIf(other => !SparkBridge.stateStoreLoaded(other))
    def rowsOf(p: StreamingPartition) = if (p == null) 0L else p.bufferedRows
    var rows = rowsOf(partition)
    entries.values.forEach(e => rows += rowsOf(e.partition))
    if (rows <= maxRows) entries.put(id, Entry(version, plan, partition))
  }

  /** The engines kept now (for tests and the docs' memory figures). */
  def size: Int = entries.size

  /** Tests: shifts every kept engine's version, as if a task re-ran an older batch. */
  private[wjoin] def shiftVersions(by: Long): Unit =
    entries.replaceAll((_, e) => e.copy(version = e.version + by))

  /** Tests and shutdown: forgets every kept engine. */
  private[wjoin] def clear(): Unit = entries.clear()
}
