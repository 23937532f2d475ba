"""The W-join against Spark's own inner join with BETWEEN conditions, as exact multisets
(2-, 3- and 4-way uniform windows, per-pair and travel-time windows, negative lower ends), on
data with NULL keys, NULL times, duplicate rows and pairs exactly one window apart, for every
algorithm. The second reference, a brute-force W-join on random streams and windows:
test_brute_force.py.
"""
import datetime as dt
import random
import re

import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import executed_plan, rows_of

ALGORITHMS = ["auto", "nlw", "hw", "mw"]
T0 = dt.datetime(2024, 5, 6, 7, 0, 0)

# ---------------------------------------------------------------------------------------
# Spark's inner join as the reference


def random_stream(seed, size, keys, span):
    """Rows (k, ts, v): keys from ``keys`` (some NULL), times in [0, span) (some NULL), v the
    row's number; a few rows repeated verbatim (duplicates must give duplicate results)."""
    rnd = random.Random(seed)
    rows = []
    for v in range(size):
        k = None if rnd.random() < 0.08 else rnd.choice(keys)
        ts = None if rnd.random() < 0.08 else rnd.randrange(span)
        rows.append((k, ts, v))
    rows += [rows[i] for i in rnd.sample(range(size), size // 8)]
    return rows


def boundary_rows(key, w):
    """Per input A, B, C, D: rows exactly w apart (must join) and w + 1 apart (must not).
    Times from 1000 on, beyond the random rows."""
    a = [(key, 1000, 900), (key, 1000, 901)]              # a duplicate pair
    b = [(key, 1000 + w, 902), (key, 1000 + w + 1, 903)]  # on the bound, one past it
    c = [(key, 1000 + w, 904), (key, 1000 - 1, 905)]      # on the bound, one past it (to B)
    d = [(key, 1000 + w, 906), (key, 1000 + w + 1, 907)]  # on the bound, one past it (to A)
    return a, b, c, d


def make_inputs(spark, seed, n, *, keys, span, w, key_type="int", timestamps=False):
    """n inputs with random and boundary rows; k of ``key_type``, ts bigint or timestamp."""
    first_key = keys[0]
    streams = [random_stream(seed * 10 + i, 40, keys, span) + boundary_rows(first_key, w)[i] for i in range(n)]
    if timestamps:
        # ts in half seconds, so windows like "1.5 seconds" and exact boundaries occur.
        streams = [[(k, None if ts is None else T0 + dt.timedelta(milliseconds=500 * ts), v) for k, ts, v in s]
                   for s in streams]
        schema = f"k {key_type}, ts timestamp, v int"
    else:
        schema = f"k {key_type}, ts bigint, v int"
    return [spark.createDataFrame(s, schema) for s in streams]


def spark_reference(spark, dfs, lower, upper, keyed=True):
    """Spark's inner join: every pair i < j with ts_j BETWEEN ts_i - lower AND ts_i + upper
    (SQL expressions); k once when keyed, like on="k"."""
    names = [f"ref_{chr(ord('a') + i)}" for i in range(len(dfs))]
    for name, df in zip(names, dfs):
        df.createOrReplaceTempView(name)
    joins = []
    for j in range(1, len(dfs)):
        conditions = [f"{names[j]}.ts BETWEEN {names[i]}.ts - {lower} AND {names[i]}.ts + {upper}" for i in range(j)]
        if keyed:
            conditions.insert(0, f"{names[0]}.k = {names[j]}.k")
        joins.append(f"JOIN {names[j]} ON " + " AND ".join(conditions))
    columns = ([f"{names[0]}.k"] if keyed else []) + [
        f"{n}.{c}" for n in names for c in (("ts", "v") if keyed else ("k", "ts", "v"))]
    return rows_of(spark.sql(f"SELECT {', '.join(columns)} FROM {names[0]} " + " ".join(joins)))


@pytest.fixture(scope="module")
def two_way(spark):
    dfs = make_inputs(spark, 1, 2, keys=[1, 2, 3], span=80, w=3)
    return dfs, spark_reference(spark, dfs, 3, 3)


@pytest.fixture(scope="module")
def three_way(spark):
    dfs = make_inputs(spark, 2, 3, keys=[1, 2, 3], span=60, w=4)
    return dfs, spark_reference(spark, dfs, 4, 4)


def test_reference_data_is_not_trivial(two_way, three_way):
    """The references have results, NULLs and duplicates in the inputs, and the boundary
    combinations (exactly w apart) among their results; rows w + 1 apart are not."""
    (dfs2, expected2), (dfs3, expected3) = two_way, three_way
    assert len(expected2) > 30 and len(expected3) > 30
    for dfs in (dfs2, dfs3):
        rows = [tuple(r) for r in dfs[0].collect()]
        assert any(k is None for k, _, _ in rows) and any(ts is None for _, ts, _ in rows)
        assert len(set(rows)) < len(rows)
    assert expected2.count((1, 1000, 900, 1003, 902)) == 1
    assert not any(r[1:] == (1000, 900, 1004, 903) for r in expected2)
    assert expected3.count((1, 1000, 900, 1004, 902, 1004, 904)) == 1
    assert expected3.count((1, 1000, 901, 1004, 902, 1004, 904)) == 1
    assert not any(r[-1] == 905 and r[4] == 902 for r in expected3)   # C 5 before B


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_two_way_uniform_equals_spark_join(two_way, algorithm):
    dfs, expected = two_way
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_three_way_uniform_equals_spark_join(three_way, algorithm):
    dfs, expected = three_way
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=4, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_four_way_uniform_equals_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 9, 4, keys=[1, 2], span=40, w=3)
    expected = spark_reference(spark, dfs, 3, 3)
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert joined.columns == ["k"] + ["ts", "v"] * 4
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ["auto", "nlw", "mw"])
def test_three_way_uniform_without_key_equals_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 3, 3, keys=[1, 2], span=200, w=2)
    expected = spark_reference(spark, dfs, 2, 2, keyed=False)
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, time="ts", window=2, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.fixture(scope="module")
def string_keys(spark):
    dfs = make_inputs(spark, 4, 3, keys=["x", "y", "zz"], span=50, w=3, key_type="string")
    return dfs, spark_reference(spark, dfs, 3, 3)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_three_way_string_key_equals_spark_join(string_keys, algorithm):
    dfs, expected = string_keys
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.fixture(scope="module")
def timestamps_three_way(spark):
    # w = 3 half seconds = 1.5 seconds
    dfs = make_inputs(spark, 5, 3, keys=[1, 2], span=60, w=3, timestamps=True)
    return dfs, spark_reference(spark, dfs, "INTERVAL 1.5 SECONDS", "INTERVAL 1.5 SECONDS")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_three_way_timestamps_equal_spark_join(timestamps_three_way, algorithm):
    dfs, expected = timestamps_three_way
    assert len(expected) > 10
    at = lambda half_seconds: T0 + dt.timedelta(milliseconds=500 * half_seconds)  # noqa: E731
    assert (1, at(1000), 900, at(1003), 902, at(1003), 904) in expected
    joined = wjoin.wjoin(dfs, on="k", time="ts", window="1500 milliseconds", algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_two_way_timestamps_equal_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 6, 2, keys=[1, 2, 3], span=100, w=4, timestamps=True)
    expected = spark_reference(spark, dfs, "INTERVAL 2 SECONDS", "INTERVAL 2 SECONDS")
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", window=dt.timedelta(seconds=2), algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_zero_window_joins_equal_times_only(spark, algorithm):
    dfs = make_inputs(spark, 7, 3, keys=[1], span=15, w=0)
    expected = spark_reference(spark, dfs, 0, 0)
    assert len(expected) > 10
    assert rows_of(wjoin.wjoin(dfs, on="k", time="ts", window=0, algorithm=algorithm)) == expected


