package wjoin
package extension

import java.util.concurrent.atomic.AtomicReference

import scala.util.Random
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types._
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.exec.batch.{BroadcastWindowJoinExec, WindowJoinExec}
import wjoin.plan.physical.BroadcastPlan

/**
 * The first W-join of a JVM pays, besides its work, for loading the planner's and engine's
 * classes, generating their code and, most of all, for the JIT compiling the engine's loops
 * (measured in docs/benchmarks.md, "The first query of a session": about 2-3x a warm run).
 * This pays it ahead, once per JVM, in a background daemon thread started when the first
 * session with the extension is built:
 *
 * {{{
 *   session state built ──> thread "wjoin-warm-up" (once per JVM, spark.wjoin.warmUp)
 *     for each workload (keyed HW, keyed MW, a keyless band on doubles):
 *       plan a W-join of three one-row local relations  (analyzer, optimizer, planner: no job)
 *       run its partition evaluator here on generated time-sorted rows  (codec, merger, engine)
 *       and the broadcast plan's on the same rows (index build, probes); both must agree
 * }}}
 *
 * No Spark job runs, nothing is cached or registered in the session, and a failure only logs
 * (the warm-up changes no result). On a cluster it warms the driver; executors' engines warm
 * up on their first tasks as before.
 */
object FirstQueryWarmUp extends Logging {
  /** What the warm-up did: not started, running, or done (rows produced, milliseconds), or failed. */
  sealed trait State
  case object NotStarted extends State
  case object Running extends State
  final case class Done(outputRows: Long, millis: Long) extends State
  final case class Failed(message: String) extends State

  private val current = new AtomicReference[State](NotStarted)

  /** The warm-up's state in this JVM. */
  def state: State = current.get()

  /**
   * Starts the warm-up for `session` unless it ran or runs already in this JVM, or the static
   * setting `spark.wjoin.warmUp` of the session's Spark context is false. Called while the
   * session's state is being built: the thread first waits for it (the session's lock).
   */
  def startOnce(session: SparkSession): Unit =
    if (WJoinConf.warmUp(session.sparkContext.getConf) && current.compareAndSet(NotStarted, Running)) {
      val thread = new Thread(() => current.set(run(session)), "wjoin-warm-up")
      thread.setDaemon(true)
      thread.setPriority(Thread.MIN_PRIORITY)
      thread.start()
    }

  /** The warm-up in this thread: its state once done. */
  private[wjoin] def run(session: SparkSession): State = try {
    val started = System.nanoTime()
    val rows = Workloads.indices.map(warm(session, _)._2).sum
    val done = Done(rows, (System.nanoTime() - started) / 1000000)
    logInfo(s"W-join warm-up: ${done.outputRows} rows in ${done.millis} ms")
    done
  } catch {
    case NonFatal(e) =>
      logInfo(s"W-join warm-up stopped: $e")
      Failed(String.valueOf(e.getMessage))
  }

  /** (condition, algorithm, rows per input, rows per second): the shapes users run most. */
  private[wjoin] val Workloads = Seq(
    ("", "auto", 30000, 1000.0),   // an equality key: HW-join, hash buckets
    ("", "mw", 20000, 1000.0),     // the same with forward evaluation
    ("abs(A.x - B.x) <= 2.0 AND abs(B.x - C.x) <= 2.0", "auto", 8000, 400.0)) // a band, no key: range index

  private val Schema = StructType(Seq(
    StructField("ts", TimestampType), StructField("k", IntegerType), StructField("x", DoubleType)))

  /**
   * Workload `w`: its W-join over local relations (planned, never run by Spark here) and the
   * number of rows its evaluator produced from the same rows, in this thread.
   */
  private[wjoin] def warm(session: SparkSession, w: Int): (DataFrame, Long) = {
    val (condition, algorithm, perInput, rate) = Workloads(w)
    // The same rows feed the planner (local relations, so its statistics and predicate samples
    // see what the engine will get) and the evaluator.
    val random = new Random(17)
    val data = Seq("A", "B", "C").map { name =>
      name -> IndexedSeq.tabulate(perInput)(j =>
        (((j + random.nextDouble()) / rate * 1e6).toLong, random.nextInt(500), random.nextDouble() * 1000))
    }
    val inputs = data.map { case (name, rows) =>
      val external = rows.map { case (micros, k, x) => Row(DateTimeUtils.toJavaTimestamp(micros), k, x) }
      name -> session.createDataFrame(java.util.Arrays.asList(external: _*), Schema)
    }
    val builder = WJoin(inputs: _*).time("ts").window("1 second").algorithm(algorithm)
    val df: DataFrame = if (condition.isEmpty) builder.on("k").toDF else builder.on(expr(condition)).toDF
    val exec = df.queryExecution.sparkPlan.collectFirst { case e: WindowJoinExec => e }
      .getOrElse(throw new IllegalStateException("no WindowJoinExec in the warm-up plan"))
    val rows: Seq[Array[InternalRow]] = exec.children.zip(data).map { case (child, (_, values)) =>
      assert(child.output.map(_.name) == Seq("ts", "k", "x"), s"unexpected warm-up input ${child.output}")
      val toUnsafe = UnsafeProjection.create(child.output.map(_.dataType).toArray)
      values.map { case (micros, k, x) =>
        toUnsafe(new GenericInternalRow(Array[Any](micros, k, x))).copy(): InternalRow
      }.toArray
    }
    val produced = count(exec.evaluateHere(rows.map(_.iterator)))
    // The broadcast plan's code on the same rows (A streamed, B and C broadcast): the same combinations.
    val broadcast = BroadcastWindowJoinExec(exec.timeColumns, exec.keys, exec.residual, exec.output, exec.planned,
      exec.children, BroadcastPlan(streamed = 0, bytes = 0, threshold = 0, streamedBytes = None))
    val probed = count(broadcast.evaluateHere(rows.head.iterator, rows.indices.tail.map(i => i -> rows(i))))
    if (probed != produced) throw new IllegalStateException(s"the broadcast plan gave $probed rows, the evaluator $produced")
    (df, produced)
  }

  private def count(rows: Iterator[InternalRow]): Long = { var n = 0L; while (rows.hasNext) { rows.next(); n += 1 }; n }
}
