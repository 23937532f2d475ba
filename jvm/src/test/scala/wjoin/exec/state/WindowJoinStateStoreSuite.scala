package wjoin.exec.state

import java.nio.file.Files

import scala.collection.mutable

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow, UnsafeRow}
import org.apache.spark.sql.execution.streaming.state._
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.wjoin.TestApi
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.{Algorithm, EnginePlan, UniformWindow, WindowMatrix}
import wjoin.errors.WJoinAnalysisException
import wjoin.exec.codec.RowCodec
import wjoin.testkit.{SharedSparkSession, StreamingHarness}

/**
 * [[WindowJoinStateStore]] on real state stores of both providers, without a streaming query:
 * what each micro-batch writes ([[WindowJoinStateStore.begin]], `add`, `save`, the store's
 * commit), what a fresh object reads back ([[WindowJoinStateStore.load]]), eviction, the
 * anchors' bits and decided-up-to, the shedding budgets and the sweep frontier, each checked
 * against the format version 1 layout ([[StateRecordKind]]) as well; and the format metadata
 * ([[WindowJoinStateMetadata]]): written, read, a checkpoint without it taken as version 1, an
 * unknown version refused. (The session only provides the executor environment RocksDB uses.)
 */
class WindowJoinStateStoreSuite extends AnyFunSuite with SharedSparkSession {
  private val names = Seq("A", "B")

  /** Two inputs (t: bigint, k: int, v: int) keyed on k, WINDOW = 10: horizon 10 for both. */
  private def codec(algorithm: Algorithm): RowCodec = {
    val attrs = names.map(_ => Seq(AttributeReference("t", LongType)(), AttributeReference("k", IntegerType)(),
      AttributeReference("v", IntegerType)()))
    val plan = new EnginePlan(WindowMatrix.close(Seq(UniformWindow(10, "WINDOW = 10")), names), algorithm,
      hashed = algorithm != Algorithm.NLW)
    new RowCodec(attrs, attrs.map(_.head), attrs.map(a => Seq(a(1))), Nil, attrs.flatten, plan)
  }

  /** A store provider of class `provider` on a fresh folder, operator 0, partition 0. */
  private def withProvider[T](provider: String)(body: StateStoreProvider => T): T = {
    val dir = Files.createTempDirectory("wjoin-state").toString
    val p = StateStoreProvider.create(provider)
    TestApi.initProvider(p, StateStoreId(dir, 0L, 0), StateFormat.keySchema, StateFormat.valueSchema,
      new StateStoreConf(new SQLConf, Map.empty))
    try body(p) finally p.close()
  }

  /** Runs the state of one partition through micro-batches as the evaluator does. */
  private final class Partition(c: RowCodec, p: StateStoreProvider, anchored: Boolean = false,
      budgets: Option[() => Array[Byte]] = None) {
    var version = 0L
    var state: WindowJoinStateStore = _
    var store: StateStore = _
    /** The rows the last fresh object loaded, by v. */
    val loaded = mutable.Map.empty[Int, UnsafeRow]

    /** Starts batch `batchId` with watermark W; `fresh`: a new object reads the state back. */
    def begin(batchId: Long, watermark: Long, fresh: Boolean = true): Seq[(Int, Long, Int)] = {
      store = p.getStore(version)
      if (fresh) state = new WindowJoinStateStore(c, anchored, budgets)
      state.begin(store, batchId, watermark)
      if (!fresh) return Nil
      loaded.clear()
      state.load().map { r =>
        val row = r.row.asInstanceOf[UnsafeRow]
        loaded(row.getInt(2)) = row
        (r.input, r.time, row.getInt(2))
      }.sortBy(_._3)
    }

    def add(i: Int, t: Long, k: Int, v: Int): UnsafeRow = {
      val in = new GenericInternalRow(Array[Any](t, k, v))
      val row = c.storer(i)(in)
      state.add(i, t, row, c.keyReader(i)(in))
      row
    }

    def commit(): Unit = { state.save(); version = store.commit() }

    /** Gives up an uncommitted store (RocksDB holds its instance until then). */
    def release(): Unit = if (store != null && !store.hasCommitted) store.abort()

    /** The committed records, decoded, keyed by (input, chunk) of the key. */
    def records(): Map[(Int, Long), StateRecord] = {
      val s = p.getStore(version)
      val codec = new StateRecordCodec
      try {
        val out = Map.newBuilder[(Int, Long), StateRecord]
        val it = s.iterator()
        while (it.hasNext) {
          val pair = it.next()
          out += (pair.key.getInt(0), pair.key.getLong(1)) -> codec.decode(pair.key, pair.value)
        }
        out.result()
      } finally s.abort()
    }
  }

