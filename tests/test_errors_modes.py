"""Misuse of units, algorithms, streaming inputs and the SQL form fails before any Spark job
with its W-join error (the rest of the error table: test_errors.py)."""
import datetime as dt
import re

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import wjoin
from helpers import job_counter
from misuse import a, b, c, fails, ta, tb  # noqa: F401 (fixtures)
from wjoin._errors import condition_of

# The error table: every misuse's condition and message, on every supported Spark (bin/test).
pytestmark = pytest.mark.core


# ---------------------------------------------------------------------------------------
# units: timestamps need them, integral time columns must not have them


def test_timestamp_window_as_a_bare_number(spark, ta, tb):
    fails(spark, ValueError, r"timestamps.*bare number 5", lambda: wjoin.wjoin([ta, tb], window=5))


def test_timestamp_window_term_as_a_bare_number(spark, ta, tb):
    fails(spark, ValueError, r"WINDOW\(A,B\) = 5.*<number> <unit>",
          lambda: wjoin.wjoin([ta, tb], windows="WINDOW(A,B) = 5"))


def test_timestamp_windows_dict_with_a_bare_number(spark, ta, tb):
    fails(spark, ValueError, r"bare number 3", lambda: wjoin.wjoin([ta, tb], windows={("A", "B"): 3}))


def test_timestamp_directed_with_a_bare_number(spark, ta, tb):
    fails(spark, ValueError, r"DWINDOW\(A,B\) = 3.*bare number 3",
          lambda: wjoin.wjoin([ta, tb], windows=[wjoin.directed("A", "B", 3)]))


def test_timestamp_window_with_unknown_unit(spark, ta, tb):
    fails(spark, ValueError, r"unknown unit 'fortnights'", lambda: wjoin.wjoin([ta, tb], window="2 fortnights"))


def test_timestamp_window_in_months(spark, ta, tb):
    fails(spark, ValueError, r"unknown unit 'month'.*no fixed length", lambda: wjoin.wjoin([ta, tb], window="1 month"))


def test_integral_window_with_a_unit(spark, a, b):
    fails(spark, ValueError, r"integral.*'5 seconds'", lambda: wjoin.wjoin([a, b], time="ts", window="5 seconds"))


def test_integral_window_as_timedelta(spark, a, b):
    fails(spark, ValueError, r"window: the time column is integral.*got '5 seconds'",
          lambda: wjoin.wjoin([a, b], time="ts", window=dt.timedelta(seconds=5)))


def test_integral_window_term_with_a_unit(spark, a, b):
    fails(spark, ValueError, r"DWINDOW\(A,B\).*integral.*'1 second'",
          lambda: wjoin.wjoin([a, b], time="ts", windows="DWINDOW(A,B) = [1 second, 3 seconds]"))


# ---------------------------------------------------------------------------------------
# algorithm


@pytest.mark.parametrize("algorithm", ["fast", "hash", ""])
def test_unknown_algorithm(spark, a, b, algorithm):
    fails(spark, ValueError, rf"unknown algorithm '{algorithm}'; use one of auto, nlw, hw, mw",
          lambda: wjoin.wjoin([a, b], on="k", time="ts", window=5, algorithm=algorithm))


def test_algorithm_of_wrong_type(spark, a, b):
    fails(spark, TypeError, r"algorithm: expected a string \(auto, nlw, hw, mw\), got None",
          lambda: wjoin.wjoin([a, b], on="k", time="ts", window=5, algorithm=None))


def test_hw_without_a_key(spark, a, b):
    fails(spark, ValueError, r"'hw'.*needs an equality key",
          lambda: wjoin.wjoin([a, b], time="ts", window=5, algorithm="hw"))


def test_hw_with_a_key_not_shared_by_all_inputs(spark, a, b, c):
    fails(spark, ValueError, r"'hw'.*needs an equality key", lambda: wjoin.wjoin(
        [a, b, c], on=F.col("A.k") == F.col("B.k"), time="ts", window=5, algorithm="hw"))


