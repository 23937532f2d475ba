"""Window strategies (window_strategy= exact / gca / lca, Hammad et al. Sec. 5.1) and bidirectional
path queries (bidirectional=True, Sec. 5.2) from Python: same answers as Spark's own joins, and
misuse raises TypeError / ValueError naming what was found, before any job runs."""
import random
import re

import pytest

import wjoin
from helpers import bag, job_counter, rows_of

PER_PAIR = "WINDOW(A,B) = 6 AND WINDOW(B,C) = 2 AND WINDOW(A,C) = 3"
PATH = "DWINDOW(A,B) = [0, 3] AND DWINDOW(B,C) = 4"


@pytest.fixture(scope="module")
def abc(spark):
    rnd = random.Random(41)
    return [spark.createDataFrame([(rnd.randrange(3), rnd.randrange(80), rnd.randrange(100)) for _ in range(120)],
                                  "k int, t bigint, v int") for _ in range(3)]


def spark_join(spark, abc, where):
    for name, df in zip("abc", abc):
        df.createOrReplaceTempView(f"strategy_{name}")
    return rows_of(spark.sql(
        "SELECT a.k, a.t, a.v, b.t, b.v, c.t, c.v FROM strategy_a a, strategy_b b, strategy_c c "
        f"WHERE a.k = b.k AND b.k = c.k AND ({where})"))


@pytest.mark.parametrize("strategy", ["auto", "exact", "gca", "lca", "LCA"])
@pytest.mark.parametrize("algorithm", ["mw", "nlw"])
def test_every_strategy_equals_spark_join(spark, abc, strategy, algorithm):
    expected = spark_join(spark, abc, "abs(a.t - b.t) <= 6 AND abs(b.t - c.t) <= 2 AND abs(a.t - c.t) <= 3")
    assert len(expected) > 10
    got = wjoin.wjoin(abc, on="k", time="t", windows=PER_PAIR, algorithm=algorithm, window_strategy=strategy)
    assert rows_of(got) == expected


def test_explain_names_the_strategy(abc):
    df = wjoin.wjoin(abc, on="k", time="t", windows=PER_PAIR, algorithm="mw", window_strategy="lca")
    plan = df._jdf.queryExecution().executedPlan().toString()
    assert "window strategy=lca (local windows A=5 B=5 C=3, refine 3 bounds)" in plan, plan


def test_bidirectional_is_the_union_of_both_directions_once(spark, abc):
    forward = "b.t - a.t BETWEEN 0 AND 3 AND c.t - b.t BETWEEN 0 AND 4"
    backward = "a.t - b.t BETWEEN 0 AND 3 AND b.t - c.t BETWEEN 0 AND 4"
    both = spark_join(spark, abc, f"({forward}) OR ({backward})")
    assert spark_join(spark, abc, f"({forward}) AND ({backward})"), "some combinations must match both ways"
    assert len(both) > len(spark_join(spark, abc, forward))
    for strategy in ("auto", "lca"):
        got = wjoin.wjoin(abc, on="k", time="t", windows=PATH, bidirectional=True, window_strategy=strategy)
        assert rows_of(got) == both
    assert rows_of(wjoin.wjoin(abc, on="k", time="t", windows=PATH)) == spark_join(spark, abc, forward)


def test_bidirectional_with_equal_times_emits_once(spark):
    rows = [(1, 5, 0)]
    dfs = [spark.createDataFrame(rows, "k int, t bigint, v int") for _ in range(3)]
    got = wjoin.wjoin(dfs, on="k", time="t", windows="DWINDOW(A,B) = 2 AND DWINDOW(B,C) = 2", bidirectional=True)
    assert rows_of(got) == bag([(1, 5, 0, 5, 0, 5, 0)])


def fails(spark, error, pattern, call):
    with job_counter(spark) as jobs:
        with pytest.raises(error) as info:
            call()
        assert jobs() == [], f"jobs ran before the error: {jobs()}"
    assert re.search(pattern, str(info.value)), str(info.value)


def test_unknown_strategy(spark, abc):
    fails(spark, ValueError, r"unknown window strategy 'local'; use one of auto, exact, gca, lca",
          lambda: wjoin.wjoin(abc, time="t", windows=PER_PAIR, window_strategy="local"))


def test_strategy_of_wrong_type(spark, abc):
    fails(spark, TypeError, r"window_strategy: expected a string .*got int",
          lambda: wjoin.wjoin(abc, time="t", windows=PER_PAIR, window_strategy=1))


def test_bidirectional_of_wrong_type(spark, abc):
    fails(spark, TypeError, r"bidirectional: expected True or False, got str 'yes'",
          lambda: wjoin.wjoin(abc, time="t", windows=PATH, bidirectional="yes"))


def test_bidirectional_needs_directed_terms(spark, abc):
    fails(spark, ValueError, r"'WINDOW\(B,C\) = 2' is not directed",
          lambda: wjoin.wjoin(abc, time="t", windows="DWINDOW(A,B) = 3 AND WINDOW(B,C) = 2", bidirectional=True))


def test_bidirectional_rejects_a_uniform_window(spark, abc):
    fails(spark, ValueError, r"bidirectional=true reverses a path of DWINDOW terms, but 'WINDOW = 3' is not "
                             r"directed", lambda: wjoin.wjoin(abc, time="t", window=3, bidirectional=True))


@pytest.mark.parametrize("options", [dict(window_strategy="lca", algorithm="mw"),
                                     dict(window_strategy="gca", algorithm="hw"),
                                     dict(bidirectional=True)])
def test_streaming_equals_batch(spark, tmp_path, options):
    from test_streaming import Streams, flush_rows, ids, real, run_to_end
    s = Streams(spark, tmp_path / "in")
    s.add([(1, 10, 1), (2, 11, 2)], [(1, 12, 3)], [(1, 14, 4), (2, 9, 5)])
    s.add([(1, 20, 6)], [(2, 13, 7), (1, 21, 8)], [(1, 19, 9), (1, 9, 15)])
    s.add([(2, 40, 10)], [(2, 41, 11), (1, 15, 12)], [(2, 39, 13), (1, 11, 14)])
    s.add(*flush_rows(3))
    terms = "DWINDOW(A,B) = [0 seconds, 5 seconds] AND DWINDOW(B,C) = [0 seconds, 8 seconds]"
    sink = {}
    a, b, c = s.streams()
    run_to_end(ids(a.wjoin(b, c, on="k", time="ts", windows=terms, **options), 3), str(tmp_path / "ck"), sink)
    got = bag(real(r for rows in sink.values() for r in rows))
    expected = bag(real(rows_of(ids(wjoin.wjoin(s.static()[:3], on="k", time="ts", windows=terms, **options), 3))))
    assert expected and got == expected
    if options.get("bidirectional"):
        one_way = rows_of(ids(wjoin.wjoin(s.static()[:3], on="k", time="ts", windows=terms), 3))
        assert len(expected) > len(bag(real(one_way))), "the data must have reverse-path combinations"
