package wjoin.sql

import java.util.Locale

import scala.collection.mutable

import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.expressions.{And, Expression}
import org.apache.spark.sql.catalyst.plans.{Cross, Inner}
import org.apache.spark.sql.catalyst.plans.logical.{Filter, Join, JoinHint, LogicalPlan, SubqueryAlias}

import wjoin.core.WindowTermParser
import wjoin.errors.{WJoinAnalysisException, WJoinErrors}

/**
 * Turns the FROM clause that a W-join clause follows into an [[UnresolvedWindowJoin]].
 *
 * Spark's parser builds `FROM A, B, C <marker>` as `Join(Join(Join(A, B), C), marker)`: the
 * marker relation (see [[WJoinSqlParser]]) is the right side of the top join, and the left
 * side holds the relations. Comma lists, `[INNER] JOIN ... ON` and `CROSS JOIN` flatten into
 * the W-join's inputs; ON conditions become a Filter above it (merged into the join
 * condition by the optimizer, like WHERE). Each input is named by its alias, else its table
 * name. The names in the window terms and in USING TIME are checked against these names
 * here, so a wrong one is the W-join's error pointing at it ([[SqlClauseMisuse]]).
 */
object WindowJoinFromClause {
  /** Spark's name for a FROM-clause subquery without alias: no name a user could write. */
  private val UnnamedSubquery = "__auto_generated_subquery_name"

  def replaceMarkers(plan: LogicalPlan, clauses: Seq[WindowClause], sql: String, rewritten: String): LogicalPlan = {
    val replaced = mutable.Set.empty[Int]
    val result = ParsedPlans.transformDown(plan) {
      case Join(relations, marker: UnresolvedRelation, Inner, None, _)
          if WJoinSqlParser.markerIndex(marker.multipartIdentifier).isDefined =>
        val k = WJoinSqlParser.markerIndex(marker.multipartIdentifier).get
        replaced += k
        new FromClause(clauses(k), sql, rewritten).windowJoin(relations)
    }
    clauses.indices.find(!replaced(_)).foreach { k =>
      throw SqlSyntaxError(sql, clauses(k).terms.head.kind,
        "a W-join window clause must directly follow the relations of a query's FROM clause")
    }
    // Left / semi / anti: the WHERE clause of the W-join's query is its join predicate.
    ParsedPlans.transformDown(result) {
      case Filter(where, u: UnresolvedWindowJoin) if u.how != "inner" =>
        u.copy(predicate = JoinPredicate((u.predicate.condition.toSeq :+ where).reduceOption(And)))
    }
  }

  private final class FromClause(clause: WindowClause, sql: String, rewritten: String) {
    private def fail(at: SqlToken, why: String): Nothing = throw SqlSyntaxError(sql, at, why)

    /** Fails at the relation's position when Spark's parser recorded it, else at the clause. */
    private def failAt(relation: LogicalPlan, why: String): Nothing = {
      val origin = relation.origin
      val token = origin.startIndex.filter(_ => origin.sqlText.contains(rewritten))
        .flatMap(index => SqlTokens(sql).find(_.start >= index))
      fail(token.getOrElse(clause.terms.head.kind), why)
    }

    def windowJoin(relations: LogicalPlan): LogicalPlan = {
      val (inputs, onConditions) = flatten(relations)
      val names = inputs.map(nameOf)
      for (term <- clause.terms; name <- term.names) inputIndex(name, names, term.text)
      val node = UnresolvedWindowJoin(inputs, names, clause.windowsText, timeColumns(names),
        clause.algorithm.map(_.name.toLowerCase(Locale.ROOT)).getOrElse("auto"), clause.how.getOrElse("inner"))
      if (node.how != "inner") node.copy(predicate = JoinPredicate(onConditions.reduceOption(And)))
      else onConditions.reduceOption(And).map(Filter(_, node)).getOrElse(node)
    }

    private def flatten(plan: LogicalPlan): (Seq[LogicalPlan], Seq[Expression]) = plan match {
      case Join(left, right, Inner | Cross, condition, JoinHint.NONE) =>
        val (leftInputs, leftConditions) = flatten(left)
        val (rightInputs, rightConditions) = flatten(right)
        (leftInputs ++ rightInputs, leftConditions ++ rightConditions ++ condition)
      case relation => (Seq(relation), Nil)
    }

    private def nameOf(relation: LogicalPlan): String = relation match {
      case SubqueryAlias(id, _) if id.name != UnnamedSubquery => id.name
      case r: UnresolvedRelation => r.multipartIdentifier.last
      case j: Join => failAt(j, s"a W-join reads relations joined by commas or by [INNER | CROSS] JOIN ... ON, " +
        s"not a ${j.joinType.sql} join")
      case other => failAt(other, "every W-join input needs a name for the window terms: give this relation " +
        "an alias, e.g. FROM (SELECT ...) AS A")
    }

    /** The input a name in a window term refers to, resolved as [[WindowTermParser]] resolves it. */
    private def inputIndex(name: SqlToken, names: Seq[String], term: String): Int =
      try WindowTermParser.resolveName(name.name, names, term)
      catch { case e: WJoinAnalysisException => throw SqlClauseMisuse(sql, name, e) }

    /** The input a name in USING TIME refers to, resolved like the names in window terms. */
    private def timeInputIndex(name: SqlToken, names: Seq[String]): Int =
      try WindowTermParser.resolveName(name.name, names, "USING TIME")
      catch { case _: WJoinAnalysisException => throw SqlClauseMisuse(sql, name,
        WJoinErrors.error("WJOIN_UNKNOWN_INPUT", "what" -> "USING TIME:", "names" -> name.name, "inputs" -> names))
      }

    private def timeColumns(names: Seq[String]): Seq[String] = clause.time match {
      case None => Nil
      case Some(SameTimeColumn(column)) => Seq(column.name)
      case Some(TimeColumnPerInput(columns, close)) =>
        val byInput = columns.map { case (input, column) => (timeInputIndex(input, names), input, column) }
        byInput.groupBy(_._1).values.filter(_.size > 1).map(_(1)).toSeq.sortBy(_._2.start).headOption
          .foreach { case (i, input, _) => fail(input, s"USING TIME names input ${names(i)} twice") }
        val missing = names.indices.filterNot(i => byInput.exists(_._1 == i)).map(names)
        if (missing.nonEmpty) fail(close, s"USING TIME gives no time column for input(s) ${missing.mkString(", ")}; " +
          s"give one per input, e.g. USING TIME (${names.map(n => s"$n.ts").mkString(", ")}), or one for all: " +
          "USING TIME ts")
        names.indices.map(i => byInput.find(_._1 == i).get._3.name)
    }
  }
}