def test_hw_with_only_a_struct_key_says_why(spark, a, b):
    sa, sb = (x.withColumn("s", F.struct("k")) for x in (a, b))
    fails(spark, ValueError, r"'hw'.*needs an equality key.*structs.*are not hash keys",
          lambda: wjoin.wjoin([sa, sb], on="s", time="ts", window=5, algorithm="hw"))


def test_hw_with_a_non_equality_condition_only(spark, a, b):
    fails(spark, ValueError, r"'hw'.*needs an equality key", lambda: wjoin.wjoin(
        [a, b], on=F.col("A.k") < F.col("B.k"), time="ts", window=5, algorithm="hw"))


# ---------------------------------------------------------------------------------------
# streaming inputs


def test_streaming_and_batch_inputs_mixed(spark):
    stream = spark.readStream.format("rate").load()
    batch = spark.createDataFrame([(1, dt.datetime(2024, 1, 1))], "value bigint, timestamp timestamp")
    fails(spark, ValueError, r"inputs A are streaming and B are not",
          lambda: wjoin.wjoin([stream, batch], window="1 second"))


def test_streaming_input_without_watermark(spark):
    with_wm = spark.readStream.format("rate").load().withWatermark("timestamp", "1 second")
    without = spark.readStream.format("rate").load()
    fails(spark, ValueError, r"streaming input B has no watermark on its time column 'timestamp'.*withWatermark",
          lambda: wjoin.wjoin([with_wm, without], window="1 second"))


def test_streaming_time_column_must_be_a_timestamp(spark):
    stream = spark.readStream.format("rate").load().withWatermark("timestamp", "1 second")
    fails(spark, ValueError, r"time column 'value' of streaming input A has type bigint.*"
          r"withWatermark takes only timestamp columns.*timestamp_seconds",
          lambda: wjoin.wjoin([stream, stream], window="1", time="value"))


def test_streaming_timestamp_ntz_time_column_says_to_cast(spark):
    # Spark's withWatermark refuses a timestamp_ntz column, so the error must not suggest it.
    stream = (spark.readStream.format("rate").load().withWatermark("timestamp", "1 second")
              .withColumn("local", F.col("timestamp").cast("timestamp_ntz")))
    fails(spark, ValueError, r"time column 'local' of streaming input A has type timestamp_ntz.*"
          r"cast\(\"timestamp\"\)",
          lambda: wjoin.wjoin([stream, stream], window="1 second", time="local"))


def test_streaming_inputs_with_watermarks_join(spark):
    stream = spark.readStream.format("rate").load().withWatermark("timestamp", "1 second")
    joined = wjoin.wjoin([stream, stream], window="1 second")
    assert joined.isStreaming


# ---------------------------------------------------------------------------------------
# the same conditions from SQL (an AnalysisException; spark.sql is PySpark's, so not a ValueError)


@pytest.mark.parametrize("sql, condition", [
    ("SELECT * FROM wjoin_err_a A, wjoin_err_b B WINDOW = 5 USING TIME nope", "WJOIN_UNKNOWN_COLUMN"),
    ("SELECT * FROM wjoin_err_a A, wjoin_err_b B DWINDOW(A,B) = [3, 4] AND DWINDOW(B,A) = 1 USING TIME ts",
     "WJOIN_CONTRADICTORY_WINDOWS"),
    ("SELECT * FROM wjoin_err_a A, wjoin_err_b B WINDOW = 5", "WJOIN_NO_TIME_COLUMN"),
    ("SELECT * FROM wjoin_err_a A, wjoin_err_b B WINDOW(A,B) = 5 USING TIME ts USING ALGORITHM hw",
     "WJOIN_HW_NEEDS_KEY"),
])
def test_sql_misuse_has_the_condition(spark, a, b, sql, condition):
    a.createOrReplaceTempView("wjoin_err_a")
    b.createOrReplaceTempView("wjoin_err_b")
    with job_counter(spark) as jobs:
        with pytest.raises(AnalysisException) as info:
            spark.sql(sql).schema
        assert jobs() == []
    assert condition_of(info.value) == condition, str(info.value)
    assert re.fullmatch(r"[0-9A-Z]{5}", info.value.getSqlState() or "")
    assert "requirement failed" not in str(info.value)
