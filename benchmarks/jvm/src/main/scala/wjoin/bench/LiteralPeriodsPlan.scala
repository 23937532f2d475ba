package wjoin.bench

import wjoin.core.{Algorithm, EnginePlan, WindowMatrix, WindowStrategy}

/**
 * An [[EnginePlan]] whose periods are given instead of derived from the closed matrix: the
 * benchmarks' GCA / LCA computed from the user's terms before closure, as Hammad et al.
 * (Sec. 5.1) compute them. Built through the plan's one hook, `periodMatrix`.
 *
 * @param matrix    the closed window matrix (the refinement's true bounds)
 * @param algorithm NLW / HW / MW
 * @param hashed    rows carry the equality key shared by all inputs
 * @param strategy  the strategy the literal periods stand for (EXPLAIN text, refinement)
 * @param literal   the period matrix; must not be tighter than `matrix` on any pair
 */
final class LiteralPeriodsPlan(matrix: WindowMatrix, algorithm: Algorithm, hashed: Boolean, strategy: WindowStrategy,
    literal: WindowMatrix) extends EnginePlan(matrix, algorithm, hashed, requestedStrategy = strategy) {
  override protected def periodMatrix(strategy: WindowStrategy): WindowMatrix = literal
}
