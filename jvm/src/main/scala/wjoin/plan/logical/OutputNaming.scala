package wjoin.plan
package logical

import java.util.Locale

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, ExprId, NamedExpression}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.internal.SQLConf

import wjoin.errors.WJoinErrors
import wjoin.request.OutputNames

/**
 * The names of a W-join's output columns, applied once by [[WindowJoinBuilder]] as the
 * Project over the join (and its Python-UDF Filter).
 *
 * {{{
 *   inputs A(k, ts, v), B(k, ts, v), on = k
 *   join       k, ts, v, ts, v      as DataFrame.join (SPEC): A.ts and B.ts told apart by qualifier
 *   prefixed   k, A_ts, A_v, B_ts, B_v   each still qualified by its input (A.A_ts)
 * }}}
 *
 * Why "join" is the default: the SPEC asks the W-join to name its output as `DataFrame.join`
 * does, so a two-input W-join and the equivalent range join give the same columns. Why
 * "prefixed" exists: same-schema inputs are the normal case for a W-join, and repeated names
 * cannot be selected by name or written to files.
 *
 * The renamed columns are new attributes (fresh ids): an Alias with its child's id would make
 * the Project look like a no-op to Spark's optimizer (`RemoveNoopOperators`), which would drop
 * the names. Each keeps its input's name as qualifier and its metadata (the first input's time
 * column its watermark), so `F.col("A.A_ts")` resolves and stateful operators downstream work.
 */
object OutputNaming {
  /**
   * The plan whose output is `output` (the join's, with nullabilities of `how`) under `naming`:
   * the `keys` first (the first input's `on` columns, unprefixed), then every column whose id is
   * not in `keyIds`, in input order; `join` itself when nothing changes.
   *
   * @param inputs the join's children (under their names as qualifiers) and their names
   */
  def apply(join: LogicalPlan, output: Seq[Attribute], keys: Seq[Attribute], keyIds: Set[ExprId],
      inputs: Seq[(LogicalPlan, String)], naming: OutputNames): LogicalPlan = {
    val byId = output.map(a => a.exprId -> a).toMap
    val others = output.filterNot(a => keyIds(a.exprId))
    val keyColumns = keys.map(a => byId(a.exprId))
    naming match {
      case OutputNames.Join => if (keys.isEmpty) join else Project(keyColumns ++ others, join)
      case OutputNames.Prefixed =>
        val inputOf = inputs.flatMap { case (child, name) => child.output.map(_.exprId -> name) }.toMap
        val prefixed: Seq[NamedExpression] = others.map { a =>
          val input = inputOf(a.exprId)
          Alias(a, prefixedName(input, a.name))(qualifier = Seq(input))
        }
        // "prefixed" promises unique names, but input A's column B_y and input A_B's column y
        // both become A_B_y: refused at the call, naming both sources.
        val sources = keyColumns.map(a => (a.name, a.name)) ++
          others.zip(prefixed).map { case (a, p) => (p.name, s"${p.qualifier.head}.${a.name}") }
        sameNames(sources)(_._1, SQLConf.get.caseSensitiveAnalysis).headOption.foreach { same =>
          WJoinErrors.raise("WJOIN_PREFIXED_NAMES_COLLIDE", "name" -> same.head._1, "sources" -> same.map(_._2).mkString(" and "))
        }
        Project(keyColumns ++ prefixed, join)
    }
  }

  /**
   * The groups of `items` whose names are equal as Spark compares column names (`caseSensitive`:
   * `spark.sql.caseSensitive`), of two items or more, in the order of their first item.
   */
  def sameNames[T](items: Seq[T])(name: T => String, caseSensitive: Boolean): Seq[Seq[T]] = {
    val key = (item: T) => if (caseSensitive) name(item) else name(item).toLowerCase(Locale.ROOT)
    val groups = items.groupBy(key)
    items.map(key).distinct.map(groups).filter(_.size > 1)
  }

  /** The output name of column `column` of input `input` under "prefixed". */
  def prefixedName(input: String, column: String): String = s"${input}_$column"
}
