package wjoin.plan.logical

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.wjoin.SparkBridge

import wjoin.errors.WJoinErrors

/**
 * Columns of a condition taken from the inputs' DataFrames (`a("k") === b("k")`, Python's
 * `a.k == b.k`) where several inputs share attribute ids: the same DataFrame twice, or
 * DataFrames derived from one (`a = events.filter(...)`, `b = events.filter(...)`). Each input
 * then gets its own ids ([[WindowJoinBuilder]]), and a Column must say which input it means,
 * or `a.k == b.k` would compare one input's column with itself.
 *
 * {{{
 *   a.k  (k#1, metadata __dataset_id = id(a))   inputs holding k#1: A (a), B (b)
 *        -> the input whose DataFrame has id(a) (Spark tags a DataFrame's plan with its ids)
 *        -> A's k; one with id(b) -> B's k, at the same position of B's columns
 *   none or several such inputs (the same DataFrame twice): WJOIN_AMBIGUOUS_INPUT_COLUMN
 * }}}
 *
 * Spark's own join tells such columns apart by the same metadata (its DetectAmbiguousSelfJoin
 * rule); a Connect client's columns name their DataFrame's plan and are resolved by Spark.
 * Columns by name (`F.col("A.k")`) and columns of one input only are left as they are.
 */
object DataFrameColumns {
  private val DatasetIdKey = "__dataset_id"

  /**
   * `condition` with every shared column resolved to its input's column.
   *
   * @param plans    the inputs' plans as given (their DataFrames' tags)
   * @param children the inputs as the W-join holds them (each with its own ids, same column order)
   * @param names    the inputs' names, for the error
   */
  def resolve(condition: Expression, plans: Seq[LogicalPlan], children: Seq[LogicalPlan], names: Seq[String]): Expression =
    condition.transformUp {
      case a: AttributeReference =>
        val holders = plans.indices.filter(i => plans(i).output.exists(_.exprId == a.exprId))
        if (holders.size <= 1) a
        else {
          val meant = if (!a.metadata.contains(DatasetIdKey)) Nil else {
            val id = a.metadata.getLong(DatasetIdKey)
            holders.filter(i => SparkBridge.datasetIds(plans(i)).contains(id))
          }
          meant match {
            case Seq(i) => children(i).output(plans(i).output.indexWhere(_.exprId == a.exprId))
            case _ => WJoinErrors.raise("WJOIN_AMBIGUOUS_INPUT_COLUMN", "column" -> a.name,
              "inputs" -> holders.map(names).mkString(", "))
          }
        }
    }
}
