package wjoin.exec.batch

import org.apache.spark.SparkConf
import org.apache.spark.serializer.{JavaSerializer, KryoSerializer}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{UnsafeProjection, UnsafeRow}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite

class PackedRowsSuite extends AnyFunSuite {
  private val types: Array[DataType] = Array(LongType, StringType, DoubleType, BinaryType)
  private val toUnsafe = UnsafeProjection.create(types)

  /** `m` rows of variable length (strings and binaries of 0 to 40 bytes, some NULL). */
  private def rows(m: Int): Array[InternalRow] = {
    val rnd = new scala.util.Random(m)
    Array.tabulate(m) { i =>
      val text = if (i % 7 == 3) null else UTF8String.fromString("x" * rnd.nextInt(41))
      val bytes = if (i % 5 == 1) null else Array.fill(rnd.nextInt(41))(rnd.nextInt(256).toByte)
      toUnsafe(InternalRow(i.toLong * 31, text, rnd.nextDouble(), bytes)).copy(): InternalRow
    }
  }

  private def same(a: Array[InternalRow], b: Array[InternalRow]): Unit = {
    assert(a.length == b.length)
    a.indices.foreach(i => assert(a(i).asInstanceOf[UnsafeRow] == b(i).asInstanceOf[UnsafeRow], s"row $i"))
  }

  test("rows packed into one row come back equal, in order, over its bytes (0, 1 and many rows)") {
    for (m <- Seq(0, 1, 2, 1000)) {
      val in = rows(m)
      val packed = PackedRows.transform(in.iterator, Some(m.toLong))
      assert(packed.length == 1 && packed(0).isInstanceOf[UnsafeRow])
      assert(packed(0).asInstanceOf[UnsafeRow].getSizeInBytes == 16 + in.map(r => 8 + r.asInstanceOf[UnsafeRow].getSizeInBytes).sum)
      val out = PackedRows.unpack(packed, types.length)
      same(in, out)
      assert(out.forall(_.asInstanceOf[UnsafeRow].getBaseObject eq packed(0).asInstanceOf[UnsafeRow].getBaseObject))
      same(in, PackedRows.unpack(PackedRows.transform(in), types.length))
    }
  }

  test("the packed row survives Spark's serializers (what a broadcast does), Java and Kryo") {
    val in = rows(500)
    val packed = PackedRows.transform(in.iterator, None)
    for (serializer <- Seq(new JavaSerializer(new SparkConf()), new KryoSerializer(new SparkConf()))) {
      val instance = serializer.newInstance()
      val back = instance.deserialize[Array[InternalRow]](instance.serialize(packed))
      same(in, PackedRows.unpack(back, types.length))
    }
  }

  test("only UnsafeRows are packed; one mode for every broadcast input (reusable exchanges)") {
    assertThrows[IllegalStateException](PackedRows.transform(Iterator(InternalRow(1L)), None))
    assert(PackedRows.canonicalized eq PackedRows)
  }
}
