package wjoin.bench

import wjoin.core._

/**
 * Hammad et al. Figs. 13-14 redrawn on the Spark-free engine (the papers measure the operator
 * itself; Spark's scheduling would hide the differences):
 *  - Fig. 13, GCA vs LCA: 4 inputs at 1000 rows/s each, every pair within a short window
 *    (0.8 s or 0.1 s) except WINDOW(A,B) = 1 s; MW-join under each window strategy.
 *  - Fig. 14, Path W-join: DWINDOW(A,B) AND DWINDOW(B,C) AND DWINDOW(C,D), the modified
 *    NLW-join (exact one-sided periods) vs LCA (MW-join over the symmetric, completed
 *    constraints), with small and with large variation between the inputs' rates.
 * Rows carry an object id from `keys` ids; the join predicate is id equality, tested as a
 * predicate after each bound member (merge / nested-loops access, as in the paper), or by hash
 * buckets where the row says "hash". Per configuration: results (equal across strategies,
 * checked), time-stamp comparisons, predicate evaluations and refinement rejections per input
 * row, and service time per input row (single-threaded, after a warm-up run).
 *
 * {{{ bin/sbt "bench/runMain wjoin.bench.WindowFormsBenchmark [seconds] [keys]" }}}
 */
object WindowFormsBenchmark {
  import EngineBenchmark.{Measure, Row, measure}

  /** Merged streams, input i at rates(i) rows/s (exponential gaps) for `seconds`. */
  def streams(rates: Seq[Double], seconds: Double, keys: Int, seed: Long): Array[(Int, Row)] = {
    val rnd = new scala.util.Random(seed)
    rates.zipWithIndex.flatMap { case (rate, i) =>
      Iterator.iterate(-math.log(1 - rnd.nextDouble()) / rate)(t => t - math.log(1 - rnd.nextDouble()) / rate)
        .takeWhile(_ < seconds).map(t => (i, Row(rnd.nextInt(keys), (t * 1e6).toLong))).toSeq
    }.sortBy(_._2.time).toArray
  }

  private val names = Seq("A", "B", "C", "D")

  /** GCA / LCA periods from the user's terms before closure, as Hammad et al. compute them. */
  private def literalPeriods(strategy: WindowStrategy, terms: Seq[WindowTerm]): WindowMatrix = {
    val n = names.size
    val raw = Array.fill(n * n)(0L) // the terms' own bounds, unclosed
    for (t <- terms; (i, j, b) <- t.bounds(n)) raw(i * n + j) = math.max(raw(i * n + j), b)
    WindowStrategy.periodMatrix(strategy, new WindowMatrix(n, raw))
  }

  private def line(label: String, rows: Int, m: Measure): String =
    f"| $label%-28s | ${m.results}%,11d | ${m.comparisons.toDouble / rows}%9.1f | ${m.predicateEvals.toDouble / rows}%9.1f | " +
      f"${m.rejections.toDouble / rows}%8.1f | ${m.nanos.toDouble / rows}%8.0f | ${m.peakBuffered}%,7d |"

  private val header =
    "| strategy                     |     results |   cmp/row |  pred/row | rej/row |  ns/row |    peak |\n" +
    "|------------------------------|------------:|----------:|----------:|--------:|--------:|--------:|"

  /** Runs each (label, plan) after a warm-up on `warm`; fails if the results differ. */
  private def compare(title: String, data: Array[(Int, Row)], warm: Array[(Int, Row)],
      plans: Seq[(String, EnginePlan)]): Unit = {
    println(s"\n$title (${data.length} rows)\n$header")
    var expected = -1L
    for ((label, plan) <- plans) {
      measure(warm, plan)
      val m = measure(data, plan)
      if (expected >= 0 && m.results != expected)
        throw new IllegalStateException(s"$label found ${m.results} results, expected $expected")
      expected = m.results
      println(line(label, data.length, m))
    }
  }

