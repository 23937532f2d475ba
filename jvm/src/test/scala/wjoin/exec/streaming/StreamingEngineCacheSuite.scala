package wjoin.exec
package streaming

import java.util.UUID

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.streaming.state.{StateStoreId, StateStoreProviderId}
import org.apache.spark.sql.wjoin.KeptEngineMemory
import org.scalatest.funsuite.AnyFunSuite

import wjoin.testkit.{Ev, SharedSparkSession, StreamingHarness}
import wjoin.WJoin

/**
 * Engines kept in executor memory between micro-batches ([[StreamingEngineCache]]): the state
 * is not read back while they are kept, and every way of losing one (a restart, a version
 * mismatch, the memory bound, re-planning) rebuilds it from the store with the same output.
 * `numRestoredStateRows` (rows read back from the store) tells a kept engine from a rebuilt one.
 */
class StreamingEngineCacheSuite extends AnyFunSuite with SharedSparkSession {
  private val providers = StreamingHarness.providers

  /** Access paths are fixed, so no batch is re-planned (that too would rebuild the engines). */
  private def build(algorithm: String, how: String)(inputs: Seq[(String, DataFrame)]): DataFrame =
    WJoin(inputs: _*).on("k").time("ts").windows("WINDOW = 6 seconds").algorithm(algorithm).how(how)
      .accessPaths(inputs.map(_._1 + ":hash").mkString(", ")).toDF

  private def ids(how: String, n: Int): Seq[String] =
    if (how == "inner" || how == "left") (0 until n).map(i => s"${('A' + i).toChar}.id") else Seq("A.id")

  /** Per batch id, the rows the W-join read back from the state store. */
  private def restored(h: StreamingHarness): Seq[(Long, Long)] = h.progress.filter(_.stateOperators.nonEmpty).map { p =>
    p.batchId -> p.stateOperators.head.customMetrics.get("numRestoredStateRows").longValue
  }

  /** Rows the W-join evicted, summed over the batches run. */
  private def evicted(h: StreamingHarness): Long = h.progress.filter(_.stateOperators.nonEmpty)
    .map(_.stateOperators.head.customMetrics.get("numEvictedRows").longValue).sum

  private def run(h: StreamingHarness, batches: Seq[Seq[Seq[Ev]]]): Unit = batches.foreach(b => h.step(b: _*))

  // Half of provider x algorithm x how (every pair of the three meets once): hw inner and mw left
  // on the first provider, hw left and mw inner on the second.
  for (((providerName, provider), p) <- providers.zipWithIndex; (algorithm, a) <- Seq("hw", "mw").zipWithIndex;
       how = Seq("inner", "left")((p + a) % 2)) {
    test(s"$algorithm $how on $providerName: kept engines read no state back; rebuilt ones read it every batch; " +
        "same output, same rows evicted") {
      val events = Ev.random(3, 20, 11)
      val batches = Ev.splits(events, 5, 3)
      val outputs = for (kept <- Seq("50000000", "0")) yield withConf(
          "spark.sql.streaming.stateStore.providerClass" -> provider, "spark.wjoin.streaming.keptEngineRows" -> kept) {
        val h = new StreamingHarness(spark, 3, 40, build(algorithm, how), ids(how, 3))
        h.start()
        try {
          run(h, batches)
          val readBack = restored(h).filter(_._1 > 0).map(_._2)
          if (kept == "0") assert(readBack.sum > 0, s"every batch rebuilds from the store: $readBack")
          else assert(readBack.forall(_ == 0), s"a kept engine reads nothing back: ${restored(h)}")
          h.flush()
          val expected = h.batchAnswer(events)
          assert(h.results.sortBy(_.mkString(",")) == expected)
          assert(expected.nonEmpty)
          (h.results.sortBy(_.mkString(",")), evicted(h))
        } finally h.stop()
      }
      assert(outputs.head._1 == outputs.last._1)
      // A rebuilt engine does not load (and evict, and count, again) rows that left the windows
      // in an earlier batch while their chunk stayed in the store.
      assert(outputs.head._2 > 0 && outputs.head._2 == outputs.last._2, s"evicted, kept and rebuilt: ${outputs.map(_._2)}")
    }
  }

