package wjoin.exec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

import wjoin.core.{Algorithm, EnginePlan, WJoinEngine, WindowMatrix}
import wjoin.exec.codec.RowCodec

/**
 * What a generic join predicate (no range form: a string comparison and arithmetic, like a
 * `similar()` UDF) costs per candidate inside the engine, against one evaluation of Spark's
 * generated predicate on a `JoinedRow` (the inner loop of Spark's nested-loop join).
 *
 * {{{
 *   spark:  Predicate.create(cond, A ++ B).eval(joined.withLeft(a).withRight(b))   over all pairs
 *   engine: WJoinEngine.batch(scan windows) + RowCodec.tupleFilter                  per candidate
 * }}}
 *
 * Two inputs of `rows` rows (one every 10 time units), window `window`: each arrival tests
 * every row of the other window (scan), so candidates = predicate evaluations; ns per
 * candidate = engine time / evaluations. Median of `rounds` rounds after as many warm-ups.
 *
 * {{{ bin/sbt "bench/runMain wjoin.exec.ResidualCostBenchmark [rows] [window] [rounds]" }}}
 */
object ResidualCostBenchmark {
  def main(args: Array[String]): Unit = {
    val rows = args.headOption.map(_.toInt).getOrElse(4000)
    val window = args.lift(1).map(_.toLong).getOrElse(20000L)
    val rounds = args.lift(2).map(_.toInt).getOrElse(7)
    def attrs(p: String) = Seq(AttributeReference(s"${p}ts", LongType)(), AttributeReference(s"${p}x", DoubleType)(),
      AttributeReference(s"${p}s", StringType)())
    val (a, b) = (attrs("a"), attrs("b"))
    // no band: a string comparison OR a product (like a similarity UDF); and a cheap product alone
    val predicates = Seq(
      "substring(A.s, 1, 2) = substring(B.s, 1, 2) OR A.x * B.x > 9900" ->
        Or(EqualTo(Substring(a(2), Literal(1), Literal(2)), Substring(b(2), Literal(1), Literal(2))),
          GreaterThan(Multiply(a(1), b(1)), Literal(9900.0))),
      "A.x * B.x > 9900" -> GreaterThan(Multiply(a(1), b(1)), Literal(9900.0)))
    val rnd = new scala.util.Random(1)
    def data(): IndexedSeq[InternalRow] = (0 until rows).map { i =>
      val proj = UnsafeProjection.create(Array[DataType](LongType, DoubleType, StringType))
      proj(InternalRow(i * 10L, rnd.nextDouble() * 100, UTF8String.fromString(rnd.alphanumeric.take(8).mkString))).copy()
    }
    val (da, db) = (data(), data())

    for ((text, cond) <- predicates) measure(text, cond)

    def measure(text: String, cond: Expression): Unit = {
    val spark = Predicate.create(cond, a ++ b)
    spark.initialize(0)
    def sparkRound(): (Long, Long) = {
      val joined = new JoinedRow
      var hits = 0L
      var evals = 0L
      val started = System.nanoTime()
      var i = 0
      while (i < da.size) {
        val l = da(i)
        val from = math.max(0, i - (window / 10).toInt)
        var j = from
        while (j <= math.min(db.size - 1, i + (window / 10).toInt)) {
          evals += 1
          if (spark.eval(joined.withLeft(l).withRight(db(j)))) hits += 1
          j += 1
        }
        i += 1
      }
      (System.nanoTime() - started, evals)
    }

    val plan = new EnginePlan(WindowMatrix.uniform(2, window), Algorithm.NLW, hashed = false)
    val codec = new RowCodec(Seq(a, b), Seq(a(0), b(0)), Seq(Nil, Nil), Seq(cond), a ++ b, plan)
    def engineRound(): (Long, Long) = {
      val engine = WJoinEngine.batch(plan, codec.tupleFilter(0), codec.rangeValues())
      val started = System.nanoTime()
      var results = 0L
      var (i, j) = (0, 0)
      while (i < da.size || j < db.size) {
        if (j >= db.size || (i < da.size && da(i).getLong(0) <= db(j).getLong(0))) {
          engine.offer(0, da(i).getLong(0), null, da(i)); i += 1
        } else { engine.offer(1, db(j).getLong(0), null, db(j)); j += 1 }
        while (engine.next()) results += 1
      }
      engine.finish()
      while (engine.next()) results += 1
      (System.nanoTime() - started, engine.stats.predicateEvals)
    }

    def median(xs: Seq[Double]) = xs.sorted.apply(xs.size / 2)
    val measured = (0 until 2 * rounds).map { r =>
      val (sn, se) = sparkRound()
      val (en, ee) = engineRound()
      (sn.toDouble / se, en.toDouble / ee, se, ee)
    }.drop(rounds)
    val (spark1, engine1) = (median(measured.map(_._1)), median(measured.map(_._2)))
    println(f"$text: rows=$rows window=$window evaluations: spark ${measured.head._3} engine ${measured.head._4}")
    println(f"  ns per candidate: Spark's generated predicate $spark1%.1f, engine (scan + residual) $engine1%.1f, " +
      f"ratio ${engine1 / spark1}%.2f")
    }
  }
}
