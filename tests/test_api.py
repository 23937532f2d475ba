"""The Python API end to end: every way to name inputs, keys, time columns and windows, the
output columns, and that the plan runs our WindowJoin operator.

The data below is small enough to compute every expected answer by hand (comments show
the arithmetic); different window forms give different answers on it, so a form that is
ignored or mis-parsed changes the result.
"""
import datetime as dt

import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

import wjoin
from helpers import bag, executed_plan, is_connect, job_counter, rows_of

# Integral time. Input rows by name: (k, ts, value).
A_ROWS = {"a1": (1, 10, "a1"), "a2": (1, 20, "a2"), "a3": (2, 12, "a3")}
B_ROWS = {"b1": (1, 12, "b1"), "b2": (1, 17, "b2")}
C_ROWS = {"c1": (1, 11, "c1"), "c2": (1, 16, "c2"), "c3": (1, 24, "c3")}
ROWS = {**A_ROWS, **B_ROWS, **C_ROWS}


def keyed(*combos):
    """Expected rows for on="k": k once, then (ts, value) of each member in input order."""
    out = []
    for combo in combos:
        members = [ROWS[name] for name in combo]
        assert len({m[0] for m in members}) == 1, "a keyed combination has one key"
        row = (members[0][0],)
        for _, ts, value in members:
            row += (ts, value)
        out.append(row)
    return bag(out)


def unkeyed(*combos):
    """Expected rows without on-names: every column of every member, in input order."""
    return bag(sum((ROWS[name] for name in combo), ()) for combo in combos)


@pytest.fixture(scope="module")
def a(spark):
    return spark.createDataFrame(list(A_ROWS.values()), "k int, ts bigint, va string")


@pytest.fixture(scope="module")
def b(spark):
    return spark.createDataFrame(list(B_ROWS.values()), "k int, ts bigint, vb string")


@pytest.fixture(scope="module")
def c(spark):
    return spark.createDataFrame(list(C_ROWS.values()), "k int, ts bigint, vc string")


# Uniform window 5 over A, B, C with key k (pairwise distances in brackets):
#   a1 b1 c1 (2, 1, 1) yes; a2 b2 c2 (3, 4, 1) yes; a1 b1 c2 (A-C 6) no; a2 b2 c3 (B-C 7) no;
#   a1 b2 (7) no; a2 b1 (8) no; a3 has key 2 (it would match b1 c1 by time alone).
UNIFORM5 = keyed(("a1", "b1", "c1"), ("a2", "b2", "c2"))


# ---------------------------------------------------------------------------------------
# inputs and their names


def test_list_inputs_uniform_window_three_way(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=5)
    assert joined.columns == ["k", "ts", "va", "ts", "vb", "ts", "vc"]
    assert rows_of(joined) == UNIFORM5


def test_list_inputs_are_named_a_b_c(a, b, c):
    # Per-pair windows only resolve with the default names A, B, C.
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    got = rows_of(joined.select("k", F.col("A.va"), F.col("B.vb"), F.col("C.vc")))
    # |A-B| <= 3: a1 b1 (2), a2 b2 (3); |B-C| <= 7: b1 with c1 (1), c2 (4); b2 with c1 (6), c2 (1),
    # c3 (7, inclusive). A-C is unbounded but for the implied 10.
    assert got == bag([(1, "a1", "b1", "c1"), (1, "a1", "b1", "c2"),
                       (1, "a2", "b2", "c1"), (1, "a2", "b2", "c2"), (1, "a2", "b2", "c3")])


def test_dict_inputs_are_named_by_keys(a, b):
    joined = wjoin.wjoin({"left": a, "right": b}, on="k", time="ts", windows="DWINDOW(left,right) = 5")
    # 0 <= right.ts - left.ts <= 5: a1 b1 (2) only; a2 b2 is -3.
    got = rows_of(joined.select(F.col("left.va"), F.col("right.vb"), F.col("right.ts") - F.col("left.ts")))
    assert got == [("a1", "b1", 2)]


