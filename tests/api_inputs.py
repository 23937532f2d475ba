"""The small inputs of the API tests (test_api*.py): integral time, each row named, and the
expected rows of a combination of named rows."""
import pytest

from helpers import bag

# Integral time. Input rows by name: (k, ts, value).
A_ROWS = {"a1": (1, 10, "a1"), "a2": (1, 20, "a2"), "a3": (2, 12, "a3")}
B_ROWS = {"b1": (1, 12, "b1"), "b2": (1, 17, "b2")}
C_ROWS = {"c1": (1, 11, "c1"), "c2": (1, 16, "c2"), "c3": (1, 24, "c3")}
ROWS = {**A_ROWS, **B_ROWS, **C_ROWS}


def keyed(*combos):
    """Expected rows for on="k": k once, then (ts, value) of each member in input order."""
    out = []
    for combo in combos:
        members = [ROWS[name] for name in combo]
        assert len({m[0] for m in members}) == 1, "a keyed combination has one key"
        row = (members[0][0],)
        for _, ts, value in members:
            row += (ts, value)
        out.append(row)
    return bag(out)


def unkeyed(*combos):
    """Expected rows without on-names: every column of every member, in input order."""
    return bag(sum((ROWS[name] for name in combo), ()) for combo in combos)


@pytest.fixture(scope="module")
def a(spark):
    return spark.createDataFrame(list(A_ROWS.values()), "k int, ts bigint, va string")


@pytest.fixture(scope="module")
def b(spark):
    return spark.createDataFrame(list(B_ROWS.values()), "k int, ts bigint, vb string")


@pytest.fixture(scope="module")
def c(spark):
    return spark.createDataFrame(list(C_ROWS.values()), "k int, ts bigint, vc string")


# Uniform window 5 over A, B, C with key k (pairwise distances in brackets):
#   a1 b1 c1 (2, 1, 1) yes; a2 b2 c2 (3, 4, 1) yes; a1 b1 c2 (A-C 6) no; a2 b2 c3 (B-C 7) no;
#   a1 b2 (7) no; a2 b1 (8) no; a3 has key 2 (it would match b1 c1 by time alone).
UNIFORM5 = keyed(("a1", "b1", "c1"), ("a2", "b2", "c2"))
