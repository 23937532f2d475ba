"""Small inputs run in one task without a shuffle (``spark.wjoin.smallInputBytes``): the same bag
of rows as the shuffled plans (the setting -1) for keyed and keyless W-joins, every ``how`` and
algorithm, with NULL keys and times; no Exchange when small, one when not."""
import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import executed_plan, rows_of

KEY = "spark.wjoin.smallInputBytes"


def frame(spark, seed, rows=150, keys=5, span=100):
    """(k, t, v, id) from spark.range (Spark knows its size; a Python list's DataFrame has none):
    deterministic hashes of the id, about 1 key in 10 and 1 time in 12 NULL."""
    h = lambda salt: F.abs(F.hash(F.col("id"), F.lit(seed * 10 + salt)))  # noqa: E731
    return spark.range(0, rows, 1, 3).select(
        F.when(h(0) % 10 == 0, None).otherwise(h(1) % keys).cast("int").alias("k"),
        F.when(h(2) % 12 == 0, None).otherwise(h(3) % span).cast("long").alias("t"),
        (h(4) % 1000).cast("int").alias("v"),
        (F.col("id") + 1000 * seed).alias("id"))


def planned_and_run(spark, setting, factory):
    spark.conf.set(KEY, setting)
    try:
        df = factory()
        return rows_of(df), executed_plan(df)
    finally:
        spark.conf.unset(KEY)


@pytest.mark.parametrize("how", ["inner", "left", "left_semi", "left_anti"])
@pytest.mark.parametrize("keyed,algorithm", [(True, "hw"), (True, "mw"), (True, "nlw"), (False, "mw"), (False, "nlw")])
def test_one_task_equals_the_shuffled_plan(spark, keyed, algorithm, how):
    a, b, c = (frame(spark, i + 1).alias(n) for i, n in enumerate("ABC"))
    on = "k" if keyed else [F.abs(F.col("A.v") - F.col("B.v")) <= 300]

    def ours():
        return wjoin.wjoin({"A": a, "B": b, "C": c}, on=on, time="t",
                           windows="WINDOW(A,B) = 5 AND DWINDOW(B,C) = [-2, 4]", algorithm=algorithm, how=how)

    small, small_plan = planned_and_run(spark, "10MB", ours)
    shuffled, shuffled_plan = planned_and_run(spark, "-1", ours)
    assert small, "no rows: the comparison could not fail"
    assert small == shuffled
    assert "partitioning=single task (inputs " in small_plan and "Exchange" not in small_plan, small_plan
    assert "Coalesce 1" in small_plan, small_plan
    assert "single task" not in shuffled_plan
    assert "Exchange" in shuffled_plan or "partitioning=time bands" in shuffled_plan, shuffled_plan
    # Anchor rows with a NULL time never match: left and left_anti keep them (A.t is column 1).
    assert any(r[1] is None for r in small) == (how in ("left", "left_anti")), how


def test_unsized_and_large_inputs_are_shuffled(spark):
    listed = spark.createDataFrame([(1, 10), (1, 12), (2, 11)], "k int, t bigint")
    spark.conf.set("spark.wjoin.broadcastBytes", "-1")  # else B is broadcast, A streamed: test_broadcast.py
    try:
        plan = executed_plan(wjoin.wjoin({"A": listed, "B": frame(spark, 1)}, on="k", time="t", window=5))
        spark.conf.set(KEY, "1k")
        text = executed_plan(wjoin.wjoin({"A": frame(spark, 1), "B": frame(spark, 2)}, on="k", time="t", window=5))
    finally:
        spark.conf.unset(KEY)
        spark.conf.unset("spark.wjoin.broadcastBytes")
    assert "partitioning=hash(keys) (input size unknown to Spark > spark.wjoin.smallInputBytes 10.0 MiB)" in plan, plan
    assert "> spark.wjoin.smallInputBytes 1024.0 B)" in text and "Exchange hashpartitioning" in text, text


@pytest.mark.parametrize("bad", ["-5", "lots"])
def test_a_bad_setting_fails_when_set_naming_the_key(spark, bad):
    with pytest.raises(Exception, match=KEY):
        spark.conf.set(KEY, bad)
    spark.conf.unset(KEY)
