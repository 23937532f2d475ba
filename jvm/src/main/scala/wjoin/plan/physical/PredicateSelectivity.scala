package wjoin.plan
package physical

import scala.util.Try

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.catalyst.plans.logical.{LocalRelation, LogicalPlan}

import wjoin.core.cost.{InputStats, PredicateGraph}

/**
 * The join predicate of a W-join as a [[PredicateGraph]]: every conjunct that references two
 * or more inputs becomes an edge with its selectivity (the fraction of combinations of its
 * inputs it accepts, windows aside), which the probe order follows
 * ([[PredicateGraph.orders]]). Estimated without running a job, best source first:
 *
 *  1. `sample`: every input the conjunct references is local rows (`LocalRelation`, batch):
 *     the conjunct is evaluated on up to [[PairLimit]] combinations of up to [[SampleRows]]
 *     rows of each input (evenly spaced), selectivity = (accepted + 0.5) / (tested + 1). A
 *     conjunct the interpreter cannot evaluate (a Python UDF) falls through;
 *  2. `stats`: a key equality, 1 / the larger distinct-key count (of whole keys: once per
 *     pair of inputs for a key of several columns, [[PredicateGraph.keyCountedOnce]]); a
 *     band, its width over the range attribute's extent ([[InputStats.rangeWidths]]: data,
 *     `ANALYZE TABLE`);
 *  3. `assumed`: a band 1 / 1000 (as [[InputStatistics]] assumes extents of 1000 band widths),
 *     a one-sided inequality 1 / 3, an equality 1 / 10, any other conjunct 1 / 3 (System R's
 *     defaults, Selinger et al.).
 * Streaming inputs have no rows at planning time: they take 2-3. Other batch inputs (files,
 * RDDs) would need a job to sample, which planning never runs: they take 2-3 too.
 *
 * Cost: at most 65,536 interpreted evaluations per conjunct, on rows already in the driver.
 */
object PredicateSelectivity {
  /** Rows taken of each local input. */
  val SampleRows = 256
  /** Combinations a conjunct is tested on. */
  val PairLimit = 65536

  def graph(children: Seq[LogicalPlan], streaming: Boolean, analysis: JoinConditionAnalysis,
      ranges: RangePredicates, stats: Seq[InputStats], keyed: Boolean): PredicateGraph = {
    val n = children.size
    val inputs = children.map(_.outputSet)
    lazy val samples: Seq[Option[IndexedSeq[InternalRow]]] = children.map {
      case local: LocalRelation if !streaming && local.data.nonEmpty =>
        val step = math.max(1, local.data.size / SampleRows)
        Some(local.data.indices.by(step).take(SampleRows).map(local.data).toIndexedSeq)
      case _ => None
    }
    val edges = analysis.allConjuncts.flatMap { c =>
      val refs = (0 until n).filter(i => c.references.exists(inputs(i).contains))
      if (refs.size < 2) None
      else {
        val kind = if (analysis.keyEqualities.exists(_ eq c)) "key"
          else if (ranges.conjuncts.exists(_ eq c)) "band" else "residual"
        val sampled = if (!c.deterministic || refs.exists(i => samples(i).isEmpty)) None
          else sample(c, refs.map(children(_).output), refs.map(i => samples(i).get))
        // two bindings per recognised band, the forward one first
        val binding = if (kind != "band") -1 else Some(2 * ranges.conjuncts.indexWhere(_ eq c))
          .filter(ranges.bindings.indices.contains).getOrElse(-1)
        val (sel, source) = sampled.map(_ -> "sample").getOrElse(estimate(c, kind, refs, binding, ranges, stats, keyed))
        Some(PredicateGraph.Edge(refs, math.min(1.0, math.max(sel, 1e-12)), kind, source, binding))
      }
    }
    PredicateGraph(n, PredicateGraph.keyCountedOnce(edges, _.source == "stats"))
  }

  /** `binding`: a band's forward binding among `ranges.bindings`, -1 if none. */
  private def estimate(c: Expression, kind: String, refs: Seq[Int], binding: Int, ranges: RangePredicates,
      stats: Seq[InputStats], keyed: Boolean): (Double, String) = kind match {
    case "key" if keyed => (1.0 / refs.map(stats(_).distinct).max, "stats")
    case "band" =>
      ranges.bindings.lift(binding) match {
        case Some(b) if !b.bounded => (1.0 / 3, "assumed")
        case Some(b) => stats(b.target).rangeWidths.get(b.targetAttr).filter(_ > 0)
          .map(domain => (math.min(1.0, b.width / domain), "stats")).getOrElse((1.0 / 1000, "assumed"))
        case None => (1.0 / 3, "assumed")
      }
    case _ => c match {
      case _: EqualTo | _: EqualNullSafe => (0.1, "assumed")
      case _ => (1.0 / 3, "assumed")
    }
  }

  /** Accepted fraction of (evenly spread) combinations of the samples; None if not evaluable. */
  private def sample(c: Expression, outputs: Seq[Seq[Attribute]], rows: Seq[IndexedSeq[InternalRow]]): Option[Double] =
    Try {
      val bound = BindReferences.bindReference(c, outputs.flatten)
      val sizes = rows.map(_.size.toLong)
      val total = sizes.product
      val tested = math.min(total, PairLimit.toLong)
      val stride = math.max(1L, total / tested)
      val joined = new Array[InternalRow](rows.size)
      val combined = rows.indices.tail.foldLeft[() => InternalRow](() => joined(0)) { (left, k) =>
        val j = new JoinedRow
        () => j.withLeft(left()).withRight(joined(k))
      }
      var accepted = 0L
      var t = 0L
      while (t < tested) {
        var index = (t * stride) % math.max(1L, total)
        for (k <- rows.indices.reverse) { joined(k) = rows(k)((index % sizes(k)).toInt); index /= sizes(k) }
        if (bound.eval(combined()) == true) accepted += 1
        t += 1
      }
      (accepted + 0.5) / (tested + 1)
    }.toOption.filter(_ => rows.forall(_.nonEmpty))
}
