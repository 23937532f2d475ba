"""Per-stream count-based windows ROWS(X) = k: X's member is among X's last k rows at the time of
the combination's newest member (Golab & Özsu Sec. 3.6), in batch, SQL and streaming."""
from __future__ import annotations

import itertools
import random

import pytest

import wjoin
from helpers import executed_plan, rows_of
from test_streaming import Streams, flush_rows, ids, real, run_to_end

SCHEMA = "k int, ts bigint, v string"


def merge_order(tables):
    """The W-join's arrival order: time, then input index, then the input's other columns
    (ascending, NULL first, as Spark sorts them)."""
    rows = [(name, i, r) for i, (name, table) in enumerate(tables.items()) for r in table]
    return sorted(rows, key=lambda x: (x[2][1], x[1], x[2][0] is not None, x[2][0] or 0, x[2][2]))


def brute_force(tables, limits, window, keyed):
    """Combinations by definition: uniform time window, equal non-NULL keys, ROWS windows."""
    order = merge_order(tables)
    position = {(name, r): p for p, (name, _, r) in enumerate(order)}

    def arrived(name, p):
        return sum(1 for q, (other, _, _) in enumerate(order) if q <= p and other == name)

    out = []
    for combo in itertools.product(*tables.values()):
        members = list(zip(tables, combo))
        times = [r[1] for r in combo]
        if max(times) - min(times) > window:
            continue
        if keyed and (combo[0][0] is None or any(r[0] != combo[0][0] for r in combo)):
            continue
        newest = max(position[(n, r)] for n, r in members)
        if all(n not in limits or arrived(n, newest) - arrived(n, position[(n, r)]) < limits[n] for n, r in members):
            out.append(tuple(r[2] for r in combo))
    return sorted(out)


@pytest.fixture(scope="module")
def golab(spark):
    # Golab & Özsu Table 2, plus an S1 row at 200 that arrives between the two S3 rows.
    s1 = [(1, 90, "s1a"), (1, 100, "s1b"), (1, 200, "s1c")]
    s2 = [(1, 150, "s2a"), (1, 180, "s2b")]
    s3 = [(1, 195, "s3a"), (1, 205, "s3b")]
    return {name: spark.createDataFrame(rows, SCHEMA) for name, rows in (("S1", s1), ("S2", s2), ("S3", s3))}


@pytest.mark.parametrize("algorithm", ["auto", "nlw", "hw", "mw"])
def test_golab_ozsu_tables_2_3_with_count_windows(golab, algorithm):
    out = wjoin.wjoin(golab, on="k", time="ts", algorithm=algorithm,
                      windows="ROWS(S1) = 1 AND ROWS(S2) = 2 AND ROWS(S3) = 2")
    # The S1 rows at 90 and 100 are pushed out of S1's one-row window before S3's row at 205.
    assert rows_of(out.select("S1.ts", "S2.ts", "S3.ts")) == [
        (100, 150, 195), (100, 180, 195), (200, 150, 195), (200, 150, 205), (200, 180, 195), (200, 180, 205)]


@pytest.mark.parametrize("seed", range(6))
def test_random_count_windows_with_ties_and_null_keys_against_brute_force(spark, seed):
    rnd = random.Random(seed)
    names = ["A", "B", "C"][: rnd.choice([2, 3])]
    tables = {name: [(rnd.choice([1, 2, None]) if rnd.random() < 0.2 else rnd.choice([1, 2]),
                      rnd.randrange(12), f"{name}{j}") for j in range(rnd.randrange(3, 8))] for name in names}
    limits = {name: rnd.choice([1, 2, 3]) for name in rnd.sample(names, rnd.randrange(1, len(names) + 1))}
    window = rnd.choice([3, 6, 20])
    terms = [wjoin.rows_window(name, k) for name, k in limits.items()] + [f"WINDOW = {window}"]
    dfs = {name: spark.createDataFrame(rows, SCHEMA) for name, rows in tables.items()}
    for algorithm, keyed in (("hw", True), ("mw", True), ("nlw", True), ("mw", False), ("nlw", False)):
        expected = brute_force(tables, limits, window, keyed)
        out = wjoin.wjoin(dfs, on="k" if keyed else None, time="ts", windows=terms, algorithm=algorithm)
        assert rows_of(out.select([f"{n}.v" for n in names])) == expected, (algorithm, keyed, limits)


