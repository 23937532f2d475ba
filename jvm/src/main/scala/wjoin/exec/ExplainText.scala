package wjoin.exec

import java.time.{Instant, ZoneId}
import java.time.format.DateTimeFormatter

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.ExplainUtils

import wjoin.core.WindowMatrix
import wjoin.exec.batch.{BroadcastWindowJoinExec, WindowJoinExec}
import wjoin.exec.streaming.StreamingWindowJoinExec
import wjoin.plan.JoinConditionAnalysis

/**
 * The one renderer of a W-join exec node's EXPLAIN text, batch and streaming alike: the tree
 * line (`explain()`, `explain("extended")`, `explain("cost")`, the Spark UI's node) and the
 * block of `explain("formatted")`, laid out as Spark's own nodes lay theirs out
 * (`BaseJoinExec`, `ProjectExec`: the operator id and name, then `Input [n]: [...]`,
 * `Output [n]: [...]` from `ExplainUtils.generateFieldString`, then the arguments).
 *
 * {{{
 *   (5) WindowJoin
 *   Input [6]: [k#1L, ts#2, k#5L, ts#6, ...]       every child's columns, in input order
 *   Output [6]: [...]
 *   Arguments:
 *     inputs:     A [k#1L, ts#2], B [...]
 *     windows:    WINDOW = 30 minutes             the user's terms; matrix in words
 *     algorithm:  hw (hash): auto: ...            and why
 *     ...
 * }}}
 *
 * Lengths are in the user's units: a timestamp column's microseconds as "1 hour 30 minutes",
 * an integral column's as plain numbers. Streaming watermarks are timestamps in the session
 * time zone (`spark.sql.session.timeZone`), not epoch milliseconds.
 */
object ExplainText {
  private val Units = Seq("day" -> 86400000000L, "hour" -> 3600000000L, "minute" -> 60000000L,
    "second" -> 1000000L, "millisecond" -> 1000L, "microsecond" -> 1L)

  /** A window length: "30 minutes", "1 hour 30 minutes", "-2 seconds"; integral: "100". */
  def length(v: Long, integralTime: Boolean): String =
    if (v == WindowMatrix.Inf) "unbounded"
    else if (integralTime) v.toString
    else if (v == 0) "0 seconds"
    else if (v < 0) s"-${length(-v, integralTime)}"
    else {
      var rest = v
      Units.flatMap { case (name, size) =>
        val q = rest / size
        rest -= q * size
        if (q == 0) None else Some(s"$q $name${if (q == 1) "" else "s"}")
      }.mkString(" ")
    }

  private val Timestamp = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS")

  /** A watermark in milliseconds as a timestamp in `zone`; "none yet" for 0 (no watermark). */
  def watermark(ms: Long, zone: String): String =
    if (ms <= 0) "none yet"
    else s"${Timestamp.format(Instant.ofEpochMilli(ms).atZone(ZoneId.of(zone)))} ${zone}"

  /**
   * The closed window matrix in words: for each pair i < j the inclusive range of ts_j - ts_i,
   * [-upper(i, j), upper(j, i)] (`upper(i, j)` bounds ts_i - ts_j).
   */
  def matrix(node: BaseWindowJoinExec): String = {
    val (m, names, integral) = (node.windows.matrix, node.inputNames, node.windows.integralTime)
    (for (i <- names.indices; j <- names.indices if i < j)
      yield s"${names(j)} - ${names(i)} in [${length(-m.upper(i, j), integral)}, ${length(m.upper(j, i), integral)}]")
      .mkString("; ")
  }

  private def sql(es: Seq[Expression]): String = es.map(_.sql).mkString(", ")

  private def keysText(node: BaseWindowJoinExec): String =
    if (node.keys.isEmpty) "none" else node.keys.map(k => s"(${sql(k.map(JoinConditionAnalysis.keyColumn))})").mkString(" = ")

  private def residualText(node: BaseWindowJoinExec): String =
    if (node.residual.isEmpty) "none" else node.residual.map(_.sql).mkString(" AND ")

  private def algorithmText(node: BaseWindowJoinExec): String =
    s"${node.algorithm.name}${if (node.enginePlan.allHashed) " (hash)" else ""}"

  /** The streaming node's extra facts: mode, watermarks, state. */
  private def streamingFacts(s: StreamingWindowJoinExec): Seq[(String, String)] = {
    val zone = s.conf.sessionLocalTimeZone
    Seq(
      "mode" -> (if (s.enginePlan.forward) "ordered (a combination once the watermark passes its oldest member's horizon)"
        else "eager (a combination in the micro-batch its last member arrives)"),
      "watermarks" -> s"late ${watermark(s.lateWatermarkMs, zone)}, eviction ${watermark(s.evictionWatermarkMs, zone)}",
      "state" -> s.stateInfo.map(i => s"operator ${i.operatorId}, ${i.numPartitions} partitions")
        .getOrElse("none (not running)"))
  }

