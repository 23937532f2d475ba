package wjoin.plan.logical

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.DataFrame
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.implicits._
import wjoin.testkit.SharedSparkSession
import wjoin.WJoin

/** Output names: "join" (as DataFrame.join, the default) and "prefixed", from every front end. */
class OutputNamingSuite extends AnyFunSuite with SharedSparkSession {
  private def input(factor: Int): DataFrame =
    spark.range(0, 12).selectExpr("id % 2 AS k", "id AS ts", s"id * $factor AS v")
  private lazy val (a, b, c) = (input(1), input(10), input(100))
  private def rows(df: DataFrame): Seq[String] = df.collect().map(_.mkString(",")).toSeq.sorted
  private def condition(f: => Any): String = intercept[WJoinAnalysisException](f).condition

  test("join (default): as DataFrame.join; prefixed: the on keys once, then <input>_<column>, same rows") {
    val joined = a.wjoin(b, c).on("k").time("ts").window("2").toDF
    assert(joined.columns.toSeq == Seq("k", "ts", "v", "ts", "v", "ts", "v"))
    val prefixed = a.wjoin(b, c).on("k").time("ts").window("2").outputNames("prefixed").toDF
    assert(prefixed.columns.toSeq == Seq("k", "A_ts", "A_v", "B_ts", "B_v", "C_ts", "C_v"))
    assert(rows(prefixed) == rows(joined) && rows(joined).nonEmpty)
    // Each column by its unique name, or by its input's qualifier and that name.
    assert(rows(prefixed.select("B_v", "A.A_v")) == rows(joined.select("B.v", "A.v")))
  }

  test("prefixed without on: every column prefixed, with the names of the call; left_semi: the anchor's columns") {
    val named = WJoin("P" -> a, "Q" -> b).time("ts").window("1").outputNames(" Prefixed ").toDF
    assert(named.columns.toSeq == Seq("P_k", "P_ts", "P_v", "Q_k", "Q_ts", "Q_v"))
    val semi = WJoin("P" -> a, "Q" -> b).on("k").time("ts").window("1").how("left_semi").outputNames("prefixed").toDF
    assert(semi.columns.toSeq == Seq("k", "P_ts", "P_v"))
  }

  test("the session setting names the output when the call does not; the call's argument wins") {
    withConf("spark.wjoin.outputNames" -> "prefixed") {
      assert(a.wjoin(b).on("k").time("ts").window("1").toDF.columns.toSeq == Seq("k", "A_ts", "A_v", "B_ts", "B_v"))
      assert(a.wjoin(b).on("k").time("ts").window("1").outputNames("join").toDF.columns.toSeq ==
        Seq("k", "ts", "v", "ts", "v"))
    }
    val e = intercept[IllegalArgumentException](spark.conf.set("spark.wjoin.outputNames", "flat"))
    assert(e.getMessage.contains("spark.wjoin.outputNames"), e.getMessage)
  }

  test("SQL follows the setting; WHERE still names the inputs' columns") {
    a.createOrReplaceTempView("na"); b.createOrReplaceTempView("nb")
    val query = "SELECT * FROM na A, nb B WINDOW(A,B) = 2 USING TIME ts WHERE A.k = B.k AND B.v > A.v"
    val joined = spark.sql(query)
    assert(joined.columns.toSeq == Seq("k", "ts", "v", "k", "ts", "v"))
    withConf("spark.wjoin.outputNames" -> "prefixed") {
      val prefixed = spark.sql(query)
      assert(prefixed.columns.toSeq == Seq("A_k", "A_ts", "A_v", "B_k", "B_ts", "B_v"))
      assert(rows(prefixed) == rows(joined) && rows(joined).nonEmpty)
      assert(rows(spark.sql(
        "SELECT A_v, B.B_v FROM na A, nb B WINDOW(A,B) = 2 USING TIME ts WHERE A.k = B.k AND B.v > A.v")) ==
        rows(joined.select("A.v", "B.v")))
    }
  }

  test("unknown names are WJOIN_UNKNOWN_CHOICE, from the builder and from plain data") {
    assert(condition(a.wjoin(b).outputNames("flat")) == "WJOIN_UNKNOWN_CHOICE")
    val args = Map[String, AnyRef]("on" -> java.util.Arrays.asList("k"), "time" -> "ts", "window" -> "1",
      "output_names" -> "flat").asJava
    val e = intercept[WJoinAnalysisException](WJoin.fromArguments(java.util.Arrays.asList(a, b), args))
    assert(e.condition == "WJOIN_UNKNOWN_CHOICE" && e.text.contains("output_names"), e.text)
    val plain = Map[String, AnyRef]("on" -> java.util.Arrays.asList("k"), "time" -> "ts", "window" -> "1",
      "output_names" -> "prefixed").asJava
    assert(WJoin.fromArguments(java.util.Arrays.asList(a, b), plain).columns.toSeq == Seq("k", "A_ts", "A_v", "B_ts", "B_v"))
  }
}
