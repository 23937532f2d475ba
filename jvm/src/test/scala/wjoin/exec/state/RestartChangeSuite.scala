package wjoin.exec.state

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.functions.col
import org.apache.spark.sql.streaming.StreamingQueryException
import org.scalatest.funsuite.AnyFunSuite

import wjoin.WJoin
import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.{Ev, SharedSparkSession, StreamingHarness}

/**
 * A streaming W-join restarted from its checkpoint with a changed query: each change the
 * stored state cannot serve exactly is refused before the first micro-batch of the new run,
 * naming the setting and both values ([[StateQuery]]); each change that is exact goes on and
 * the whole output is the changed query's batch answer.
 */
class RestartChangeSuite extends AnyFunSuite with SharedSparkSession {
  private type Query = Seq[(String, DataFrame)] => DataFrame

  private def wjoin(f: WJoin.Builder => WJoin.Builder): Query = inputs => f(WJoin(inputs: _*).time("ts")).toDF
  private val keyed: WJoin.Builder => WJoin.Builder = _.on("k").windows("WINDOW = 10 seconds")
  private val hw = wjoin(b => keyed(b).algorithm("hw"))
  private val mw = wjoin(b => keyed(b).algorithm("mw"))

  private val events = Ev.random(3, 24, seed = 5)
  private val batches = Ev.splits(events, 4, seed = 5)

  /**
   * Runs `before` over the first two batches, stops, adds the third, restarts with `after`
   * (with the session settings `afterConf`): Left(the error) if the restart fails, else
   * Right(whole output, the batch answer of `after`).
   */
  private def restart(before: Query, after: Query, afterConf: (String, String)*)
      : Either[WJoinAnalysisException, (Seq[Seq[Int]], Seq[Seq[Int]])] = {
    var current = before
    val h = new StreamingHarness(spark, 3, 60, inputs => current(inputs))
    h.start()
    try {
      batches.take(2).foreach(b => h.step(b: _*))
      h.stop()
      h.add(batches(2))
      current = after
      withConf(afterConf: _*) {
        h.start()
        try h.query.processAllAvailable() catch {
          case e: StreamingQueryException =>
            val causes = Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null)
            return Left(causes.collectFirst { case w: WJoinAnalysisException => w }.getOrElse(throw e))
        }
        h.step(batches(3): _*)
        h.flush()
      }
      Right((h.results.sortBy(_.mkString(",")), h.batchAnswer(events)))
    } finally if (h.query != null) h.stop()
  }

  private def refused(setting: String, before: Query, after: Query): Unit = {
    val e = restart(before, after).swap.getOrElse(fail(s"a changed $setting must be refused"))
    assert(e.condition == "WJOIN_STATE_QUERY_CHANGED")
    assert(e.getSqlState == "42K03")
    assert(e.messageParameters("setting").split(", ").contains(setting), e.getMessage)
    assert(e.getMessage.contains("in the checkpoint") && e.getMessage.contains("new checkpoint location"))
  }

  private def exact(before: Query, after: Query, afterConf: (String, String)*): Unit = {
    val (got, expected) = restart(before, after, afterConf: _*).fold(e => fail(e.getMessage), identity)
    assert(expected.nonEmpty, "the events must give combinations")
    assert(got == expected)
  }

  test("refused: the algorithm between eager (nlw, hw) and ordered (mw) state, both ways") {
    refused(StateQuery.Algorithm, hw, mw)
    refused(StateQuery.Algorithm, mw, hw)
  }

  test("refused: the windows, the keys, the condition and how") {
    refused(StateQuery.Windows, hw, wjoin(_.on("k").windows("WINDOW = 20 seconds").algorithm("hw")))
    refused(StateQuery.Keys, hw, wjoin(b => b.on(col("A.id") > 0).windows("WINDOW = 10 seconds").algorithm("nlw")))
    refused(StateQuery.Condition, hw, wjoin(b => keyed(b).on(col("A.id") < col("B.id")).algorithm("hw")))
    refused(StateQuery.How, hw, wjoin(b => keyed(b).how("left").algorithm("hw")))
  }

  test("refused: a conjunct over one input (on a stream it stays in the condition, never in the input)") {
    // Pushed into B, it would decide which B rows enter the state, unrecorded: B rows buffered
    // before the restart would still join after it.
    refused(StateQuery.Condition, hw, wjoin(b => keyed(b).on(col("B.id") > 2).algorithm("hw")))
    refused(StateQuery.Condition, wjoin(b => keyed(b).on(col("B.id") > 2).algorithm("hw")),
      wjoin(b => keyed(b).on(col("B.id") > 3).algorithm("hw")))
    exact(wjoin(b => keyed(b).on(col("B.id") > 2).algorithm("hw")), wjoin(b => keyed(b).on(col("B.id") > 2).algorithm("nlw")))
  }

  test("refused: the inputs' order, their columns, the time columns and the limits") {
    refused(StateQuery.Inputs, hw, inputs => hw(Seq(inputs(1), inputs(0), inputs(2))))
    // (a column the query does not use is pruned before the join: adding one changes nothing)
    refused(StateQuery.InputColumns, hw, inputs => hw(inputs.map { case (n, df) => n -> df.withColumn("k", col("k").cast("long")) }))
    refused(StateQuery.TimeColumns, hw,
      inputs => wjoin(b => keyed(b).time("t2").algorithm("hw"))(inputs.map { case (n, df) => n -> df.withColumnRenamed("ts", "t2") }))
    refused(StateQuery.Limits, hw, wjoin(b => keyed(b).algorithm("hw").limits(Map("state_rows" -> 1000))))
  }

  test("exact, so allowed: nlw <-> hw, the window respelled, the strategy, access paths, shuffle partitions") {
    exact(hw, wjoin(b => keyed(b).algorithm("nlw")))
    exact(wjoin(b => keyed(b).algorithm("nlw")), hw)
    exact(hw, wjoin(_.on("k").windows("WINDOW = 10000 milliseconds").algorithm("hw")))
    exact(mw, wjoin(b => keyed(b).algorithm("mw").windowStrategy("gca")))
    exact(hw, wjoin(b => keyed(b).algorithm("hw").accessPaths("A=scan")))
    exact(mw, mw, "spark.sql.shuffle.partitions" -> "3")
  }

  test("the recorded query reads back, and a file without one takes the first run's") {
    val q = StateQuery(StateQuery.Inputs -> "A, B", StateQuery.How -> "inner")
    val m = WindowJoinStateMetadata(1, Some("0.1.0"), Some(q))
    assert(WindowJoinStateMetadata.parse(m.json, "test") == m)
    assert(WindowJoinStateMetadata.parse("""{"formatVersion":1}""", "test").query.isEmpty)
    q.requireSameAs(StateQuery(StateQuery.Inputs -> "A, B"), "test") // a setting not recorded is not compared
    val e = intercept[WJoinAnalysisException](q.requireSameAs(StateQuery(StateQuery.How -> "left"), "p"))
    assert(e.messageParameters("changes") == "how: 'left' in the checkpoint, 'inner' now")
  }
}
