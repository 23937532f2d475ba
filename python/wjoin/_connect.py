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
message as ValueError (as on classic PySpark).
"""
from __future__ import annotations

from typing import Dict

from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql.connect import proto as spark_proto
from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
from pyspark.sql.connect.plan import LogicalPlan

from ._version import __version__
from .proto import wjoin_connect_pb2 as wjoin_proto


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
            on=args["on"], bidirectional=args["bidirectional"], client_version=__version__)
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
        for key in ("window", "algorithm", "window_strategy", "access_paths", "expiration_interval", "how"):
            if args.get(key) is not None:
                setattr(message, key, args[key])
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
        if args.get("seed") is not None:
            message.seed = args["seed"]
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
    """The W-join of Connect DataFrames of ``session``, analyzed at once (errors become ValueError)."""
    if any(df.sparkSession is not session for df in dfs):
        raise ValueError("all W-join inputs must belong to the same SparkSession")
    joined = ConnectDataFrame(WJoinPlan([df._plan for df in dfs], arguments), session)
    try:
        joined.schema  # analysis on the server: every check of the arguments runs now
    except (IllegalArgumentException, AnalysisException) as e:
        raise ValueError(server_message(e)) from None
    return joined


def server_message(error: Exception) -> str:
    """The JVM's own message of a server error (no error class, no stack trace)."""
    message = getattr(error, "_message", None) or str(error)
    return message.removeprefix("requirement failed: ")
