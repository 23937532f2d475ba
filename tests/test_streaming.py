"""Streaming W-join from Python: file-source streams in micro-batches against the batch W-join
of the same rows, a restart from the checkpoint, late rows, and the progress metrics."""
from __future__ import annotations

import datetime as dt
import os

import pytest
from hypothesis import given, settings, strategies as st

from pyspark.sql import functions as F

import wjoin
from helpers import bag, is_connect, rows_of

SCHEMA = "k int, ts timestamp, id int"
NAMES = ["A", "B", "C"]


def at(seconds: int) -> dt.datetime:
    return dt.datetime(2024, 1, 1) + dt.timedelta(seconds=seconds)


class Streams:
    """N parquet-file streams (one folder each); `add` writes one file per input = one micro-batch."""

    def __init__(self, spark, root, n=3, delay="30 seconds"):
        self.spark, self.root, self.n, self.delay = spark, str(root), n, delay
        self.files = 0
        self.rows = [[] for _ in range(n)]
        for name in NAMES[:n]:
            os.makedirs(os.path.join(self.root, name), exist_ok=True)

    def add(self, *per_input):
        for i, rows in enumerate(per_input):
            self.rows[i] += rows
            df = self.spark.createDataFrame([(k, at(t), ident) for k, t, ident in rows], SCHEMA)
            df.coalesce(1).write.parquet(os.path.join(self.root, NAMES[i], f"f{self.files:04d}"))
        self.files += 1

    def streams(self):
        return [self.spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1)
                .option("recursiveFileLookup", "true").parquet(os.path.join(self.root, NAMES[i]))
                .withWatermark("ts", self.delay).alias(NAMES[i]) for i in range(self.n)]

    def static(self):
        return [self.spark.createDataFrame([(k, at(t), ident) for k, t, ident in rows], SCHEMA).alias(NAMES[i])
                for i, rows in enumerate(self.rows)]


def ids(df, n):
    return df.select([f"{NAMES[i]}.id" for i in range(n)])