def test_dict_inputs_order_follows_the_dict(a, b):
    joined = wjoin.wjoin({"second": b, "first": a}, on="k", time="ts", window=5)
    assert joined.columns == ["k", "ts", "vb", "ts", "va"]
    assert rows_of(joined) == bag([(1, 12, "b1", 10, "a1"), (1, 17, "b2", 20, "a2")])


def test_alias_names_inputs(a, b):
    joined = wjoin.wjoin([a.alias("X"), b.alias("Y")], on="k", time="ts", windows="DWINDOW(Y,X) = 3")
    # 0 <= X.ts - Y.ts <= 3: a2 (20) after b2 (17); a1 (10) is before b1 (12).
    got = rows_of(joined.select(F.col("X.va"), F.col("Y.vb")))
    assert got == [("a2", "b2")]


def test_alias_and_position_names_mix(a, b):
    # The second input has no alias, so it is named by its position: B.
    joined = wjoin.wjoin([a.alias("X"), b], on="k", time="ts", windows="DWINDOW(X,B) = 5")
    assert rows_of(joined.select(F.col("X.va"), F.col("B.vb"))) == [("a1", "b1")]


def test_dataframe_wjoin_method(a, b, c):
    joined = a.wjoin(b, c, on="k", time="ts", window=5)
    assert joined.columns == ["k", "ts", "va", "ts", "vb", "ts", "vc"]
    assert rows_of(joined) == UNIFORM5


def test_dataframe_wjoin_method_keeps_aliases(a, b):
    joined = a.alias("P").wjoin(b.alias("Q"), on="k", time="ts", windows="DWINDOW(Q,P) = 3")
    assert rows_of(joined.select("P.va", "Q.vb")) == [("a2", "b2")]


def test_same_dataframe_twice(a):
    joined = wjoin.wjoin({"x": a, "y": a}, on="k", time="ts", window=0)
    # Every row meets itself (distance 0) and nothing else (no two rows share key and time).
    assert rows_of(joined.select("x.va", "y.va")) == bag([("a1", "a1"), ("a2", "a2"), ("a3", "a3")])


def test_time_columns_resolve_after_the_join(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=5)
    got = rows_of(joined.select(F.col("A.ts"), F.col("B.ts"), F.col("C.ts")))
    assert got == bag([(10, 12, 11), (20, 17, 16)])


# ---------------------------------------------------------------------------------------
# output names (also run on Connect by on_connect/test_connect_api.py)


def test_output_names_prefixed_names_every_column_but_the_keys(a, b):
    joined = wjoin.wjoin([a, b], time="ts", window=5, on="k", output_names="prefixed")
    assert joined.columns == ["k", "A_ts", "A_va", "B_ts", "B_vb"]
    assert rows_of(joined) == keyed(("a1", "b1"), ("a2", "b2"))
    assert joined.select("A_ts", "B.B_ts").columns == ["A_ts", "B_ts"]
    with pytest.raises(TypeError, match="output_names"):
        wjoin.wjoin([a, b], time="ts", window=5, output_names=True)
    with pytest.raises(wjoin.WJoinAnalysisException) as e:
        wjoin.wjoin([a, b], time="ts", window=5, output_names="flat")
    assert e.value.getCondition() == "WJOIN_UNKNOWN_CHOICE"


def test_output_names_prefixed_refuses_names_that_collide(spark, a, b):
    # input A's column B_va and input A_B's column va would both be A_B_va
    inputs = {"A": a.withColumnRenamed("va", "B_va"), "A_B": b.withColumnRenamed("vb", "va")}
    with job_counter(spark) as jobs, pytest.raises(AnalysisException) as e:
        wjoin.wjoin(inputs, time="ts", window=5, on="k", output_names="prefixed").columns
    assert e.value.getCondition() == "WJOIN_PREFIXED_NAMES_COLLIDE"
    assert e.value.getMessageParameters() == {"name": "A_B_va", "sources": "A.B_va and A_B.va"}
    assert is_connect(spark) or jobs() == []


