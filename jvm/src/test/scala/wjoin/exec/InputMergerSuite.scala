package wjoin.exec

import scala.jdk.CollectionConverters._

import org.apache.spark.memory.SparkOutOfMemoryError
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, GenericInternalRow, UnsafeRow}
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.{Algorithm, EnginePlan, EngineRow, StreamRows, UniformWindow, WindowMatrix}
import wjoin.core.window.{MemoryBudget, WindowMemory}
import wjoin.errors.WJoinRuntimeException
import wjoin.exec.codec.RowCodec

/**
 * The [[InputMerger]] without Spark jobs: the arrival order (least time first, ties to the
 * lower input) and the rules for rows that cannot join (NULL time, NULL key, late, ROWS
 * count-only), with their counters.
 */
class InputMergerSuite extends AnyFunSuite {
  private val names = Seq("A", "B")

  /** Two inputs (t: bigint, k: int, v: int), keyed on k, uniform window 10. */
  private def codec(hashed: Boolean, rowLimits: Array[Long] = null): RowCodec = {
    val attrs = names.map(nm => Seq(AttributeReference("t", LongType)(), AttributeReference("k", IntegerType)(),
      AttributeReference("v", IntegerType)()))
    val terms = Seq(UniformWindow(10, "WINDOW = 10"))
    val plan = new EnginePlan(WindowMatrix.close(terms, names), if (hashed) Algorithm.HW else Algorithm.MW, hashed,
      rowLimits = rowLimits)
    new RowCodec(attrs, attrs.map(_.head), if (hashed) attrs.map(a => Seq(a(1))) else Nil, Nil, attrs.flatten, plan)
  }

  /** A row (t, k, v); None is NULL. */
  private def row(t: Option[Long], k: Option[Int], v: Int): InternalRow =
    new GenericInternalRow(Array[Any](t.map(Long.box).orNull, k.map(Int.box).orNull, v))

  private def merger(c: RowCodec, a: Seq[InternalRow], b: Seq[InternalRow], late: Option[Long] = None) =
    new InputMerger(Array(a.iterator, b.iterator), c, late)

  /** (input, time, v) of each merged row. */
  private def drain(m: InputMerger): Seq[(Int, Long, Int)] =
    m.toList.map((r: EngineRow) => (r.input, r.time, r.row.asInstanceOf[UnsafeRow].getInt(2)))

  test("rows come in time order; equal times go to the lower input first") {
    val m = merger(codec(hashed = true),
      Seq(row(Some(1), Some(1), 10), row(Some(5), Some(1), 11), row(Some(7), Some(1), 12)),
      Seq(row(Some(1), Some(1), 20), row(Some(5), Some(1), 21), row(Some(6), Some(1), 22)))
    assert(drain(m) == Seq((0, 1, 10), (1, 1, 20), (0, 5, 11), (1, 5, 21), (1, 6, 22), (0, 7, 12)))
    assert(m.rowsRead == 6 && m.rowsReadOf.toSeq == Seq(3, 3) && m.offered.toSeq == Seq(3, 3))
    assert(m.nullRows == 0 && m.lateRows == 0)
  }

  test("a NULL time never joins: dropped and counted, whatever the column's declared nullability") {
    val c = codec(hashed = false)
    val m = merger(c, Seq(row(None, Some(1), 10), row(Some(3), Some(1), 11)), Seq(row(None, None, 20)))
    assert(drain(m) == Seq((0, 3, 11)))
    assert(m.nullRows == 2 && m.rowsRead == 3 && m.offered.toSeq == Seq(1, 0))
  }

  test("a non-nullable time column holding a NULL is still dropped (a source may lie about nullability)") {
    val attrs = names.map(_ => Seq(AttributeReference("t", LongType, nullable = false)(),
      AttributeReference("k", IntegerType)(), AttributeReference("v", IntegerType)()))
    val plan = new EnginePlan(WindowMatrix.close(Seq(UniformWindow(10, "WINDOW = 10")), names), Algorithm.MW, false)
    val c = new RowCodec(attrs, attrs.map(_.head), Nil, Nil, attrs.flatten, plan)
    val m = merger(c, Seq(row(None, Some(1), 10)), Seq(row(Some(0), Some(1), 20)))
    assert(drain(m) == Seq((1, 0, 20)))
    assert(m.nullRows == 1)
  }

