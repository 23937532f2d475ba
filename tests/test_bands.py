"""Keyless W-joins run in parallel, partitioned by event time into bands: the same bag of rows
as Spark's own join with the equivalent inequality conditions, and as one partition."""
import datetime as dt
import random

import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import executed_plan, rows_of


def frame(spark, seed, rows, span, burst=0.0, nulls=0, timestamps=False):
    rnd = random.Random(seed)
    data = [(100 if rnd.random() < burst else rnd.randrange(span), rnd.randrange(20), rnd.randrange(1000))
            for _ in range(rows)] + [(None, rnd.randrange(20), rnd.randrange(1000)) for _ in range(nulls)]
    if timestamps:
        at = lambda s: None if s is None else dt.datetime(2024, 1, 1) + dt.timedelta(seconds=s)  # noqa: E731
        return spark.createDataFrame([(at(t), x, v) for t, x, v in data], "ts timestamp, x int, v int")
    return spark.createDataFrame(data, "ts bigint, x int, v int")


@pytest.fixture(autouse=True)
def small_bands(spark):
    """A band per 50 rows: these few rows are cut into the most bands (by default one per 100k rows,
    at least one per core: 2 here)."""
    spark.conf.set("spark.wjoin.timeBandRows", "50")
    yield
    spark.conf.unset("spark.wjoin.timeBandRows")


@pytest.fixture()
def one_partition(spark):
    def run(df_factory):
        spark.conf.set("spark.wjoin.timeBands", "1")
        try:
            df = df_factory()
            assert "partitioning=single partition" in executed_plan(df)
            return rows_of(df)
        finally:
            spark.conf.unset("spark.wjoin.timeBands")
    return run


@pytest.mark.parametrize("algorithm", ["mw", "nlw"])
@pytest.mark.parametrize("burst,nulls", [(0.0, 0), (0.6, 4)])
def test_band_predicate_three_inputs_equals_builtin(spark, one_partition, algorithm, burst, nulls):
    a, b, c = (frame(spark, 10 * i + int(burst * 10), 150, 400, burst, nulls).alias(n) for i, n in enumerate("ABC"))
    band = (F.abs(F.col("A.x") - F.col("B.x")) <= 2) & (F.abs(F.col("B.x") - F.col("C.x")) <= 2)

    def ours():
        return wjoin.wjoin({"A": a, "B": b, "C": c}, on=band, time="ts",
                           windows="WINDOW(A,B) = 6 AND DWINDOW(B,C) = [1, 8]", algorithm=algorithm)

    builtin = (a.join(b, (F.abs(F.col("A.ts") - F.col("B.ts")) <= 6) & (F.abs(F.col("A.x") - F.col("B.x")) <= 2))
               .join(c, (F.col("C.ts") - F.col("B.ts")).between(1, 8) & (F.abs(F.col("B.x") - F.col("C.x")) <= 2)
                     & (F.col("C.ts") - F.col("A.ts") <= 14) & (F.col("A.ts") - F.col("C.ts") <= 5)))
    expected = rows_of(builtin)
    assert expected, "the data gives no combination: the test could not fail"
    df = ours()
    plan = executed_plan(df)
    assert "partitioning=time bands(<= 5, width >= 14)" in plan, plan
    got = rows_of(df)
    assert got == expected
    assert one_partition(ours) == expected


def test_timestamps_uniform_window_and_burst(spark, one_partition):
    a, b, c = (frame(spark, 70 + i, 120, 3000, burst=0.5, nulls=2, timestamps=True).alias(n)
               for i, n in enumerate("ABC"))

    def ours():
        return wjoin.wjoin([a, b, c], time="ts", window="3 seconds", on=F.col("A.v") < F.col("C.v"))

    w = F.expr("INTERVAL 3 SECONDS")
    builtin = (a.join(b, F.col("B.ts").between(F.col("A.ts") - w, F.col("A.ts") + w))
               .join(c, F.col("C.ts").between(F.col("A.ts") - w, F.col("A.ts") + w)
                     & F.col("C.ts").between(F.col("B.ts") - w, F.col("B.ts") + w) & (F.col("A.v") < F.col("C.v"))))
    expected = rows_of(builtin)
    assert len(expected) > 100
    assert rows_of(ours()) == expected
    assert one_partition(ours) == expected