def test_writing_repeated_names_to_files_points_at_the_option(spark, a, b, tmp_path):
    joined = wjoin.wjoin([a, b], time="ts", window=5, on="k")  # k, ts, va, ts, vb
    with job_counter(spark) as jobs, pytest.raises(AnalysisException) as e:
        joined.write.parquet(str(tmp_path / "out"))
    assert e.value.getCondition() == "WJOIN_DUPLICATE_OUTPUT_COLUMNS" and not (tmp_path / "out").exists()
    assert is_connect(spark) or jobs() == []  # Connect counts the write command the client sent
    assert e.value.getMessageParameters()["columns"] == "ts" and 'output_names="prefixed"' in str(e.value)


# ---------------------------------------------------------------------------------------
# on


def test_on_name_keeps_key_once_and_drops_other_keys(a, b):
    joined = wjoin.wjoin([a, b], time="ts", window=5, on="k")
    assert joined.columns == ["k", "ts", "va", "ts", "vb"]
    # a3 (key 2, ts 12) would match b1 (ts 12) and b2 (17) by time alone.
    assert rows_of(joined) == keyed(("a1", "b1"), ("a2", "b2"))


def test_on_list_of_names(spark):
    a = spark.createDataFrame([(1, "x", 0, "a1"), (1, "y", 0, "a2"), (2, "x", 1, "a3")],
                              "k int, g string, ts bigint, va string")
    b = spark.createDataFrame([(1, "x", 1, "b1"), (1, "y", 9, "b2"), (2, "y", 0, "b3")],
                              "k int, g string, ts bigint, vb string")
    joined = wjoin.wjoin([a, b], on=["k", "g"], time="ts", window=2)
    assert joined.columns == ["k", "g", "ts", "va", "ts", "vb"]
    # (1, x): a1 b1 within 2; (1, y): a2 b2 9 apart; (2, *): g differs.
    assert rows_of(joined) == [(1, "x", 0, "a1", 1, "b1")]


def test_on_single_name_in_a_list(a, b):
    joined = wjoin.wjoin([a, b], on=["k"], time="ts", window=5)
    assert joined.columns == ["k", "ts", "va", "ts", "vb"]
    assert rows_of(joined) == keyed(("a1", "b1"), ("a2", "b2"))


def test_on_column_keeps_every_column(a, b):
    joined = wjoin.wjoin([a, b], on=F.col("A.k") == F.col("B.k"), time="ts", window=5)
    assert joined.columns == ["k", "ts", "va", "k", "ts", "vb"]
    assert rows_of(joined) == unkeyed(("a1", "b1"), ("a2", "b2"))


def test_on_list_of_columns_is_a_conjunction(a, b):
    joined = wjoin.wjoin([a, b], on=[F.col("A.k") == F.col("B.k"), F.col("B.ts") > F.col("A.ts")],
                         time="ts", window=5)
    # Of a1 b1 and a2 b2 only a1 b1 has B after A.
    assert rows_of(joined) == unkeyed(("a1", "b1"))


def test_on_name_and_column_mixed(a, b, c):
    joined = wjoin.wjoin([a, b, c], on=["k", F.col("C.vc") != "c1"], time="ts", windows=[
        "WINDOW(A,B) = 3", "WINDOW(B,C) = 7"])
    # The five per-pair combinations (see test_list_inputs_are_named_a_b_c) minus those with c1.
    assert rows_of(joined) == keyed(("a1", "b1", "c2"), ("a2", "b2", "c2"), ("a2", "b2", "c3"))


def test_without_on_every_combination_within_the_window(a, b):
    joined = wjoin.wjoin([a, b], time="ts", window=2)
    assert joined.columns == ["k", "ts", "va", "k", "ts", "vb"]
    # a1 b1 (2); a3 b1 (0, different keys but no key was asked for); a3 b2 is 5.
    assert rows_of(joined) == unkeyed(("a1", "b1"), ("a3", "b1"))


# ---------------------------------------------------------------------------------------
# time


def test_time_as_list_per_input(a, b):
    b2 = b.withColumnRenamed("ts", "seen")
    joined = wjoin.wjoin([a, b2], on="k", time=["ts", "seen"], window=5)
    assert joined.columns == ["k", "ts", "va", "seen", "vb"]
    assert rows_of(joined) == keyed(("a1", "b1"), ("a2", "b2"))


