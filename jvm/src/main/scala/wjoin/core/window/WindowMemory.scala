package wjoin.core.window

/**
 * Where the bytes of a partition's windows come from: Spark's task memory manager in a task
 * (the bridge's `WindowMemoryConsumer`); in pure core code windows are unaccounted
 * ([[WindowMemory.Unaccounted]]) or, in tests, bound to a counting budget.
 */
trait MemoryBudget {
  /** Asks for `bytes` more; returns how many were granted, 0 to `bytes`. */
  def acquire(bytes: Long): Long
  /** Gives back `bytes` granted before. */
  def release(bytes: Long): Unit
}

object MemoryBudget {
  /** Grants everything and keeps no count: engines outside a task (tests, the warm-up). */
  object Unlimited extends MemoryBudget {
    def acquire(bytes: Long): Long = bytes
    def release(bytes: Long): Unit = ()
  }
}

/**
 * The memory account of the windows of one partition (one engine): an estimate of the bytes
 * they hold ([[WindowFootprint]]: rows, entries, ring buffers, buckets, tree slots), reserved
 * from a [[MemoryBudget]] in chunks, so the budget is asked about once per `chunk` bytes of
 * growth, never per row.
 *
 * {{{
 *   window insert / evict / ring resize ──> WindowAccount (its input's rows and bytes)
 *        ──> used += bytes;  used > reserved           ──> budget.acquire(ceil((used - reserved) / chunk) x chunk)
 *                            reserved - used > 2 chunk ──> budget.release(down to ceil(used / chunk) + 1 chunks)
 *   refused (granted < asked) ──> the partial grant given back, then `refused(...)` (throws)
 * }}}
 *
 * Invariant between calls: `used <= reserved <= used + 3 chunks` (bounded slack both ways;
 * the hysteresis of one chunk keeps a window that oscillates around a chunk boundary from
 * asking and giving back on every row).
 *
 * The budget is bound per task ([[bind]] / [[unbind]]): a batch engine lives in one task; a
 * streaming engine kept between micro-batches moves from task to task, and while it is kept
 * no task holds its bytes (the executor's engine cache accounts for them instead). The
 * windows hold their [[WindowAccount]]s, chosen once when they are built; only the budget
 * behind this ledger changes.
 *
 * @param sizes   the bytes of a stored row or key object, itself and what only it references
 *                (the codec's rows: `UnsafeRow` object + its byte array)
 * @param chunk   bytes reserved or given back at a time (> 0)
 * @param refused what happens when the budget refuses: it throws, naming input `input` whose
 *                window holds `rows` rows, the bytes all windows hold (`held`) and those
 *                asked (`asked`). It never returns.
 */
final class WindowMemory private (val sizes: WindowMemory.Sizes, chunk: Long, refused: WindowMemory.Refusal,
    counted: Boolean) {
  assert(chunk > 0, s"a chunk of $chunk bytes")

  def this(sizes: WindowMemory.Sizes, chunk: Long, refused: WindowMemory.Refusal) = this(sizes, chunk, refused, true)

  /** The bound budget; null while unbound (bytes are counted, nothing is reserved). */
  private var budget: MemoryBudget = null
  private var used = 0L
  private var reserved = 0L
  private var accounts = Vector.empty[WindowAccount]

  /** Bytes the windows hold (estimated). */
  def held: Long = used
  /** Bytes reserved from the bound budget (a multiple of `chunk`; 0 when unbound). */
  def reservedBytes: Long = reserved
  /** Rows the windows hold. */
  def rows: Long = accounts.iterator.map(_.rows).sum

  /**
   * The account of input `input`'s window. `stampBytes`: bytes each stored row adds around
   * the codec's row ([[wjoin.core.CountWindows]]' stamp, then the row is inside it), 0 for none.
   */
  def account(input: Int, stampBytes: Long = 0L): WindowAccount = if (!counted) WindowAccount.None else {
    val a = new WindowAccount(this, input, stampBytes)
    accounts :+= a
    a
  }

  /**
   * Binds the ledger to `to` (a task's budget): reserves what the windows already hold there
   * (a kept streaming engine), then grows from it. Refused: `refused` for the largest window.
   */
  def bind(to: MemoryBudget): Unit = {
    assert(budget == null, "bound twice without unbind")
    budget = to
    if (used > 0) reserve(roundUp(used), largest)
  }

  /** Gives back everything reserved from the bound budget, if any ([[unbind]] of it). */
  def unbind(): Long = if (budget == null) used else unbind(budget)

  /**
   * Gives back everything reserved from `from`, if it is the bound budget (a task-completion
   * hook and an explicit unbind may both come); the windows keep their rows. Returns the
   * bytes the windows hold.
   */
  def unbind(from: MemoryBudget): Long = {
    if (budget != null && (budget eq from)) {
      if (reserved > 0) from.release(reserved)
      reserved = 0
      budget = null
    }
    used
  }

  private[window] def charge(account: WindowAccount, bytes: Long): Unit = {
    used += bytes
    if (budget == null) ()
    else if (used > reserved) reserve(roundUp(used - reserved), account)
    else if (reserved - used > 2 * chunk) {
      val keep = roundUp(used) + chunk
      budget.release(reserved - keep)
      reserved = keep
    }
  }

  private def reserve(ask: Long, account: WindowAccount): Unit = {
    val got = budget.acquire(ask)
    if (got < ask) {
      if (got > 0) budget.release(got)
      val named = if (account.input >= 0) account else largest // the engine's own structures: name the largest window
      refused.refused(named.input, named.rows, used, ask)
    }
    reserved += got
  }

  /**
   * Another consumer of the task's memory (a sort of an input, below the W-join) was refused
   * `asked` bytes while the windows, which cannot spill, hold their share: the windows' own
   * refusal, for the largest window, since they are what left no room. Never returns.
   */
  def refusedElsewhere(asked: Long): Nothing = {
    val named = largest
    refused.refused(named.input, named.rows, used, asked)
  }

  private def roundUp(bytes: Long): Long = math.max(1L, (bytes + chunk - 1) / chunk) * chunk

  private def largest: WindowAccount = accounts.filter(_.input >= 0).maxBy(_.bytes)
}

