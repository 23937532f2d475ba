"""The W-join against a brute-force Python W-join, as exact multisets: every combination of
one row per input, every window term checked, on small random streams and random window
constraints in every spelling and time type (hypothesis). The other reference, Spark's own
join: test_differential.py.
"""
import datetime as dt
import itertools
from functools import reduce

import pytest
from hypothesis import event, given, settings, target
from hypothesis import strategies as st
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import wjoin
from helpers import bag

T0 = dt.datetime(2024, 5, 6, 7, 0, 0)
NAMES = "ABCD"


def brute_force(streams, keyed, bounds):
    """The W-join by definition: every combination of one row per input (rows (k, ts, v)),
    kept when no time is NULL, all keys are equal and non-NULL (if keyed), and every bound
    (i, j, lo, hi), meaning lo <= ts_j - ts_i <= hi, holds (numbers for integral times,
    timedeltas for timestamps). Rows laid out like on="k" (k once) when keyed, else every
    column of every input."""
    out = []
    for combo in itertools.product(*streams):
        if any(ts is None for _, ts, _ in combo):
            continue
        keys = [k for k, _, _ in combo]
        if keyed and (None in keys or len(set(keys)) != 1):
            continue
        if not all(lo <= combo[j][1] - combo[i][1] <= hi for i, j, lo, hi in bounds):
            continue
        if keyed:
            out.append((combo[0][0],) + tuple(x for _, ts, v in combo for x in (ts, v)))
        else:
            out.append(tuple(x for row in combo for x in row))
    return bag(out)


def satisfiable(n, bounds):
    """Whether some integer times satisfy every bound: try every t_1.. t_n-1 in [-R, R] with
    t_0 = 0, R the sum of all bound magnitudes (a satisfiable system of integer difference
    constraints has an integer solution within that range)."""
    if all(lo <= 0 <= hi for _, _, lo, hi in bounds):
        return True  # equal times satisfy every bound
    r = sum(max(abs(lo), abs(hi)) for _, _, lo, hi in bounds)
    for rest in itertools.product(range(-r, r + 1), repeat=n - 1):
        t = (0,) + rest
        if all(lo <= t[j] - t[i] <= hi for i, j, lo, hi in bounds):
            return True
    return False


@st.composite
def window_terms(draw, n):
    """Random window terms whose constraint graph connects all n inputs: a random spanning
    tree of pairs, for n <= 3 sometimes one more term (which may contradict the others).
    Returns [(kind, i, j, lo, hi)] with kind WINDOW (|ts_i - ts_j| <= hi), DWINDOW
    (0 <= ts_j - ts_i <= hi) or INTERVAL (lo <= ts_j - ts_i <= hi)."""
    order = draw(st.permutations(range(n)))
    pairs = [(order[draw(st.integers(0, m - 1))], order[m]) for m in range(1, n)]
    if n <= 3 and draw(st.booleans()):
        pairs.append(draw(st.sampled_from([(i, j) for i in range(n) for j in range(i + 1, n)])))
    terms = []
    for i, j in pairs:
        if draw(st.booleans()):
            i, j = j, i
        kind = draw(st.sampled_from(["WINDOW", "DWINDOW", "INTERVAL"]))
        lo = draw(st.integers(-4, 4)) if kind == "INTERVAL" else 0  # lower ends may be negative
        hi = lo + draw(st.integers(0, 5))
        terms.append((kind, i, j, lo, hi))
    return terms


def term_bounds(terms):
    """(i, j, lo, hi) bounds of terms: lo <= ts_j - ts_i <= hi."""
    return [(i, j, -hi, hi) if kind == "WINDOW" else (i, j, lo, hi) for kind, i, j, lo, hi in terms]


def spell(terms, style, timestamps):
    """The terms as the user would pass them to windows=: the papers' text, or a list of
    WINDOW strings and wjoin.directed(...) (timedelta lengths for timestamps)."""
    def length(x):
        return (dt.timedelta(seconds=x) if style == "structured" else f"{x} seconds") if timestamps else x
    if style == "text":
        parts = []
        for kind, i, j, lo, hi in terms:
            pair = f"{NAMES[i]},{NAMES[j]}"
            if kind == "WINDOW":
                parts.append(f"WINDOW({pair}) = {length(hi)}")
            elif kind == "DWINDOW":
                parts.append(f"DWINDOW({pair}) = {length(hi)}")
            else:
                parts.append(f"DWINDOW({pair}) = [{length(lo)}, {length(hi)}]")
        return " AND ".join(parts)
    items = []
    for kind, i, j, lo, hi in terms:
        if kind == "WINDOW":
            items.append(f"WINDOW({NAMES[i]},{NAMES[j]}) = {f'{hi} seconds' if timestamps else hi}")
        else:
            items.append(wjoin.directed(NAMES[i], NAMES[j], length(hi), length(lo)))
    return items


