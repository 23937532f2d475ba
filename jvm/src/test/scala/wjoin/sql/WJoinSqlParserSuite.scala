package wjoin.sql

import org.apache.spark.sql.catalyst.parser.{ParseException, ParserInterface}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.SparkSqlParser
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.SharedSparkSession

/**
 * Statements without a W-join parse exactly as Spark's own parser parses them: no window
 * clause is found in them, and the plans are equal to the delegate's. The list stresses what
 * looks like the W-join syntax to a careless reader: Spark's named windows, window frames,
 * `window(...)` calls, `range(10)`, columns and aliases called range, rows or window, and
 * W-join text inside strings, comments and backquotes.
 */
class WJoinSqlParserSuite extends AnyFunSuite with SharedSparkSession {
  private val delegate: ParserInterface = new SparkSqlParser()
  private val parser = new WJoinSqlParser(delegate)

  private val ordinarySql = Seq(
    "SELECT * FROM t",
    "SELECT a, count(*) OVER w FROM t WINDOW w AS (PARTITION BY a ORDER BY b)",
    "SELECT sum(x) OVER w1, avg(x) OVER w2 FROM t, u WHERE t.x > 0 WINDOW w1 AS (PARTITION BY a), " +
      "w2 AS (PARTITION BY a ORDER BY b ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)",
    "SELECT a FROM t WINDOW w AS (ORDER BY ts RANGE BETWEEN INTERVAL 1 HOUR PRECEDING AND CURRENT ROW)",
    "SELECT count(*) OVER (PARTITION BY a ORDER BY b RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM t",
    "SELECT x, row_number() OVER (ORDER BY x ROWS UNBOUNDED PRECEDING) FROM t",
    "SELECT window(ts, '5 minutes'), count(*) FROM t GROUP BY window(ts, '5 minutes')",
    "SELECT * FROM a JOIN b ON a.k = b.k AND window(a.ts, '1 minute') = window(b.ts, '1 minute')",
    "SELECT * FROM range(10)",
    "SELECT * FROM range(0, 10, 2) r, range(5) AS s(x) WHERE r.id = s.x",
    "SELECT range, rows, window FROM t",
    "SELECT t.range FROM t WHERE t.rows = 1 AND t.window = 2",
    "SELECT * FROM t window",
    "SELECT * FROM t AS range(a, b)",
    "SELECT * FROM t rows WHERE rows.a = 1",
    "SELECT * FROM VALUES (1, 2) AS window(a, b)",
    "SELECT `window`, `range(x) = 1`, `WINDOW = 1` FROM t",
    "SELECT 'WINDOW(A,B) = 5' AS s, \"RANGE(B) = 1\" AS r FROM a, b",
    "SELECT /* WINDOW(A,B) = 5 */ * FROM a, b -- WINDOW = 1 hour\nWHERE a.k = b.k",
    "SELECT /*+ BROADCAST(b) */ * FROM a, b WHERE a.k = b.k",
    "WITH c AS (SELECT * FROM a, b WHERE a.k = b.k) SELECT * FROM c",
    "SELECT * FROM a WHERE k IN (SELECT k FROM b WHERE b.v > 0)",
    "SELECT * FROM a LEFT JOIN b USING (k) NATURAL JOIN c",
    "SELECT * FROM a CROSS JOIN b, c",
    "SELECT a, sum(b) FROM t GROUP BY a HAVING sum(b) > 1 ORDER BY a LIMIT 5",
    "SELECT * FROM a UNION ALL SELECT * FROM b",
    "SELECT * FROM t TABLESAMPLE (10 PERCENT) REPEATABLE (7) WHERE t.v = 1",
    "SELECT a.x IS DISTINCT FROM b.x FROM a, b",
    "SELECT extract(YEAR FROM ts), trim(BOTH 'x' FROM s) FROM t",
    "SELECT * FROM t PIVOT (sum(v) FOR k IN (1, 2))",
    "FROM t SELECT a, b WHERE a > 1",
    "FROM t AS window |> WHERE window.range = 1 |> SELECT rows, range(rows) AS r",
    "CREATE TABLE t2 (a INT, window STRING, range INT, rows BIGINT) USING parquet",
    "CREATE OR REPLACE TEMP VIEW v AS SELECT * FROM a, b WHERE a.x = b.x",
    "INSERT INTO t SELECT * FROM a",
    "DROP TABLE IF EXISTS t",
    "EXPLAIN SELECT * FROM a, b",
    "SET spark.sql.shuffle.partitions=4",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET window = s.window",
    "BEGIN DECLARE rows INT DEFAULT 1; SELECT * FROM t range WHERE range.x = rows; SELECT 1 AS window; END")