object WindowMemory {
  /** Bytes reserved at a time: 1 MiB (a window of 100-byte rows asks once per 10,000 rows). */
  val DefaultChunk: Long = 1L << 20

  /** Heap bytes of a stored row or key (a primitive result: no boxing per row, as a `AnyRef => Long` would). */
  trait Sizes {
    def sizeOf(o: AnyRef): Long
  }

  /** What a refused reservation raises (see [[WindowMemory]]); never returns. */
  trait Refusal {
    def refused(input: Int, rows: Long, held: Long, asked: Long): Nothing
  }

  /** Windows without accounting: their accounts are [[WindowAccount.None]]. */
  val Unaccounted: WindowMemory = new WindowMemory(_ => 0L, DefaultChunk, (_, _, _, _) =>
    throw new AssertionError("unaccounted windows are never refused"), counted = false)
}

/**
 * The account of one input's window in its partition's [[WindowMemory]]: rows in and out
 * with their bytes, and the window's structures growing or shrinking. [[WindowAccount.None]]
 * counts nothing (core tests, benchmarks).
 *
 * @param memory     the partition's ledger, null for none
 * @param input      the input whose window this is
 * @param stampBytes bytes a stamp adds around each stored row (0: rows are stored as they are)
 */
final class WindowAccount private[window] (memory: WindowMemory, val input: Int, stampBytes: Long) {
  private var held = 0L
  private var count = 0L

  /** Rows in the window. */
  def rows: Long = count
  /** Bytes of the window. */
  def bytes: Long = held

  /** The bytes of stored row `row` (a stamped row: the stamp and the row inside). */
  def rowBytes(row: AnyRef): Long =
    if (memory == null) 0L
    else if (stampBytes == 0) memory.sizes.sizeOf(row)
    else stampBytes + memory.sizes.sizeOf(row.asInstanceOf[wjoin.core.Stamped].row)

  /** The bytes of a key object. */
  def keyBytes(key: AnyRef): Long = if (memory == null || key == null) 0L else memory.sizes.sizeOf(key)

  /** A row of `bytes` (row, key, entry) entered the window. */
  def rowIn(bytes: Long): Unit = if (memory != null) { count += 1; held += bytes; memory.charge(this, bytes) }

  /** `rows` rows of `bytes` in all entered the window at once (a window built whole). */
  def rowsIn(rows: Long, bytes: Long): Unit = if (memory != null) { count += rows; held += bytes; memory.charge(this, bytes) }

  /** A row of `bytes` left the window. */
  def rowOut(bytes: Long): Unit = if (memory != null) { count -= 1; held -= bytes; memory.charge(this, -bytes) }

  /** The window's structures grew (> 0) or shrank (< 0) by `bytes`. */
  def resized(bytes: Long): Unit = if (memory != null) { held += bytes; memory.charge(this, bytes) }
}

object WindowAccount {
  /** Counts nothing. */
  val None: WindowAccount = new WindowAccount(null, -1, 0L)
}