  test("a NULL key in a hashed plan is dropped and counted; unhashed, the key is not read") {
    val rows = Seq(row(Some(1), None, 10), row(Some(2), Some(4), 11))
    val hashed = merger(codec(hashed = true), rows, Nil)
    assert(drain(hashed) == Seq((0, 2, 11)))
    assert(hashed.nullRows == 1 && hashed.offered.toSeq == Seq(1, 0))
    val scanned = merger(codec(hashed = false), rows, Nil)
    assert(drain(scanned) == Seq((0, 1, 10), (0, 2, 11)))
    assert(scanned.nullRows == 0)
  }

  test("streaming: rows at or before the late bound are dropped and counted (inclusive)") {
    val m = merger(codec(hashed = true), Seq(row(Some(4), Some(1), 10), row(Some(5), Some(1), 11),
      row(Some(6), Some(1), 12)), Seq(row(Some(3), Some(1), 20)), late = Some(5L))
    assert(drain(m) == Seq((0, 6, 12)))
    assert(m.lateRows == 3 && m.rowsRead == 4 && m.rowsReadOf.toSeq == Seq(3, 1))
  }

  test("ROWS windows: a NULL-key row is kept as count-only on inputs with a ROWS window only") {
    val c = codec(hashed = true, rowLimits = Array(2L, StreamRows.NoLimit))
    val m = merger(c, Seq(row(Some(1), None, 10), row(Some(2), Some(1), 11)), Seq(row(Some(1), None, 20)))
    val out = m.toList
    assert(out.map(r => (r.input, r.time)) == Seq((0, 1L), (0, 2L)))
    assert(out.head.key == null && out.head.row != null, "count-only: no key, the row kept")
    assert(out(1).key != null)
    assert(m.nullRows == 2 && m.offered.toSeq == Seq(1, 0))
  }

  test("emitted rows are copies: an input that reuses its row object does not corrupt them") {
    val shared = new GenericInternalRow(3)
    val reused = Iterator(1L, 2L, 3L).map { t => shared.update(0, t); shared.update(1, 1); shared.update(2, t.toInt); shared }
    val m = new InputMerger(Array[Iterator[InternalRow]](reused, Iterator.empty), codec(hashed = true))
    assert(drain(m).map(_._3) == Seq(1, 2, 3))
  }

  test("an input's sort refused memory while the windows hold it fails as the windows' refusal, Spark's error its cause") {
    def windows(rows: Int): WindowMemory = {
      val memory = TaskWindowMemory.ledger(WindowNames(names, Seq("WINDOW = 10", "WINDOW = 10")))
      memory.bind(MemoryBudget.Unlimited)
      val b = memory.account(1)
      (1 to rows).foreach(_ => b.rowIn(100))
      memory
    }
    def refusedSort = new Iterator[InternalRow] {
      def hasNext: Boolean = throw new SparkOutOfMemoryError("UNABLE_TO_ACQUIRE_MEMORY",
        Map("requestedBytes" -> "65536", "receivedBytes" -> "0").asJava)
      def next(): InternalRow = throw new NoSuchElementException
    }
    val e = intercept[WJoinRuntimeException](new InputMerger(Array(Iterator.empty, refusedSort), codec(hashed = true),
      windows = windows(3)))
    assert(e.condition == "WJOIN_WINDOW_MEMORY_EXCEEDED", e.getMessage)
    assert(e.getMessage.contains("the window of input B") && e.getMessage.contains("holds 3 rows"), e.getMessage)
    assert(e.getCause.isInstanceOf[SparkOutOfMemoryError])
    if (e.getCause.getMessage.contains("65536")) assert(e.getMessage.contains("refused 64.0 KiB more"), e.getMessage)
    // Windows holding nothing, or none given: Spark's error as it is.
    intercept[SparkOutOfMemoryError](new InputMerger(Array(Iterator.empty, refusedSort), codec(hashed = true),
      windows = windows(0)))
    intercept[SparkOutOfMemoryError](new InputMerger(Array(Iterator.empty, refusedSort), codec(hashed = true)))
  }
}
