"""The Python API end to end: every way to name inputs, keys, time columns and windows, and
the output columns (timestamps in test_api_timestamps.py, the plan and conditions in
test_api_conditions.py).

The data (api_inputs.py) is small enough to compute every expected answer by hand (comments
show the arithmetic); different window forms give different answers on it, so a form that is
ignored or mis-parsed changes the result.
"""
import pytest
from pyspark.errors import AnalysisException
from pyspark.sql import functions as F

import wjoin
from api_inputs import UNIFORM5, a, b, c, keyed, unkeyed  # noqa: F401 (fixtures)
from helpers import bag, is_connect, job_counter, rows_of

# Uniform window 5 over A, B, C with key k: see api_inputs.UNIFORM5.


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
    # Found only when the write is planned, by Spark, not at the W-join call: still the W-join's
    # exception type (an AnalysisException and a ValueError), with its undecorated message.
    with job_counter(spark) as jobs, pytest.raises(wjoin.WJoinAnalysisException) as e:
        joined.write.parquet(str(tmp_path / "out"))
    assert isinstance(e.value, AnalysisException) and isinstance(e.value, ValueError)
    assert str(e.value).startswith("[WJOIN_DUPLICATE_OUTPUT_COLUMNS] ") and "SQLSTATE" not in str(e.value)
    assert e.value.getSqlState() == "42711"
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


def test_columns_of_dataframes_derived_from_one_name_their_own_input(spark):
    """a and b filtered from one DataFrame share its columns' ids: a.k == b.k still compares a's
    k with b's (as Spark's join does), not one input's k with itself."""
    events = spark.createDataFrame([(1, "cam1", 0), (2, "cam1", 0), (1, "cam2", 1), (3, "cam2", 1)],
                                   "k int, cam string, t bigint")
    a, b = events.filter("cam = 'cam1'"), events.filter("cam = 'cam2'")
    expected = [(1, "cam1", 0, 1, "cam2", 1)]
    assert rows_of(a.wjoin(b, on=a.k == b.k, time="t", window=5)) == expected
    assert rows_of(a.wjoin(b, on=[a.k == b.k, a.cam < b.cam], time="t", window=5)) == expected
    assert rows_of(b.wjoin(a, on=[a.k == b.k, b.cam > a.cam], time="t", window=5)) == [(1, "cam2", 1, 1, "cam1", 0)]


def test_a_column_of_one_dataframe_given_twice_is_refused(spark):
    events = spark.createDataFrame([(1, 0), (2, 0)], "k int, t bigint")
    with pytest.raises(AnalysisException) as e:
        events.wjoin(events, on=events.k == events.k, time="t", window=5).collect()
    # Connect resolves a DataFrame's columns itself, and Spark refuses them there
    assert e.value.getCondition() == ("AMBIGUOUS_COLUMN_REFERENCE" if is_connect(spark) else "WJOIN_AMBIGUOUS_INPUT_COLUMN")
    if not is_connect(spark):
        assert e.value.getMessageParameters() == {"column": "k", "inputs": "A, B"}


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


ODD_NAMES = ("Cam 1", "cam, 2 AND x", "C`3")  # a blank; a comma, AND and a parenthesis-free grammar word; a backquote


@pytest.mark.parametrize("windows", [
    {(ODD_NAMES[0], ODD_NAMES[1]): (0, 5), (ODD_NAMES[1], ODD_NAMES[2]): (0, 8)},
    [wjoin.directed(ODD_NAMES[0], ODD_NAMES[1], 5), wjoin.directed(ODD_NAMES[1], ODD_NAMES[2], 8)],
    "DWINDOW(`Cam 1`, `cam, 2 AND x`) = 5 AND DWINDOW(`cam, 2 AND x`, `C``3`) = 8",
], ids=["dict", "directed", "text-backquoted"])
def test_any_input_name_in_every_window_form(a, b, c, windows):
    # The structured forms backquote a name that is not letters, digits and '_' (as text may).
    joined = wjoin.wjoin(dict(zip(ODD_NAMES, (a, b, c))), on="k", time="ts", windows=windows)
    assert rows_of(joined) == DIRECTED


def test_a_window_pair_names_what_is_no_input_even_if_it_reads_as_terms(spark, a, b):
    # Unquoted, this key would have become the terms WINDOW(A,B) = 100 AND DWINDOW(A,B) = 5.
    with job_counter(spark) as jobs, pytest.raises(AnalysisException) as e:
        wjoin.wjoin({"A": a, "B": b}, on="k", time="ts", windows={("A", "B) = 100 AND DWINDOW(A,B"): 5}).columns
    assert e.value.getCondition() == "WJOIN_UNKNOWN_INPUT_IN_WINDOW"
    assert e.value.getMessageParameters()["name"] == "B) = 100 AND DWINDOW(A,B"
    assert is_connect(spark) or jobs() == []


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


def test_alias_survives_later_filters_and_projections(a, b):
    x = a.alias("X").where(F.col("ts") >= 0).select("k", "ts")
    out = wjoin.wjoin([x, b], on="k", time="ts", windows="WINDOW(X,B) = 1")
    assert out.select("X.ts").count() == out.count()


def test_temp_views_are_named_by_position_not_view_name(spark, a, b):
    a.createOrReplaceTempView("cams_a")
    out = wjoin.wjoin([spark.table("cams_a"), b], on="k", time="ts", windows="WINDOW(A,B) = 1")
    assert out.count() == wjoin.wjoin([a, b], on="k", time="ts", window=1).count()
