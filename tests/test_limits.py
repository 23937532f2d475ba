"""limits= / allocation= / seed=: the resource-limited (approximate) W-join of Kang, Naughton &
Viglas Sec. 5.2. The result is a sub-bag of the exact W-join, the same for the same seed; the
shares show in EXPLAIN; bad values fail before any job runs."""
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

import wjoin
from helpers import job_counter, rows_of
from test_differential import make_inputs


@pytest.fixture(scope="module")
def three(spark):
    return make_inputs(spark, 21, 3, keys=[1, 2], span=60, w=4)


def sub_bag(small, big) -> bool:
    return not (Counter(small) - Counter(big))


LIMITS = [{"state_rows": 6}, {"probe_rate": 0.5}, {"state_rows": 4, "probe_rate": 1}]
ALLOCATIONS = ["auto", "equal", "proportional", {"A": 3, "B": 1, "C": 0},
               {"state_rows": {"A": 1, "B": 1, "C": 1}, "probe_rate": {"C": 1}}]


def allocations(limits):
    """ALLOCATIONS, the map per budget cut to the budgets `limits` sets (shares of another are an error)."""
    return [{b: shares for b, shares in a.items() if b in limits} if isinstance(a, dict) and "state_rows" in a else a
            for a in ALLOCATIONS]


# Each limit with one algorithm and every allocation (LimitsSparkSuite runs every algorithm with every limit).
@pytest.mark.parametrize("limits, algorithm", list(zip(LIMITS, ["nlw", "hw", "mw"])))
def test_sub_bag_of_the_exact_w_join_and_deterministic(three, algorithm, limits):
    args = dict(on="k", time="ts", window=4, algorithm=algorithm)
    exact = rows_of(wjoin.wjoin(three, **args))
    assert exact
    for allocation in allocations(limits):
        got = rows_of(wjoin.wjoin(three, limits=limits, allocation=allocation, seed=5, **args))
        assert sub_bag(got, exact), allocation
        assert len(got) < len(exact), f"{limits} {allocation} shed nothing"
        assert rows_of(wjoin.wjoin(three, limits=limits, allocation=allocation, seed=5, **args)) == got


@given(seed=st.integers(0, 1000), state_rows=st.integers(0, 30), probe_rate=st.one_of(st.none(), st.floats(0, 4)),
       keyed=st.booleans())
def test_property_random_inputs_and_limits(spark, seed, state_rows, probe_rate, keyed):
    dfs = make_inputs(spark, seed, 2, keys=[1, 2, 3], span=40, w=3)
    args = dict(on="k" if keyed else None, time="ts", window=3)
    limits = {"state_rows": state_rows} if probe_rate is None else {"state_rows": state_rows, "probe_rate": probe_rate}
    got = rows_of(wjoin.wjoin(dfs, limits=limits, seed=seed, **args))
    assert sub_bag(got, rows_of(wjoin.wjoin(dfs, **args)))


def test_generous_limits_change_nothing(three):
    args = dict(on="k", time="ts", window=4)
    assert rows_of(wjoin.wjoin(three, limits={"state_rows": 10**6, "probe_rate": 10**6}, **args)) == \
        rows_of(wjoin.wjoin(three, **args))


def test_explain_shows_the_shares(three, capsys):
    wjoin.wjoin(three, on="k", time="ts", window=4, algorithm="hw", limits={"state_rows": 10, "probe_rate": 2},
                allocation={"A": 2, "B": 1, "C": 1}, seed=9).explain()
    plan = capsys.readouterr().out
    assert ("limits=[state_rows=10 [A=5, B=3, C=2], probe_rate=2/s [A=1, B=0.5, C=0.5], "
            "allocation={A: 0.5, B: 0.25, C: 0.25}, seed=9]") in plan, plan


