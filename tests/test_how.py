"""how="left" | "left_semi" | "left_anti": the first input is the anchor.

* 2 inputs against Spark's own left outer / left semi / left anti joins with BETWEEN bounds,
  on data with NULL keys, NULL times and duplicate rows, for every algorithm;
* N = 2..4 and every window form against a brute-force Python reference (every combination of
  one row per input; an anchor row is matched iff it is the first member of one);
* the "never completed the journey" example, errors, SQL.
"""
import itertools
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyspark.errors import AnalysisException

import wjoin
from helpers import bag, rows_of
from test_differential import make_inputs

ALGORITHMS = ["auto", "nlw", "hw", "mw"]
SPARK_HOW = {"left": "left_outer", "left_semi": "left_semi", "left_anti": "left_anti"}


@pytest.fixture(scope="module")
def two_inputs(spark):
    return make_inputs(spark, 11, 2, keys=[1, 2, 3], span=80, w=3)


@pytest.mark.parametrize("how", list(SPARK_HOW))
@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("lo, hi", [(-2, 3), (0, 4), (1, 1)])
def test_two_inputs_equal_spark_joins(spark, two_inputs, how, algorithm, lo, hi):
    a, b = two_inputs
    a.createOrReplaceTempView("how_a")
    b.createOrReplaceTempView("how_b")
    columns = "a.k, a.ts, a.v, b.ts, b.v" if how == "left" else "a.k, a.ts, a.v"
    expected = rows_of(spark.sql(
        f"SELECT {columns} FROM how_a a {SPARK_HOW[how].replace('_', ' ')} JOIN how_b b "
        f"ON a.k = b.k AND b.ts BETWEEN a.ts + {lo} AND a.ts + {hi}"))
    joined = wjoin.wjoin({"A": a, "B": b}, on="k", time="ts", windows={("A", "B"): (lo, hi)}, algorithm=algorithm,
                         how=how)
    assert joined.columns == (["k", "ts", "v", "ts", "v"] if how == "left" else ["k", "ts", "v"])
    got = rows_of(joined)
    assert got == expected
    # NULL keys and times never match: left and left_anti keep those anchor rows, once each.
    nulls = [r for r in got if r[0] is None or r[1] is None]
    assert (len(nulls) > 0) == (how != "left_semi")


# ---------------------------------------------------------------------------------------
# Brute force

FORMS = {
    # name -> (windows argument, check over the times of one combination)
    "uniform": ("WINDOW = 4", lambda t: all(abs(x - y) <= 4 for x, y in itertools.combinations(t, 2))),
    "per pair and missing pairs": ("WINDOW(A,B) = 3 AND WINDOW(B,C) = 2",
                                   lambda t: abs(t[0] - t[1]) <= 3 and (len(t) < 3 or abs(t[1] - t[2]) <= 2)),
    "travel time": ("DWINDOW(A,B) = [1, 5] AND DWINDOW(B,C) = [-2, 3]",
                    lambda t: 1 <= t[1] - t[0] <= 5 and (len(t) < 3 or -2 <= t[2] - t[1] <= 3)),
    "range": ("WINDOW = 6 AND RANGE(B) = 2",
              lambda t: all(abs(x - y) <= 6 for x, y in itertools.combinations(t, 2)) and max(t) - t[1] <= 2),
}


def terms_for(form, n):
    """The form's terms restricted to the first n inputs (a term on a missing input is dropped)."""
    names = "ABCD"[:n]
    text, _ = FORMS[form]
    kept = [term for term in text.split(" AND ")
            if "(" not in term or all(c in names for c in term.split("(", 1)[1].split(")")[0].split(","))]
    if n == 4 and form != "uniform":
        kept.append("WINDOW(C,D) = 3")
    return " AND ".join(kept)


def brute_force(streams, check, how, keyed):
    """The anchored W-join by its definition, as tuples of (k?, ts, v) per input."""
    matched = set()
    inner = []
    for combo in itertools.product(*[list(enumerate(s)) for s in streams]):
        rows = [r for _, r in combo]
        times = [r[1] for r in rows]
        if any(t is None for t in times):
            continue
        if keyed and (any(r[0] is None for r in rows) or len({r[0] for r in rows}) != 1):
            continue
        if check(times):
            matched.add(combo[0][0])
            inner.append(rows)
    anchor = list(enumerate(streams[0]))
    own = (lambda r: tuple(r)) if keyed else (lambda r: tuple(r))
    if how == "left_semi":
        return bag(own(r) for i, r in anchor if i in matched)
    if how == "left_anti":
        return bag(own(r) for i, r in anchor if i not in matched)
    width = len(streams) - 1
    pad = (None, None) if keyed else (None, None, None)
    flat = lambda rows: (tuple(rows[0]) + sum((tuple(r[1:]) if keyed else tuple(r) for r in rows[1:]), ()))  # noqa
    return bag([flat(rows) for rows in inner] +
               [tuple(r) + pad * width for i, r in anchor if i not in matched])


