package wjoin.exec.state

import java.io.File
import java.nio.file.Files

import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.SharedSparkSession

/**
 * Writes the test resources of [[FormatV1Scenarios]] (`jvm/src/test/resources/checkpoints/`).
 * Runs only when asked, since the point of the resources is that they were written by an
 * older spark-wjoin (they were written at the commit before `wjoin.exec.state` existed, whose
 * checkpoints have no format metadata):
 * {{{
 *   WJOIN_WRITE_CHECKPOINTS=src/test/resources/checkpoints \
 *     bin/sbt "wjoin/testOnly wjoin.exec.state.FormatV1CheckpointGenerator"
 * }}}
 * (the path is relative to `jvm/`, where the tests run). Per scenario: an uninterrupted run
 * over every batch (the expected output), a run over the first batches only (its checkpoint
 * and output are kept), and, as a check that the scenario is deterministic, a restart of a
 * copy of that checkpoint with the rest of the batches, which must give the expected output.
 */
class FormatV1CheckpointGenerator extends AnyFunSuite with SharedSparkSession {
  import FormatV1Scenarios._

  private val target = sys.env.get("WJOIN_WRITE_CHECKPOINTS")

  for ((s, k) <- all.zipWithIndex) test(s"writes ${s.name}") {
    assume(target.isDefined, "set WJOIN_WRITE_CHECKPOINTS to the resource folder to write the checkpoints")
    val dir = new File(target.get, s.name)
    val data = s.data(seed = 17 + k)
    withConf(conf(s): _*) {
      val full = runQuery(spark, s, Files.createTempDirectory("wjoin-full").toString, Nil, data)
      val partialDir = Files.createTempDirectory("wjoin-partial")
      val partial = runQuery(spark, s, partialDir.toString, Nil, data.take(checkpointed))
      val before = partial.all
      assert(partial.rows.forall { case (id, rows) => full.rows.get(id).contains(rows) },
        "the checkpointed batches emit what the same batches of an uninterrupted run emit")
      val restartDir = Files.createTempDirectory("wjoin-restart")
      copyDir(partialDir, restartDir)
      val restarted = runQuery(spark, s, restartDir.toString, data.take(checkpointed), data.drop(checkpointed))
      assert((before ++ restarted.all).sorted == full.all, "a restart gives the uninterrupted run's output")
      if (s.exact) {
        import spark.implicits._ // the batch W-join of the same rows
        val answer = query(s, data.flatten.toDF()).collect().map(_.mkString(",")).toSeq.filterNot(_.contains("-")).sorted
        assert(full.all == answer, "an exact W-join's stream output is its batch output")
      }
      assert(before.nonEmpty && full.all.size > before.size)
      if (!s.exact) assert(Seq("numShedRows", "numShedProbes").forall(m =>
        full.progress.flatMap(_.stateOperators.headOption).map(_.customMetrics.get(m).longValue).sum > 0), "it sheds")
      if (dir.exists()) org.apache.commons.io.FileUtils.deleteDirectory(dir)
      copyDir(partialDir, dir.toPath.resolve("checkpoint"))
      writeInput(data, new File(dir, "input.csv"))
      write(new File(dir, "output-before.txt"), before)
      write(new File(dir, "output-expected.txt"), full.all)
    }
  }
}