  /** (time, v) of the rows packed in a chunk, in order: (time: bigint, size: int, UnsafeRow bytes)*. */
  private def unpack(bytes: Array[Byte]): Seq[(Long, Int)] = {
    val in = java.nio.ByteBuffer.wrap(bytes)
    val out = Seq.newBuilder[(Long, Int)]
    while (in.hasRemaining) {
      val t = in.getLong()
      val size = in.getInt()
      val row = new UnsafeRow(3)
      row.pointTo(java.util.Arrays.copyOfRange(bytes, in.position(), in.position() + size), size)
      out += ((t, row.getInt(2)))
      in.position(in.position() + size)
    }
    out.result()
  }

  for ((providerName, provider) <- StreamingHarness.providers) {
    test(s"$providerName: chunks are written per (input, batch), read back by a fresh object, evicted past W") {
      withProvider(provider) { p =>
        val part = new Partition(codec(Algorithm.HW), p)
        assert(part.begin(0, Long.MinValue).isEmpty)
        part.add(0, 1, 7, 100); part.add(1, 3, 7, 200); part.add(0, 4, 8, 101)
        part.commit()
        assert(part.state.added == 3 && part.state.live.toSeq == Seq(2, 1))
        // Format version 1 on disk: key (input, batch id) -> (max time, packed rows).
        val written = part.records()
        assert(written.keySet == Set((0, 0L), (1, 0L)))
        val StateRecord.Chunk(0, 0L, max0, bytes0) = written((0, 0L)): @unchecked
        assert(max0 == 4 && unpack(bytes0) == Seq((1L, 100), (4L, 101)))
        val StateRecord.Chunk(1, 0L, max1, bytes1) = written((1, 0L)): @unchecked
        assert(max1 == 3 && unpack(bytes1) == Seq((3L, 200)))

        // Batch 1, a fresh object: every row back; W = 13 evicts B's chunk (3 + 10 <= 13), not A's (4 + 10).
        assert(part.begin(1, 13) == Seq((0, 1, 100), (0, 4, 101), (1, 3, 200)))
        assert(part.state.restored == 3)
        assert(part.state.storedChunks.toSet == Set(ChunkInfo(0, 0, 4, 2), ChunkInfo(1, 0, 3, 1)))
        part.add(1, 13, 7, 201)
        part.commit()
        assert(part.state.removed == 1)
        // And the batch's W (eager mode): a reload skips the rows that left the windows by it.
        assert(part.records().keySet == Set((0, 0L), (1, 1L), (-1, 1L)))
        assert(part.records()((-1, 1L)) == StateRecord.Decided(13))

        // Batch 2 with the object kept (no load): W = 30 evicts everything, including this batch's new row.
        part.begin(2, 30, fresh = false)
        part.add(0, 15, 7, 102)
        part.commit()
        assert(part.state.removed == 4 && part.records().isEmpty && part.state.storedChunks.isEmpty)
        assert(part.begin(3, 30).isEmpty)
        part.release()
      }
    }

    test(s"$providerName: a fresh object skips the rows of kept chunks that left the windows at the last W") {
      withProvider(provider) { p =>
        val part = new Partition(codec(Algorithm.HW), p)
        part.begin(0, Long.MinValue)
        part.add(0, 1, 7, 100); part.add(1, 5, 7, 200); part.add(0, 12, 8, 101)
        part.commit()
        // W = 13: the engine evicted A's row at 1 (1 + 10 <= 13); its chunk stays for the row at 12.
        assert(part.begin(1, 13) == Seq((0, 1, 100), (0, 12, 101), (1, 5, 200)))
        part.commit()
        assert(part.records().keySet == Set((0, 0L), (1, 0L), (-1, 1L)))
        // A fresh object at the next batch: A's row at 1 neither comes back nor leaves (and is counted) again.
        assert(part.begin(2, 14) == Seq((0, 12, 101), (1, 5, 200)))
        assert(part.state.restored == 2 && part.state.live.toSeq == Seq(1, 1))
        part.release()
      }
    }

    test(s"$providerName: anchors' matched bits and decided-up-to survive a fresh object; decided anchors stay out") {
      withProvider(provider) { p =>
        val part = new Partition(codec(Algorithm.HW), p, anchored = true)
        part.begin(0, Long.MinValue)
        val a1 = part.add(0, 1, 7, 100)
        part.add(0, 2, 7, 101)
        part.add(1, 2, 7, 200)
        part.state.matched(a1)
        part.commit()
        // No watermark yet: no decided-up-to; the bits of chunk 0: row 0.
        val first = part.records()
        assert(first.keySet == Set((0, 0L), (1, 0L), (-2, 0L)))
        assert(first((-2, 0L)) match { case StateRecord.Matches(0L, bits) => bits.toString == "{0}"; case _ => false })

        assert(part.begin(1, 11) == Seq((0, 1, 100), (0, 2, 101), (1, 2, 200)))
        assert(part.state.restoredMatched.map(_.asInstanceOf[UnsafeRow].getInt(2)) == Seq(100))
        part.add(1, 12, 7, 201)
        part.commit()
        assert(part.records()((-1, 1L)) == StateRecord.Decided(11))

        // Row 100 (1 + 10 <= 11) was decided by batch 1: not loaded again; 101 is, with no bit.
        assert(part.begin(2, 11) == Seq((0, 2, 101), (1, 2, 200), (1, 12, 201)))
        assert(part.state.restoredMatched.isEmpty)
        part.state.matched(part.loaded(101))
        part.commit()
        assert(part.records()((-2, 0L)) match { case StateRecord.Matches(0L, bits) => bits.toString == "{0, 1}"; case _ => false })

        // W = 20: A's chunk 0 (2 + 10 <= 20) goes, and its bits with it; B's chunk 1 (12 + 10) stays.
        part.begin(3, 20)
        part.commit()
        val last = part.records()
        assert(last.keySet == Set((1, 1L), (-1, 1L)) && last((-1, 1L)) == StateRecord.Decided(20))
      }
    }

    test(s"$providerName: budgets and the sweep frontier are saved and restored; swept rows are not loaded") {
      withProvider(provider) { p =>
        val part = new Partition(codec(Algorithm.MW), p, budgets = Some(() => Array[Byte](1, 2, 3)))
        part.begin(0, Long.MinValue)
        val r = part.add(0, 5, 7, 100)
        part.add(1, 5, 7, 200)
        part.add(0, 6, 7, 101)
        part.state.evicted(0, 5, r)
        part.commit()
        val written = part.records()
        assert(written((-3, 0L)) match { case StateRecord.Budgets(b) => b.toSeq == Seq[Byte](1, 2, 3); case _ => false })
        assert(written((-1, 0L)) == StateRecord.Frontier(5, 0))
        // Swept: (5, A) and everything before; (5, B) and (6, A) come back.
        assert(part.begin(1, Long.MinValue) == Seq((0, 6, 101), (1, 5, 200)))
        assert(part.state.restoredBudgets.toSeq == Seq[Byte](1, 2, 3))
        part.release()
      }
    }
  }