def spark_chain(spark, dfs, ab, bc):
    """Spark's inner join of three inputs (views pa, pb, pc) on k, with time conditions ab
    (pa-pb) and bc (pb-pc)."""
    for name, df in zip(("pa", "pb", "pc"), dfs):
        df.createOrReplaceTempView(name)
    return rows_of(spark.sql(
        "SELECT pa.k, pa.ts, pa.v, pb.ts, pb.v, pc.ts, pc.v FROM pa "
        f"JOIN pb ON pa.k = pb.k AND {ab} JOIN pc ON pb.k = pc.k AND {bc}"))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_per_pair_and_travel_time_equal_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 8, 3, keys=[1, 2], span=60, w=3)
    expected = spark_chain(spark, dfs, "pb.ts BETWEEN pa.ts - 3 AND pa.ts + 3", "pc.ts - pb.ts BETWEEN 2 AND 6")
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", windows="WINDOW(A,B) = 3 AND DWINDOW(B,C) = [2, 6]",
                         algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_negative_lower_bounds_equal_spark_interval_join(spark, algorithm):
    # B at most 5 before A and at most 10 after; C 4 to 1 before B (both ends negative).
    dfs = make_inputs(spark, 9, 3, keys=[1, 2], span=60, w=5)
    expected = spark_chain(spark, dfs, "pb.ts BETWEEN pa.ts - 5 AND pa.ts + 10", "pc.ts BETWEEN pb.ts - 4 AND pb.ts - 1")
    assert len(expected) > 10
    for windows in ("DWINDOW(A,B) = [-5, 10] AND DWINDOW(B,C) = [-4, -1]",
                    {("A", "B"): (-5, 10), ("B", "C"): (-4, -1)},
                    [wjoin.directed("A", "B", 10, -5), wjoin.directed("B", "C", -1, -4)]):
        joined = wjoin.wjoin(dfs, on="k", time="ts", windows=windows, algorithm=algorithm)
        assert rows_of(joined) == expected, windows


