"""The W-join from a Spark Connect client (``SparkSession.builder.remote(...)``).

The client sends the same plain arguments as the classic path (:func:`wjoin._api._arguments`)
in a ``WJoinRelation`` message (proto/wjoin_connect.proto), packed into a Connect relation's
``extension`` field::

    Relation(common.plan_id, extension = Any(WJoinRelation(
        inputs    = [each input's Relation, serialized],
        condition = the Column's Expression, serialized,
        names, on, time, window, windows, algorithm, ... as given)))

The server's plugin ``wjoin.connect.WJoinRelationPlugin`` turns it into the map the classic
path passes to ``wjoin.WJoin.fromArguments``: the same checks, plan, results and EXPLAIN.
The schema is asked for at once, so a misuse fails at the call, before any job, with the JVM's
``WJOIN_`` error as :class:`wjoin.WJoinAnalysisException` (as on classic PySpark). A server
without the plugin answers ``CONNECT_INVALID_PLAN.NO_HANDLER_FOR_EXTENSION`` naming the message;
the client raises WJOIN_CONNECT_PLUGIN_MISSING instead, which names the settings it needs.
"""
from __future__ import annotations

from typing import Dict

from pyspark.errors import AnalysisException
from pyspark.errors.exceptions.base import PySparkException
from pyspark.sql.connect import proto as spark_proto
from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
from pyspark.sql.connect.plan import LogicalPlan

from ._api import CONNECT_PLUGIN
from ._errors import condition_of, converted, error
from ._version import __version__
from .proto import wjoin_connect_pb2 as wjoin_proto


# Options that are not a plain field of the message of the same name (written one by one below).
_STRUCTURED = frozenset({"names", "on", "condition", "time", "windows", "limits", "allocation"})


class WJoinPlan(LogicalPlan):
    """A W-join node of a Connect client's plan: its inputs' plans and the plain arguments."""

    def __init__(self, inputs: list[LogicalPlan], arguments: dict) -> None:
        super().__init__(None)
        self._inputs = inputs
        self._arguments = arguments

    def message(self, session) -> wjoin_proto.WJoinRelation:
        """The arguments as a ``WJoinRelation`` (unset fields: the JVM's defaults)."""
        args = self._arguments
        message = wjoin_proto.WJoinRelation(
            inputs=[p.plan(session).SerializeToString() for p in self._inputs],
            on=args["on"], client_version=__version__)
        if args["names"] is not None:
            message.names.values.extend(args["names"])
        if args["condition"] is not None:
            message.condition = args["condition"].to_plan(session).SerializeToString()
        time = args["time"]
        if isinstance(time, str):
            message.time_column = time
        elif isinstance(time, dict):
            message.time_by_input.columns.extend(
                wjoin_proto.InputColumn(input=i, column=c) for i, c in time.items())
        elif time is not None:
            message.time_per_input.values.extend(time)
        if args["windows"] is not None:
            message.windows.values.extend(args["windows"])
        # Every other option that is a plain value is its own field of the same name.
        fields = wjoin_proto.WJoinRelation.DESCRIPTOR.fields_by_name
        for key, value in args.items():
            if key in _STRUCTURED or value is None:
                continue
            if key not in fields or fields[key].type == fields[key].TYPE_MESSAGE:
                raise TypeError(f"{key}: this client's WJoinRelation has no plain field for it")
            try:
                setattr(message, key, value)
            except (TypeError, ValueError) as e:  # e.g. a seed beyond the field's int64
                raise ValueError(f"{key}: {value!r} cannot be sent in this client's WJoinRelation ({e})") from None
        if args.get("limits") is not None:
            message.limits.SetInParent()  # set even when empty: the server rejects an empty map by name
            message.limits.values.update({k: float(v) for k, v in args["limits"].items()})
        allocation = args.get("allocation")
        if isinstance(allocation, str):
            message.allocation_name = allocation
        elif allocation is not None and all(isinstance(v, dict) for v in allocation.values()):
            for budget, shares in allocation.items():
                message.allocation_per_budget.budgets[budget].values.update({k: float(v) for k, v in shares.items()})
        elif allocation is not None:
            message.allocation_shares.values.update({k: float(v) for k, v in allocation.items()})
        return message

    def plan(self, session) -> spark_proto.Relation:
        relation = self._create_proto_relation()
        relation.extension.Pack(self.message(session))
        return relation

    @property
    def observations(self) -> Dict[str, object]:
        found: Dict[str, object] = {}
        for p in self._inputs:
            found.update(p.observations)
        return found


def connect_wjoin(session, dfs: list, arguments: dict):
    """The W-join of Connect DataFrames of ``session``, analyzed at once (errors become WJoinAnalysisException)."""
    if any(df.sparkSession is not session for df in dfs):
        raise error("WJOIN_SESSION_MISMATCH")
    plan = WJoinPlan([df._plan for df in dfs], arguments)
    # PySpark 3.5 makes a DataFrame of a plan with withPlan; PySpark 4 takes the plan first.
    joined = ConnectDataFrame.withPlan(plan, session) if hasattr(ConnectDataFrame, "withPlan") \
        else ConnectDataFrame(plan, session)
    try:
        joined.schema  # analysis on the server: every check of the arguments runs now
    except PySparkException as e:
        wjoin_error = _no_plugin(e) or (converted(e) if isinstance(e, AnalysisException) else None)
        if wjoin_error is None:
            raise
        raise wjoin_error from None
    return joined


def _no_plugin(e: PySparkException):
    """WJOIN_CONNECT_PLUGIN_MISSING when ``e`` is the server's answer to a relation no plugin handles."""
    condition = condition_of(e) or ""
    text = str(e)
    if condition.startswith("CONNECT_INVALID_PLAN") and "NO_HANDLER_FOR_EXTENSION" in text + condition \
            and wjoin_proto.WJoinRelation.DESCRIPTOR.full_name in text:
        return error("WJOIN_CONNECT_PLUGIN_MISSING", plugin=CONNECT_PLUGIN)
    return None