  test("a row shed right after it was added is cut out of its chunk again") {
    withProvider(StreamingHarness.providers.head._2) { p =>
      val part = new Partition(codec(Algorithm.HW), p)
      part.begin(0, Long.MinValue)
      part.add(0, 1, 7, 100)
      val shed = part.add(0, 9, 7, 101)
      part.state.retract(0, shed)
      part.commit()
      val StateRecord.Chunk(0, 0L, max, bytes) = part.records()((0, 0L)): @unchecked
      assert(max == 1 && unpack(bytes) == Seq((1L, 100)) && part.state.live(0) == 1)
    }
  }

  test("format version 1: each record kind's key, and a key the format does not have is refused") {
    val c = new StateRecordCodec
    def key(r: UnsafeRow) = (r.getInt(0), r.getLong(1))
    assert(key(c.chunkKey(2, 9)) == ((2, 9L)))
    assert(key(c.singleKey(StateRecordKind.SweepFrontier)) == ((-1, 0L)))
    assert(key(c.singleKey(StateRecordKind.DecidedUpTo)) == ((-1, 1L)))
    assert(key(c.matchesKey(4)) == ((-2, 4L)))
    assert(key(c.singleKey(StateRecordKind.ShedBudgets)) == ((-3, 0L)))
    val frontier = c.frontierValue(7, 2)
    assert(frontier.getLong(0) == 7 && frontier.getBinary(1).toSeq == Seq[Byte](0, 0, 0, 2))
    assert(c.decidedValue(11).getBinary(1).isEmpty)
    for ((input, chunk) <- Seq((0, 0L), (3, 5L), (-1, 0L), (-1, 1L), (-2, 8L), (-3, 0L)))
      assert(StateRecordKind.of(input, chunk).tag == math.min(input, 0))
    val unknown = intercept[WJoinAnalysisException](StateRecordKind.of(-4, 0))
    assert(unknown.getMessage.contains("(-4, 0)") && unknown.getMessage.contains("state format version 1"))
    intercept[WJoinAnalysisException](StateRecordKind.of(-1, 2))
  }

