package wjoin.core.cost

/**
 * The join predicate as a hypergraph over the inputs: one edge per conjunct (key equality,
 * band, or any other residual conjunct that references two or more inputs), with the inputs
 * it references and its selectivity (the fraction of combinations of those inputs it
 * accepts). It drives the probe order ([[PredicateGraph.orders]]).
 *
 * @param n     the number of inputs
 * @param edges the conjuncts between inputs
 */
final case class PredicateGraph(n: Int, edges: Seq[PredicateGraph.Edge]) {
  edges.foreach(e => assert(e.inputs.size >= 2 && e.inputs.forall(i => i >= 0 && i < n) &&
    e.selectivity > 0 && e.selectivity <= 1, s"invalid predicate edge $e"))
  private val masks = edges.map(e => e.inputs.foldLeft(0L)((m, i) => m | (1L << i))).toArray
  private val selectivities = edges.map(_.selectivity).toArray

  /**
   * The selectivity of every conjunct that becomes testable when input j joins the inputs in
   * `bound` (a bit set): those referencing j and otherwise only bound inputs; 1.0 when there
   * is none (a cross product).
   */
  def joining(bound: Long, j: Int): Double = {
    var s = 1.0
    var k = 0
    while (k < masks.length) {
      val m = masks(k)
      if ((m & (1L << j)) != 0 && (m & ~(bound | (1L << j))) == 0) s *= selectivities(k)
      k += 1
    }
    s
  }

  /** Some conjunct becomes testable when j joins `bound`: j is connected to the bound inputs. */
  def connected(bound: Long, j: Int): Boolean =
    masks.exists(m => (m & (1L << j)) != 0 && (m & ~(bound | (1L << j))) == 0)

  /** "A-B 0.004 (band)" per edge, for EXPLAIN. */
  def describe(names: Seq[String]): String =
    edges.map(e => f"${e.inputs.map(names).mkString("-")} ${e.selectivity}%.3g (${e.kind}, ${e.source})").mkString(", ")
}

object PredicateGraph {
  /**
   * One conjunct between inputs.
   *
   * @param inputs      the inputs it references (at least two)
   * @param selectivity fraction of combinations of those inputs it accepts, in (0, 1]
   * @param kind        "key", "band" or "residual"
   * @param source      where the selectivity comes from ("sample", "stats", "assumed", "run time")
   * @param binding     a band: the index of its forward [[wjoin.core.RangeBinding]] among the
   *                    plan's bindings (what a run-time check measures it by), else -1
   */
  final case class Edge(inputs: Seq[Int], selectivity: Double, kind: String, source: String, binding: Int = -1)

  /**
   * A shared key of m columns is m equalities between two inputs, but a selectivity taken
   * from distinct counts (1 / the distinct key values, of whole keys) is the whole key's:
   * the first such key edge of each set of inputs carries it and the others accept all it
   * accepted (1.0). Counted once per column, a key of two columns would look 1 / d times
   * as selective as it is, and a scan of a large window as cheap as a bucket.
   *
   * @param wholeKey the key edges whose selectivity is the whole key's (not a sampled column's)
   */
  def keyCountedOnce(edges: Seq[Edge], wholeKey: Edge => Boolean): Seq[Edge] = {
    val counted = scala.collection.mutable.Set.empty[Set[Int]]
    edges.map(e => if (e.kind != "key" || !wholeKey(e) || counted.add(e.inputs.toSet)) e else e.copy(selectivity = 1.0))
  }

  /**
   * What a probe of one input costs, for the order search.
   *
   * @param rows        rows of the window a probe without narrowing examines (scan: all of
   *                    them; hash: the key's bucket)
   * @param narrowed    rows examined once a source of the input's range bindings is bound
   *                    (an index probe), = `rows` for scan and hash
   * @param sources     the inputs whose bound row narrows the probe (range sources); empty
   *                    for scan and hash
   * @param windowRows  rows in the window (a partial result joins each that passes)
   */
  final case class Probe(rows: Double, narrowed: Double, sources: Seq[Int], windowRows: Double)

  /** Largest n whose per-origin orders are searched exhaustively ((n-1)! orders each). */
  val ExhaustiveUpTo = 8