  /**
   * Equal plans; two parses of the same text differ only in fresh expression ids (of aliases)
   * and in the random labels of SQL script blocks.
   */
  private def sameParse(ours: LogicalPlan, spark: LogicalPlan): Boolean = {
    def normalized(p: LogicalPlan) = p.treeString(verbose = true, addSuffix = false, maxFields = Int.MaxValue)
      .replaceAll("#\\d+", "#").replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "<label>")
    ours == spark || normalized(ours) == normalized(spark)
  }

  test(s"${ordinarySql.size} ordinary statements: no window clause found, the same plan as Spark's parser") {
    // A statement this Spark cannot parse (pipe syntax before Spark 4) fails the same way through ours.
    val failures = ordinarySql.flatMap { sql =>
      val spark = scala.util.Try(delegate.parsePlan(sql))
      try {
        val ours = parser.parsePlan(sql)
        if (WindowClauseFinder(sql).nonEmpty) Some(s"$sql: a window clause was found")
        else if (spark.isFailure) Some(s"$sql: Spark's parser fails (${spark.failed.get.getMessage}), ours does not")
        else if (!sameParse(ours, spark.get)) Some(s"$sql\nours:\n$ours\nSpark's:\n${spark.get}")
        else None
      } catch {
        case e: ParseException if spark.failed.toOption.exists(_.getMessage == e.getMessage) => None
        case e: ParseException => Some(s"$sql: ${e.getMessage}")
      }
    }
    assert(failures.isEmpty, failures.mkString("\n\n"))
    assert(ordinarySql.count(sql => scala.util.Try(delegate.parsePlan(sql)).isSuccess) >= ordinarySql.size * 3 / 4)
  }

  test("ordinary queries and expressions through every other entry point") {
    assert(parser.parseQuery("SELECT * FROM t WINDOW w AS (PARTITION BY a)") ==
      delegate.parseQuery("SELECT * FROM t WINDOW w AS (PARTITION BY a)"))
    assert(parser.parseExpression("window(ts, '1 minute')") == delegate.parseExpression("window(ts, '1 minute')"))
    assert(parser.parseMultipartIdentifier("db.`range`") == Seq("db", "range"))
    assert(parser.parseTableIdentifier("db.rows") == delegate.parseTableIdentifier("db.rows"))
    assert(parser.parseDataType("struct<window: int>") == delegate.parseDataType("struct<window: int>"))
    assert(parser.parseTableSchema("range INT, rows STRING") == delegate.parseTableSchema("range INT, rows STRING"))
  }

  test("the session parses with the W-join parser, wrapping Spark's") {
    val session = org.apache.spark.sql.wjoin.SessionApi.classicSession(spark).get
    assert(session.sessionState.sqlParser.isInstanceOf[WJoinSqlParser])
    // Spark's named window clause runs as always.
    spark.range(6).selectExpr("id % 2 AS k", "id").createOrReplaceTempView("numbers")
    val rows = spark.sql("SELECT k, id, sum(id) OVER w AS s FROM numbers WINDOW w AS (PARTITION BY k ORDER BY id)")
      .collect().map(r => (r.getLong(0), r.getLong(1), r.getLong(2))).sorted.toSeq
    assert(rows == Seq((0L, 0L, 0L), (0L, 2L, 2L), (0L, 4L, 6L), (1L, 1L, 1L), (1L, 3L, 4L), (1L, 5L, 9L)))
  }

  test("invalid statements fail exactly as in Spark's parser") {
    for (sql <- Seq("SELECT * FROM t WHERE x =", "SELECT * FROM t WINDOW w AS", "SELECT * FROM t WINDOW w",
        "SELECT range( FROM t", "SELECT * FROM a, b WINDOW w AS (PARTITION BY x) = 1")) {
      val spark = intercept[ParseException](delegate.parsePlan(sql))
      val ours = intercept[ParseException](parser.parsePlan(sql))
      assert(ours.getMessage == spark.getMessage, sql)
    }
  }

  test("the clause finder: where a clause starts and ends") {
    val sql = "SELECT * FROM a A, b B WINDOW(A,B) = 5 AND RANGE(B) = 2 USING TIME t WHERE A.k = B.k"
    val clauses = WindowClauseFinder(sql)
    assert(clauses.size == 1)
    val clause = clauses.head
    assert(sql.substring(clause.start, clause.end) == "WINDOW(A,B) = 5 AND RANGE(B) = 2 USING TIME t")
    assert(clause.windowsText == "WINDOW(A,B) = 5 AND RANGE(B) = 2")
    val nested = "SELECT * FROM (SELECT * FROM a, b WINDOW = 1 USING TIME t) x, c WINDOW = INTERVAL 1 HOUR |> " +
      "SELECT x.t"
    assert(WindowClauseFinder(nested).map(_.windowsText) == Seq("WINDOW = 1", "WINDOW = INTERVAL 1 HOUR"))
    // Interval ends may be negative (lo > hi is refused when the terms are resolved); single lengths may not.
    val interval = "SELECT * FROM a A, b B DWINDOW(A,B) = [-INTERVAL 2 MINUTES, INTERVAL 30 SECONDS]"
    assert(WindowClauseFinder(interval).map(_.windowsText) == Seq("DWINDOW(A,B) = [-INTERVAL 2 MINUTES, INTERVAL 30 SECONDS]"))
    val negative = "SELECT * FROM a A, b B DWINDOW(A,B) = -INTERVAL 2 MINUTES"
    assert(intercept[WJoinAnalysisException](WindowClauseFinder(negative)).condition == "WJOIN_NEGATIVE_WINDOW")
    assert(WindowClauseFinder("SELECT * FROM a A, b B DWINDOW(A,B) = [INTERVAL 30 SECONDS,INTERVAL '2' MINUTES]")
      .map(_.windowsText) == Seq("DWINDOW(A,B) = [INTERVAL 30 SECONDS, INTERVAL '2' MINUTES]"))
  }

  test("the marker rewriting keeps every position and line break") {
    val sql = "SELECT * FROM a A, b B WINDOW(A,B) = 5\n  AND WINDOW = 7 WHERE A.k = B.k"
    val rewritten = WJoinSqlParser.withMarkers(sql, WindowClauseFinder(sql))
    assert(rewritten.length == sql.length)
    assert(rewritten.indexOf('\n') == sql.indexOf('\n'))
    assert(rewritten.startsWith("SELECT * FROM a A, b B ,`⋈0` "))
    assert(rewritten.endsWith("WHERE A.k = B.k"))
  }
}
