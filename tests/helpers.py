"""Small helpers shared by the test modules (imported as ``helpers``)."""
from __future__ import annotations

import uuid
from contextlib import contextmanager


def rows_of(df) -> list[tuple]:
    """The rows of ``df`` as a sorted list of plain tuples (a multiset, comparable with ==).

    Sorted by repr, so rows holding NULLs sort too; equal rows stay adjacent and keep their
    multiplicity.
    """
    return sorted((tuple(r) for r in df.collect()), key=repr)


def bag(rows) -> list[tuple]:
    """Plain tuples sorted like :func:`rows_of` (for hand-written expectations)."""
    return sorted((tuple(r) for r in rows), key=repr)


def executed_plan(df) -> str:
    """The executed physical plan, after running the query (with AQE the final plan exists
    only once the query ran)."""
    df.collect()
    return df._jdf.queryExecution().executedPlan().toString()


@contextmanager
def job_counter(spark):
    """Counts the Spark jobs started inside the block: yields a callable returning the ids."""
    sc = spark.sparkContext
    group = f"wjoin-test-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "jobs counted by the test suite")
    try:
        yield lambda: list(sc.statusTracker().getJobIdsForGroup(group))
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