def run_to_end(df, checkpoint, sink):
    """Runs the streaming query over every file (trigger availableNow) into `sink` (a dict batch -> rows).

    On a Spark Connect session a foreachBatch function runs in the server's Python worker, away
    from `sink`: the query writes parquet files beside the checkpoint instead (exactly once,
    across restarts), and `sink` gets all of them as one entry."""
    if is_connect(df.sparkSession):
        out = checkpoint + "-out"
        plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])  # parquet needs unique names
        q = (plain.writeStream.format("parquet").option("path", out).option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).start())
        q.awaitTermination()
        sink.clear()
        sink[0] = [tuple(r) for r in df.sparkSession.read.schema(plain.schema).parquet(out).collect()]
        return q

    def collect(batch, batch_id):
        sink[batch_id] = [tuple(r) for r in batch.collect()]
    q = (df.writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    return q


def flush_rows(n):
    """Rows far in the future on a key nobody uses: they move the watermark past all data."""
    return [[(-1, 100_000, -1 - i)] for i in range(n)]


def real(rows):
    return [r for r in rows if all(x >= 0 for x in r)]


@pytest.mark.parametrize("algorithm", ["hw", "mw", "nlw"])
def test_streaming_equals_batch_wjoin(spark, tmp_path, algorithm):
    s = Streams(spark, tmp_path / "in")
    s.add([(1, 10, 1), (2, 11, 2)], [(1, 12, 3)], [(1, 14, 4), (2, 9, 5)])
    s.add([(1, 20, 6)], [(2, 13, 7), (1, 21, 8)], [(1, 19, 9)])
    s.add([(2, 40, 10)], [(2, 41, 11), (1, 15, 12)], [(2, 39, 13), (1, 11, 14)])
    s.add(*flush_rows(3))
    window = "WINDOW(A,B) = 5 seconds AND DWINDOW(B,C) = [0 seconds, 8 seconds]"
    on = "k" if algorithm != "nlw" else None
    sink = {}
    a, b, c = s.streams()
    run_to_end(ids(a.wjoin(b, c, on=on, time="ts", windows=window, algorithm=algorithm), 3),
               str(tmp_path / "ck"), sink)
    got = bag(real(r for rows in sink.values() for r in rows))
    expected = rows_of(ids(wjoin.wjoin(s.static()[:3], on=on, time="ts", windows=window), 3))
    expected = bag(real(expected))
    assert expected and got == expected


@pytest.mark.parametrize("algorithm", ["hw", "mw"])
def test_negative_interval_bounds_equal_spark_interval_join(spark, tmp_path, algorithm):
    # B at most 3 s before A, at most 8 s after: Spark's BETWEEN bounds over the same rows.
    s = Streams(spark, tmp_path / "in", n=2)
    s.add([(1, 10, 1), (2, 11, 2), (1, 30, 3)], [(1, 8, 4), (1, 12, 5), (2, 7, 6)])
    s.add([(1, 20, 7), (2, 22, 8)], [(1, 17, 9), (1, 28, 10), (2, 30, 11), (1, 19, 12)])
    s.add([(1, 40, 13)], [(1, 37, 14), (1, 49, 15), (1, 18, 16)])
    s.add(*flush_rows(2))
    sink = {}
    a, b = s.streams()
    joined = a.wjoin(b, on="k", time="ts", windows="DWINDOW(A,B) = [-3 seconds, 8 seconds]", algorithm=algorithm)
    run_to_end(ids(joined, 2), str(tmp_path / "ck"), sink)
    got = bag(real(r for rows in sink.values() for r in rows))
    sa, sb = s.static()
    expected = rows_of(sa.join(sb, (F.col("A.k") == F.col("B.k")) & F.col("B.ts").between(
        F.col("A.ts") - F.expr("INTERVAL 3 SECONDS"), F.col("A.ts") + F.expr("INTERVAL 8 SECONDS"))).select("A.id", "B.id"))
    assert len(real(expected)) >= 5 and got == bag(real(expected))


def test_a_restart_that_changes_a_python_udf_of_the_condition_is_refused(spark, tmp_path):
    # Spark tests a Python UDF over several inputs above an inner W-join; it is recorded with
    # the state all the same, like the rest of the condition: by its name and arguments.
    from pyspark.sql.types import BooleanType

    def below(x, y):
        return x < y

    def above(x, y):
        return x > y
    below, above = (F.udf(f, BooleanType(), useArrow=False) for f in (below, above))
    s = Streams(spark, tmp_path / "in", n=2)
    ck = str(tmp_path / "ck")
    sink = {}

    def run(udf):
        a, b = s.streams()
        on = ["k", udf(F.col("A.id"), F.col("B.id"))]
        return run_to_end(ids(a.wjoin(b, on=on, time="ts", window="5 seconds"), 2), ck, sink)

    s.add([(1, 10, 1)], [(1, 12, 2)])
    run(below)
    s.add([(1, 14, 3)], [(1, 16, 4)])
    run(below)  # the same query goes on
    assert bag(r for rows in sink.values() for r in rows) == bag([(1, 2), (3, 4)])
    s.add([(1, 18, 6)], [(1, 17, 5)])
    with pytest.raises(Exception) as refused:
        run(above)
    text = str(refused.value)
    assert "WJOIN_STATE_QUERY_CHANGED" in text and "condition (Python UDFs)" in text, text
    assert "in the checkpoint" in text and "now" in text, text


def test_the_sql_window_clause_over_streaming_views_is_a_streaming_wjoin(spark, tmp_path):
    s = Streams(spark, tmp_path / "in")
    s.add([(1, 10, 1), (2, 11, 2)], [(1, 12, 3)], [(1, 14, 4), (2, 9, 5)])
    s.add([(1, 20, 6)], [(2, 13, 7), (1, 21, 8)], [(1, 19, 9)])
    s.add(*flush_rows(3))
    query = ("SELECT A.id, B.id, C.id FROM {0}A A, {0}B B, {0}C C WINDOW(A,B) = INTERVAL 5 SECONDS "
             "AND WINDOW(B,C) = INTERVAL 8 SECONDS USING TIME ts WHERE A.k = B.k AND B.k = C.k")
    for name, df in zip(NAMES, s.streams()):
        df.createOrReplaceTempView("stream" + name)
    streamed = spark.sql(query.format("stream"))
    assert streamed.isStreaming
    sink = {}
    run_to_end(streamed, str(tmp_path / "ck"), sink)
    for name, df in zip(NAMES, s.static()):
        df.createOrReplaceTempView("static" + name)
    expected = bag(real(rows_of(spark.sql(query.format("static")))))
    assert expected and bag(real(r for rows in sink.values() for r in rows)) == expected


@pytest.mark.core
def test_restart_from_checkpoint_gives_the_uninterrupted_output(spark, tmp_path):
    s = Streams(spark, tmp_path / "in", n=2)
    ck = str(tmp_path / "ck")
    sink = {}
    s.add([(1, 10, 1)], [(1, 12, 2)])
    a, b = s.streams()
    run_to_end(ids(a.wjoin(b, on="k", time="ts", window="5 seconds"), 2), ck, sink)
    s.add([(1, 14, 3)], [(1, 16, 4), (1, 30, 5)])
    a, b = s.streams()
    run_to_end(ids(a.wjoin(b, on="k", time="ts", window="5 seconds"), 2), ck, sink)
    got = bag(r for rows in sink.values() for r in rows)
    assert got == bag([(1, 2), (3, 2), (3, 4)])  # 16 - 10 > 5: rows 1 and 4 do not join


def test_late_rows_are_counted_and_not_joined(spark, tmp_path):
    s = Streams(spark, tmp_path / "in", n=2, delay="5 seconds")
    s.add([(1, 100, 1)], [(1, 101, 2)])
    # Batch 1 runs with watermark min(100, 101) - 5 = 95. A batch's late rows are those at or before
    # the previous batch's watermark, so in batch 2 both rows are late, even 95 (which would join 100).
    s.add([(1, 102, 5)], [])
    s.add([(1, 50, 3)], [(1, 95, 4)])
    sink = {}
    a, b = s.streams()
    q = run_to_end(ids(a.wjoin(b, on="k", time="ts", window="5 seconds"), 2), str(tmp_path / "ck"), sink)
    assert bag(r for rows in sink.values() for r in rows) == bag([(1, 2), (5, 2)])
    operators = [op for p in q.recentProgress for op in p["stateOperators"]]
    assert sum(op["numRowsDroppedByWatermark"] for op in operators) == 2
    assert operators[-1]["operatorName"] == "windowJoin"
    custom = set(operators[-1]["customMetrics"])
    # The operator's own metrics, under the names the user guide lists for a keyed hash plan ...
    assert {"numStateRows0", "numStateRows1", "numStateKeys0", "numStateKeys1", "numInputRows", "numInputRows0",
            "numInputRows1", "numNullRows", "numEvictedRows", "numComparisons", "numRestoredStateRows"} <= custom
    # ... and none that this plan cannot move (limits, bidirectional, refinement, anchors, time bands;
    # numPredicateEvals depends on the access paths: the key equality is a residual unless both are hashed).
    assert not custom & {"numShedRows", "numShedProbes", "numExcludedCombinations", "numRefineRejections",
                         "numUndecidedAnchorRows", "numTimeBands"}, sorted(custom)


@settings(max_examples=4)  # a streaming query each: CI time (other examples every run)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 40), st.integers(0, 1)), min_size=1, max_size=30),
       st.integers(2, 4), st.sampled_from(["hw", "mw"]))
