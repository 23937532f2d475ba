"""The W-join in SQL through ``spark.sql``: the papers' queries on temp views give what
``DataFrame.wjoin`` gives on the same data, and misuse fails inside ``spark.sql`` (before any
job) with pyspark's ParseException (syntax, pointing at the token) or an AnalysisException of a
``WJOIN_`` condition with its SQLSTATE.
"""
import datetime as dt
import random
import re

import pytest
import wjoin
from pyspark.errors import AnalysisException, ParseException
from pyspark.sql import functions as F

from helpers import executed_plan, job_counter, rows_of

START = dt.datetime(2024, 1, 1, 8, 0, 0)
PAPERS_QUERY = """
SELECT A.ObjID, A.ts, B.ts, C.ts FROM Camera1 A, Camera2 B, Camera3 C
WINDOW(A,B) = INTERVAL 2 MINUTES AND WINDOW(B,C) = INTERVAL 3 MINUTES AND WINDOW(A,C) = INTERVAL 4 MINUTES
WHERE A.ObjID = B.ObjID AND B.ObjID = C.ObjID
"""


@pytest.fixture(scope="module")
def cameras(spark):
    """Three cameras over one hour, 20 vehicles: (ObjID, ts, lane), registered as Camera1..3."""
    frames = []
    for i in (1, 2, 3):
        rnd = random.Random(i)
        rows = [(rnd.randrange(20), START + dt.timedelta(seconds=rnd.randrange(3600)), rnd.randrange(3))
                for _ in range(200)]
        df = spark.createDataFrame(rows, "ObjID int, ts timestamp, lane int")
        df.createOrReplaceTempView(f"Camera{i}")
        frames.append(df)
    return frames


def same_object():
    return [F.col("A.ObjID") == F.col("B.ObjID"), F.col("B.ObjID") == F.col("C.ObjID")]


def api(cameras, **kwargs):
    a, b, c = cameras
    return a.alias("A").wjoin(b.alias("B"), c.alias("C"), on=same_object(), time="ts", **kwargs)


def test_negative_interval_bounds_in_sql_equal_spark_interval_join(spark, cameras):
    # B at most 1 minute before A, at most 2 after; C 3 to 1 minutes before B.
    result = spark.sql("""
        SELECT A.ObjID, A.ts, B.ts, C.ts FROM Camera1 A, Camera2 B, Camera3 C
        DWINDOW(A,B) = [-INTERVAL 1 MINUTE, INTERVAL 2 MINUTES] AND DWINDOW(B,C) = [INTERVAL -3 MINUTES, -1 minute]
        WHERE A.ObjID = B.ObjID AND B.ObjID = C.ObjID""")
    expected = rows_of(spark.sql("""
        SELECT A.ObjID, A.ts, B.ts, C.ts FROM Camera1 A
        JOIN Camera2 B ON A.ObjID = B.ObjID AND B.ts BETWEEN A.ts - INTERVAL 1 MINUTE AND A.ts + INTERVAL 2 MINUTES
        JOIN Camera3 C ON B.ObjID = C.ObjID AND C.ts BETWEEN B.ts - INTERVAL 3 MINUTES AND B.ts - INTERVAL 1 MINUTE"""))
    assert len(expected) > 5
    assert rows_of(result) == expected


@pytest.mark.core
def test_papers_query_equals_dataframe_wjoin(spark, cameras):
    expected = rows_of(api(cameras, windows={("A", "B"): "2 minutes", ("B", "C"): "3 minutes",
                                             ("A", "C"): "4 minutes"}).select("A.ObjID", "A.ts", "B.ts", "C.ts"))
    assert len(expected) > 10
    result = spark.sql(PAPERS_QUERY)
    assert rows_of(result) == expected
    plan = executed_plan(result)
    # Shuffled or, where the other inputs fit Spark's broadcast threshold, BroadcastWindowJoin.
    assert re.search(r"WindowJoin hw( \(hash\))?, inputs=\[A, B, C\]", plan), plan
    assert "keys=(A.ObjID) = (B.ObjID) = (C.ObjID)" in plan


def test_output_names_setting_names_a_sql_w_join(spark, cameras):
    query = ("SELECT * FROM Camera1 A, Camera2 B WINDOW(A,B) = INTERVAL 1 MINUTE "
             "WHERE A.ObjID = B.ObjID AND A.lane = B.lane")
    joined = spark.sql(query)
    assert joined.columns == ["ObjID", "ts", "lane"] * 2
    expected = rows_of(joined)
    assert expected
    # Connect analyzes when asked: everything of the prefixed query inside the setting.
    spark.conf.set("spark.wjoin.outputNames", "prefixed")
    try:
        prefixed = spark.sql(query)  # the WHERE clause still names the inputs' columns (A.ObjID)
        assert prefixed.columns == ["A_ObjID", "A_ts", "A_lane", "B_ObjID", "B_ts", "B_lane"]
        assert rows_of(prefixed) == expected
    finally:
        spark.conf.unset("spark.wjoin.outputNames")


