"""Access paths from Python: band predicates, forced access paths (dict or text), the lazy
expiration interval, EXPLAIN, and the errors raised before py4j / before any job runs."""
import itertools
import random
import re

import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import bag, executed_plan

PATHS = ("scan", "hash", "ttree", "bplustree")


def _stream(spark, seed, rows=60, keys=2, max_time=60, domain=12):
    rnd = random.Random(seed)
    data = [(rnd.randrange(keys), rnd.randrange(max_time), rnd.randrange(domain)) for _ in range(rows)]
    return spark.createDataFrame(data, "k int, t long, x long")


@pytest.fixture(scope="module")
def inputs(spark):
    return _stream(spark, 1), _stream(spark, 2)


def _brute(a, b, window, band):
    """The W-join by its definition over the collected rows."""
    out = []
    for ra, rb in itertools.product(a.collect(), b.collect()):
        if ra.k == rb.k and abs(ra.t - rb.t) <= window and band(ra.x, rb.x):
            out.append((ra.k, ra.t, ra.x, rb.t, rb.x))
    return bag(out)


def test_every_forced_path_on_each_side_equals_the_definition(inputs):
    a, b = inputs
    expected = _brute(a, b, 5, lambda xa, xb: abs(xa - xb) <= 2)
    assert len(expected) > 5
    # Every path on each side, each pair once in a cycle (AccessPathSparkSuite runs all 16 pairs).
    for pa, pb in zip(PATHS, PATHS[1:] + PATHS[:1]):
        df = wjoin.wjoin({"A": a, "B": b}, on=["k", F.abs(F.col("A.x") - F.col("B.x")) <= 2], time="t", window=5,
                         access_paths={"A": pa, "B": pb})
        assert bag(df.collect()) == expected, (pa, pb)


def test_inequality_band_with_text_spec_and_lazy_expiration(inputs):
    a, b = inputs
    expected = _brute(a, b, 6, lambda xa, xb: xa < xb)
    for spec, tau in (("A:ttree, B:bplustree", 3), ("cost", "auto"), ("auto", None), ("B:t", 0)):
        df = wjoin.wjoin({"A": a, "B": b}, on=["k", F.col("A.x") < F.col("B.x")], time="t", window=6,
                         access_paths=spec, expiration_interval=tau)
        assert bag(df.collect()) == expected, spec


def test_explain_shows_paths_orders_and_costs(inputs):
    a, b = inputs
    df = wjoin.wjoin({"A": a, "B": b}, on=["k", F.col("A.x") < F.col("B.x")], time="t", window=6,
                     access_paths={"A": "hash", "B": "ttree"}, expiration_interval=4)
    plan = executed_plan(df)
    assert "access paths=[A=hash, B=ttree(B.x)]" in plan
    assert "expiration=every 4" in plan
    assert "probe order=[A: B; B: A]" in plan
    assert "runner-up=" in plan and "cost=" in plan
    # Key and band, paths chosen: each input's key bucket is ordered by x (never the band over a whole bucket).
    auto = executed_plan(wjoin.wjoin({"A": a, "B": b}, on=["k", F.col("A.x") < F.col("B.x")], time="t", window=6))
    assert re.search(r"access paths=\[A=hash\+(ttree|bplustree)\(A\.x\), B=hash\+(ttree|bplustree)\(B\.x\)\]", auto), auto


def test_access_path_and_expiration_errors(inputs):
    a, b = inputs
    base = dict(time="t", window=5)
    with pytest.raises(TypeError, match="access_paths: expected"):
        wjoin.wjoin([a, b], access_paths=["A", "hash"], **base)
    with pytest.raises(ValueError, match=r"access_paths: unknown input\(s\) Z"):
        wjoin.wjoin([a, b], access_paths={"Z": "scan"}, **base)
    with pytest.raises(ValueError, match="unknown access path 'quadtree' for input A"):
        wjoin.wjoin([a, b], access_paths={"A": "quadtree"}, **base)
    with pytest.raises(ValueError, match="access path entry 'fastest' is not input:path"):
        wjoin.wjoin([a, b], access_paths="fastest", **base)
    with pytest.raises(ValueError, match="input A cannot use a hash access path"):
        wjoin.wjoin([a, b], access_paths={"A": "hash"}, **base)
    with pytest.raises(ValueError, match="input B cannot use a ttree access path"):
        wjoin.wjoin([a, b], on="k", access_paths={"B": "ttree"}, **base)
    with pytest.raises(ValueError, match="expirationInterval: a window cannot be negative, got '-1'"):
        wjoin.wjoin([a, b], on="k", expiration_interval=-1, **base)


@pytest.mark.parametrize("algorithm,paths", [("hw", {"A": "ttree", "B": "hash", "C": "bplustree"}),
                                             ("mw", {"A": "bplustree", "B": "ttree", "C": "scan"})])
def test_streaming_with_indexed_windows_equals_batch(spark, tmp_path, algorithm, paths):
    from test_streaming import Streams, flush_rows, ids, real, run_to_end
    s = Streams(spark, tmp_path / "in")
    s.add([(1, 10, 1), (2, 11, 2)], [(1, 12, 3)], [(1, 14, 4), (2, 9, 5)])
    s.add([(1, 20, 6)], [(2, 13, 7), (1, 21, 8)], [(1, 19, 9)])
    s.add([(2, 40, 10)], [(2, 41, 11), (1, 15, 12)], [(2, 39, 13), (1, 11, 14)])
    s.add(*flush_rows(3))
    on = ["k", F.col("A.id") < F.col("B.id") + 6, F.abs(F.col("B.id") - F.col("C.id")) <= 5]
    sink = {}
    a, b, c = s.streams()
    run_to_end(ids(wjoin.wjoin([a, b, c], on=on, time="ts", window="10 seconds", algorithm=algorithm,
                               access_paths=paths), 3), str(tmp_path / "ck"), sink)
    got = bag(real(r for rows in sink.values() for r in rows))
    expected = bag(real(tuple(r) for r in ids(wjoin.wjoin(s.static()[:3], on=on, time="ts",
                                                            window="10 seconds"), 3).collect()))
    assert expected and got == expected