@pytest.mark.parametrize("kwargs, error, message", [
    (dict(limits={"rows": 5}), ValueError, "unknown limit 'rows'; use state_rows"),
    (dict(limits={}), ValueError, "give state_rows, probe_rate or both"),
    (dict(limits={"state_rows": 2.5}), ValueError, "state_rows: expected a whole number"),
    (dict(limits={"probe_rate": -1}), ValueError, "probe_rate must be a finite number >= 0"),
    (dict(limits={"state_rows": 5}, allocation="fair"), ValueError, "unknown allocation 'fair'"),
    (dict(limits={"state_rows": 5}, allocation={"Z": 1}), ValueError, r"allocation: unknown input\(s\) Z"),
    (dict(limits={"state_rows": 5}, allocation={"A": 0, "B": 0, "C": 0}), ValueError, "at least one share must be > 0"),
    (dict(allocation="equal"), ValueError, "allocation applies to resource limits"),
    (dict(seed=3), ValueError, "seed applies to resource limits"),
    (dict(limits={"state_rows": 5}, how="left"), ValueError, "limits approximate the inner W-join only"),
    (dict(limits=[5]), TypeError, "limits: expected a dict"),
    (dict(limits={"state_rows": "5"}), TypeError, "limits: keys are strings and values numbers"),
    (dict(limits={"state_rows": 5}, allocation=3), TypeError, "allocation: expected 'auto'"),
    (dict(limits={"state_rows": 5}, seed="x"), TypeError, "seed: expected an int"),
    # ints beyond a Java long reach the JVM (as floats, as from a Connect client) and fail there
    (dict(limits={"state_rows": 2**63}), ValueError, "state_rows: expected a whole number of at most 64 bits"),
    (dict(limits={"state_rows": 5}, allocation={"A": 10**400, "B": 1}), ValueError, "allocation"),
    (dict(limits={"state_rows": 5}, allocation={"state_rows": {"A": 1}, "probe_rates": {"B": 1}}), ValueError,
     "unknown budget 'probe_rates'; a map per budget has the keys state_rows and/or probe_rate"),
    (dict(limits={"state_rows": 5}, allocation={"state_rows": {"A": 1}, "probe_rate": {"B": 1}}), ValueError,
     "shares of probe_rate, which limits does not set"),
])
def test_bad_limits_fail_before_any_job(spark, three, kwargs, error, message):
    with job_counter(spark) as jobs:
        with pytest.raises(error, match=message):
            wjoin.wjoin(three, on="k", time="ts", window=4, **kwargs)
    assert jobs() == []


def test_seed_beyond_64_bits_fails_in_the_jvm_before_any_job(spark, three):
    with job_counter(spark) as jobs:
        with pytest.raises(ValueError, match="seed: expected a whole number of at most 64 bits"):
            wjoin.wjoin(three, on="k", time="ts", window=4, limits={"state_rows": 5}, seed=2**64)
    assert jobs() == []


def _streams(spark, root):
    """Three parquet-file streams of 5 micro-batches of 12 rows per input (keys 1-2), then a flush."""
    import random
    from test_streaming import Streams, flush_rows
    s = Streams(spark, root, n=3, delay="3 seconds")
    rnd, ident = random.Random(4), 0
    for b in range(5):
        per = []
        for _ in range(3):
            per.append([(rnd.randint(1, 2), 10 * b + rnd.randint(0, 9), ident + j) for j in range(12)])
            ident += 12
        s.add(*per)
    s.add(*flush_rows(3))
    return s


def _streamed(s, checkpoint, **kwargs):
    """The streaming W-join of `s` under `kwargs` (rows of real ids), and the exact batch W-join."""
    from test_streaming import ids, run_to_end
    sink = {}
    joined = wjoin.wjoin(s.streams(), on="k", time="ts", window="6 seconds", **kwargs)
    run_to_end(ids(joined, 3), checkpoint, sink)
    exact = rows_of(ids(wjoin.wjoin(s.static(), on="k", time="ts", window="6 seconds"), 3))
    return [r for rows in sink.values() for r in rows if r[0] >= 0], exact


def test_streaming_limits_shed_a_sub_bag_the_same_for_the_same_seed(spark, tmp_path):
    """On streams the eager engine sheds: rows it does not keep are not kept in the state either, and
    the same seed sheds the same rows (here a fresh checkpoint each run, the same micro-batches)."""
    limits = dict(limits={"state_rows": 8, "probe_rate": 1}, allocation="equal", seed=3)
    s = _streams(spark, tmp_path / "in")
    got, exact = _streamed(s, str(tmp_path / "ck1"), **limits)
    again, _ = _streamed(s, str(tmp_path / "ck2"), **limits)
    assert exact and sub_bag(got, exact) and len(got) < len(exact)
    assert sorted(got) == sorted(again)


def test_streaming_limits_refuse_the_ordered_mode(spark, tmp_path):
    from test_streaming import Streams
    s = Streams(spark, tmp_path / "in", n=2)
    with pytest.raises(ValueError, match="limits: a streaming W-join sheds load in the eager mode"):
        wjoin.wjoin(s.streams(), on="k", time="ts", window="6 seconds", algorithm="mw", limits={"state_rows": 5})


def test_auto_allocation_with_room_for_every_window_sheds_little(spark):
    """3 x 120 rows, memory for 1000: the planner's assumed windows exceed it, so auto splits it;
    the split must keep every window (an N = 3 combination needs rows of all three), not starve
    one of them."""
    import random
    rnd = random.Random(1)
    dfs = {n: spark.createDataFrame([(rnd.randint(1, 3), rnd.randint(0, 200), i) for i in range(120)],
                                    "k int, t long, id int") for n in "ABC"}
    exact = rows_of(wjoin.wjoin(dfs, on="k", time="t", window=10))
    got = rows_of(wjoin.wjoin(dfs, on="k", time="t", window=10, limits={"state_rows": 1000}))
    assert sub_bag(got, exact) and len(got) >= 0.9 * len(exact), (len(got), len(exact))