@pytest.mark.parametrize("clause, windows", [
    ("WINDOW = INTERVAL 3 MINUTES", "WINDOW = 3 minutes"),
    ("WINDOW = 3 minutes USING ALGORITHM mw", "WINDOW = 3 minutes"),
    ("DWINDOW(A,B) = [INTERVAL 30 SECONDS, INTERVAL 10 MINUTES] AND DWINDOW(B,C) = INTERVAL 10 MINUTES",
     "DWINDOW(A,B) = [30 seconds, 10 minutes] AND DWINDOW(B,C) = 10 minutes"),
    ("RANGE(B) = INTERVAL 1 MINUTE AND WINDOW = INTERVAL 5 MINUTES USING TIME ts",
     "RANGE(B) = 1 minute AND WINDOW = 5 minutes"),
])
def test_window_forms_equal_dataframe_wjoin(spark, cameras, clause, windows):
    expected = rows_of(api(cameras, windows=windows).select("A.ObjID", "A.ts", "B.ts", "C.lane"))
    assert expected
    sql = f"""SELECT A.ObjID, A.ts, B.ts, C.lane FROM Camera1 A, Camera2 B, Camera3 C {clause}
              WHERE A.ObjID = B.ObjID AND B.ObjID = C.ObjID"""
    assert rows_of(spark.sql(sql)) == expected


def test_integral_time_columns_per_input(spark):
    a = spark.createDataFrame([(1, 10, "a1"), (1, 20, "a2"), (2, 12, "a3")], "k int, seq bigint, v string")
    b = spark.createDataFrame([(1, 12, "b1"), (1, 17, "b2")], "k int, at bigint, v string")
    a.createOrReplaceTempView("seq_a")
    b.createOrReplaceTempView("seq_b")
    expected = rows_of(a.alias("A").wjoin(b.alias("B"), on="k", time=["seq", "at"], window=3)
                       .select("A.v", "B.v"))
    assert expected == [("a1", "b1"), ("a2", "b2")]  # |10-12| <= 3, |20-17| <= 3
    sql = "SELECT A.v, B.v FROM seq_a A, seq_b B WINDOW = 3 USING TIME (A.seq, B.at) WHERE A.k = B.k"
    assert rows_of(spark.sql(sql)) == expected


def test_named_window_clause_still_works(spark):
    spark.range(4).selectExpr("id % 2 AS k", "id").createOrReplaceTempView("numbers")
    rows = spark.sql("SELECT k, id, sum(id) OVER w FROM numbers WINDOW w AS (PARTITION BY k ORDER BY id)")
    assert rows_of(rows) == [(0, 0, 0), (0, 2, 2), (1, 1, 1), (1, 3, 4)]


def fails(spark, error, sql):
    """``spark.sql(sql)`` raises ``error`` and runs no job; returns the message."""
    with job_counter(spark) as jobs:
        with pytest.raises(error) as info:
            spark.sql(sql)
        assert jobs() == []
    return str(info.value)


def test_misplaced_window_clause(spark, cameras):
    message = fails(spark, ParseException,
                    "SELECT * FROM Camera1 A, Camera2 B WHERE A.ObjID = B.ObjID WINDOW = INTERVAL 1 MINUTE")
    assert "goes right after the relations of the FROM clause, before WHERE" in message


def wjoin_error(spark, sql, condition: str, sql_state: str) -> str:
    """``spark.sql(sql)`` raises an AnalysisException of ``condition`` and ``sql_state``, no job; its message."""
    with job_counter(spark) as jobs:
        with pytest.raises(AnalysisException) as info:
            spark.sql(sql)
        assert jobs() == []
    assert info.value.getCondition() == condition
    assert info.value.getSqlState() == sql_state
    assert isinstance(info.value, wjoin.WJoinAnalysisException) and isinstance(info.value, ValueError)
    return str(info.value)


@pytest.mark.core
@pytest.mark.parametrize("clause, condition, sql_state, text", [
    ("\nWINDOW(A,X) = INTERVAL 1 MINUTE", "WJOIN_UNKNOWN_INPUT_IN_WINDOW", "42703",
     "names input 'X', but the inputs are A, B; line 2 pos 9"),
    ("WINDOW(A,B) = -5 MINUTES", "WJOIN_NEGATIVE_WINDOW", "22023", "a window cannot be negative"),
    ("WINDOW = INTERVAL 1 MINUTE USING ALGORITHM fast", "WJOIN_UNKNOWN_CHOICE", "22023", "unknown algorithm 'fast'"),
    ("WINDOW = INTERVAL 1 MINUTE USING TIME (A.ts, X.ts)", "WJOIN_UNKNOWN_INPUT", "42703",
     "USING TIME: unknown input(s) X; the inputs are A, B"),
    ("WINDOW = INTERVAL 1 MINUTE USING ALGORITHM hw", "WJOIN_HW_NEEDS_KEY", "42K0E", "needs an equality key"),
])
def test_misuse_in_the_clause_is_the_wjoin_error(spark, cameras, clause, condition, sql_state, text):
    """The misuses the DataFrame API reports carry the same condition from SQL, placed at the token the
    parser finds them at (line and position from 1 and 0, as Spark counts them)."""
    message = wjoin_error(spark, f"SELECT * FROM Camera1 A, Camera2 B {clause} WHERE A.ObjID < B.ObjID",
                          condition, sql_state)
    assert text in message


def test_unknown_time_column(spark, cameras):
    message = wjoin_error(spark, "SELECT * FROM Camera1 A, Camera2 B WINDOW = INTERVAL 1 MINUTE USING TIME seen_at",
                          "WJOIN_UNKNOWN_COLUMN", "42703")
    assert "time column 'seen_at' is not a column of input A (its columns: ObjID, ts, lane)" in message


def test_contradicting_windows_name_the_terms(spark, cameras):
    message = wjoin_error(spark, "SELECT * FROM Camera1 A, Camera2 B DWINDOW(A,B) = [INTERVAL 2 MINUTES, "
                          "INTERVAL 3 MINUTES] AND DWINDOW(B,A) = INTERVAL 1 MINUTE", "WJOIN_CONTRADICTORY_WINDOWS", "22023")
    assert "contradict each other" in message
    assert "DWINDOW(B,A) = INTERVAL 1 MINUTE" in message
