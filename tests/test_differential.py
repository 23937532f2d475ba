"""The W-join against two independent references, as exact multisets:

* Spark's own inner join with BETWEEN conditions (2- and 3-way uniform windows, and one
  mixed per-pair / travel-time case), on data with NULL keys, NULL times, duplicate rows
  and pairs exactly one window apart, for every algorithm;
* a brute-force Python W-join (every combination of one row per input, every window term
  checked) on small random streams and random window constraints (hypothesis).
"""
import datetime as dt
import itertools
import random
from functools import reduce

import pytest
from hypothesis import event, given, settings, target
from hypothesis import strategies as st
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

import wjoin
from helpers import bag, rows_of

ALGORITHMS = ["auto", "nlw", "hw", "mw"]
T0 = dt.datetime(2024, 5, 6, 7, 0, 0)

# ---------------------------------------------------------------------------------------
# Spark's inner join as the reference


def random_stream(seed, size, keys, span):
    """Rows (k, ts, v): keys from ``keys`` (some NULL), times in [0, span) (some NULL), v the
    row's number; a few rows repeated verbatim (duplicates must give duplicate results)."""
    rnd = random.Random(seed)
    rows = []
    for v in range(size):
        k = None if rnd.random() < 0.08 else rnd.choice(keys)
        ts = None if rnd.random() < 0.08 else rnd.randrange(span)
        rows.append((k, ts, v))
    rows += [rows[i] for i in rnd.sample(range(size), size // 8)]
    return rows


def boundary_rows(key, w):
    """Per input A, B, C, D: rows exactly w apart (must join) and w + 1 apart (must not).
    Times from 1000 on, beyond the random rows."""
    a = [(key, 1000, 900), (key, 1000, 901)]              # a duplicate pair
    b = [(key, 1000 + w, 902), (key, 1000 + w + 1, 903)]  # on the bound, one past it
    c = [(key, 1000 + w, 904), (key, 1000 - 1, 905)]      # on the bound, one past it (to B)
    d = [(key, 1000 + w, 906), (key, 1000 + w + 1, 907)]  # on the bound, one past it (to A)
    return a, b, c, d


def make_inputs(spark, seed, n, *, keys, span, w, key_type="int", timestamps=False):
    """n inputs with random and boundary rows; k of ``key_type``, ts bigint or timestamp."""
    first_key = keys[0]
    streams = [random_stream(seed * 10 + i, 40, keys, span) + boundary_rows(first_key, w)[i] for i in range(n)]
    if timestamps:
        # ts in half seconds, so windows like "1.5 seconds" and exact boundaries occur.
        streams = [[(k, None if ts is None else T0 + dt.timedelta(milliseconds=500 * ts), v) for k, ts, v in s]
                   for s in streams]
        schema = f"k {key_type}, ts timestamp, v int"
    else:
        schema = f"k {key_type}, ts bigint, v int"
    return [spark.createDataFrame(s, schema) for s in streams]


def spark_reference(spark, dfs, lower, upper, keyed=True):
    """Spark's inner join: every pair i < j with ts_j BETWEEN ts_i - lower AND ts_i + upper
    (SQL expressions); k once when keyed, like on="k"."""
    names = [f"ref_{chr(ord('a') + i)}" for i in range(len(dfs))]
    for name, df in zip(names, dfs):
        df.createOrReplaceTempView(name)
    joins = []
    for j in range(1, len(dfs)):
        conditions = [f"{names[j]}.ts BETWEEN {names[i]}.ts - {lower} AND {names[i]}.ts + {upper}" for i in range(j)]
        if keyed:
            conditions.insert(0, f"{names[0]}.k = {names[j]}.k")
        joins.append(f"JOIN {names[j]} ON " + " AND ".join(conditions))
    columns = ([f"{names[0]}.k"] if keyed else []) + [
        f"{n}.{c}" for n in names for c in (("ts", "v") if keyed else ("k", "ts", "v"))]
    return rows_of(spark.sql(f"SELECT {', '.join(columns)} FROM {names[0]} " + " ".join(joins)))


@pytest.fixture(scope="module")
def two_way(spark):
    dfs = make_inputs(spark, 1, 2, keys=[1, 2, 3], span=80, w=3)
    return dfs, spark_reference(spark, dfs, 3, 3)


@pytest.fixture(scope="module")
def three_way(spark):
    dfs = make_inputs(spark, 2, 3, keys=[1, 2, 3], span=60, w=4)
    return dfs, spark_reference(spark, dfs, 4, 4)


def test_reference_data_is_not_trivial(two_way, three_way):
    """The references have results, NULLs and duplicates in the inputs, and the boundary
    combinations (exactly w apart) among their results; rows w + 1 apart are not."""
    (dfs2, expected2), (dfs3, expected3) = two_way, three_way
    assert len(expected2) > 30 and len(expected3) > 30
    for dfs in (dfs2, dfs3):
        rows = [tuple(r) for r in dfs[0].collect()]
        assert any(k is None for k, _, _ in rows) and any(ts is None for _, ts, _ in rows)
        assert len(set(rows)) < len(rows)
    assert expected2.count((1, 1000, 900, 1003, 902)) == 1
    assert not any(r[1:] == (1000, 900, 1004, 903) for r in expected2)
    assert expected3.count((1, 1000, 900, 1004, 902, 1004, 904)) == 1
    assert expected3.count((1, 1000, 901, 1004, 902, 1004, 904)) == 1
    assert not any(r[-1] == 905 and r[4] == 902 for r in expected3)   # C 5 before B


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_two_way_uniform_equals_spark_join(two_way, algorithm):
    dfs, expected = two_way
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_three_way_uniform_equals_spark_join(three_way, algorithm):
    dfs, expected = three_way
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=4, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_four_way_uniform_equals_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 9, 4, keys=[1, 2], span=40, w=3)
    expected = spark_reference(spark, dfs, 3, 3)
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert joined.columns == ["k"] + ["ts", "v"] * 4
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ["auto", "nlw", "mw"])
def test_three_way_uniform_without_key_equals_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 3, 3, keys=[1, 2], span=200, w=2)
    expected = spark_reference(spark, dfs, 2, 2, keyed=False)
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, time="ts", window=2, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.fixture(scope="module")
def string_keys(spark):
    dfs = make_inputs(spark, 4, 3, keys=["x", "y", "zz"], span=50, w=3, key_type="string")
    return dfs, spark_reference(spark, dfs, 3, 3)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_three_way_string_key_equals_spark_join(string_keys, algorithm):
    dfs, expected = string_keys
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", window=3, algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.fixture(scope="module")
def timestamps_three_way(spark):
    # w = 3 half seconds = 1.5 seconds
    dfs = make_inputs(spark, 5, 3, keys=[1, 2], span=60, w=3, timestamps=True)
    return dfs, spark_reference(spark, dfs, "INTERVAL 1.5 SECONDS", "INTERVAL 1.5 SECONDS")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_three_way_timestamps_equal_spark_join(timestamps_three_way, algorithm):
    dfs, expected = timestamps_three_way
    assert len(expected) > 10
    at = lambda half_seconds: T0 + dt.timedelta(milliseconds=500 * half_seconds)  # noqa: E731
    assert (1, at(1000), 900, at(1003), 902, at(1003), 904) in expected
    joined = wjoin.wjoin(dfs, on="k", time="ts", window="1500 milliseconds", algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_two_way_timestamps_equal_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 6, 2, keys=[1, 2, 3], span=100, w=4, timestamps=True)
    expected = spark_reference(spark, dfs, "INTERVAL 2 SECONDS", "INTERVAL 2 SECONDS")
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", window=dt.timedelta(seconds=2), algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_zero_window_joins_equal_times_only(spark, algorithm):
    dfs = make_inputs(spark, 7, 3, keys=[1], span=15, w=0)
    expected = spark_reference(spark, dfs, 0, 0)
    assert len(expected) > 10
    assert rows_of(wjoin.wjoin(dfs, on="k", time="ts", window=0, algorithm=algorithm)) == expected


