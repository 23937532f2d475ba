package wjoin.streaming

import java.sql.Timestamp

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.streaming.runtime.MemoryStream
import org.scalatest.funsuite.AnyFunSuite

import wjoin.WJoin
import wjoin.spark.SharedSparkSession

class StreamingSmokeSuite extends AnyFunSuite with SharedSparkSession {
  test("smoke") {
    val s = spark
    import s.implicits._
    val a = MemoryStream[(Int, Long)](spark)
    val b = MemoryStream[(Int, Long)](spark)
    def df(m: MemoryStream[(Int, Long)]): DataFrame =
      m.toDF().selectExpr("_1 as k", "timestamp_seconds(_2) as ts").withWatermark("ts", "10 seconds")
    val j = WJoin("A" -> df(a), "B" -> df(b)).on("k").time("ts").window("5 seconds").toDF
    j.explain(true)
    val out = new java.util.concurrent.ConcurrentLinkedQueue[String]()
    val ck = java.nio.file.Files.createTempDirectory("wj").toString
    val q = j.writeStream.option("checkpointLocation", ck).foreachBatch { (d: DataFrame, id: Long) =>
      d.collect().foreach(r => out.add(s"$id:$r")); ()
    }.start()
    a.addData((1, 10L), (2, 20L)); b.addData((1, 12L))
    q.processAllAvailable()
    b.addData((1, 100L)); a.addData((1,101L))
    q.processAllAvailable()
    b.addData((1, 200L))
    q.processAllAvailable()
    println(out)
    println(q.lastProgress)
    q.explain()
    q.stop()
  }
}