  test("a restart in the middle of a run rebuilds the engines from the store: identical output") {
    val events = Ev.random(3, 20, 5)
    val batches = Ev.splits(events, 6, 9)
    val h = new StreamingHarness(spark, 3, 40, build("hw", "inner"), ids("inner", 3))
    h.start()
    run(h, batches.take(3))
    h.stop()
    h.start()
    try {
      run(h, batches.slice(3, 4))
      assert(restored(h).head._2 > 0, s"the first batch after the restart reads the state back: ${restored(h)}")
      run(h, batches.drop(4))
      assert(restored(h).tail.forall(_._2 == 0), s"then the engines are kept: ${restored(h)}")
      h.flush()
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
    } finally h.stop()
  }

  test("RocksDB with checkpoint format version 2: every partition's checkpoint id is committed; a restart is exact") {
    assume(org.apache.spark.SPARK_VERSION_SHORT.split('.').head.toInt >= 4, "checkpoint format version 2 came with Spark 4.0")
    val events = Ev.random(3, 20, 6)
    val batches = Ev.splits(events, 6, 4)
    withConf("spark.sql.streaming.stateStore.providerClass" -> providers.last._2,
        "spark.sql.streaming.stateStore.checkpointFormatVersion" -> "2", "spark.sql.shuffle.partitions" -> "3") {
      val h = new StreamingHarness(spark, 3, 40, build("hw", "inner"), ids("inner", 3))
      h.start()
      run(h, batches.take(3))
      h.stop()
      // Spark records the stores' ids in the commit log only as the operator reports them.
      val commits = new java.io.File(h.checkpoint, "commits").listFiles().filter(_.getName.forall(_.isDigit))
      val last = scala.io.Source.fromFile(commits.maxBy(_.getName.toLong))
      val log = try last.mkString finally last.close()
      assert(log.contains("stateUniqueIds") && log.contains("\"1000000\""), log)
      h.start()
      try {
        run(h, batches.drop(3))
        assert(restored(h).head._2 > 0, s"the first batch after the restart reads the state back: ${restored(h)}")
        h.flush()
        assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
        assert(h.results.nonEmpty)
      } finally h.stop()
    }
  }

  test("a kept engine of another store version (a re-run of an older batch) is detected and rebuilt from the store") {
    val events = Ev.random(3, 20, 8)
    val batches = Ev.splits(events, 6, 2)
    val h = new StreamingHarness(spark, 3, 40, build("mw", "left"), ids("left", 3))
    h.start()
    try {
      run(h, batches.take(3))
      // A no-data batch may still be running: shift once the query is idle; a task that had its
      // engine checked out meanwhile puts back a right one, the others are all mismatched.
      val deadline = System.currentTimeMillis() + 10000
      while (h.query.status.isTriggerActive && System.currentTimeMillis() < deadline) Thread.sleep(20)
      val shiftedAfter = restored(h).map(_._1).max
      StreamingEngineCache.shiftVersions(1)
      run(h, batches.slice(3, 4))
      val later = restored(h).filter(_._1 > shiftedAfter)
      assert(later.exists(_._2 > 0), s"the mismatched engines are rebuilt: $later")
      run(h, batches.drop(4))
      h.flush()
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
    } finally h.stop()
  }

  test("two queries with the same operator id in one JVM never share an engine") {
    val events = Seq(Ev.random(2, 20, 1), Ev.random(2, 20, 2))
    val hs = Seq("WINDOW = 3 seconds", "WINDOW = 9 seconds").map { w =>
      val h = new StreamingHarness(spark, 2, 40, ins => WJoin(ins: _*).on("k").time("ts").windows(w).toDF)
      h.start()
      h
    }
    try {
      // Alternating batches: both queries' operator 1000000 partitions are kept at once.
      for (b <- 0 until 4; q <- 0 to 1) hs(q).step(Ev.splits(events(q), 4, q)(b): _*)
      assert(StreamingEngineCache.size >= 2)
      hs.foreach(_.flush())
      for (q <- 0 to 1) assert(hs(q).results.sortBy(_.mkString(",")) == hs(q).batchAnswer(events(q)), s"query $q")
      assert(hs(0).results.size < hs(1).results.size)
    } finally hs.foreach(_.stop())
  }

