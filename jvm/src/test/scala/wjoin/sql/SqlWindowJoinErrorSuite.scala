package wjoin.sql

import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.wjoin.ThrowableApi
import org.scalatest.funsuite.AnyFunSuite

import wjoin.errors.WJoinAnalysisException
import wjoin.testkit.SharedSparkSession

/**
 * Misuse of the SQL W-join fails inside `spark.sql`, before any job: syntax errors as
 * ParseExceptions pointing at the offending token (line, column), the rest as the same
 * WJoinAnalysisExceptions the DataFrame API raises, naming the culprit (and placed at it when
 * the parser finds it: unknown names, bad lengths, unknown algorithms).
 */
class SqlWindowJoinErrorSuite extends AnyFunSuite with SharedSparkSession {
  override def beforeAll(): Unit = {
    super.beforeAll()
    spark.sql("SELECT CAST(id % 3 AS INT) AS k, TIMESTAMP'2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, 0, 0, id) " +
      "AS ts, id AS seq FROM range(20)").createOrReplaceTempView("s1")
    spark.sql("SELECT * FROM s1").createOrReplaceTempView("s2")
    spark.sql("SELECT k, ts AS seen_at, ts AS saved_at, seq FROM s1").createOrReplaceTempView("s3")
  }

  /** The ParseException of `sql`: its message contains `message`, at (line, column). */
  private def syntaxError(sql: String, line: Int, column: Int, message: String): ParseException = {
    val e = intercept[ParseException](spark.sql(sql))
    assert(e.getMessage.contains(message), e.getMessage)
    assert((e.line, e.startPosition) == (Some(line), Some(column)), e.getMessage)
    assert(ThrowableApi.conditionOf(e) == "PARSE_SYNTAX_ERROR")
    assert(sql.split("\n").forall(e.getMessage.contains), "the message shows the user's statement")
    e
  }

  private def analysisError(sql: String, message: String): Unit = {
    val e = intercept[WJoinAnalysisException](spark.sql(sql))
    assert(e.getMessage.contains(message), e.getMessage)
  }

  private val from = "SELECT * FROM s1 A, s2 B"

  test("syntax errors in the window clause point at the offending token") {
    syntaxError(s"$from WINDOW(A,B) = WHERE A.k = B.k", 1, 39, "expected a window length")
    syntaxError(s"$from WINDOW(A,B) = INTERVAL 1 MINUTE AND A.k = B.k", 1, 61,
      "expected another window term after AND")
    syntaxError(s"$from DWINDOW(A,B) = [INTERVAL 1 MINUTE INTERVAL 2 MINUTES]", 1, 77,
      "expected ',' between the low and the high end")
    syntaxError(s"$from DWINDOW(A) = INTERVAL 1 MINUTE", 1, 25, "DWINDOW takes two inputs")
    syntaxError(s"$from RANGE(A,B) = INTERVAL 1 MINUTE", 1, 25, "RANGE takes one input")
    syntaxError(s"$from WINDOW = INTERVAL 1 MINUTE USING SPEED fast", 1, 58, "expected TIME or ALGORITHM")
    syntaxError(s"$from WINDOW = INTERVAL 1 MINUTE USING LEFT ANTI WHERE A.k = B.k", 1, 68, "expected JOIN")
    syntaxError(s"$from WINDOW = INTERVAL 1 MINUTE USING LEFT JOIN USING INNER JOIN", 1, 74,
      "USING ... JOIN is given twice")
    syntaxError(s"$from WINDOW = INTERVAL 1 MINUTE JOIN s3 C", 1, 52, "unexpected after the W-join clause")
    syntaxError(s"$from WINDOW = INTERVAL 1 MINUTE USING TIME (A.ts)", 1, 68,
      "USING TIME gives no time column for input(s) B")
  }

  /**
   * The W-join's error of `condition` for `sql`, raised by `spark.sql`, at (line, column), with
   * `message` in its text, and no query context (see SqlClauseMisuse).
   */
  private def clauseMisuse(sql: String, line: Int, column: Int, condition: String,
      sqlState: String, message: String): Unit = {
    val e = intercept[WJoinAnalysisException](spark.sql(sql))
    assert((e.condition, e.getSqlState) == (condition, sqlState), e.getMessage)
    assert(e.getMessage.contains(message), e.getMessage)
    assert((e.line, e.startPosition) == (Some(line), Some(column)), e.getMessage)
    assert(e.getMessage.endsWith(s"; line $line pos $column") && e.getQueryContext.isEmpty, e.getMessage)
  }