  /** The Arguments of `explain("formatted")`, one (name, text) per line. */
  def arguments(node: BaseWindowJoinExec): Seq[(String, String)] = {
    val names = node.inputNames
    val integral = node.windows.integralTime
    val access = node.access
    val expiration = if (node.enginePlan.forward) "after the sweep"
      else if (access.tau == 0) "eager" else s"every ${length(access.tau, integral)}"
    val mode = node match {
      case s: StreamingWindowJoinExec => streamingFacts(s)
      case _ => Nil
    }
    Seq(
      "inputs" -> names.indices.map(i => s"${names(i)} [${node.children(i).output.mkString(", ")}]").mkString(", "),
      "how" -> (if (node.how.anchored) s"${node.how} (anchor ${names.head})" else node.how.toString),
      "time columns" -> sql(node.timeColumns),
      "windows" -> (node.windows.terms.map(_.text).mkString(" AND ") +
        node.windows.excluding.fold("")(e => s", excluding ${e.terms.map(_.text).mkString(" AND ")}")),
      "window matrix" -> matrix(node),
      "algorithm" -> (algorithmText(node) + Option(node.planned.algorithmReason).filter(_.nonEmpty).fold("")(r => s": $r")),
      "window strategy" -> node.enginePlan.describeStrategy(names, length(_, integral)),
      "keys" -> keysText(node),
      "residual condition" -> residualText(node),
      "access paths" -> access.paths.indices.map { j =>
        val attr = access.bindings.find(_.target == j).map(b => access.rangeAttributes(j)(b.targetAttr).sql)
        s"${names(j)}=${access.paths(j).name}${attr.filter(_ => access.paths(j).answersRanges).fold("")(a => s"($a)")}"
      }.mkString(", "),
      "probe orders" -> node.enginePlan.describe(names),
      "expiration" -> expiration,
      "cost" -> access.decision.describe(names)) ++
      (if (access.predicates.edges.isEmpty) Nil else Seq("selectivities" -> access.predicates.describe(names))) ++
      access.recheckText.map("run-time check" -> _) ++
      node.planned.shed.map(s => "limits" -> s.describe(names)) ++
      Seq("partitioning" -> node.partitioningText) ++ mode
  }

  /** `explain("formatted")`'s block of `node`, headed by its `name` ("(5) WindowJoin", Spark's formattedNodeName). */
  def formatted(node: BaseWindowJoinExec, name: String): String = {
    val input = node.children.flatMap(_.output)
    val args = arguments(node)
    val width = args.map(_._1.length).max
    s"""
       |$name
       |${ExplainUtils.generateFieldString("Input", input)}
       |${ExplainUtils.generateFieldString("Output", node.output)}
       |Arguments:
       |${args.map { case (k, v) => s"  ${(k + ":").padTo(width + 1, ' ')} $v" }.mkString("\n")}
       |""".stripMargin
  }

  /** The part of the tree line batch and streaming share. */
  private def joinDescription(node: BaseWindowJoinExec): String = {
    import node._
    (if (how.anchored) s"how=$how (anchor ${inputNames.head}), " else "") +
      s"inputs=[${inputNames.mkString(", ")}], time=[${sql(timeColumns)}], keys=${keysText(node)}, " +
      s"windows=${windows.describe(inputNames)}" +
      (if (residual.isEmpty) "" else s", residual=${residualText(node)}") +
      s", window strategy=${enginePlan.describeStrategy(inputNames, windows.render)}" +
      s", probe order=[${enginePlan.describe(inputNames)}], " + access.describe(inputNames, enginePlan.forward) +
      planned.shed.fold("")(s => s", limits=[${s.describe(inputNames)}]")
  }

  /** The tree line of `node` (one line: `explain()`, the Spark UI's node). */
  def treeLine(node: BaseWindowJoinExec): String = node match {
    case s: StreamingWindowJoinExec =>
      val zone = s.conf.sessionLocalTimeZone
      s"StreamingWindowJoin ${algorithmText(s)} ${if (s.enginePlan.forward) "ordered" else "eager"}, " +
        joinDescription(s) + s", partitioning=${s.partitioningText}" +
        s", watermarks=[late ${watermark(s.lateWatermarkMs, zone)}, eviction ${watermark(s.evictionWatermarkMs, zone)}], " +
        s.stateInfo.map(i => s"operator=${i.operatorId}, partitions=${i.numPartitions}").getOrElse("no state (not running)")
    case b: WindowJoinExec =>
      s"WindowJoin ${algorithmText(b)}, ${joinDescription(b)}, partitioning=${b.partitioningText}"
    case b: BroadcastWindowJoinExec =>
      s"BroadcastWindowJoin ${algorithmText(b)}, ${joinDescription(b)}, partitioning=${b.partitioningText}"
    case other => s"${other.nodeName} ${joinDescription(other)}"
  }
}
