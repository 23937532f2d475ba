package wjoin.exec
package batch

import org.apache.spark.sql.wjoin.{KeptEngineMemory, SparkBridge}

import wjoin.core.BroadcastWindow

/**
 * The executor's indexed broadcast inputs of broadcast W-joins ([[BroadcastWindow]]), each
 * built once per executor and plan run and shared read-only by its tasks, as Spark shares the
 * hash relation of a broadcast join among an executor's tasks.
 *
 * {{{
 *   task of run r:  window(r, input j, broadcast, build) ── built ──> the shared window of j
 *                      │ none yet: this task builds it (the run's others wait for it, or build
 *                      v  another input's meanwhile: each task starts at its own input)
 *                   build() bound to this task's memory ── built ──> moved to storage memory ──> shared
 *                                                                    └─ no room: this task's alone;
 *                                                                       every later task builds its own
 * }}}
 *
 * Memory. A window is built in a task, charged to its execution memory (refused:
 * `WJOIN_BROADCAST_MEMORY_EXCEEDED`, naming the input); once built it belongs to no task, so its
 * bytes move to Spark's storage memory ([[KeptEngineMemory]], where data held across tasks is
 * counted), if the pool has them free without evicting a cached block and all shared windows
 * stay within [[MemoryShare]] of the memory Spark manages. Entries are released when Spark no
 * longer holds their broadcast on this executor (the driver's cleaner removed it: the query's
 * plan is gone) and, beyond [[MaxEntries]], least recently used first.
 */
object BroadcastWindowCache {
  /** Built windows kept at most (a new one drops the least recently used). */
  val MaxEntries = 16

  /**
   * The most the shared windows may hold together: this share of the memory Spark manages on
   * the heap. Spark cannot evict them as it evicts cached blocks, so this is what running tasks
   * may lose to them at most (the default share of kept streaming engines).
   */
  val MemoryShare = 0.25

  /**
   * One input's window of one plan run.
   *
   * @param broadcastId the Spark broadcast it was built from
   * @param environment the Spark environment (context) its memory is reserved in
   */
  private final class Entry(val broadcastId: Long, val environment: AnyRef) {
    var window: BroadcastWindow = _
    var bytes = 0L
    /** Built, but kept by its task alone (no storage memory): later tasks build their own. */
    var unshared = false
  }

  private val entries = new java.util.LinkedHashMap[(String, Int), Entry](16, 0.75f, true)

  /**
   * The window of broadcast input `input` of plan run `run` (from broadcast `broadcastId`): the
   * shared one, or built by `build` (which binds its memory to the running task). Returns the
   * window and whether this call built it.
   */
  def window(run: String, input: Int, broadcastId: Long, build: () => BroadcastWindow): (BroadcastWindow, Boolean) = {
    val entry = synchronized {
      dropReleased()
      var e = entries.get((run, input))
      if (e == null) {
        e = new Entry(broadcastId, KeptEngineMemory.environment)
        entries.put((run, input), e)
        while (entries.size > MaxEntries) release(entries.remove(entries.keySet.iterator.next()))
      }
      e
    }
    entry.synchronized { // the run's other tasks wait for its one build
      if (entry.window != null) return (entry.window, false)
      if (!entry.unshared) {
        val built = build()
        val bytes = built.memory.unbind()
        val room = synchronized(sharedBytes + bytes <= KeptEngineMemory.cap(MemoryShare))
        if (room && KeptEngineMemory.reserve(bytes)) synchronized {
          entry.window = built
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

  private def release(e: Entry): Unit = if (e != null && e.bytes > 0) {
    if (e.environment eq KeptEngineMemory.environment) KeptEngineMemory.release(e.bytes)
    else KeptEngineMemory.forget(e.bytes) // its Spark context stopped, and its memory manager with it
    e.bytes = 0
    e.window = null
  }

  /**
   * Under the object's lock: entries whose broadcast Spark removed from this executor, and
   * those of a stopped Spark context (broadcast ids start again in a new one).
   */
  private def dropReleased(): Unit = entries.entrySet.removeIf { e =>
    val entry = e.getValue
    val gone = (entry.environment ne KeptEngineMemory.environment) ||
      (entry.window != null && !SparkBridge.broadcastHeld(entry.broadcastId))
    if (gone) release(entry)
    gone
  }
}
