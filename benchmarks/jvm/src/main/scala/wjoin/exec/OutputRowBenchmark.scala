package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeRowJoiner
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import wjoin.exec.codec.{CombinedRow, OutputRowWriter}

/**
 * What writing one combination's output row costs, three ways, on the same tuples:
 *
 * {{{
 *   projection  Spark's UnsafeProjection over the flat view of the tuple (CombinedRow)
 *   joiner      the stored rows side by side (GenerateUnsafeRowJoiner, one level per input),
 *               then Spark's projection into the order asked for (the Project above the node)
 *   writer      OutputRowWriter: each field's bytes copied from its stored row
 * }}}
 *
 * N inputs of `pool` stored rows each (ts, k, x, v: fixed-width; with `strings`, also an
 * 8-character string), `tuples` combinations (the first input's row kept for 16 of them, the
 * others' rows near it, as an enumeration meets them); the output is every column, the key first (as `df.select("k", ...)`). ns per
 * output row, median of `rounds` rounds after as many warm-ups.
 *
 * {{{ bin/sbt "bench/runMain wjoin.exec.OutputRowBenchmark [inputs] [strings] [tuples] [rounds] [way]" }}}
 *
 * With a `way`, only that one runs: compare ways in separate JVMs.
 */
object OutputRowBenchmark {
  def main(args: Array[String]): Unit = {
    val n = args.headOption.map(_.toInt).getOrElse(3)
    val strings = args.lift(1).exists(_.toBoolean)
    val tuples = args.lift(2).map(_.toInt).getOrElse(2000000)
    val rounds = args.lift(3).map(_.toInt).getOrElse(7)
    // One way per JVM gives each its own JIT profile (a call site that saw all three is megamorphic).
    val only = args.lift(4)
    val pool = 50000
    val rnd = new scala.util.Random(1)
    val stored = (0 until n).map { i =>
      Seq(AttributeReference("ts", TimestampType)(), AttributeReference("k", IntegerType)(),
        AttributeReference("x", DoubleType)(), AttributeReference("v", DoubleType)()) ++
        (if (strings) Seq(AttributeReference("s", StringType)()) else Nil)
    }
    val rows = stored.map { attrs =>
      val project = UnsafeProjection.create(attrs, attrs)
      Array.fill[AnyRef](pool)(project(InternalRow.fromSeq(Seq[Any](rnd.nextLong(), rnd.nextInt(500), rnd.nextDouble(),
        rnd.nextDouble()) ++ (if (strings) Seq(UTF8String.fromString(rnd.alphanumeric.take(8).mkString)) else Nil))).copy())
    }
    // As an enumeration meets them: the first input's row held for 16 combinations, the others'
    // rows near it (a window's rows sit together).
    val picks = Array.tabulate(n * tuples)(p => ((p / n) / 16 + (if (p % n == 0) 0 else rnd.nextInt(32))) % pool)
    val output = stored.head(1) +: stored.zipWithIndex.flatMap { case (attrs, i) => if (i == 0) attrs.filterNot(_ == attrs(1)) else attrs.filterNot(_.name == "k") }

    val combined = new CombinedRow(stored.map(_.map(_.dataType)))
    val projection = UnsafeProjection.create(output, stored.flatten)
    val schemas = stored.map(DataTypeUtils.fromAttributes)
    val joiners = (1 until n).map(k =>
      GenerateUnsafeRowJoiner.create(DataTypeUtils.fromAttributes(stored.take(k).flatten), schemas(k))).toArray
    val reorder = UnsafeProjection.create(output, stored.flatten)
    val writer = OutputRowWriter(output, stored)
    val ways: Seq[(String, Array[AnyRef] => UnsafeRow)] = Seq(
      "projection" -> (t => projection(combined.of(t))),
      "joiner" -> { t =>
        var row = t(0).asInstanceOf[UnsafeRow]
        var k = 1
        while (k < n) { row = joiners(k - 1).join(row, t(k).asInstanceOf[UnsafeRow]); k += 1 }
        reorder(row)
      },
      "writer" -> (t => writer.write(t)))

    val tuple = new Array[AnyRef](n)
    def round(write: Array[AnyRef] => UnsafeRow): (Long, Long) = {
      var check = 0L
      val started = System.nanoTime()
      var c = 0
      while (c < tuples) {
        var i = 0
        while (i < n) { tuple(i) = rows(i)(picks(c * n + i)); i += 1 }
        check += write(tuple).getInt(0)
        c += 1
      }
      (System.nanoTime() - started, check)
    }
    println(s"$n inputs, ${output.size} output columns${if (strings) " (with strings)" else ""}, $tuples rows")
    val results = ways.filter(w => only.forall(_ == w._1)).map { case (name, write) =>
      (0 until rounds).foreach(_ => round(write))
      val runs = (0 until rounds).map(_ => round(write))
      assert(runs.map(_._2).distinct.size == 1)
      val ns = runs.map(_._1).sorted.apply(rounds / 2).toDouble / tuples
      println(f"  $name%-10s $ns%7.1f ns per row (check ${runs.head._2}; rounds ${runs.map(r => (r._1 / tuples).toInt).mkString(" ")})")
      name -> ns
    }
    results.find(_._1 == "writer").foreach { case (_, writerNs) =>
      results.filter(_._1 != "writer").foreach { case (name, ns) => println(f"  writer vs $name: ${ns / writerNs}%.2fx faster") }
    }
  }
}
