package wjoin.exec.codec

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types.{DataType, LongType, StringType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

import wjoin.core.window.{StaticHashWindow, WindowAccount}

/**
 * [[ContiguousRows]]: a broadcast window's rows re-laid side by side in the window's order, each
 * equal to the row it replaces; what is not an UnsafeRow stays as it is.
 */
class ContiguousRowsSuite extends AnyFunSuite {
  private val types: Array[DataType] = Array(LongType, StringType)
  private val project = UnsafeProjection.create(types)
  private def row(k: Long, s: String): UnsafeRow =
    project(new GenericInternalRow(Array[Any](k, if (s == null) null else UTF8String.fromString(s)))).copy()

  test("rows are equal, in one array, in the order given, variable-length fields and NULLs included") {
    val original = Array[AnyRef](row(3, "three"), row(1, null), row(2, "a longer string than eight bytes"), row(4, ""))
    val laid = original.clone()
    ContiguousRows.lay(laid, 3)
    assert(laid.take(3).zip(original.take(3)).forall { case (a, b) => a == b && (a ne b) })
    assert(laid(3) eq original(3), "past count: untouched")
    val rows = laid.take(3).map(_.asInstanceOf[UnsafeRow])
    assert(rows.map(_.getBaseObject).distinct.length == 1, "one array")
    assert(rows.sliding(2).forall { case Array(a, b) => b.getBaseOffset == a.getBaseOffset + a.getSizeInBytes })
    assert(rows(2).getUTF8String(1).toString == "a longer string than eight bytes" && rows(1).isNullAt(1))
  }

  test("rows of another class stay where they are") {
    val mixed = Array[AnyRef](row(1, "x"), "not a row")
    val before = mixed.clone()
    ContiguousRows.lay(mixed, 2)
    assert(mixed.sameElements(before))
  }

  test("a static hash window lays each bucket's rows out side by side, by time, and probes the same rows") {
    val keys = Array[AnyRef](Long.box(7), Long.box(5), Long.box(7), Long.box(5), Long.box(7))
    val times = Array(30L, 10L, 20L, 40L, 10L)
    val rows = Array[AnyRef](row(7, "a"), row(5, "b"), row(7, "c"), row(5, "d"), row(7, "e"))
    val window = StaticHashWindow(keys, times, rows.clone(), WindowAccount.None, ContiguousRows)
    val seven = window.candidates(Long.box(7))
    assert((0 until seven.size).map(seven.time) == Seq(10L, 20L, 30L))
    assert((0 until seven.size).map(seven.row) == Seq(rows(4), rows(2), rows(0)))
    val laid = (0 until seven.size).map(seven.row(_).asInstanceOf[UnsafeRow])
    assert(laid.sliding(2).forall(p => p(1).getBaseOffset == p(0).getBaseOffset + p(0).getSizeInBytes))
    val five = window.candidates(Long.box(5))
    assert((0 until five.size).map(five.row) == Seq(rows(1), rows(3)))
  }
}
