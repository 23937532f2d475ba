"""The Python API's plan and conditions: our WindowJoin operator runs, the algorithm auto
chooses, EXPLAIN, conditions over several inputs, SQL expressions and Python UDFs."""
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

import wjoin
from api_inputs import UNIFORM5, a, b, c, keyed  # noqa: F401 (fixtures)
from helpers import bag, executed_plan, rows_of

def test_plan_runs_the_window_join_operator(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on="k", time="ts", window=5))
    assert "WindowJoin" in plan, plan
    for spark_join in ("SortMergeJoin", "BroadcastHashJoin", "ShuffledHashJoin", "BroadcastNestedLoopJoin",
                       "CartesianProduct"):
        assert spark_join not in plan, plan


def test_auto_picks_hw_with_a_shared_key(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on="k", time="ts", window=5))
    assert "WindowJoin hw" in plan, plan


def test_auto_picks_hw_with_a_key_given_as_columns(a, b, c):
    on = (F.col("A.k") == F.col("B.k")) & (F.col("B.k") == F.col("C.k"))
    plan = executed_plan(wjoin.wjoin([a, b, c], on=on, time="ts", window=5))
    assert "WindowJoin hw" in plan, plan


def test_auto_picks_mw_without_a_key(a, b):
    plan = executed_plan(wjoin.wjoin([a, b], time="ts", window=5))
    assert "WindowJoin mw" in plan, plan


def test_auto_picks_mw_when_the_key_is_not_shared_by_all(a, b, c):
    plan = executed_plan(wjoin.wjoin([a, b, c], on=F.col("A.k") == F.col("B.k"), time="ts", window=5))
    assert "WindowJoin mw" in plan, plan


@pytest.mark.parametrize("algorithm", ["nlw", "hw", "mw", "NLW", "Mw"])
def test_explicit_algorithm_is_used_and_agrees(a, b, c, algorithm):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", window=5, algorithm=algorithm)
    assert f"WindowJoin {algorithm.lower()}" in executed_plan(joined)
    assert rows_of(joined) == UNIFORM5


def test_explain_names_inputs_and_window_matrix(a, b):
    plan = executed_plan(wjoin.wjoin({"P": a, "Q": b}, on="k", time="ts", windows="DWINDOW(P,Q) = [1, 4]"))
    # upper(P, Q) = -1 (Q at least 1 after P), upper(Q, P) = 4
    assert "inputs=[P, Q]" in plan, plan
    assert "matrix=[[0, -1], [4, 0]]" in plan, plan


def test_filters_and_projections_on_the_result(a, b, c):
    joined = wjoin.wjoin([a, b, c], on="k", time="ts", windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    got = rows_of(joined.where(F.col("C.ts") > F.col("B.ts")).where(F.col("A.va") == "a2")
                  .select(F.col("C.vc"), (F.col("C.ts") - F.col("A.ts")).alias("d")))
    # PER_PAIR with C after B: a1 b1 c2, a2 b2 c3; of those with a2: c3 (24 - 20).
    assert got == [("c3", 4)]


def test_condition_over_three_inputs(a, b, c):
    joined = wjoin.wjoin([a, b, c], on=["k", F.col("A.ts") + F.col("C.ts") > 2 * F.col("B.ts")], time="ts",
                         windows="WINDOW(A,B) = 3 AND WINDOW(B,C) = 7")
    # PER_PAIR with A + C > 2 B: a1 b1 c1 (21 > 24 no), a1 b1 c2 (26 > 24), a2 b2 c1 (31 > 34 no),
    # a2 b2 c2 (36 > 34), a2 b2 c3 (44 > 34).
    assert rows_of(joined) == keyed(("a1", "b1", "c2"), ("a2", "b2", "c2"), ("a2", "b2", "c3"))


def test_sql_expression_condition(a, b):
    joined = wjoin.wjoin([a, b], on=[F.expr("A.k = B.k AND substr(A.va, 2) = substr(B.vb, 2)")], time="ts", window=8)
    # window 8 admits all four keyed pairs; the digits must agree: a1 b1, a2 b2.
    assert rows_of(joined.select("A.va", "B.vb")) == bag([("a1", "b1"), ("a2", "b2")])


# Python UDFs (useArrow=False: pyarrow is not a dependency). The spec allows "any other
# boolean Spark expression over the N rows, UDFs included".
_less = F.udf(lambda x, y: x < y, BooleanType(), useArrow=False)


def test_python_udf_over_one_input_filters_the_result(a, b):
    joined = wjoin.wjoin([a, b], on="k", time="ts", window=5).where(_less(F.col("A.ts"), F.lit(15)))
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_python_udf_over_two_inputs_filters_the_result(a, b):
    # Works on any DataFrame (and on Spark's own join of a and b); here: a1 b1 (10 < 12) remains.
    joined = wjoin.wjoin([a, b], on="k", time="ts", window=5).where(_less(F.col("A.ts"), F.col("B.ts")))
    assert rows_of(joined) == keyed(("a1", "b1"))


def test_python_udf_in_the_join_condition(a, b):
    joined = wjoin.wjoin([a, b], on=["k", _less(F.col("A.ts"), F.col("B.ts"))], time="ts", window=5)
    assert rows_of(joined) == keyed(("a1", "b1"))