def test_negative_lower_bound_on_timestamps_equals_spark_interval_join(spark):
    dfs = make_inputs(spark, 10, 2, keys=[1, 2, 3], span=100, w=4, timestamps=True)
    for name, df in zip(("ta_neg", "tb_neg"), dfs):
        df.createOrReplaceTempView(name)
    expected = rows_of(spark.sql(
        "SELECT ta_neg.k, ta_neg.ts, ta_neg.v, tb_neg.ts, tb_neg.v FROM ta_neg JOIN tb_neg ON ta_neg.k = tb_neg.k "
        "AND tb_neg.ts BETWEEN ta_neg.ts - INTERVAL 1.5 SECONDS AND ta_neg.ts + INTERVAL 3 SECONDS"))
    assert len(expected) > 10
    for windows in ("DWINDOW(A,B) = [-1.5 seconds, 3 seconds]", "DWINDOW(A,B) = [INTERVAL -1.5 SECONDS, 3 seconds]",
                    [wjoin.directed("A", "B", dt.timedelta(seconds=3), dt.timedelta(seconds=-1.5))]):
        assert rows_of(wjoin.wjoin(dfs, on="k", windows=windows)) == expected, windows


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_key_of_mixed_integral_widths_is_a_hash_key(spark, three_way, algorithm):
    """on="k" over int, bigint and smallint columns: one hash key (each side widened to bigint;
    Spark's coercion writes CAST(A.k AS BIGINT) = B.k AND A.k = C.k), the same answer."""
    (a, b, c), expected = three_way
    inputs = [a, b.withColumn("k", F.col("k").cast("bigint")), c.withColumn("k", F.col("k").cast("smallint"))]
    joined = wjoin.wjoin(inputs, on="k", time="ts", window=4, algorithm=algorithm)
    assert rows_of(joined) == expected
    plan = executed_plan(joined)
    assert "keys=none" not in plan and "CAST(C.k AS BIGINT)" in plan, plan