@st.composite
def scenarios(draw):
    n = draw(st.sampled_from([2, 3, 3, 4]))
    time_type = draw(st.sampled_from(["bigint", "int", "timestamp"]))
    keyed = draw(st.booleans())
    # Mostly key 0 and few NULLs, so that combinations often match.
    row = st.tuples(st.sampled_from([0, 0, 0, 1, None]), st.sampled_from([*range(7), None]), st.integers(0, 2))
    # An empty input, now and then; mostly a few rows each.
    streams = [draw(st.lists(row, min_size=0 if draw(st.integers(0, 9)) == 0 else 1, max_size=6 if n < 4 else 4))
               for _ in range(n)]
    form = draw(st.sampled_from(["uniform", "terms"]))
    if form == "uniform":
        w = draw(st.integers(0, 5))
        terms = [("WINDOW", i, j, 0, w) for i in range(n) for j in range(i + 1, n)]
        style = draw(st.sampled_from(["window", "text"]))
    else:
        terms = draw(window_terms(n))
        style = draw(st.sampled_from(["text", "structured"]))
    return n, time_type, keyed, streams, terms, style


def as_input(rows, time_type):
    if time_type == "timestamp":
        return [(k, None if ts is None else T0 + dt.timedelta(seconds=ts), v) for k, ts, v in rows]
    return rows


def normalized(df: DataFrame, algorithm: str) -> DataFrame:
    """The result with positional column names and the algorithm as first column."""
    plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    return plain.select(F.lit(algorithm).alias("algorithm"), *plain.columns)


def check_scenario(spark, scenario):
    n, time_type, keyed, streams, terms, style = scenario
    timestamps = time_type == "timestamp"
    bounds = term_bounds(terms)
    dfs = [spark.createDataFrame(as_input(rows, time_type), f"k int, ts {time_type}, v int") for rows in streams]
    options = dict(time="ts", on="k" if keyed else None)
    if style == "window":
        w = terms[0][4]
        options["window"] = f"{w} seconds" if timestamps else w
    else:
        options["windows"] = spell(terms, style, timestamps)

    if not satisfiable(n, bounds):
        event("contradictory windows")
        with pytest.raises(ValueError, match="contradict"):
            wjoin.wjoin(dfs, **options)
        return

    if timestamps:
        bounds = [(i, j, dt.timedelta(seconds=lo), dt.timedelta(seconds=hi)) for i, j, lo, hi in bounds]
    expected = brute_force([as_input(rows, time_type) for rows in streams], keyed, bounds)
    event("no result" if not expected else "1-3 results" if len(expected) <= 3 else "4+ results")
    target(float(len(expected)))  # steer generation towards examples with many combinations
    algorithms = ["auto", "nlw", "hw", "mw"] if keyed else ["auto", "nlw", "mw"]
    # Plus the conservative window strategies of Hammad et al. Sec. 5.1 (GCA / LCA, then refine).
    variants = [(a, "auto") for a in algorithms] + [("mw", "gca"), ("mw", "lca"), ("nlw", "lca")]
    results = [normalized(wjoin.wjoin(dfs, algorithm=a, window_strategy=s, **options), f"{a}/{s}")
               for a, s in variants]
    got = {f"{a}/{s}": [] for a, s in variants}
    for row in reduce(DataFrame.unionAll, results).collect():
        got[row[0]].append(tuple(row[1:]))
    for label in got:
        assert bag(got[label]) == expected, f"algorithm/strategy {label}, windows {options}"


@given(scenario=scenarios())
@settings(max_examples=10, deadline=None)
def test_matches_brute_force(spark, scenario):
    check_scenario(spark, scenario)


@st.composite
def dense_intervals(draw):
    """3 inputs, one key, times in a narrow range, a chain of travel-time intervals: many
    matches, many rows on the interval ends."""
    row = st.tuples(st.just(0), st.integers(0, 5), st.integers(0, 1))
    streams = [draw(st.lists(row, min_size=2, max_size=6)) for _ in range(3)]
    terms = []
    for i, j in draw(st.sampled_from([[(0, 1), (1, 2)], [(0, 2), (2, 1)], [(1, 0), (0, 2)]])):
        lo = draw(st.integers(0, 2))
        terms.append(("INTERVAL", i, j, lo, lo + draw(st.integers(0, 3))))
    return 3, draw(st.sampled_from(["bigint", "timestamp"])), True, streams, terms, "text"


@given(scenario=dense_intervals())
@settings(max_examples=12, deadline=None)
def test_travel_time_chains_match_brute_force(spark, scenario):
    check_scenario(spark, scenario)


def test_brute_force_reference_itself():
    """The reference on a case worked out by hand, so a broken reference cannot make the
    property tests pass vacuously."""
    a = [(1, 0, 0), (1, 5, 1), (None, 0, 2)]
    b = [(1, 2, 0), (1, 2, 0), (2, 2, 1), (1, None, 2)]
    # DWINDOW(A,B) = [1, 3]: a0 (t 0) with both duplicate b0 (t 2); a1 (t 5) is after them.
    assert brute_force([a, b], True, [(0, 1, 1, 3)]) == [(1, 0, 0, 2, 0), (1, 0, 0, 2, 0)]
    # WINDOW(A,B) = 3 without key: every A row (at 0, 5, 0) is within 3 of b0, b0, b1 (at 2).
    assert len(brute_force([a, b], False, [(0, 1, -3, 3)])) == 2 * 3 + 3
    assert satisfiable(2, [(0, 1, 5, 6), (1, 0, 0, 2)]) is False
    assert satisfiable(3, [(0, 1, 5, 6), (1, 2, 0, 2), (2, 0, -8, -5)]) is True
