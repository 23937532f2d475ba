"""The Python API with timestamp time columns: windows as intervals in every spelling, values
that come back unchanged, timestamp_ntz, windows below a second."""
import datetime as dt

import pytest

import wjoin
from helpers import bag, rows_of

T0 = dt.datetime(2024, 3, 1, 12, 0, 0)


def minutes(m):
    return T0 + dt.timedelta(minutes=m)


@pytest.fixture(scope="module")
def xs(spark):
    return spark.createDataFrame([(1, minutes(0), "x1"), (1, minutes(10), "x2")], "k int, at timestamp, vx string")


@pytest.fixture(scope="module")
def ys(spark):
    return spark.createDataFrame([(1, minutes(2), "y1"), (1, minutes(5), "y2"), (1, minutes(13), "y3")],
                                 "k int, seen timestamp, vy string")


# Distances: x1-y1 2 min, x1-y2 5, x1-y3 13, x2-y1 8, x2-y2 5, x2-y3 3.
@pytest.mark.parametrize("window, expected", [
    ("2 minutes", [("x1", "y1")]),
    ("3 minutes", [("x1", "y1"), ("x2", "y3")]),
    ("180 seconds", [("x1", "y1"), ("x2", "y3")]),
    ("2 minutes 59 seconds", [("x1", "y1")]),
    ("INTERVAL 5 MINUTES", [("x1", "y1"), ("x1", "y2"), ("x2", "y2"), ("x2", "y3")]),
    ("interval '5' minute", [("x1", "y1"), ("x1", "y2"), ("x2", "y2"), ("x2", "y3")]),
    (dt.timedelta(minutes=3), [("x1", "y1"), ("x2", "y3")]),
    (dt.timedelta(minutes=2, seconds=59, microseconds=999999), [("x1", "y1")]),
    ("1 hour", [("x1", "y1"), ("x1", "y2"), ("x1", "y3"), ("x2", "y1"), ("x2", "y2"), ("x2", "y3")]),
])
def test_timestamp_window(xs, ys, window, expected):
    # time= left out: each input's only timestamp column is its event time.
    joined = wjoin.wjoin([xs, ys], on="k", window=window)
    assert joined.columns == ["k", "at", "vx", "seen", "vy"]
    assert rows_of(joined.select("vx", "vy")) == bag(expected)


def test_timestamp_values_come_back_unchanged(xs, ys):
    joined = wjoin.wjoin([xs, ys], on="k", window="2 minutes")
    assert rows_of(joined) == [(1, minutes(0), "x1", minutes(2), "y1")]


def test_timestamp_windows_terms(xs, ys):
    joined = wjoin.wjoin({"X": xs, "Y": ys}, on="k", time={"X": "at", "Y": "seen"},
                         windows={("X", "Y"): ("1 minute", dt.timedelta(minutes=5))})
    # 1 min <= Y - X <= 5 min: x1 y1 (2), x1 y2 (5, inclusive), x2 y3 (3).
    assert rows_of(joined.select("vx", "vy")) == bag([("x1", "y1"), ("x1", "y2"), ("x2", "y3")])


@pytest.mark.parametrize("windows", [{("X", "Y"): "3 minutes"}, {("Y", "X"): dt.timedelta(minutes=3)},
                                     "WINDOW(X,Y) = 3 minutes", "WINDOW(Y,X) = INTERVAL 180 SECONDS"])
def test_timestamp_pair_window(xs, ys, windows):
    joined = wjoin.wjoin({"X": xs, "Y": ys}, on="k", windows=windows)
    # |X - Y| <= 3 min: x1 y1 (2), x2 y3 (3, inclusive).
    assert rows_of(joined.select("vx", "vy")) == bag([("x1", "y1"), ("x2", "y3")])


def test_timestamp_directed_with_timedelta(xs, ys):
    joined = wjoin.wjoin({"X": xs, "Y": ys}, on="k",
                         windows=[wjoin.directed("Y", "X", dt.timedelta(minutes=8), dt.timedelta(minutes=6))])
    # 6 min <= X - Y <= 8 min: x2 y1 only (8).
    assert rows_of(joined.select("vx", "vy")) == [("x2", "y1")]


def test_timestamp_ntz_time_columns(spark):
    a = spark.createDataFrame([(1, minutes(0)), (1, minutes(4))], "k int, t timestamp_ntz")
    b = spark.createDataFrame([(1, minutes(3))], "k int, t timestamp_ntz")
    joined = wjoin.wjoin([a, b], on="k", window="3 minutes")
    assert rows_of(joined) == bag([(1, minutes(0), minutes(3)), (1, minutes(4), minutes(3))])


# A window below a second, also one of fractional milliseconds (16.1 ms is exactly 16100 us):
# B at its end joins, one microsecond after it does not.
@pytest.mark.parametrize("window, inside_us, outside_us", [
    ("250 milliseconds", 250_000, 250_001),
    (dt.timedelta(microseconds=250_999), 250_999, 251_000),
    ("16.1 milliseconds", 16_100, 16_101),
])
def test_sub_second_windows(spark, window, inside_us, outside_us):
    t = dt.datetime(2024, 1, 1)
    a = spark.createDataFrame([(t,)], "t timestamp")
    b = spark.createDataFrame([(t + dt.timedelta(microseconds=us),) for us in (inside_us, outside_us)], "t timestamp")
    joined = wjoin.wjoin([a, b], window=window)
    assert rows_of(joined) == [(t, t + dt.timedelta(microseconds=inside_us))]


def test_huge_integral_window_is_not_a_contradiction(spark):
    # A window of 2**62 units admits every pair below; the constraints are trivially satisfiable.
    a = spark.createDataFrame([(0,), (-7,)], "ts bigint")
    b = spark.createDataFrame([(1000,)], "ts bigint")
    try:
        joined = wjoin.wjoin([a, b], time="ts", window=2**62)
    except ValueError as e:
        # Rejecting it as too large would be fine; calling it contradictory is wrong.
        assert "contradict" not in str(e), str(e)
    else:
        assert rows_of(joined) == bag([(0, 1000), (-7, 1000)])
