"""Times at and near both ends of every time type's range: bigint, int, timestamp and
timestamp_ntz, against the brute-force W-join, in batch (every algorithm, every how) and in
streaming (timestamps, eager and ordered engines, inner and left).

No bound computed from a time may wrap: a row within the window of the lowest time still has
its partners, and a left W-join does not report it as unmatched.
"""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql import functions as F

import wjoin
from helpers import bag
from test_how import brute_force as anchored_brute_force

MICROS = 1_000_000
# type -> (lowest, highest) time and the time unit of one window unit (microseconds per second
# for timestamps, whose windows are given in seconds).
TYPES = {
    "bigint": (-2**63, 2**63 - 1, 1),
    "int": (-2**31, 2**31 - 1, 1),
    "timestamp": (-2**63, 2**63 - 1, MICROS),
    "timestamp_ntz": (-2**63, 2**63 - 1, MICROS),
}


def with_time(df, kind):
    """Input rows (k, x, v) with x the time as a plain number (microseconds for timestamps)."""
    if kind == "bigint":
        return df.select("k", F.col("x").alias("ts"), "v")
    if kind == "int":
        return df.select("k", F.col("x").cast("int").alias("ts"), "v")
    ts = F.timestamp_micros("x")
    return df.select("k", (ts if kind == "timestamp" else ts.cast("timestamp_ntz")).alias("ts"), "v")


def as_numbers(df, kind):
    """The output with every time column back as a number (Python datetimes end at year 9999)."""
    plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    if kind in ("bigint", "int"):
        return plain
    timed = {f.name for f in plain.schema.fields if f.dataType.typeName().startswith("timestamp")}
    return plain.select([F.unix_micros(F.col(c).cast("timestamp")).alias(c) if c in timed else F.col(c)
                         for c in plain.columns])


def times_near(end, unit, offsets):
    """Times `offsets` units above the lower end, or below the upper end."""
    lo, hi = end
    return [lo + o * unit if lo < 0 else hi - o * unit for o in offsets]


@pytest.fixture(scope="module")
def utc(spark):
    """timestamp <-> timestamp_ntz without a zone shift (which would leave the range at its ends)."""
    before = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    yield spark
    spark.conf.set("spark.sql.session.timeZone", before)


def brute_force(streams, check, how, keyed=True):
    """The W-join by its definition; inner is left without the unmatched anchor rows (no row
    here has a NULL)."""
    rows = anchored_brute_force(streams, check, "left" if how == "inner" else how, keyed=keyed)
    return [r for r in rows if None not in r] if how == "inner" else rows


def rows_strategy(n):
    row = st.tuples(st.sampled_from([1, 2]), st.integers(0, 12), st.integers(0, 99))
    return st.lists(st.lists(row, min_size=1, max_size=6), min_size=n, max_size=n)


@settings(max_examples=6)
@given(data=st.data())
def test_batch_near_both_ends_equals_brute_force(utc, data):
    spark = utc
    kind = data.draw(st.sampled_from(list(TYPES)), label="type")
    low = data.draw(st.booleans(), label="low end")
    n = data.draw(st.sampled_from([2, 3]), label="n")
    how = data.draw(st.sampled_from(["inner", "left", "left_semi", "left_anti"]), label="how")
    keyed = data.draw(st.booleans(), label="keyed")  # without a key, the plan cuts time into bands
    algorithm = data.draw(st.sampled_from(["hw", "mw", "nlw"] if keyed else ["mw", "nlw"]), label="algorithm")
    w = data.draw(st.integers(0, 5), label="window")
    streams = data.draw(rows_strategy(n), label="rows")
    lo, hi, unit = TYPES[kind]
    end = (lo, 0) if low else (0, hi)
    timed = [[(k, t, v) for (k, _, v), t in zip(rows, times_near(end, unit, [o for _, o, _ in rows]))]
             for rows in streams]
    dfs = {name: with_time(spark.createDataFrame(rows, "k int, x bigint, v int"), kind)
           for name, rows in zip("ABC", timed)}
    limit = w * unit
    expected = brute_force(timed, lambda t: max(t) - min(t) <= limit, how, keyed)
    joined = wjoin.wjoin(dfs, on="k" if keyed else None, time="ts", window=f"{w} seconds" if unit == MICROS else w,
                         algorithm=algorithm, how=how)
    assert bag(as_numbers(joined, kind).collect()) == expected