  test("misuse in a well-formed window clause is the W-join's error, placed at the offending token") {
    clauseMisuse(s"$from WINDOW(A,Q) = INTERVAL 1 MINUTE", 1, 34, "WJOIN_UNKNOWN_INPUT_IN_WINDOW", "42703",
      "window term 'WINDOW(A,Q) = INTERVAL 1 MINUTE' names input 'Q', but the inputs are A, B")
    clauseMisuse(s"$from\nWINDOW(A,B) = INTERVAL 2 FORTNIGHTS\nWHERE A.k = B.k", 2, 14,
      "WJOIN_INVALID_LENGTH", "22006", "unknown unit 'FORTNIGHTS'")
    clauseMisuse(s"$from WINDOW(A,B) = -5", 1, 39, "WJOIN_NEGATIVE_WINDOW", "22023", "a window cannot be negative")
    clauseMisuse(s"$from DWINDOW(A,B) = [INTERVAL 1 MINUTE, INTERVAL 2 FORTNIGHTS]", 1, 60,
      "WJOIN_INVALID_LENGTH", "22006", "unknown unit 'FORTNIGHTS'")
    clauseMisuse(s"$from WINDOW = INTERVAL 1 MINUTE USING ALGORITHM fast", 1, 68, "WJOIN_UNKNOWN_CHOICE",
      "22023", "unknown algorithm 'fast'")
    clauseMisuse(s"$from WINDOW = INTERVAL 1 MINUTE USING TIME (A.ts, X.ts)", 1, 70, "WJOIN_UNKNOWN_INPUT",
      "42703", "USING TIME: unknown input(s) X; the inputs are A, B")
  }

  test("the FROM clause of a W-join: named relations, joined by commas or inner joins") {
    syntaxError("SELECT * FROM s1 A LEFT JOIN s2 B ON A.k = B.k WINDOW = INTERVAL 1 MINUTE", 1, 19,
      "not a LEFT OUTER join")
    syntaxError("SELECT * FROM (SELECT * FROM s1), s2 B WINDOW = INTERVAL 1 MINUTE", 1, 14,
      "every W-join input needs a name")
    syntaxError("SELECT * FROM s1 A, s2 B LATERAL VIEW explode(array(1)) t AS x WINDOW = INTERVAL 1 MINUTE", 1, 63,
      "must directly follow the relations of a query's FROM clause")
  }

  test("a window clause after WHERE is a syntax error with advice") {
    syntaxError(s"$from WHERE A.k = B.k WINDOW(A,B) = INTERVAL 1 MINUTE", 1, 41,
      "a W-join window clause goes right after the relations of the FROM clause, before WHERE")
  }

  test("Spark's own syntax errors elsewhere in a W-join statement keep their position and show the user's text") {
    val e = syntaxError(s"$from WINDOW(A,B) = INTERVAL 1 MINUTE\nWHERE A.k = = B.k", 2, 12, "Syntax error at or near '='")
    assert(!e.getMessage.contains("⋈"))
  }

  test("what needs the resolved relations fails at analysis, naming the input, column or term") {
    analysisError(s"$from WINDOW = INTERVAL 1 MINUTE USING TIME nope",
      "time column 'nope' is not a column of input A (its columns: k, ts, seq)")
    analysisError("SELECT * FROM s1 A, s3 C WINDOW = INTERVAL 1 MINUTE",
      "input C has 2 timestamp columns (seen_at, saved_at), so its event-time column must be named")
    analysisError(s"$from WINDOW = 5 USING TIME (A.seq, B.ts)", "the time columns mix kinds")
    analysisError(s"$from WINDOW = 5", "expected pairs of <number> <unit>") // timestamps need a unit
    analysisError(s"$from WINDOW = INTERVAL 5 SECONDS USING TIME seq", "the time column is integral")
    analysisError(s"$from DWINDOW(A,B) = [INTERVAL 2 MINUTES, INTERVAL 3 MINUTES] AND " +
      "DWINDOW(B,A) = [INTERVAL 1 MINUTE, INTERVAL 2 MINUTES]",
      "the window constraints contradict each other, so no combination can ever match: ")
    analysisError("SELECT * FROM s1 A, s2 B, s3 C WINDOW(A,B) = INTERVAL 1 MINUTE USING TIME (A.ts, B.ts, C.seen_at)",
      "input C has no window bound relative to A, B")
    analysisError(s"$from WINDOW(A,B) = [INTERVAL 1 MINUTE, INTERVAL 2 MINUTES]", "an interval [lo, hi] needs DWINDOW")
    analysisError(s"$from ROWS(B) = INTERVAL 1 MINUTE AND WINDOW = INTERVAL 1 MINUTE",
      "a ROWS window is a whole number of rows such as ROWS(B) = 1000")
    analysisError("SELECT * FROM s1 A, s1 a WINDOW = INTERVAL 1 MINUTE", "input names must be unique")
    analysisError("SELECT * FROM s1 A WINDOW = INTERVAL 1 MINUTE", "a W-join needs at least 2 inputs, got 1")
    analysisError(s"$from WINDOW = INTERVAL 1 MINUTE USING ALGORITHM hw WHERE A.seq < B.seq",
      "algorithm 'hw' (hash W-join) needs an equality key shared by all inputs")
  }
}