def spark_chain(spark, dfs, ab, bc):
    """Spark's inner join of three inputs (views pa, pb, pc) on k, with time conditions ab
    (pa-pb) and bc (pb-pc)."""
    for name, df in zip(("pa", "pb", "pc"), dfs):
        df.createOrReplaceTempView(name)
    return rows_of(spark.sql(
        "SELECT pa.k, pa.ts, pa.v, pb.ts, pb.v, pc.ts, pc.v FROM pa "
        f"JOIN pb ON pa.k = pb.k AND {ab} JOIN pc ON pb.k = pc.k AND {bc}"))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.core
def test_per_pair_and_travel_time_equal_spark_join(spark, algorithm):
    dfs = make_inputs(spark, 8, 3, keys=[1, 2], span=60, w=3)
    expected = spark_chain(spark, dfs, "pb.ts BETWEEN pa.ts - 3 AND pa.ts + 3", "pc.ts - pb.ts BETWEEN 2 AND 6")
    assert len(expected) > 10
    joined = wjoin.wjoin(dfs, on="k", time="ts", windows="WINDOW(A,B) = 3 AND DWINDOW(B,C) = [2, 6]",
                         algorithm=algorithm)
    assert rows_of(joined) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_negative_lower_bounds_equal_spark_interval_join(spark, algorithm):
    # B at most 5 before A and at most 10 after; C 4 to 1 before B (both ends negative).
    dfs = make_inputs(spark, 9, 3, keys=[1, 2], span=60, w=5)
    expected = spark_chain(spark, dfs, "pb.ts BETWEEN pa.ts - 5 AND pa.ts + 10", "pc.ts BETWEEN pb.ts - 4 AND pb.ts - 1")
    assert len(expected) > 10
    for windows in ("DWINDOW(A,B) = [-5, 10] AND DWINDOW(B,C) = [-4, -1]",
                    {("A", "B"): (-5, 10), ("B", "C"): (-4, -1)},
                    [wjoin.directed("A", "B", 10, -5), wjoin.directed("B", "C", -1, -4)]):
        joined = wjoin.wjoin(dfs, on="k", time="ts", windows=windows, algorithm=algorithm)
        assert rows_of(joined) == expected, windows