def test_count_windows_run_in_one_partition_and_keep_filters_above(spark, golab):
    out = (wjoin.wjoin(golab, on="k", time="ts", windows="ROWS(S1) = 1 AND ROWS(S2) = 2 AND ROWS(S3) = 2")
           .where("S1.v != 's1c'"))
    # Filtering S1 first would leave s1b as S1's newest row at 205; the filter applies to the result.
    assert rows_of(out.select("S1.ts", "S2.ts", "S3.ts")) == [(100, 150, 195), (100, 180, 195)]
    plan = executed_plan(out)
    assert "SinglePartition" in plan and "hashpartitioning" not in plan, plan
    assert "ROWS(S1) = 1" in plan


def test_sql_rows_term_equals_the_dataframe_api(spark, golab):
    for name, df in golab.items():
        df.createOrReplaceTempView(f"rows_{name}")
    sql = spark.sql("SELECT S1.ts, S2.ts, S3.ts FROM rows_S1 S1, rows_S2 S2, rows_S3 S3 "
                    "ROWS(S1) = 1 AND ROWS(S2) = 2 AND ROWS(S3) = 2 USING TIME ts "
                    "WHERE S1.k = S2.k AND S2.k = S3.k")
    api = wjoin.wjoin(golab, on="k", time="ts", windows=[wjoin.rows_window("S1", 1), wjoin.rows_window("S2", 2),
                                                         wjoin.rows_window("S3", 2)])
    assert rows_of(sql) == rows_of(api.select("S1.ts", "S2.ts", "S3.ts"))


def test_count_window_errors(golab):
    with pytest.raises(ValueError, match=r"'ROWS\(S2\) = 0'.*whole number of rows >= 1"):
        wjoin.wjoin(golab, on="k", time="ts", windows="ROWS(S2) = 0 AND WINDOW = 5")
    with pytest.raises(ValueError, match=r"ROWS\(S2\) = 5 minutes"):
        wjoin.wjoin(golab, on="k", time="ts", windows="ROWS(S2) = 5 minutes AND WINDOW = 5")
    with pytest.raises(TypeError, match=r"whole number of rows, got 1.5"):
        wjoin.rows_window("S2", 1.5)
    with pytest.raises(ValueError, match=r"'ROWS\(S2\) = 0'.*whole number of rows >= 1"):
        wjoin.wjoin(golab, on="k", time="ts", windows=[wjoin.rows_window("S2", 0), "WINDOW = 5"])
    with pytest.raises(ValueError, match=r"names input 'S9'"):
        wjoin.wjoin(golab, on="k", time="ts", windows=[wjoin.rows_window("S9", 3), "WINDOW = 5"])
    # S1 and S2 have no bound on how much later an S3 row may be; ROWS(S3) bounds only S3.
    with pytest.raises(ValueError, match=r"input S\d has no window bound relative to S3"):
        wjoin.wjoin(golab, on="k", time="ts", windows="WINDOW(S1,S2) = 5 AND ROWS(S3) = 2")


def test_streaming_count_windows_equal_the_batch_wjoin(spark, tmp_path):
    # A short delay, so rows are swept (and counted) over several micro-batches, not all at the end.
    s = Streams(spark, tmp_path / "in", n=2, delay="2 seconds")
    # Distinct times per input: ties across micro-batches arrive in batch order on a stream.
    s.add([(1, 10, 1), (1, 12, 2)], [(1, 11, 3), (2, 13, 4)])
    s.add([(1, 20, 5), (2, 14, 6)], [(1, 21, 7), (1, 15, 8)])
    s.add([(1, 30, 9)], [(1, 25, 10), (1, 31, 11)])
    s.add(*flush_rows(2))
    window = "ROWS(A) = 2 AND ROWS(B) = 1 AND WINDOW(A,B) = 12 seconds"
    sink = {}
    streaming = wjoin.wjoin(s.streams(), on="k", time="ts", windows=window)
    q = run_to_end(ids(streaming, 2), str(tmp_path / "cp"), sink)
    got = real(r for rows in sink.values() for r in rows)
    expected = real(rows_of(ids(wjoin.wjoin(s.static(), on="k", time="ts", windows=window), 2)))
    assert sorted(got) == sorted(expected) and expected
    assert len([b for b, rows in sink.items() if real(rows)]) >= 2, sink  # emitted over several batches
    assert q.lastProgress["stateOperators"][0]["operatorName"] == "windowJoin"
    with pytest.raises(Exception, match=r"ROWS windows on streams .* only the ordered mode"):
        wjoin.wjoin(s.streams(), on="k", time="ts", windows=window, algorithm="hw").explain()