def test_time_as_dict_per_input(a, b):
    b2 = b.withColumnRenamed("ts", "seen")
    joined = wjoin.wjoin({"P": a, "Q": b2}, on="k", time={"Q": "seen", "P": "ts"}, windows="DWINDOW(P,Q) = 5")
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_time_picks_the_other_column_when_told(spark):
    # Two integral columns: the join uses the one named in time=, not the other.
    a = spark.createDataFrame([(1, 0, 50)], "k int, t1 bigint, t2 bigint")
    b = spark.createDataFrame([(1, 100, 50)], "k int, t1 bigint, t2 bigint")
    assert rows_of(wjoin.wjoin([a, b], on="k", time="t2", window=0)) == [(1, 0, 50, 100, 50)]
    assert rows_of(wjoin.wjoin([a, b], on="k", time="t1", window=0)) == []
    assert rows_of(wjoin.wjoin([a, b], on="k", time="t1", window=100)) == [(1, 0, 50, 100, 50)]


def test_integer_time_column(spark):
    a = spark.createDataFrame([(1, 5), (1, 9)], "k int, t int")
    b = spark.createDataFrame([(1, 7), (1, 13)], "k int, t smallint")
    assert rows_of(wjoin.wjoin([a, b], on="k", time="t", window=2)) == bag([(1, 5, 7), (1, 9, 7)])


# ---------------------------------------------------------------------------------------
# window (Form 1) for integral time


@pytest.mark.parametrize("window, expected", [
    (5, keyed(("a1", "b1"), ("a2", "b2"))),
    (6, keyed(("a1", "b1"), ("a2", "b2"))),
    (7, keyed(("a1", "b1"), ("a2", "b2"), ("a1", "b2"))),          # a1 b2 exactly 7 apart
    ("8", keyed(("a1", "b1"), ("a2", "b2"), ("a1", "b2"), ("a2", "b1"))),
    (1, []),
])
def test_integral_window_lengths(a, b, window, expected):
    assert rows_of(wjoin.wjoin([a, b], on="k", time="ts", window=window)) == expected


