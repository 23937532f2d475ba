package wjoin.exec

import org.apache.spark.TaskContext
import org.apache.spark.sql.catalyst.expressions.UnsafeRow
import org.apache.spark.sql.wjoin.{WJoinConf, WindowMemoryConsumer}

import wjoin.core.window.{WindowFootprint, WindowMemory}
import wjoin.errors.WJoinErrors

/**
 * What an error about a partition's windows names: each input's name and its window, and the
 * advice that fits the plan.
 *
 * @param inputs  input names, in input order
 * @param windows per input, its window as the user wrote it and how long its rows wait
 * @param spread  how this W-join spreads its rows over more partitions
 * @param bound   how this W-join bounds its windows (the approximate W-join)
 */
final case class WindowNames(inputs: Seq[String], windows: Seq[String], spread: String = WindowNames.SpreadUnkeyed,
    bound: String = WindowNames.BoundByLimits)

object WindowNames {
  /** How a W-join without a shared key spreads its rows over more partitions. */
  val SpreadUnkeyed = "an equality key shared by all inputs, spark.sql.shuffle.partitions, or spark.wjoin.timeBands " +
    "with a smaller spark.wjoin.timeBandRows"
  /** How a W-join whose inputs are hash-partitioned on their shared key does. */
  val SpreadKeyed = "more spark.sql.shuffle.partitions; a key's rows all go to one partition, so a key of few values " +
    "spreads no further"

  /** A W-join with a ROWS window: it counts every row of that input, in one partition. */
  val SpreadCounted = "none with a ROWS window, which counts every row of its input in one partition; a smaller ROWS count"

  /** An exact W-join's windows, bounded. */
  val BoundByLimits = "bound the windows with limits={\"state_rows\": M} (the approximate W-join)"

  /** A W-join with resource limits `described` ("state_rows=1000, ..."): a lower bound. */
  def boundLower(described: String): String = s"lower limits' state_rows (now $described)"

  /** Inputs known only by their place (an evaluator built without its node's names). */
  def numbered(n: Int): WindowNames = WindowNames((1 to n).map(i => s"#$i"), Seq.fill(n)("its window"))
}

/**
 * The windows' memory in a task: a [[WindowMemory]] whose rows are the codec's (`UnsafeRow`
 * copies), bound to the task's [[WindowMemoryConsumer]] until the task ends, so every byte it
 * reserved goes back to Spark even when the task fails or stops reading early.
 *
 * {{{
 *   evaluator ──TaskWindowMemory(names)──> WindowMemory ──bind──> WindowMemoryConsumer (this task)
 *   task ends (success, failure, early stop) ──completion listener──> unbind: reserved bytes released
 *   refused ──> WJOIN_WINDOW_MEMORY_EXCEEDED (never a JVM OutOfMemoryError that kills the executor)
 * }}}
 *
 * The windows cannot spill (see [[WindowMemoryConsumer]]): a refused reservation fails the
 * query at once with a message naming the input, its window, the rows and bytes held and the
 * settings to change, instead of letting the heap run out.
 */
object TaskWindowMemory {
  /** An `UnsafeRow` object besides its bytes: the base object, offset, field count, size, bit set width. */
  private val UnsafeRowObject = WindowFootprint.obj(WindowFootprint.Ref + 8L + 3 * 4)
  private val BoxedLong = WindowFootprint.obj(8)
  /** Any other object (the engine holds none but rows and keys): a generous guess. */
  private val OtherObject = 64L

  /**
   * Heap bytes of a stored row or key: an `UnsafeRow` copy is its object and its byte array
   * (`copy()` allocates exactly `getSizeInBytes`); a single integral key is a boxed `Long`.
   */
  object RowSizes extends WindowMemory.Sizes {
    def sizeOf(o: AnyRef): Long = o match {
      case r: UnsafeRow => UnsafeRowObject + WindowFootprint.array(r.getSizeInBytes, 1)
      case _: java.lang.Long => BoxedLong
      case null => 0L
      case _ => OtherObject
    }
  }

  /** A ledger of windows named by `names`, not bound to any task yet. */
  def ledger(names: WindowNames): WindowMemory = new WindowMemory(RowSizes, WindowMemory.DefaultChunk, refusal(names))

  /**
   * The memory of a broadcast input's index, bound to the running task: refused, it says that
   * the broadcast plan's estimate was short, and how to take the shuffled plan instead.
   */
  def forBroadcast(names: WindowNames): WindowMemory = bound(new WindowMemory(RowSizes, WindowMemory.DefaultChunk,
    (input, rows, held, asked) => WJoinErrors.fail("WJOIN_BROADCAST_MEMORY_EXCEEDED", "input" -> names.inputs(input),
      "rows" -> rows, "held" -> WJoinConf.bytesText(held), "asked" -> WJoinConf.bytesText(asked))))

  /** `memory` bound to the running task; outside a task (the warm-up), unaccounted. */
  private def bound(memory: => WindowMemory): WindowMemory = Option(TaskContext.get()) match {
    case None => WindowMemory.Unaccounted
    case Some(_) =>
      val m = memory
      bindToTask(m)
      m
  }

  /**
   * The windows' memory of the running task: a ledger bound to the task's memory until the
   * task ends; unaccounted outside a task (the first query's warm-up runs an evaluator on the
   * driver, with no task).
   */
  def apply(names: WindowNames): WindowMemory = bound(ledger(names))

  /**
   * Binds `memory` (a new ledger, or a kept streaming engine's) to the running task: what its
   * windows hold is reserved at once, and all of it is released when the task ends. No-op
   * outside a task.
   */
  def bindToTask(memory: WindowMemory): Unit = Option(TaskContext.get()).foreach { task =>
    val consumer = WindowMemoryConsumer.of(task)
    // Registered first: a refused bind (a kept engine too large for this task) releases too.
    task.addTaskCompletionListener[Unit](_ => memory.unbind(consumer))
    memory.bind(consumer)
  }

  private def refusal(names: WindowNames): WindowMemory.Refusal = (input, rows, held, asked) =>
    WJoinErrors.fail("WJOIN_WINDOW_MEMORY_EXCEEDED", "input" -> names.inputs(input), "window" -> names.windows(input),
      "rows" -> rows, "held" -> WJoinConf.bytesText(held), "asked" -> WJoinConf.bytesText(asked),
      "spread" -> names.spread, "bound" -> names.bound)
}
