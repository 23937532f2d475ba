package wjoin.core

/** A test row: input index, event time, key, and an id unique within the test. */
final case class TRow(input: Int, time: Long, key: Int, id: Int)

/**
 * The oracle: the W-join by its definition, over the full cross product. Tiny and
 * obviously correct; exponential, so only for small inputs.
 */
object ReferenceWJoin {
  def join(n: Int, rows: Seq[TRow], matrix: WindowMatrix, sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true): Seq[Seq[Int]] = {
    val byInput = (0 until n).map(i => rows.filter(_.input == i))
    def combos(i: Int): Seq[List[TRow]] =
      if (i == n) Seq(Nil) else for (r <- byInput(i); rest <- combos(i + 1)) yield r :: rest
    combos(0).filter { t =>
      matrix.admits(t.map(_.time).toArray) && (!sameKey || t.map(_.key).distinct.size == 1) && extra(t)
    }.map(_.map(_.id)).sortBy(_.mkString(","))
  }
}

/** Runs the engine over test rows, feeding them merged by time (stable in input order). */
object EngineRunner {
  def run(n: Int, rows: Seq[TRow], plan: EnginePlan, sameKey: Boolean,
      extra: Seq[TRow] => Boolean = _ => true): (Seq[Seq[Int]], JoinStats) = {
    // Key equality is part of the filter unless buckets already guarantee it.
    val filter = new TupleFilter {
      def activeAt(origin: Int, depth: Int): Boolean = (sameKey && !plan.hashed) || depth == n - 2
      def test(origin: Int, depth: Int, tuple: Array[AnyRef]): Boolean = {
        val bound = tuple(plan.probeOrder(origin)(depth)).asInstanceOf[TRow]
        val keyOk = !sameKey || plan.hashed || bound.key == tuple(origin).asInstanceOf[TRow].key
        keyOk && (depth < n - 2 || extra(tuple.toSeq.map(_.asInstanceOf[TRow])))
      }
    }
    val engine = new WJoinEngine(plan, filter)
    val out = Seq.newBuilder[Seq[Int]]
    def drain(): Unit = while (engine.next()) {
      out += engine.tuple.toSeq.map(_.asInstanceOf[TRow].id)
      assert(plan.matrix.admits(engine.times.clone()), "engine emitted a tuple outside the window")
    }
    rows.sortBy(_.time).foreach { r =>
      engine.offer(r.input, r.time, if (plan.hashed) Integer.valueOf(r.key) else null, r)
      drain()
    }
    engine.finish()
    drain()
    (out.result().sortBy(_.mkString(",")), engine.stats)
  }
}
