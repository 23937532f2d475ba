package wjoin.core.cost

/**
 * Costs compared as numbers: `java.lang.Double.compare`, a total order (NaN after every
 * number), the one Scala 2.13 calls `Ordering.Double.TotalOrdering` and Scala 2.12 takes by
 * default. Imported where costs are sorted, so both Scalas compile the same comparisons.
 */
private[cost] object CostOrdering {
  implicit val total: Ordering[Double] = new Ordering[Double] {
    def compare(a: Double, b: Double): Int = java.lang.Double.compare(a, b)
  }
}
