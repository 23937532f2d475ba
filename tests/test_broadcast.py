"""The broadcast plan (``spark.wjoin.broadcastBytes``, by default Spark's
``spark.sql.autoBroadcastJoinThreshold``): every input but the largest broadcast, the largest
streamed without a shuffle; the same bag of rows as the shuffled plans (the setting -1) for keyed
and keyless W-joins and window shapes, with NULL keys and times; the plans it does not apply to
keep the shuffle."""
import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import executed_plan, rows_of

KEY = "spark.wjoin.broadcastBytes"


def frame(spark, seed, rows, keys=7, span=400, partitions=3):
    """(k, t, v, id) from spark.range (sized by Spark): deterministic hashes of the id, about 1 key
    in 10 and 1 time in 12 NULL."""
    h = lambda salt: F.abs(F.hash(F.col("id"), F.lit(seed * 10 + salt)))  # noqa: E731
    return spark.range(0, rows, 1, partitions).select(
        F.when(h(0) % 10 == 0, None).otherwise(h(1) % keys).cast("int").alias("k"),
        F.when(h(2) % 12 == 0, None).otherwise(h(3) % span).cast("long").alias("t"),
        (h(4) % 1000).cast("int").alias("v"),
        (F.col("id") + 100000 * seed).alias("id"))


def run(spark, setting, factory, plan=False):
    """The rows of ``factory()`` planned and run with the setting (and the small-input plan off)."""
    spark.conf.set(KEY, setting)
    spark.conf.set("spark.wjoin.smallInputBytes", "-1")
    try:
        df = factory()
        return (rows_of(df), executed_plan(df)) if plan else rows_of(df)
    finally:
        spark.conf.unset(KEY)
        spark.conf.unset("spark.wjoin.smallInputBytes")


@pytest.mark.parametrize("windows", ["WINDOW = 6", "WINDOW(A,B) = 5 AND DWINDOW(B,C) = [-2, 4]"])
@pytest.mark.parametrize("keyed", [True, False])
def test_broadcast_equals_the_shuffled_plan(spark, windows, keyed):
    a, b, c = frame(spark, 1, 900).alias("A"), frame(spark, 2, 200).alias("B"), frame(spark, 3, 200).alias("C")

    def ours():
        on = "k" if keyed else []
        return wjoin.wjoin({"A": a, "B": b, "C": c}, on=on, time="t", windows=windows)

    broadcast = run(spark, "10MB", ours)
    shuffled = run(spark, "-1", ours)
    assert broadcast, "no rows: the comparison could not fail"
    assert broadcast == shuffled


def test_the_plan_streams_the_largest_input_without_a_shuffle(spark):
    a, b = frame(spark, 1, 900).alias("A"), frame(spark, 2, 200).alias("B")
    rows, plan = run(spark, "10MB", lambda: wjoin.wjoin({"B": b, "A": a}, on="k", time="t", window=6), plan=True)
    assert rows
    assert "BroadcastWindowJoin hw (hash)" in plan and "partitioning=broadcast B (" in plan, plan
    assert "A streamed (" in plan and "Exchange hashpartitioning" not in plan, plan
    _, anchored = run(spark, "10MB", lambda: wjoin.wjoin({"A": a, "B": b}, on="k", time="t", window=6, how="left_semi"),
                      plan=True)
    assert "BroadcastWindowJoin" not in anchored and "Exchange hashpartitioning" in anchored, anchored
    # An input Spark cannot size (a Python list's DataFrame) is never broadcast; streamed, it is.
    listed = spark.createDataFrame([(1, 10, 0, 1), (1, 12, 0, 2), (2, 11, 0, 3)], "k int, t bigint, v int, id long")
    _, unsized = run(spark, "10MB", lambda: wjoin.wjoin({"A": listed, "B": b}, on="k", time="t", window=6), plan=True)
    assert "partitioning=broadcast B (" in unsized and "A streamed (size unknown to Spark)" in unsized, unsized