def test_uniform_window_in_papers_syntax(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", windows="WINDOW = 5")
    assert rows_of(joined) == UNIFORM5


# ---------------------------------------------------------------------------------------
# windows (per pair, directed, intervals) in every spelling

# |A-B| <= 3 and |B-C| <= 7 (see test_list_inputs_are_named_a_b_c)
PER_PAIR = keyed(("a1", "b1", "c1"), ("a1", "b1", "c2"), ("a2", "b2", "c1"), ("a2", "b2", "c2"),
                 ("a2", "b2", "c3"))
# 0 <= B-A <= 5 and 0 <= C-B <= 8: a1 b1 (2) then c2 (4); c1 is before b1, c3 12 after it;
# a1 b2 is 7, a2 is after both B rows.
DIRECTED = keyed(("a1", "b1", "c2"))
# 2 <= B-A <= 7 and B-C == 1: a1 b1 (2, inclusive) with c1 (12-11); a1 b2 (7, inclusive) with
# c2 (17-16); a2 is after both B rows.
INTERVALS = keyed(("a1", "b1", "c1"), ("a1", "b2", "c2"))


@pytest.mark.parametrize("windows, expected", [
    ("WINDOW(A,B) = 3 AND WINDOW(B,C) = 7", PER_PAIR),
    ("window(a, b)=3 and window(c, b)=7", PER_PAIR),
    ({("A", "B"): 3, ("B", "C"): 7}, PER_PAIR),
    ({("A", "B"): "3", ("C", "B"): "7"}, PER_PAIR),
    (["WINDOW(A,B) = 3", "WINDOW(B,C) = 7"], PER_PAIR),
    ("DWINDOW(A,B) = 5 AND DWINDOW(B,C) = 8", DIRECTED),
    ([wjoin.directed("A", "B", 5), wjoin.directed("B", "C", 8)], DIRECTED),
    ({("A", "B"): (0, 5), ("B", "C"): (0, 8)}, DIRECTED),
    ("DWINDOW(A,B) = [2, 7] AND DWINDOW(C,B) = [1, 1]", INTERVALS),
    ({("A", "B"): (2, 7), ("C", "B"): (1, 1)}, INTERVALS),
    ([wjoin.directed("A", "B", 7, 2), wjoin.directed("C", "B", 1, 1)], INTERVALS),
    ([wjoin.directed("A", "B", high=7, low=2), "DWINDOW(C,B) = [1, 1]"], INTERVALS),
], ids=["text", "text-lowercase", "dict", "dict-str", "list", "dwindow", "directed", "dict-0-hi",
        "intervals", "dict-intervals", "directed-low", "directed-and-text"])
def test_windows_forms(a, b, c, windows, expected):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", windows=windows)
    assert joined.columns == ["k", "ts", "va", "ts", "vb", "ts", "vc"]
    assert rows_of(joined) == expected


def test_missing_pair_is_bounded_only_through_the_others(spark):
    # WINDOW(A,B) = 2 AND WINDOW(B,C) = 2: A and C may be 4 apart (the implied bound through B).
    a = spark.createDataFrame([(0,)], "ts bigint")
    b = spark.createDataFrame([(2,), (3,)], "ts bigint")
    c = spark.createDataFrame([(4,), (5,)], "ts bigint")
    joined = wjoin.wjoin([a, b, c], time="ts", windows="WINDOW(A,B) = 2 AND WINDOW(B,C) = 2")
    # (0, 2, 4): every bound holds; (0, 3, *) has A-B = 3; (0, 2, 5) has B-C = 3.
    assert rows_of(joined) == [(0, 2, 4)]


def test_window_and_windows_together_both_hold(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=6, windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    # PER_PAIR minus a2 b2 c1 (A-C 9 > 6) and a2 b2 c3 (C-B 7 > 6).
    assert rows_of(joined) == keyed(("a1", "b1", "c1"), ("a1", "b1", "c2"), ("a2", "b2", "c2"))


# ---------------------------------------------------------------------------------------
# timestamp time columns

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


def test_sub_second_windows(spark):
    t = dt.datetime(2024, 1, 1)
    a = spark.createDataFrame([(t,)], "t timestamp")
    b = spark.createDataFrame([(t + dt.timedelta(milliseconds=250),), (t + dt.timedelta(milliseconds=251),)],
                              "t timestamp")
    joined = wjoin.wjoin([a, b], window="250 milliseconds")
    assert rows_of(joined) == [(t, t + dt.timedelta(milliseconds=250))]
    joined = wjoin.wjoin([a, b], window=dt.timedelta(microseconds=250999))
    assert rows_of(joined) == [(t, t + dt.timedelta(milliseconds=250))]


# ---------------------------------------------------------------------------------------
# the plan: our operator, and the algorithm auto chooses


def test_plan_runs_the_window_join_operator(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on="k", time="ts", window=5))
    assert "WindowJoin" in plan, plan
    for spark_join in ("SortMergeJoin", "BroadcastHashJoin", "ShuffledHashJoin", "BroadcastNestedLoopJoin",
                       "CartesianProduct"):
        assert spark_join not in plan, plan


def test_auto_picks_hw_with_a_shared_key(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on="k", time="ts", window=5))
    assert "WindowJoin hw" in plan, plan


def test_auto_picks_hw_with_a_key_given_as_columns(a, b, c):
    on = (F.col("A.k") == F.col("B.k")) & (F.col("B.k") == F.col("C.k"))
    plan = executed_plan(wjoin.wjoin([a, b, c], on=on, time="ts", window=5))
    assert "WindowJoin hw" in plan, plan


def test_auto_picks_mw_without_a_key(a, b):
    plan = executed_plan(wjoin.wjoin([a, b], time="ts", window=5))
    assert "WindowJoin mw" in plan, plan


def test_auto_picks_mw_when_the_key_is_not_shared_by_all(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on=F.col("A.k") == F.col("B.k"), time="ts", window=5))
    assert "WindowJoin mw" in plan, plan


@pytest.mark.parametrize("algorithm", ["nlw", "hw", "mw", "NLW", "Mw"])
def test_explicit_algorithm_is_used_and_agrees(a, b, c, algorithm):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=5, algorithm=algorithm)
    assert f"WindowJoin {algorithm.lower()}" in executed_plan(joined)
    assert rows_of(joined) == UNIFORM5


