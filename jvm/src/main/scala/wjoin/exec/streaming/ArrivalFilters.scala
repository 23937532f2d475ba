package wjoin.exec
package streaming

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{And, Attribute, BindReferences, Expression, Predicate}

import wjoin.core.JoinHow
import wjoin.plan.InstantArithmetic
import wjoin.plan.logical.PushFiltersIntoWindowJoin

/**
 * The conjuncts of a streaming W-join's condition that read one input only, tested on that
 * input's rows as they arrive, so a row that fails them never enters the state.
 *
 * {{{
 *   input i ──(conjuncts over i's columns only)──> InputMerger ──> state, engine
 *              a row failing them (or NULL) is dropped here: it could join nothing
 * }}}
 *
 * A batch W-join gets the same effect from the optimizer, which moves such conjuncts into the
 * input (`PushFiltersIntoWindowJoin`). On streams the conjuncts stay in the condition, which is
 * recorded with the state, so a restart that changes them is refused; this keeps their
 * pruning. Which input may drop rows is the push-down's rule
 * (`PushFiltersIntoWindowJoin.mayDropRows`). The conjuncts stay in the
 * engine's residual too: testing them again on a combination changes nothing.
 *
 * @param conjuncts per input, the conjuncts that input's rows are tested on (empty: none)
 */
final case class ArrivalFilters(conjuncts: Seq[Seq[Expression]]) {
  def isEmpty: Boolean = conjuncts.forall(_.isEmpty)

  /**
   * `inputs` with each filtered by its conjuncts, compiled for `partitionIndex` over the
   * input's columns `outputs(i)` (bound by place: an empty micro-batch's relation names its
   * columns without qualifiers).
   */
  def apply(inputs: Seq[Iterator[InternalRow]], outputs: Seq[Seq[Attribute]], partitionIndex: Int)
      : Seq[Iterator[InternalRow]] =
    inputs.indices.map { i =>
      if (conjuncts(i).isEmpty) inputs(i)
      else {
        val bound = BindReferences.bindReference(InstantArithmetic(conjuncts(i).reduce(And)), outputs(i))
        val p = Predicate.create(bound)
        p.initialize(partitionIndex)
        inputs(i).filter(p.eval)
      }
    }
}

object ArrivalFilters {
  /**
   * The conjuncts of `residual` each input may be filtered by: deterministic, over that input's
   * columns (`outputs(i)`) only.
   *
   * @param rowLimits per input, its ROWS window or [[wjoin.core.StreamRows.NoLimit]]
   */
  def of(residual: Seq[Expression], outputs: Seq[Seq[Attribute]], how: JoinHow, rowLimits: Seq[Long]): ArrivalFilters =
    ArrivalFilters(outputs.indices.map { i =>
      if (!PushFiltersIntoWindowJoin.mayDropRows(how, i, rowLimits(i))) Nil
      else residual.filter(c => c.deterministic && c.references.nonEmpty &&
        c.references.forall(a => outputs(i).exists(_.exprId == a.exprId)))
    })
}