  test("engines over the memory bound are not kept: rebuilt each batch, same output") {
    withConf("spark.wjoin.streaming.keptEngineRows" -> "3") {
      val events = Ev.random(2, 30, 4)
      val h = new StreamingHarness(spark, 2, 40, build("hw", "inner"), ids("inner", 2))
      h.start()
      try {
        run(h, Ev.splits(events, 4, 1))
        assert(restored(h).filter(_._1 > 0).map(_._2).sum > 0)
        h.flush()
        assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
      } finally h.stop()
    }
  }

  test("a kept engine's windows are storage memory while kept, given back when it leaves the cache") {
    StreamingEngineCache.clear()
    wjoin.exec.batch.BroadcastWindowCache.clear() // shares the reservations' count
    assert(KeptEngineMemory.reserved == 0)
    val events = Ev.random(2, 30, 4)
    val h = new StreamingHarness(spark, 2, 40, build("hw", "inner"), ids("inner", 2))
    h.start()
    try {
      run(h, Ev.splits(events, 3, 1))
      val kept = StreamingEngineCache.keptBytes
      assert(StreamingEngineCache.size > 0 && kept > 0, "engines with rows are kept, with their bytes")
      assert(KeptEngineMemory.reserved == kept, "reserved as storage memory")
      StreamingEngineCache.clear()
      assert(KeptEngineMemory.reserved == 0, "and given back")
      h.flush()
      assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
    } finally h.stop()
  }

  test("kept engines' reservations are Spark storage memory, never granted beyond what is free") {
    // Other storage (broadcasts) may come and go meanwhile: a large reservation, compared loosely.
    val size = 64L << 20
    val reserved = KeptEngineMemory.reserved
    val before = KeptEngineMemory.storageUsed
    assert(KeptEngineMemory.reserve(size))
    val during = KeptEngineMemory.storageUsed
    KeptEngineMemory.release(size)
    assert(math.abs(during - before - size) < (8L << 20), s"storage used went from $before to $during")
    assert(!KeptEngineMemory.reserve(Long.MaxValue / 4), "more than the free storage memory is refused")
    assert(KeptEngineMemory.reserved == reserved)
  }

  test("with no memory share for kept engines none is kept: rebuilt each batch, same output") {
    withConf("spark.wjoin.streaming.keptEngineMemoryFraction" -> "0") {
      StreamingEngineCache.clear()
      val events = Ev.random(2, 30, 5)
      val h = new StreamingHarness(spark, 2, 40, build("hw", "inner"), ids("inner", 2))
      h.start()
      try {
        run(h, Ev.splits(events, 4, 1))
        assert(restored(h).filter(_._1 > 0).map(_._2).sum > 0)
        assert(StreamingEngineCache.keptBytes == 0)
        h.flush()
        assert(h.results.sortBy(_.mkString(",")) == h.batchAnswer(events))
      } finally h.stop()
    }
  }

  test("an engine whose state store provider Spark unloaded is released") {
    val gone = StateStoreProviderId(StateStoreId("/nowhere", 1L, 0), UUID.randomUUID())
    val other = StateStoreProviderId(StateStoreId("/nowhere", 1L, 1), UUID.randomUUID())
    StreamingEngineCache.clear()
    StreamingEngineCache.keep(gone, 1L, "plan", null, Long.MaxValue)
    assert(StreamingEngineCache.size == 1)
    assert(StreamingEngineCache.checkOut(gone, 2L, "plan").isEmpty, "another version: not served")
    assert(StreamingEngineCache.size == 0, "and dropped")
    StreamingEngineCache.keep(gone, 1L, "plan", null, Long.MaxValue)
    assert(StreamingEngineCache.checkOut(gone, 1L, "other plan").isEmpty, "another plan: not served")
    StreamingEngineCache.keep(gone, 1L, "plan", null, Long.MaxValue)
    StreamingEngineCache.keep(other, 1L, "plan", null, Long.MaxValue)
    assert(StreamingEngineCache.size == 1, "keeping one sweeps the engines of unloaded providers")
    StreamingEngineCache.clear()
  }
}