@pytest.mark.parametrize("algorithm", ["mw", "nlw"])
@pytest.mark.parametrize("plan", ["one task", "time bands"])
def test_keyless_combinations_at_the_highest_time_are_produced(spark, algorithm, plan):
    """Without a key, a combination belongs to the time band of its earliest member; the last
    band must own times up to and including 2^63 - 1 (an exclusive end lost them)."""
    top = 2**63 - 1
    rows = [(top, 1), (top - 1, 2), (0, 3), (5, 4), (top - 9, 5)]
    df = spark.createDataFrame(rows, "t bigint, v int")
    if plan == "time bands":
        spark.conf.set("spark.wjoin.smallInputBytes", "-1")
    try:
        joined = df.alias("A").wjoin(df.alias("B"), df.alias("C"), time="t", window=1, algorithm=algorithm)
        got = bag(joined.select("A.v", "B.v", "C.v").collect())
    finally:
        spark.conf.unset("spark.wjoin.smallInputBytes")
    # {top, top - 1} in any mix (8), and each other row with itself alone
    expected = bag([(a, b, c) for a in (1, 2) for b in (1, 2) for c in (1, 2)] + [(3, 3, 3), (4, 4, 4), (5, 5, 5)])
    assert got == expected


def test_the_lowest_time_keeps_its_partner(spark):
    a = spark.createDataFrame([(0, -2**63 + 5, 1)], "k bigint, t bigint, v bigint")
    b = spark.createDataFrame([(0, -2**63 + 5, 2)], "k bigint, t bigint, v bigint")
    assert a.wjoin(b, on="k", time="t", window=10).count() == 1
    assert a.wjoin(b, on="k", time="t", window=10, how="left_anti").count() == 0
    lowest = spark.createDataFrame([(0, -2**63, 1)], "k bigint, t bigint, v bigint")
    assert lowest.wjoin(lowest, on="k", time="t", window=0, how="left_semi").count() == 1


ENDS = {"lowest": (-2**63, 0), "highest": (0, 2**63 - 1)}


@pytest.mark.parametrize("end, algorithm, how", [("highest", "mw", "left"), ("highest", "hw", "inner"),
                                                 ("lowest", "hw", "inner")])
def test_streaming_near_the_ends_equals_brute_force(utc, tmp_path, end, algorithm, how):
    """Timestamps within a minute of the range's ends, three micro-batches and a flush row.

    Spark's watermark starts at 1970-01-01 and never goes back, so a stream of earlier times
    never moves it: the eager engine (hw) emits every combination at once there, while ordered
    engines and anchored rows wait for a watermark (as Spark's own outer joins do)."""
    spark = utc
    low = end == "lowest"
    end = ENDS[end]
    # (key, seconds from the start of the last minute of the range (or the first)), in time order
    # over the batches, all within the watermark delay of each other: no row is late.
    batches = [[(1, 10), (2, 11), (1, 13)], [(1, 12), (2, 14), (1, 15)], [(2, 16), (1, 17), (1, 19)]]
    lo, hi = end
    start = lo - 8 * MICROS if low else hi - 60 * MICROS  # lowest: the first rows at exactly lo
    root = str(tmp_path)
    streams = [[] for _ in range(3)]
    for b, rows in enumerate(batches):
        for i, name in enumerate("ABC"):
            part = [(k, start + (s - i) * MICROS, 10 * b + i) for k, s in rows]
            streams[i] += part
            spark.createDataFrame(part, "k int, x bigint, v int").coalesce(1).write.parquet(
                os.path.join(root, name, f"f{b}"))
    if not low:  # a row at the end of the range moves the watermark past every row (a key nobody else has)
        for name in "ABC":
            spark.createDataFrame([(-1, hi, -1)], "k int, x bigint, v int").coalesce(1).write.parquet(
                os.path.join(root, name, "f9"))
    inputs = {name: with_time(spark.readStream.schema("k int, x bigint, v int").option("maxFilesPerTrigger", 1)
                              .option("recursiveFileLookup", "true").parquet(os.path.join(root, name)), "timestamp")
              .withWatermark("ts", "5 seconds") for name in "ABC"}
    joined = wjoin.wjoin(inputs, on="k", time="ts", window="8 seconds", algorithm=algorithm, how=how)
    sink = []
    q = (as_numbers(joined, "timestamp").writeStream
         .foreachBatch(lambda batch, _: sink.extend(tuple(r) for r in batch.collect()))
         .option("checkpointLocation", os.path.join(root, "checkpoint")).trigger(availableNow=True).start())
    q.awaitTermination()
    got = [r for r in sink if r[0] != -1]
    expected = brute_force(streams, lambda t: max(t) - min(t) <= 8 * MICROS, how)
    assert expected and bag(got) == expected