@pytest.mark.parametrize("algorithm", ["hw", "mw", "nlw"])
def test_pre_partitioned_and_sorted_inputs_equal_spark_join(three_way, algorithm):
    """Inputs already partitioned (by the key into other partition counts, by time, one
    partition) or sorted against the time order give the same answer."""
    (a, b, c), expected = three_way
    inputs = [a.repartition(7, "k"), b.repartition(3, "ts").orderBy(F.desc("ts")), c.coalesce(1)]
    joined = wjoin.wjoin(inputs, on="k", time="ts", window=4, algorithm=algorithm)
    assert rows_of(joined) == expected


PLANS = {"one task": {},
         "shuffled": {"spark.wjoin.smallInputBytes": "-1", "spark.wjoin.broadcastBytes": "-1"},
         "key groups": {"spark.wjoin.smallInputBytes": "-1", "spark.wjoin.broadcastBytes": "-1",
                        "spark.wjoin.keyGroupRows": "0"},
         "broadcast": {"spark.wjoin.smallInputBytes": "-1"}}


@pytest.mark.parametrize("how", ["inner", "left_anti"])
@pytest.mark.parametrize("plan", sorted(PLANS))
@pytest.mark.parametrize("key_types", ["double", "float", "float double double"])
def test_a_real_key_is_a_hash_key_with_sql_equality(spark, key_types, plan, how):
    """on="k" over float or double columns (a float among doubles widened to double): a hash key
    in batch, hashed normalized as Spark's join hashes it, so NaN = NaN, -0.0 = 0.0 and each
    infinity equals itself, NULL never; the same rows as Spark's own join in every plan."""
    values = [float("nan"), -0.0, 0.0, 1.5, float("inf"), float("-inf"), None, 2.5e30]
    types = (key_types.split() * 3)[:3]
    rnd = random.Random(7)
    dfs = [spark.createDataFrame([(rnd.choice(values), rnd.randrange(40), 100 * i + j) for j in range(60)],
                                 f"k {types[i]}, ts bigint, v int").cache() for i in range(3)]
    a, b, c = (d.alias(n) for d, n in zip(dfs, "ABC"))  # cached: in memory, so small inputs run in one task
    near = lambda x, y: F.abs(F.col(f"{x}.ts") - F.col(f"{y}.ts")) <= 3
    inner = a.join(b, (F.col("A.k") == F.col("B.k")) & near("A", "B")).join(
        c, (F.col("A.k") == F.col("C.k")) & near("A", "C") & near("B", "C"))
    if how == "inner":
        expected = rows_of(inner.select("A.v", "B.v", "C.v"))
    else:
        expected = rows_of(a.join(inner.select(F.col("A.v").alias("matched")), F.col("A.v") == F.col("matched"),
                                  "left_anti").select("A.v"))
    assert len(expected) > 10
    for key, value in PLANS[plan].items():
        spark.conf.set(key, value)
    try:
        joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=3, how=how)
        got = rows_of(joined.select("A.v", "B.v", "C.v") if how == "inner" else joined.select("A.v"))
        plan_text = executed_plan(joined)
    finally:
        for key in PLANS[plan]:
            spark.conf.unset(key)
    assert got == expected
    assert re.search(r"keys=\((CAST\()?A\.k( AS DOUBLE\))?\) = \(B\.k\) = \(C\.k\)", plan_text), plan_text
    # An anchored W-join is never broadcast (an anchor row of a broadcast input would be decided in every task).
    expected_plan = {"one task": "single task", "shuffled": "hash", "key groups": "key groups",
                     "broadcast": "broadcast" if how == "inner" else "hash"}[plan]
    assert expected_plan in plan_text, plan_text
