package wjoin.exec.state

import java.io.File
import java.nio.file.{Files, Path, Paths}
import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.spark.sql.streaming.StreamingQueryException
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.extension.BuildVersions
import wjoin.testkit.SharedSparkSession

/**
 * Checkpoints written by spark-wjoin before its state format had a version
 * ([[FormatV1Scenarios]], test resources `checkpoints/`) restart on this code: the rows they
 * emitted plus the rows of the restarted run are exactly those of an uninterrupted run (none
 * lost, none twice), and the format metadata (version 1) is written on that first run. A copy
 * whose metadata names a format this code does not know is refused before any batch runs.
 */
class StateFormatCompatibilitySuite extends AnyFunSuite with SharedSparkSession {
  import FormatV1Scenarios._

  private val operator = 1000000L

  private def resource(name: String): Path =
    Paths.get(getClass.getClassLoader.getResource(s"checkpoints/$name").toURI)

  /** A copy of scenario `s`'s checkpoint in a new folder, and its metadata file there. */
  private def copyOf(s: Scenario): (String, org.apache.hadoop.fs.Path) = {
    val dir = Files.createTempDirectory("wjoin-v1")
    copyDir(resource(s.name).resolve("checkpoint"), dir)
    (dir.toString, WindowJoinStateMetadata.path(new File(dir.toFile, "state").toString, operator))
  }

  private def lines(s: Scenario, file: String): Seq[String] = read(resource(s.name).resolve(file).toFile)

  private def files(dir: File): Seq[String] =
    Files.walk(dir.toPath).iterator().asScala.filter(Files.isRegularFile(_)).map(dir.toPath.relativize(_).toString)
      .toSeq.sorted

  for (s <- all) test(s"${s.name}: restarts from the unversioned checkpoint; output = an uninterrupted run's") {
    val (checkpoint, metadata) = copyOf(s)
    assert(!new File(metadata.toString).exists(), "the checkpoint predates the format metadata")
    val data = readInput(resource(s.name).resolve("input.csv").toFile)
    val before = lines(s, "output-before.txt")
    val expected = lines(s, "output-expected.txt")
    assert(before.nonEmpty && expected.size > before.size && expected.distinct == expected)
    val restarted = withConf(conf(s): _*) {
      runQuery(spark, s, checkpoint, data.take(checkpointed), data.drop(checkpointed))
    }
    val after = restarted.all
    assert(after.nonEmpty && after.forall(r => !before.contains(r)), "no row of the checkpointed batches again")
    assert((before ++ after).sorted == expected)
    val firstBatch = restarted.progress.find(_.stateOperators.nonEmpty).get
    assert(firstBatch.stateOperators.head.customMetrics.get("numRestoredStateRows") > 0,
      "the first batch after the restart read the state back")
    // version 1 (no version recorded before), the query recorded on this first run here
    val recorded = WindowJoinStateMetadata.read(metadata, new Configuration())
    assert(recorded.map(m => (m.formatVersion, m.createdBy)).contains((1, None)) && recorded.exists(_.query.isDefined))
  }

  test("a checkpoint whose format metadata names version 99 is refused before any batch runs") {
    val s = all.head
    val (checkpoint, metadata) = copyOf(s)
    WindowJoinStateMetadata(99).write(metadata, new Configuration())
    val data = readInput(resource(s.name).resolve("input.csv").toFile)
    val filesBefore = files(new File(checkpoint)).filterNot(_.startsWith("offsets"))
    val sink = new ConcurrentHashMap[Long, Seq[String]]()
    val e = intercept[StreamingQueryException](withConf(conf(s): _*) {
      runQuery(spark, s, checkpoint, data.take(checkpointed), data.drop(checkpointed), sink)
    })
    val refusal = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
      .collectFirst { case i: WJoinAnalysisException if i.getMessage.contains("state format") => i }
    assert(refusal.isDefined, e)
    for (part <- Seq("state format version 99", "reads state format version 1", metadata.toString,
        "Start the query from a new checkpoint location", "the spark-wjoin version that wrote this checkpoint"))
      assert(refusal.get.getMessage.contains(part), refusal.get.getMessage)
    assert(sink.isEmpty, "no batch reached the sink")
    // Spark may log the next batch's offsets before planning it; nothing else was written.
    assert(files(new File(checkpoint)).filterNot(_.startsWith("offsets")) == filesBefore)
  }

  test("a new query records this code's format before its first batch") {
    val s = all.head
    val checkpoint = Files.createTempDirectory("wjoin-new").toString
    withConf(conf(s): _*) {
      runQuery(spark, s, checkpoint, Nil, generate(1).take(1))
    }
    val metadata = WindowJoinStateMetadata.path(new File(checkpoint, "state").toString, operator)
    val stored = WindowJoinStateMetadata.read(metadata, new Configuration())
    assert(stored.map(m => (m.formatVersion, m.createdBy)).contains((StateFormat.Current, Some(BuildVersions.version))))
    assert(stored.flatMap(_.query).exists(_.settings(StateQuery.Inputs) == "A, B, C"), stored)
    assert(new String(Files.readAllBytes(Paths.get(metadata.toString)), "UTF-8").startsWith(
      s"""{"formatVersion":1,"createdBy":"${BuildVersions.version}","query":{"inputs":"A, B, C","""))
  }
}
