package wjoin.plan.logical

import java.nio.file.{Files, Path}

import org.apache.spark.sql.wjoin.StreamingTestClasses.memoryStream
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.implicits._
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/** Writing a W-join's repeated column names to files fails at once, naming the option. */
class WindowJoinWriteChecksSuite extends AnyFunSuite with SharedSparkSession {
  import spark.implicits._

  private lazy val (a, b) = (spark.range(0, 8).selectExpr("id % 2 AS k", "id AS ts", "id AS v"),
    spark.range(0, 8).selectExpr("id % 2 AS k", "id AS ts", "id * 10 AS v"))
  private def dir(): Path = Files.createTempDirectory("wjoin-write")

  test("a file write of repeated names is refused before any job; prefixed writes and reads back") {
    val out = dir().resolve("out").toString
    val e = intercept[WJoinAnalysisException](a.wjoin(b).on("k").time("ts").window("1").toDF.write.parquet(out))
    assert(e.condition == "WJOIN_DUPLICATE_OUTPUT_COLUMNS" && e.getSqlState == "42711")
    assert(e.getMessageParameters.get("columns") == "ts, v", e.text)
    assert(e.text.contains("output_names=\"prefixed\"") && e.text.contains("Parquet"), e.text)
    assert(!Files.exists(java.nio.file.Paths.get(out)), "the refused write created its directory")
    // A selection of unique names, and the prefixed output, write as before.
    a.wjoin(b).on("k").time("ts").window("1").toDF.select("k", "A.v").write.json(dir().resolve("sel").toString)
    val prefixed = a.wjoin(b).on("k").time("ts").window("1").outputNames("prefixed").toDF
    prefixed.write.parquet(out)
    val back = spark.read.parquet(out)
    assert(back.columns.toSeq == Seq("k", "A_ts", "A_v", "B_ts", "B_v"))
    assert(back.collect().map(_.toString).sorted.toSeq == prefixed.collect().map(_.toString).sorted.toSeq)
  }

  test("a streaming file sink of repeated names is refused at start") {
    val (m1, m2) = (memoryStream[(Int, Long)](spark), memoryStream[(Int, Long)](spark))
    def stream(m: org.apache.spark.sql.wjoin.StreamingTestClasses.MemoryStream[(Int, Long)]) =
      m.toDF().selectExpr("_1 AS k", "timestamp_seconds(_2) AS ts").withWatermark("ts", "1 second")
    val joined = WJoin("A" -> stream(m1), "B" -> stream(m2)).on("k").time("ts").window("2 seconds").toDF
    val root = dir()
    val e = intercept[WJoinAnalysisException](joined.writeStream.format("parquet")
      .option("checkpointLocation", root.resolve("ck").toString).start(root.resolve("out").toString))
    assert(e.condition == "WJOIN_DUPLICATE_OUTPUT_COLUMNS" && e.getMessageParameters.get("columns") == "ts", e.text)
    assert(e.getMessageParameters.get("sink") == "the streaming file sink")
  }
}
