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


def is_connect(spark) -> bool:
    """A Spark Connect session (classic sessions have a `client` property too: it raises)."""
    return type(spark).__module__.startswith("pyspark.sql.connect.")


@contextmanager
def job_counter(spark):
    """Counts the Spark jobs started inside the block: yields a callable returning the ids.

    On a Spark Connect session, counts the plans the client sends for execution (every job
    starts from one; analysis, where every W-join check runs, sends none)."""
    if is_connect(spark):
        with _executions(spark.client) as sent:
            yield sent
        return
    sc = spark.sparkContext
    group = f"wjoin-test-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "jobs counted by the test suite")
    try:
        yield lambda: list(sc.statusTracker().getJobIdsForGroup(group))
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)


@contextmanager
def _executions(client):
    """The ExecutePlan requests a Connect client builds inside the block (all go through one method)."""
    sent = []
    build = client._execute_plan_request_with_metadata

    def recording(*args, **kwargs):
        request = build(*args, **kwargs)
        sent.append(request)
        return request

    def jobs():
        # spark.sql sends a query as a command that only analyzes it (and returns a relation);
        # jobs start from plans of a relation or of other commands.
        return [r.operation_id or f"request {i}" for i, r in enumerate(sent)
                if not (r.plan.HasField("command") and r.plan.command.HasField("sql_command"))]

    client._execute_plan_request_with_metadata = recording
    try:
        yield jobs
    finally:
        del client._execute_plan_request_with_metadata


def wjoin_reference(inputs, window, how="inner") -> list[tuple]:
    """The W-join by its definition, as a bag of id tuples: every combination of one row per input
    with one key and times pairwise at most `window` apart; how="left" adds (id, None, ...) for each
    first-input row in no combination. `inputs`: per input a list of (key, time, id) rows."""
    import itertools
    combos = [tuple(r[2] for r in combo) for combo in itertools.product(*inputs)
              if len({r[0] for r in combo}) == 1
              and all(abs(x[1] - y[1]) <= window for x, y in itertools.combinations(combo, 2))]
    if how == "left":
        matched = {c[0] for c in combos}
        combos += [(r[2],) + (None,) * (len(inputs) - 1) for r in inputs[0] if r[2] not in matched]
    return bag(combos)
