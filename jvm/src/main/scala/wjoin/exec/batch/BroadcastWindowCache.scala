package wjoin.exec
package batch

import org.apache.spark.sql.wjoin.{KeptEngineMemory, SparkBridge}

import wjoin.core.BroadcastWindows

/**
 * The executor's indexed broadcast inputs of broadcast W-joins ([[BroadcastWindows]]), built
 * once per executor and plan run and shared read-only by its tasks, as Spark shares the hash
 * relation of a broadcast join among an executor's tasks.
 *
 * {{{
 *   task of run r:  windows(r, broadcastIds, build) ── built for r ──> the shared windows
 *                      │ none yet: this task builds (the others of r wait for it)
 *                      v
 *                   build() bound to this task's memory ── built ──> moved to storage memory ──> shared
 *                                                                    └─ no room: this task's alone;
 *                                                                       every later task builds its own
 * }}}
 *
 * Memory. The windows are built in a task, charged to its execution memory (refused:
 * `WJOIN_WINDOW_MEMORY_EXCEEDED`, naming the input); once built they belong to no task, so
 * their bytes move to Spark's storage memory ([[KeptEngineMemory]], where data held across
 * tasks is counted), if the pool has them free without evicting a cached block. Entries are
 * released when Spark no longer holds a broadcast of theirs on this executor (the driver's
 * cleaner removed it: the query's plan is gone) and, beyond [[MaxEntries]], oldest first.
 */
object BroadcastWindowCache {
  /** Built windows kept at most (a new one drops the least recently used). */
  val MaxEntries = 8

  /**
   * One plan run's windows.
   *
   * @param broadcastIds the Spark broadcasts they were built from
   */
  private final class Entry(val broadcastIds: Seq[Long]) {
    var windows: BroadcastWindows = _
    var bytes = 0L
    /** Built, but kept by its task alone (no storage memory): later tasks build their own. */
    var unshared = false
  }

  private val entries = new java.util.LinkedHashMap[String, Entry](16, 0.75f, true)

  /**
   * The windows of plan run `run` (its broadcasts `broadcastIds`): the shared ones, or built by
   * `build` (which binds its memory to the running task). Returns the windows and whether this
   * call built them.
   */
  def windows(run: String, broadcastIds: Seq[Long], build: () => BroadcastWindows): (BroadcastWindows, Boolean) = {
    val entry = synchronized {
      dropReleased()
      var e = entries.get(run)
      if (e == null) {
        e = new Entry(broadcastIds)
        entries.put(run, e)
        while (entries.size > MaxEntries) remove(entries.keySet.iterator.next())
      }
      e
    }
    entry.synchronized { // the run's other tasks wait for its one build
      if (entry.windows != null) return (entry.windows, false)
      if (!entry.unshared) {
        val built = build()
        val bytes = built.memory.unbind()
        if (KeptEngineMemory.reserve(bytes)) synchronized {
          entry.windows = built
          entry.bytes = bytes
          if (!entries.containsValue(entry)) release(entry) // dropped while it was built
        } else {
          entry.unshared = true
          TaskWindowMemory.bindToTask(built.memory) // back to this task, until it ends
        }
        return (built, true)
      }
    }
    (build(), true) // no room to share: each task builds its own, in parallel, in its own memory
  }

  /** Entries held now (tests). */
  def size: Int = synchronized(entries.size)

  /** Bytes of the shared windows (reserved as storage memory). */
  def sharedBytes: Long = synchronized { var b = 0L; entries.values.forEach(e => b += e.bytes); b }

  /** Tests: forgets every entry, releasing its memory. */
  private[wjoin] def clear(): Unit = synchronized {
    entries.values.forEach(release)
    entries.clear()
  }

  private def remove(run: String): Unit = release(entries.remove(run))

  private def release(e: Entry): Unit = if (e != null && e.bytes > 0) {
    KeptEngineMemory.release(e.bytes)
    e.bytes = 0
    e.windows = null
  }

  /** Under the object's lock: entries whose broadcasts Spark removed from this executor. */
  private def dropReleased(): Unit = entries.entrySet.removeIf { e =>
    val gone = e.getValue.windows != null && !e.getValue.broadcastIds.forall(SparkBridge.broadcastHeld)
    if (gone) release(e.getValue)
    gone
  }
}