def test_property_random_micro_batch_splits(spark, tmp_path_factory, events, batches, algorithm):
    """Random rows of two inputs split into micro-batches by time: streaming = batch W-join."""
    root = tmp_path_factory.mktemp("prop")
    s = Streams(spark, root / "in", n=2, delay="60 seconds")
    rows = [[(k, t, 1000 * i + j) for j, (k, t, side) in enumerate(events) if side == i] for i in range(2)]
    for part in range(batches):
        s.add(*[[r for r in rows[i] if r[1] * batches // 41 == part] for i in range(2)])
    s.add(*flush_rows(2))
    sink = {}
    a, b = s.streams()
    run_to_end(ids(a.wjoin(b, on="k", time="ts", window="3 seconds", algorithm=algorithm), 2),
               str(root / "ck"), sink)
    expected = bag(real(rows_of(ids(wjoin.wjoin(s.static(), on="k", time="ts", window="3 seconds"), 2))))
    assert bag(real(r for rows_ in sink.values() for r in rows_)) == expected


@settings(max_examples=3)  # a streaming query each: CI time (other examples every run)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 40), st.integers(0, 1)), min_size=1, max_size=40),
       st.integers(2, 4), st.sampled_from([1, 3, 4]), st.sampled_from(["auto", "mw", "nlw"]))
def test_property_keyless_band_join_by_cells(spark, tmp_path_factory, events, batches, partitions, algorithm):
    """No equality key, a band on k: partitioned by band cells over the shuffle partitions;
    random micro-batch splits give the batch W-join at every partition count."""
    root = tmp_path_factory.mktemp("cells")
    s = Streams(spark, root / "in", n=2, delay="60 seconds")
    rows = [[(k, t, 1000 * i + j) for j, (k, t, side) in enumerate(events) if side == i] for i in range(2)]
    for part in range(batches):
        s.add(*[[r for r in rows[i] if r[1] * batches // 41 == part] for i in range(2)])
    s.add(*flush_rows(2))
    band = lambda: F.abs(F.col("A.k") - F.col("B.k")) <= 2
    sink = {}
    a, b = s.streams()
    old = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
    try:
        q = run_to_end(ids(a.wjoin(b, on=band(), time="ts", window="5 seconds", algorithm=algorithm), 2),
                       str(root / "ck"), sink)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", old)
    expected = bag(real(rows_of(ids(wjoin.wjoin(s.static(), on=band(), time="ts", window="5 seconds"), 2))))
    assert bag(real(r for rows_ in sink.values() for r in rows_)) == expected
    operators = [op for p in q.recentProgress for op in p["stateOperators"]]
    assert operators and all(op["numShufflePartitions"] == partitions for op in operators)


@pytest.mark.parametrize("on", ["k", "band"])
def test_special_double_values_by_cells_equal_batch_and_spark(spark, tmp_path, on):
    """A keyless stream joined on doubles (`A.k = B.k` is a band of reach 0 there: band cells):
    NaN = NaN, -0.0 = 0.0 and +-Infinity = the same infinity, as Spark's own join says; an
    infinite value of a non-home input has one copy, in its infinity's cell."""
    values = [float("nan"), -0.0, 0.0, 0.5, float("inf"), float("-inf"), None, 1e300]
    schema = "k double, ts timestamp, id int"
    per_input = [[(values[(7 * j + 3 * i) % len(values)], at(j % 6), 100 * i + j) for j in range(24)] for i in range(3)]
    root = str(tmp_path / "in")
    for i, rows in enumerate(per_input):
        for half in (0, 1):
            spark.createDataFrame(rows[half::2], schema).coalesce(1).write.parquet(os.path.join(root, NAMES[i], f"f{half}"))
        spark.createDataFrame([(0.25, at(100_000), -1 - i)], schema).coalesce(1).write.parquet(
            os.path.join(root, NAMES[i], "f9"))
    condition = (lambda: F.expr("A.k = B.k AND B.k = C.k")) if on == "k" else \
        (lambda: F.expr("B.k BETWEEN A.k - 0.5 AND A.k + 0.5 AND C.k BETWEEN B.k - 0.5 AND B.k + 0.5"))
    live = [spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).option("recursiveFileLookup", "true")
            .parquet(os.path.join(root, NAMES[i])).withWatermark("ts", "30 seconds").alias(NAMES[i]) for i in range(3)]
    sink = {}
    run_to_end(ids(wjoin.wjoin(live, on=condition(), time="ts", window="5 seconds"), 3), str(tmp_path / "ck"), sink)
    got = bag(real(r for rows in sink.values() for r in rows))
    static = [spark.createDataFrame(rows, schema).alias(NAMES[i]) for i, rows in enumerate(per_input)]
    batch = bag(rows_of(ids(wjoin.wjoin(static, on=condition(), time="ts", window="5 seconds"), 3)))
    a, b, c = static
    near = lambda x, y: F.abs(F.unix_micros(F.col(f"{x}.ts")) - F.unix_micros(F.col(f"{y}.ts"))) <= 5_000_000
    cells = condition()
    spark_join = bag(rows_of(ids(a.join(b, near("A", "B")).join(c, near("B", "C") & near("A", "C") & cells), 3)))
    assert any(per_input[0][r[0]][0] == float("inf") for r in batch), "the data has a match of infinities"
    assert got == batch == spark_join


def test_sql_w_join_over_streaming_views(spark, tmp_path):
    """The papers' SQL on streaming temp views runs the same streaming operator."""
    s = Streams(spark, tmp_path / "in", n=2)
    s.add([(1, 0, 1), (2, 5, 2)], [(1, 3, 3), (2, 50, 4)])
    s.add(*flush_rows(2))
    a, b = s.streams()
    a.createOrReplaceTempView("stream_cam_a")
    b.createOrReplaceTempView("stream_cam_b")
    df = spark.sql("SELECT A.id AS a_id, B.id AS b_id FROM stream_cam_a A, stream_cam_b B "
                   "WINDOW = INTERVAL 10 SECONDS USING TIME ts WHERE A.k = B.k")
    assert df.isStreaming
    sink = {}
    run_to_end(df, str(tmp_path / "ck"), sink)
    assert bag(real(r for rows in sink.values() for r in rows)) == [(1, 3)]


@pytest.mark.parametrize("kept", ["50000000", "0"])
def test_engines_kept_between_micro_batches_read_no_state_back(spark, tmp_path, kept):
    """Kept engines (the default) read nothing back from the state store after the first batch; with
    spark.wjoin.streaming.keptEngineRows = 0 every batch rebuilds them from it. Same output either way."""
    s = Streams(spark, tmp_path / "in", n=2)
    for b in range(4):
        s.add([(1, 10 * b + j, 10 * b + j) for j in range(3)], [(1, 10 * b + j + 1, 100 + 10 * b + j) for j in range(3)])
    s.add(*flush_rows(2))
    spark.conf.set("spark.wjoin.streaming.keptEngineRows", kept)
    try:
        sink = {}
        a, b = s.streams()
        joined = a.wjoin(b, on="k", time="ts", window="5 seconds", access_paths="A:hash, B:hash")
        q = run_to_end(ids(joined, 2), str(tmp_path / "ck"), sink)
    finally:
        spark.conf.unset("spark.wjoin.streaming.keptEngineRows")
    restored = [p["stateOperators"][0]["customMetrics"]["numRestoredStateRows"]
                for p in q.recentProgress if p["stateOperators"]]
    if kept == "0":
        assert sum(restored[1:]) > 0, restored
    else:
        # The last, no-data batch runs over empty relations in place of the files: still the same plan.
        assert sum(restored) == 0, restored
    expected = bag(real(rows_of(ids(wjoin.wjoin(s.static(), on="k", time="ts", window="5 seconds"), 2))))
    assert expected and bag(real(r for rows in sink.values() for r in rows)) == expected


def test_kept_engine_rows_setting_is_checked(spark):
    with pytest.raises(Exception, match="keptEngineRows must be an integer >= 0"):
        spark.conf.set("spark.wjoin.streaming.keptEngineRows", "-1")
