package wjoin
package extension

import java.util.concurrent.atomic.AtomicReference

import scala.jdk.CollectionConverters._
import scala.util.Random
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection}
import org.apache.spark.sql.catalyst.util.DateTimeUtils
import org.apache.spark.sql.execution.FormattedMode
import org.apache.spark.sql.functions.expr
import org.apache.spark.sql.types._
import org.apache.spark.sql.wjoin.WJoinConf

import wjoin.exec.batch.{BroadcastWindowJoinExec, PackedRows, WindowJoinExec}
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
 *       plan a W-join of three local relations from its options as plain data, as the Python
 *         package and the Connect plugin send them (request codec, analyzer, optimizer, planner,
 *         the physical plan's preparation and its formatted EXPLAIN, which Spark's UI renders
 *         when a query starts: no job), and the same with the broadcast plan
 *       run its partition evaluator here on generated time-sorted rows  (codec, merger, engine)
 *       and the broadcast plan's on the same rows, packed and unpacked as Spark broadcasts them
 *         (index build, probes); both must agree
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
    def plan(in: SparkSession): DataFrame = {
      val inputs = data.map { case (_, rows) =>
        val external = rows.map { case (micros, k, x) => Row(DateTimeUtils.toJavaTimestamp(micros), k, x) }
        in.createDataFrame(java.util.Arrays.asList(external: _*), Schema)
      }
      val arguments = new java.util.HashMap[String, AnyRef]()
      arguments.put("names", data.map(_._1).asJava)
      arguments.put("time", "ts")
      arguments.put("window", "1 second")
      arguments.put("algorithm", algorithm)
      if (condition.isEmpty) arguments.put("on", Seq("k").asJava) else arguments.put("condition", expr(condition))
      val df = WJoin.fromArguments(inputs.asJava, arguments)
      df.queryExecution.explainString(FormattedMode)
      df
    }
    val df = plan(session)
    // The broadcast plan's planning, where it applies (a key, the automatic algorithm); these
    // inputs fit the one-task plan, which comes first, so a session without it plans this one.
    if (condition.isEmpty && algorithm == "auto") {
      val broadcastSession = session.newSession()
      broadcastSession.conf.set(WJoinConf.SmallInputBytesKey, "-1")
      broadcastSession.conf.set(WJoinConf.BroadcastBytesKey, "10MB")
      plan(broadcastSession).queryExecution.sparkPlan.collectFirst { case b: BroadcastWindowJoinExec => b }
        .getOrElse(throw new IllegalStateException("no BroadcastWindowJoinExec in the warm-up's broadcast plan"))
    }
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
    val packed = rows.indices.tail.map(i => i -> PackedRows.unpack(PackedRows.transform(rows(i)), Schema.length))
    val probed = count(broadcast.evaluateHere(rows.head.iterator, packed))
    if (probed != produced) throw new IllegalStateException(s"the broadcast plan gave $probed rows, the evaluator $produced")
    (df, produced)
  }

  private def count(rows: Iterator[InternalRow]): Long = { var n = 0L; while (rows.hasNext) { rows.next(); n += 1 }; n }
}
