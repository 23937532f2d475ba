package wjoin.core

/**
 * A test row: input index, event time, key, an id unique within the test, and range
 * attributes (attribute a of the engine's [[RangeValues]] is `x` for a = 0, `y` for a = 1).
 */
final case class TRow(input: Int, time: Long, key: Int, id: Int, x: Long = 0L, y: Long = 0L)

object TRow {
  val ranges: RangeValues = new RangeValues {
    def value(input: Int, attr: Int, row: AnyRef): Long = {
      val r = row.asInstanceOf[TRow]
      if (attr == 0) r.x else r.y
    }
  }
}

/**
 * The oracle: the W-join by its definition, over the full cross product. Tiny and
 * obviously correct; exponential, so only for small inputs.
 */
object ReferenceWJoin {
  /**
   * `rowLimits(i)`: input i's ROWS window (the combination's member of i is among the last k
   * rows of i at the newest member, in merge order: time, then input, then position in
   * `rows`). Rows with a negative key never match but take their place in those counts.
   */
  def join(n: Int, rows: Seq[TRow], matrix: WindowMatrix, sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true, rowLimits: Seq[Long] = Nil): Seq[Seq[Int]] = {
    val merged = EngineRunner.mergeOrder(rows)
    val position = merged.zipWithIndex.map { case (r, p) => r.id -> p }.toMap
    def arrivedUpTo(i: Int, p: Int): Int = merged.take(p + 1).count(_.input == i)
    val counting = rowLimits.exists(_ != StreamRows.NoLimit)
    def inCountWindows(t: List[TRow]): Boolean = !counting || {
      val newest = t.map(r => position(r.id)).max
      t.forall(r => rowLimits(r.input) == StreamRows.NoLimit ||
        arrivedUpTo(r.input, newest) - arrivedUpTo(r.input, position(r.id)) < rowLimits(r.input))
    }
    val byInput = (0 until n).map(i => rows.filter(r => r.input == i && (!counting || r.key >= 0)))
    def combos(i: Int): Seq[List[TRow]] =
      if (i == n) Seq(Nil) else for (r <- byInput(i); rest <- combos(i + 1)) yield r :: rest
    combos(0).filter { t =>
      matrix.admits(t.map(_.time).toArray) && (!sameKey || t.map(_.key).distinct.size == 1) && extra(t) &&
        inCountWindows(t)
    }.map(_.map(_.id)).sortBy(_.mkString(","))
  }
}

/**
 * Runs the engine over test rows, merged as the Spark evaluator merges its inputs: by time,
 * then input index, then position in `rows`. With count-based windows, rows with a negative
 * key are offered as count-only (they never match).
 */
object EngineRunner {
  def mergeOrder(rows: Seq[TRow]): Seq[TRow] = rows.sortBy(r => (r.time, r.input))

  def run(n: Int, rows: Seq[TRow], plan: EnginePlan, sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true): (Seq[Seq[Int]], JoinStats) = {
    val engine = WJoinEngine.batch(plan, filter(n, plan, sameKey, extra), TRow.ranges)
    val out = Seq.newBuilder[Seq[Int]]
    def drain(): Unit = while (engine.next()) {
      out += engine.tuple.toSeq.map(_.asInstanceOf[TRow].id)
      assert(plan.matrix.admits(engine.times.clone()), "engine emitted a tuple outside the window")
    }
    mergeOrder(rows).foreach { r =>
      if (plan.counting && r.key < 0) engine.countOnly(r.input, r.time)
      else engine.offer(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      drain()
    }
    engine.finish()
    drain()
    (out.result().sortBy(_.mkString(",")), engine.stats)
  }

  /** Key equality is part of the filter unless buckets (on every input) already guarantee it. */
  def filter(n: Int, plan: EnginePlan, sameKey: Boolean, extra: Seq[TRow] => Boolean): TupleFilter =
    new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = (sameKey && !plan.allHashed) || depth == n - 2
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean = {
        val bound = tuple(plan.probeOrder(origin)(depth)).asInstanceOf[TRow]
        val keyOk = !sameKey || plan.allHashed || bound.key == tuple(origin).asInstanceOf[TRow].key
        keyOk && (depth < n - 2 || extra(tuple.toSeq.map(_.asInstanceOf[TRow])))
      }
    }
}

/** Queries and data shared by the engine suites. */
object EngineFixtures {
  def names(n: Int) = (0 until n).map(i => ('A' + i).toChar.toString)

  /** Every algorithm, access path and window strategy the engine offers for a query. */
  def plans(matrix: WindowMatrix, keyed: Boolean, exclude: Option[WindowMatrix] = None,
      rowLimits: Array[Long] = null): Seq[(String, EnginePlan)] =
    for {
      // GCA and LCA widen windows to the largest; with ROWS windows that is unbounded (refused).
      strategy <- if (rowLimits == null || rowLimits.forall(_ == StreamRows.NoLimit))
        Seq(WindowStrategy.Exact, WindowStrategy.GCA, WindowStrategy.LCA) else Seq(WindowStrategy.Exact)
      (name, algorithm, hashed) <- Seq(("nlw", Algorithm.NLW, false), ("mw-scan", Algorithm.MW, false)) ++
        (if (keyed) Seq(("hw", Algorithm.HW, true), ("mw-hash", Algorithm.MW, true)) else Nil)
    } yield s"$name/$strategy" -> new EnginePlan(matrix, algorithm, hashed, requestedStrategy = strategy, exclude = exclude,
      rowLimits = rowLimits)

  def rows(n: Int, perInput: Int, maxTime: Int, keys: Int, seed: Long): Seq[TRow] = {
    val rnd = new scala.util.Random(seed)
    val times = (0 until n).flatMap(i => Seq.fill(perInput)(i -> rnd.nextInt(maxTime).toLong))
    times.zipWithIndex.map { case ((i, t), id) => TRow(i, t, rnd.nextInt(keys), id) }
  }

  def shapes(n: Int): Seq[(String, Seq[WindowTerm])] = {
    val pairs = for (a <- 0 until n; b <- a + 1 until n) yield (a, b)
    Seq(
      "uniform" -> Seq(UniformWindow(5, "WINDOW = 5")),
      "zero" -> Seq(UniformWindow(0, "WINDOW = 0")),
      "per-pair" -> pairs.map { case (a, b) => PairWindow(a, b, 2 + a + 2 * b, s"WINDOW($a,$b)") },
      "chain (Form 3)" -> (0 until n - 1).map(a => PairWindow(a, a + 1, 3 + a, s"WINDOW($a,${a + 1})")),
      "path" -> (0 until n - 1).map(a => DirectedWindow(a, a + 1, 0, 4, s"DWINDOW($a,${a + 1})")),
      "travel time" -> (0 until n - 1).map(a => DirectedWindow(a, a + 1, 1 + a % 2, 6, s"DWINDOW($a,${a + 1})")),
      "mixed" -> (Seq(UniformWindow(8, "WINDOW = 8")) :+ DirectedWindow(0, n - 1, 2, 7, "DWINDOW(0,last)")),
      "per-stream RANGE" -> (0 until n).map(b => StreamRange(b, 3 + 2 * b, s"RANGE($b)")),
      "RANGE with a path" -> ((0 until n - 1).map(a => DirectedWindow(a, a + 1, 0, 5, s"DWINDOW($a,${a + 1})")) :+
        StreamRange(0, 6, "RANGE(0)")))
  }

}