def test_negative_lower_bound_on_timestamps_equals_spark_interval_join(spark):
    dfs = make_inputs(spark, 10, 2, keys=[1, 2, 3], span=100, w=4, timestamps=True)
    for name, df in zip(("ta_neg", "tb_neg"), dfs):
        df.createOrReplaceTempView(name)
    expected = rows_of(spark.sql(
        "SELECT ta_neg.k, ta_neg.ts, ta_neg.v, tb_neg.ts, tb_neg.v FROM ta_neg JOIN tb_neg ON ta_neg.k = tb_neg.k "
        "AND tb_neg.ts BETWEEN ta_neg.ts - INTERVAL 1.5 SECONDS AND ta_neg.ts + INTERVAL 3 SECONDS"))
    assert len(expected) > 10
    for windows in ("DWINDOW(A,B) = [-1.5 seconds, 3 seconds]", "DWINDOW(A,B) = [INTERVAL -1.5 SECONDS, 3 seconds]",
                    [wjoin.directed("A", "B", dt.timedelta(seconds=3), dt.timedelta(seconds=-1.5))]):
        assert rows_of(wjoin.wjoin(dfs, on="k", windows=windows)) == expected, windows


# ---------------------------------------------------------------------------------------
# brute force reference

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
@settings(max_examples=15, deadline=None)
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
@settings(max_examples=20, deadline=None)
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


@pytest.mark.parametrize("algorithm", ["hw", "mw", "nlw"])
def test_pre_partitioned_and_sorted_inputs_equal_spark_join(three_way, algorithm):
    """Inputs already partitioned (by the key into other partition counts, by time, one
    partition) or sorted against the time order give the same answer."""
    (a, b, c), expected = three_way
    inputs = [a.repartition(7, "k"), b.repartition(3, "ts").orderBy(F.desc("ts")), c.coalesce(1)]
    joined = wjoin.wjoin(inputs, on="k", time="ts", window=4, algorithm=algorithm)
    assert rows_of(joined) == expected