@pytest.mark.parametrize("how", list(SPARK_HOW))
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("form", list(FORMS))
def test_every_form_equals_brute_force(spark, how, n, form):
    rnd = random.Random(hash((how, n, form)) % 1000)
    size = {2: 30, 3: 16, 4: 9}[n]
    streams = [[(None if rnd.random() < 0.1 else rnd.choice([1, 2]),
                 None if rnd.random() < 0.1 else rnd.randrange(30), rnd.randrange(100)) for _ in range(size)]
               for _ in range(n)]
    streams[0].append(streams[0][0])  # a duplicate anchor row is decided twice
    dfs = {name: spark.createDataFrame(s, "k int, ts bigint, v int") for name, s in zip("ABCD", streams)}
    form_check = FORMS[form][1]
    check = form_check if n < 4 or form == "uniform" else (lambda t: form_check(t) and abs(t[2] - t[3]) <= 3)
    expected = brute_force(streams, check, how, keyed=True)
    for algorithm in ("hw", "mw", "nlw"):
        got = rows_of(wjoin.wjoin(dfs, on="k", time="ts", windows=terms_for(form, n), algorithm=algorithm, how=how))
        assert got == expected, (form, n, how, algorithm)


@given(st.integers(0, 10_000), st.sampled_from(list(SPARK_HOW)), st.integers(-3, 3), st.integers(0, 5))
def test_keyless_travel_time_equals_brute_force(spark, seed, how, lo, width):
    rnd = random.Random(seed)
    streams = [[(rnd.randrange(3), None if rnd.random() < 0.1 else rnd.randrange(25), rnd.randrange(100))
                for _ in range(10)] for _ in range(3)]
    check = lambda t: lo <= t[1] - t[0] <= lo + width and 0 <= t[2] - t[1] <= 3  # noqa: E731
    expected = brute_force(streams, check, how, keyed=False)
    dfs = {name: spark.createDataFrame(s, "k int, ts bigint, v int") for name, s in zip("ABC", streams)}
    got = rows_of(wjoin.wjoin(dfs, time="ts", windows=f"DWINDOW(A,B) = [{lo}, {lo + width}] AND DWINDOW(B,C) = 3",
                              how=how))
    assert got == expected


def test_sql_using_left_anti_join(spark):
    cam1 = spark.createDataFrame([(1, 0), (2, 5), (3, 10), (None, 12)], "car int, ts bigint")
    cam2 = spark.createDataFrame([(1, 60), (2, 500), (3, 70)], "car int, ts bigint")
    cam1.createOrReplaceTempView("how_cam1")
    cam2.createOrReplaceTempView("how_cam2")
    got = spark.sql("SELECT A.car, A.ts FROM how_cam1 A, how_cam2 B DWINDOW(A,B) = [30, 120] USING TIME ts "
                    "USING LEFT ANTI JOIN WHERE A.car = B.car")
    assert rows_of(got) == bag([(2, 5), (None, 12)])


def test_sparks_spellings_of_each_how_give_its_rows(two_inputs):
    a, b = two_inputs
    for how, spellings in {"left": ["left_outer", "LeftOuter", " LEFT "], "left_semi": ["leftsemi", "semi", "Left_Semi"],
                           "left_anti": ["leftanti", "anti"], "inner": ["INNER"]}.items():
        expected = rows_of(wjoin.wjoin([a, b], on="k", time="ts", window=3, how=how))
        for spelling in spellings:
            assert rows_of(wjoin.wjoin([a, b], on="k", time="ts", window=3, how=spelling)) == expected, spelling


def test_how_errors(spark, two_inputs):
    a, b = two_inputs
    with pytest.raises(ValueError, match="unknown how 'right'; use one of inner, left, left_semi, left_anti"):
        wjoin.wjoin([a, b], on="k", time="ts", window=3, how="right")
    for spelling in ("full_outer", "cross", "left__outerx", ""):
        with pytest.raises(ValueError, match="unknown how"):
            wjoin.wjoin([a, b], on="k", time="ts", window=3, how=spelling)
    with pytest.raises(TypeError, match="how: expected a string"):
        wjoin.wjoin([a, b], on="k", time="ts", window=3, how=1)
    with pytest.raises(ValueError, match="bidirectional"):
        wjoin.wjoin([a, b], on="k", time="ts", windows="DWINDOW(A,B) = 3", bidirectional=True, how="left_anti")