def test_explain_names_inputs_and_window_matrix(a, b):
    plan = executed_plan(wjoin.wjoin({"P": a, "Q": b}, on="k", time="ts", windows="DWINDOW(P,Q) = [1, 4]"))
    # upper(P, Q) = -1 (Q at least 1 after P), upper(Q, P) = 4
    assert "inputs=[P, Q]" in plan, plan
    assert "matrix=[[0, -1], [4, 0]]" in plan, plan


def test_filters_and_projections_on_the_result(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    got = rows_of(joined.where(F.col("C.ts") > F.col("B.ts")).where(F.col("A.va") == "a2")
                  .select(F.col("C.vc"), (F.col("C.ts") - F.col("A.ts")).alias("d")))
    # PER_PAIR with C after B: a1 b1 c2, a2 b2 c3; of those with a2: c3 (24 - 20).
    assert got == [("c3", 4)]


def test_condition_over_three_inputs(a, b, c):
    joined = wjoin.wjoin([a, b, c], on=["k", F.col("A.ts") + F.col("C.ts") > 2 * F.col("B.ts")], time="ts",
                         windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    # PER_PAIR with A + C > 2 B: a1 b1 c1 (21 > 24 no), a1 b1 c2 (26 > 24), a2 b2 c1 (31 > 34 no),
    # a2 b2 c2 (36 > 34), a2 b2 c3 (44 > 34).
    assert rows_of(joined) == keyed(("a1", "b1", "c2"), ("a2", "b2", "c2"), ("a2", "b2", "c3"))


def test_sql_expression_condition(a, b):
    joined = wjoin.wjoin([a, b], on=[F.expr("A.k = B.k AND substr(A.va, 2) = substr(B.vb, 2)")], time="ts", window=8)
    # window 8 admits all four keyed pairs; the digits must agree: a1 b1, a2 b2.
    assert rows_of(joined.select("A.va", "B.vb")) == bag([("a1", "b1"), ("a2", "b2")])


# Python UDFs (useArrow=False: pyarrow is not a dependency). The spec allows "any other
# boolean Spark expression over the N rows, UDFs included".
_less = F.udf(lambda x, y: x < y, BooleanType(), useArrow=False)


def test_python_udf_over_one_input_filters_the_result(a, b):
    joined = wjoin.wjoin([a, b], on="k", time="ts", window=5).where(_less(F.col("A.ts"), F.lit(15)))
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_python_udf_over_two_inputs_filters_the_result(a, b):
    # Works on any DataFrame (and on Spark's own join of a and b); here: a1 b1 (10 < 12) remains.
    joined = wjoin.wjoin([a, b], on="k", time="ts", window=5).where(_less(F.col("A.ts"), F.col("B.ts")))
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_python_udf_in_the_join_condition(a, b):
    joined = wjoin.wjoin([a, b], on=["k", _less(F.col("A.ts"), F.col("B.ts"))], time="ts", window=5)
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_fractional_milliseconds_window(spark):
    # 16.1 ms is exactly 16100 microseconds.
    t = dt.datetime(2024, 1, 1)
    a = spark.createDataFrame([(t,)], "t timestamp")
    b = spark.createDataFrame([(t + dt.timedelta(microseconds=16100),), (t + dt.timedelta(microseconds=16101),)],
                              "t timestamp")
    joined = wjoin.wjoin([a, b], window="16.1 milliseconds")
    assert rows_of(joined) == [(t, t + dt.timedelta(microseconds=16100))]


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


def test_alias_survives_later_filters_and_projections(a, b):
    x = a.alias("X").where(F.col("ts") >= 0).select("k", "ts")
    out = wjoin.wjoin([x, b], on="k", time="ts", windows="WINDOW(X,B) = 1")
    assert out.select("X.ts").count() == out.count()


def test_temp_views_are_named_by_position_not_view_name(spark, a, b):
    a.createOrReplaceTempView("cams_a")
    out = wjoin.wjoin([spark.table("cams_a"), b], on="k", time="ts", windows="WINDOW(A,B) = 1")
    assert out.count() == wjoin.wjoin([a, b], on="k", time="ts", window=1).count()