  def main(args: Array[String]): Unit = {
    val seconds = args.headOption.map(_.toDouble).getOrElse(20.0)
    val keys = args.lift(1).map(_.toInt).getOrElse(1000)
    println(s"W-join window forms: $seconds s of data, $keys object ids, times in microseconds")

    // Fig. 13: GCA vs LCA, 4 inputs at 1000 rows/s, short windows except WINDOW(A,B) = 1 s.
    for (short <- Seq(800000L, 100000L)) {
      val terms = for (a <- 0 until 4; b <- a + 1 until 4) yield {
        val w = if (a == 0 && b == 1) 1000000L else short
        PairWindow(a, b, w, s"WINDOW(${names(a)},${names(b)}) = $w")
      }
      val matrix = WindowMatrix.close(terms, names)
      val data = streams(Seq.fill(4)(1000.0), seconds, keys, 13)
      val warm = streams(Seq.fill(4)(1000.0), 2, keys, 3)
      def mw(s: WindowStrategy, hashed: Boolean = false, literal: Boolean = false) =
        if (literal) new LiteralPeriodsPlan(matrix, Algorithm.MW, hashed, s, literalPeriods(s, terms))
        else new EnginePlan(matrix, Algorithm.MW, hashed, requestedStrategy = s)
      compare(s"Fig. 13: windows ${short / 1000} ms / 1000 ms, MW-join, closed matrix " +
        s"${matrix.render(names, integralTime = true)}", data, warm, Seq(
        "gca (paper: raw terms)" -> mw(WindowStrategy.GCA, literal = true),
        "lca (paper: raw terms)" -> mw(WindowStrategy.LCA, literal = true),
        "gca" -> mw(WindowStrategy.GCA),
        "lca" -> mw(WindowStrategy.LCA),
        "exact" -> mw(WindowStrategy.Exact),
        "gca, hash" -> mw(WindowStrategy.GCA, hashed = true),
        "lca, hash" -> mw(WindowStrategy.LCA, hashed = true),
        "exact, hash" -> mw(WindowStrategy.Exact, hashed = true)))
    }

    // Fig. 14: the path A -> B -> C -> D, each hop within 1 s, small vs large rate variation.
    val path = (0 until 3).map(a =>
      DirectedWindow(a, a + 1, 0, 1000000L, s"DWINDOW(${names(a)},${names(a + 1)}) = 1000000"))
    val matrix = WindowMatrix.close(path, names)
    for ((variation, rates) <- Seq("small" -> Seq(1000.0, 900.0, 1100.0, 1000.0),
                                   "large, fast A and C" -> Seq(2000.0, 50.0, 2000.0, 50.0),
                                   "large, fast C and D" -> Seq(50.0, 50.0, 2000.0, 2000.0))) {
      val data = streams(rates, seconds, keys, 17)
      val warm = streams(rates, 2, keys, 5)
      compare(s"Fig. 14: path ABCD, DWINDOW 1 s per hop, rates ${rates.map(_.toInt).mkString("/")} rows/s " +
        s"($variation variation)", data, warm, Seq(
        "nlw (modified, exact)" -> new EnginePlan(matrix, Algorithm.NLW, hashed = false),
        "lca (MW, completed)" -> new EnginePlan(matrix, Algorithm.MW, hashed = false, requestedStrategy = WindowStrategy.LCA),
        "mw exact" -> new EnginePlan(matrix, Algorithm.MW, hashed = false, requestedStrategy = WindowStrategy.Exact),
        "hw exact, hash" -> new EnginePlan(matrix, Algorithm.HW, hashed = true),
        "lca, hash" -> new EnginePlan(matrix, Algorithm.MW, hashed = true, requestedStrategy = WindowStrategy.LCA),
        "mw exact, hash" -> new EnginePlan(matrix, Algorithm.MW, hashed = true)))
    }
  }
}
