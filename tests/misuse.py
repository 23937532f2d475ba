"""The inputs and the assertion of the misuse tests (test_errors*.py): a call fails before any
Spark job with the expected error, a W-join error carrying a WJOIN_ condition and an SQLSTATE."""
import datetime as dt
import re

import pytest
from pyspark.errors import AnalysisException

import wjoin
from helpers import job_counter
from wjoin._errors import condition_of


@pytest.fixture(scope="module")
def a(spark):
    return spark.createDataFrame([(1, 10, "x", 1.5)], "k int, ts bigint, s string, d double")


@pytest.fixture(scope="module")
def b(spark):
    return spark.createDataFrame([(1, 12, "y")], "k int, ts bigint, s string")


@pytest.fixture(scope="module")
def c(spark):
    return spark.createDataFrame([(1, 14, "z")], "k int, ts bigint, s string")


@pytest.fixture(scope="module")
def ta(spark):
    return spark.createDataFrame([(1, dt.datetime(2024, 1, 1, 0, 0, 0))], "k int, at timestamp")


@pytest.fixture(scope="module")
def tb(spark):
    return spark.createDataFrame([(1, dt.datetime(2024, 1, 1, 0, 0, 1))], "k int, at timestamp")


def fails(spark, error, pattern, call):
    """``call()`` raises ``error`` with a message matching ``pattern`` and runs no Spark job."""
    with job_counter(spark) as jobs:
        with pytest.raises(error) as info:
            call()
        assert jobs() == [], f"jobs ran before the error: {jobs()}"
    message = str(info.value)
    assert re.search(pattern, message), f"{message!r} does not match {pattern!r}"
    if isinstance(info.value, ValueError):
        assert_wjoin_error(info.value)
    return message


def assert_wjoin_error(e: Exception) -> None:
    """``e`` is a W-join error: an AnalysisException and a ValueError with a WJOIN_ condition and an SQLSTATE."""
    assert isinstance(e, AnalysisException) and isinstance(e, ValueError), type(e).__mro__
    assert isinstance(e, wjoin.WJoinAnalysisException)
    assert re.fullmatch(r"WJOIN_[A-Z0-9_]+", condition_of(e) or ""), condition_of(e)
    assert re.fullmatch(r"[0-9A-Z]{5}", e.getSqlState() or ""), e.getSqlState()
    assert str(e).startswith(f"[{condition_of(e)}] "), str(e)
    assert "requirement failed" not in str(e)
    assert isinstance(e.getMessageParameters(), dict)