  /**
   * The probe order of each origin. The rule (System R's, Selinger et al.: no cross product
   * while a connected relation remains): an input that no conjunct connects to the inputs
   * already bound is never probed while one that is connected remains; an indexed input
   * waits for a source of its range while one remains. Among the orders that keep both
   * rules (the second is dropped if no order keeps both), the cheapest by
   *
   * {{{
   *   m_0 = 1,  m_k = m_{k-1} x windowRows(o_k) x joining(bound_{k-1}, o_k)
   *   cost  = sum_k m_{k-1} x examined(o_k)       examined = narrowed if a source is bound, else rows
   * }}}
   *
   * (Golab & Özsu's Appendix A cost, with each conjunct's selectivity in place of the
   * equi-join's 1 / max(v)). Exhaustive up to [[ExhaustiveUpTo]] inputs, else greedy with
   * the same rules.
   */
  def orders(graph: PredicateGraph, probes: Seq[Probe]): IndexedSeq[Seq[Int]] = {
    val n = graph.n
    assert(probes.size == n, "one probe description per input")
    (0 until n).map { o =>
      val others = (0 until n).filter(_ != o)
      if (n <= ExhaustiveUpTo) {
        val all = others.permutations.map(_.toSeq).toSeq
        val connected = all.filter(keepsRule(graph, probes, o, _, sources = false))
        val both = connected.filter(keepsRule(graph, probes, o, _, sources = true))
        (if (both.nonEmpty) both else connected).minBy(originCost(graph, probes, o, _))
      } else greedy(graph, probes, o)
    }
  }

  /** Probes per unit time into each input under `orders`, for origins arriving at `rates`. */
  def probesPerUnitTime(graph: PredicateGraph, probes: Seq[Probe], orders: Seq[Seq[Int]],
      rates: Seq[Double]): IndexedSeq[Double] = {
    val out = Array.fill(graph.n)(0.0)
    for (o <- 0 until graph.n) {
      var bound = 1L << o
      var partials = 1.0
      for (j <- orders(o)) {
        out(j) += rates(o) * partials
        partials *= probes(j).windowRows * graph.joining(bound, j)
        bound |= 1L << j
      }
    }
    out.toIndexedSeq
  }

  /** Rows examined per origin row along `order` (the cost the search minimizes). */
  def originCost(graph: PredicateGraph, probes: Seq[Probe], origin: Int, order: Seq[Int]): Double = {
    var bound = 1L << origin
    var partials = 1.0
    var cost = 0.0
    for (j <- order) {
      val p = probes(j)
      cost += partials * (if (p.sources.exists(s => (bound & (1L << s)) != 0)) p.narrowed else p.rows)
      partials *= p.windowRows * graph.joining(bound, j)
      bound |= 1L << j
    }
    cost
  }

  private def allowed(graph: PredicateGraph, probes: Seq[Probe], bound: Long, left: Seq[Int], j: Int,
      sources: Boolean): Boolean = {
    val connectedOk = graph.connected(bound, j) || !left.exists(graph.connected(bound, _))
    def ready(k: Int) = probes(k).sources.isEmpty || probes(k).sources.exists(s => (bound & (1L << s)) != 0)
    connectedOk && (!sources || ready(j) || !left.exists(k => ready(k) && (graph.connected(bound, k) ||
      !left.exists(graph.connected(bound, _)))))
  }

  private def keepsRule(graph: PredicateGraph, probes: Seq[Probe], origin: Int, order: Seq[Int],
      sources: Boolean): Boolean = {
    var bound = 1L << origin
    order.indices.forall { d =>
      val ok = allowed(graph, probes, bound, order.drop(d), order(d), sources)
      bound |= 1L << order(d)
      ok
    }
  }

  private def greedy(graph: PredicateGraph, probes: Seq[Probe], origin: Int): Seq[Int] = {
    var bound = 1L << origin
    var left = (0 until graph.n).filter(_ != origin)
    val out = Seq.newBuilder[Int]
    while (left.nonEmpty) {
      val candidates = Seq(true, false).iterator.map(s => left.filter(allowed(graph, probes, bound, left, _, s)))
        .find(_.nonEmpty).getOrElse(left)
      // the smallest partial result next, then the cheapest probe
      def examined(j: Int) = if (probes(j).sources.exists(s => (bound & (1L << s)) != 0)) probes(j).narrowed else probes(j).rows
      val next = candidates.minBy(j => (probes(j).windowRows * graph.joining(bound, j), examined(j), j))
      out += next
      bound |= 1L << next
      left = left.filter(_ != next)
    }
    out.result()
  }
}
