"""Per-stream time-based windows RANGE(X) = T: max(ts) - ts_X <= T (Golab & Özsu)."""
import itertools

import pytest

import wjoin
from helpers import rows_of


@pytest.fixture(scope="module")
def tables(spark):
    # Golab & Özsu Table 2: all attr = 1; every window 100 s long.
    s1 = spark.createDataFrame([(1, 90, "s1a"), (1, 100, "s1b")], "k int, ts bigint, v string")
    s2 = spark.createDataFrame([(1, 150, "s2a"), (1, 180, "s2b")], "k int, ts bigint, v string")
    s3 = spark.createDataFrame([(1, 195, "s3a"), (1, 205, "s3b")], "k int, ts bigint, v string")
    return {"S1": s1, "S2": s2, "S3": s3}


@pytest.mark.parametrize("algorithm", ["auto", "nlw", "hw", "mw"])
def test_golab_ozsu_table_3_correct_results(tables, algorithm):
    out = wjoin.wjoin(tables, on="k", time="ts", algorithm=algorithm,
                      windows="RANGE(S1) = 100 AND RANGE(S2) = 100 AND RANGE(S3) = 100")
    assert rows_of(out.select("S1.ts", "S2.ts", "S3.ts")) == [(100, 150, 195), (100, 180, 195)]


def test_unequal_ranges_against_brute_force(spark):
    rows = {name: [(k % 2, t, f"{name}{t}") for k, t in enumerate(times)]
            for name, times in {"A": [0, 4, 9, 13], "B": [2, 3, 10, 15], "C": [5, 6, 12, 14]}.items()}
    dfs = {name: spark.createDataFrame(r, "k int, ts bigint, v string") for name, r in rows.items()}
    ranges = {"A": 6, "B": 3, "C": 8}
    expected = sorted(
        (a[2], b[2], c[2]) for a, b, c in itertools.product(rows["A"], rows["B"], rows["C"])
        if a[0] == b[0] == c[0] and all(max(a[1], b[1], c[1]) - m[1] <= ranges[n]
                                        for n, m in (("A", a), ("B", b), ("C", c))))
    assert expected
    terms = [wjoin.range_window(name, length) for name, length in ranges.items()]
    for algorithm in ("hw", "mw", "nlw"):
        out = wjoin.wjoin(dfs, on="k", time="ts", windows=terms, algorithm=algorithm)
        assert rows_of(out.select("A.v", "B.v", "C.v")) == expected, algorithm


def test_range_on_one_input_only_leaves_the_others_unbounded(tables):
    with pytest.raises(ValueError, match=r"input S\d has no window bound"):
        wjoin.wjoin(tables, on="k", time="ts", windows="RANGE(S1) = 100")


def test_range_names_a_known_input(tables):
    with pytest.raises(ValueError, match=r"names input 'S9'"):
        wjoin.wjoin(tables, on="k", time="ts", windows="RANGE(S9) = 100")