@pytest.mark.parametrize("how", list(SPARK_HOW))
def test_python_udf_over_one_input_is_part_of_the_join_predicate(spark, two_inputs, how):
    """A Python UDF over one input, the anchor included, also with a ROWS window on it, gives
    the answer of the same predicate written as a SQL expression; one over two inputs is
    refused, from the API and from SQL."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import BooleanType
    a, b = two_inputs
    odd = F.udf(lambda v: v is not None and v % 2 == 1, BooleanType(), useArrow=False)
    for name in ("A", "B"):
        for windows in ({("A", "B"): (-2, 3)}, f"DWINDOW(A,B) = [-2, 3] AND ROWS({name}) = 3"):
            def joined(predicate):
                return wjoin.wjoin({"A": a, "B": b}, on=[F.col("A.k") == F.col("B.k"), predicate], time="ts",
                                   windows=windows, how=how, algorithm="mw")
            expected = rows_of(joined(F.coalesce(F.col(f"{name}.v") % 2 == 1, F.lit(False))))
            assert rows_of(joined(odd(F.col(f"{name}.v")))) == expected
            assert expected != rows_of(joined(F.lit(True)))
    with pytest.raises(ValueError, match=r"WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN.*over several inputs"):
        wjoin.wjoin({"A": a, "B": b}, on=[F.col("A.k") == F.col("B.k"), odd(F.col("A.v") + F.col("B.v"))],
                    time="ts", window=3, how=how)
    spark.udf.register("wjoin_odd", lambda v: v is not None and v % 2 == 1, BooleanType())
    a.createOrReplaceTempView("how_udf_a")
    b.createOrReplaceTempView("how_udf_b")
    join = {"left": "LEFT OUTER", "left_semi": "LEFT SEMI", "left_anti": "LEFT ANTI"}[how]
    query = ("SELECT A.k FROM how_udf_a A, how_udf_b B WINDOW = 3 USING TIME ts USING {} JOIN "
             "WHERE A.k = B.k AND wjoin_odd({})")
    assert rows_of(spark.sql(query.format(join, "B.v"))) == rows_of(spark.sql(query.format(join, "B.v % 2 = 1")))
    with pytest.raises(AnalysisException, match=r"WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN"):
        spark.sql(query.format(join, "A.v + B.v")).schema


def test_never_completed_example(spark, tmp_path):
    """examples/never_completed.py: the stream reports exactly the vehicles the batch W-join and
    the simulation say never completed the journey, each once."""
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "never_completed.py"
    spec = importlib.util.spec_from_file_location("never_completed", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    reported, expected, lost = example.run(spark, str(tmp_path))
    assert len(lost) > 5
    assert reported == expected == lost


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_rows_window_with_tied_times_gives_one_answer_whatever_is_selected(spark, algorithm):
    # B's rows at one time are ordered by their other columns (id, k), all of them kept by
    # column pruning: (2003, -2, 0) is B's last row at time 2, so both A rows complete.
    rows = {"A": [(1000, -10, 0), (1001, -15, 0)],
            "B": [(2000, -10, 1), (2002, -10, 0), (2001, -2, 1), (2003, -2, 0)],
            "C": [(3001, 2, 0)]}
    inputs = {n: spark.createDataFrame(r, "id bigint, t bigint, k int") for n, r in rows.items()}

    def joined(how="inner"):
        return wjoin.wjoin(inputs, on="k", time="t", windows="ROWS(B) = 1 AND RANGE(A) = 200 AND RANGE(C) = 200",
                           how=how, algorithm=algorithm, output_names="prefixed")
    assert rows_of(joined().select("A_id", "B_id", "C_id")) == [(1000, 2003, 3001), (1001, 2003, 3001)]
    assert joined().count() == 2
    assert rows_of(joined().select("A_id")) == [(1000,), (1001,)]
    assert rows_of(joined().select("A_id", "B_t")) == [(1000, -2), (1001, -2)]
    assert rows_of(joined("left_semi").select("A_id")) == [(1000,), (1001,)]
    assert rows_of(joined("left_anti")) == []