  private def hadoop = new Configuration()

  test("format metadata: written and read back as JSON; fields it does not know are ignored") {
    val dir = Files.createTempDirectory("wjoin-meta").toString
    val file = WindowJoinStateMetadata.path(dir, 1000000L)
    assert(file.toString.endsWith("/1000000/_wjoin/metadata"))
    val m = WindowJoinStateMetadata(1, Some("9.9.9"))
    m.write(file, hadoop)
    assert(new String(Files.readAllBytes(new java.io.File(file.toString).toPath), "UTF-8") ==
      """{"formatVersion":1,"createdBy":"9.9.9"}""")
    assert(WindowJoinStateMetadata.read(file, hadoop).contains(m))
    assert(WindowJoinStateMetadata.parse("""{"formatVersion":1,"inputs":["A","B"]}""", "x") ==
      WindowJoinStateMetadata(1, None))
    val bad = intercept[WJoinAnalysisException](WindowJoinStateMetadata.parse("""{"version":1}""", "the/file"))
    assert(bad.getMessage.contains("the/file") && bad.getMessage.contains("formatVersion"))
    assert(WindowJoinStateMetadata.read(new Path(dir, "none"), hadoop).isEmpty)
  }

  test("format metadata: new state gets this code's; state without it is version 1 (written then); 99 is refused") {
    val fresh = Files.createTempDirectory("wjoin-meta").toString
    assert(WindowJoinStateMetadata.verify(fresh, 1000000L, hadoop) == WindowJoinStateMetadata.current())
    assert(WindowJoinStateMetadata.current().formatVersion == StateFormat.Current)
    assert(WindowJoinStateMetadata.read(WindowJoinStateMetadata.path(fresh, 1000000L), hadoop)
      .contains(WindowJoinStateMetadata.current()))

    // An operator with state but no metadata: a checkpoint from before the format had a version.
    val old = Files.createTempDirectory("wjoin-meta").toString
    Files.createDirectories(new java.io.File(old, "1000000/0").toPath)
    assert(WindowJoinStateMetadata.verify(old, 1000000L, hadoop) == WindowJoinStateMetadata(1, None))
    assert(WindowJoinStateMetadata.read(WindowJoinStateMetadata.path(old, 1000000L), hadoop)
      .contains(WindowJoinStateMetadata(1, None)))
    assert(WindowJoinStateMetadata.verify(old, 1000000L, hadoop) == WindowJoinStateMetadata(1, None))

    val newer = Files.createTempDirectory("wjoin-meta").toString
    val file = WindowJoinStateMetadata.path(newer, 1000000L)
    WindowJoinStateMetadata(99, Some("7.0.0")).write(file, hadoop)
    val e = intercept[WJoinAnalysisException](WindowJoinStateMetadata.verify(newer, 1000000L, hadoop))
    for (part <- Seq("state format version 99", "(started by spark-wjoin 7.0.0)", "reads state format version 1",
        file.toString, "Start the query from a new checkpoint location", "the spark-wjoin version that wrote"))
      assert(e.getMessage.contains(part), e.getMessage)
    assert(WindowJoinStateMetadata.read(file, hadoop).contains(WindowJoinStateMetadata(99, Some("7.0.0"))), "left alone")
  }
}
