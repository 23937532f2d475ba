"""The Python side of the W-join: checks Python types, converts values to plain data
(:func:`_arguments`), and makes one call into the JVM facade ``wjoin.WJoin.fromArguments``
(:func:`_classic`), which checks every value before any Spark job runs; its errors come back
as :class:`wjoin.WJoinAnalysisException` (a PySpark AnalysisException with the ``WJOIN_``
condition, and a ValueError). DataFrames of a Spark Connect session send the same
arguments to the server's plugin instead (:mod:`wjoin._connect`), with the same checks.
"""
from __future__ import annotations

import os
import warnings
from typing import Mapping, Sequence

from pyspark.errors import AnalysisException
from pyspark.sql import Column, DataFrame, SparkSession

from ._errors import converted, error
from ._session import EXTENSION, facade, warn_if_running
from ._version import __version__, maven_group, scala_builds, spark_builds
from ._windows import length_text, terms_text

# The accepted names (the JVM validates them; wjoin.WJoin.choices lists its own).
ALGORITHMS = ("auto", "nlw", "hw", "mw")
WINDOW_STRATEGIES = ("auto", "exact", "gca", "lca")
ACCESS_PATHS = ("scan", "hash", "ttree", "bplustree", "hash+ttree", "hash+bplustree")
HOWS = ("inner", "left", "left_semi", "left_anti")
OUTPUT_NAMES = ("join", "prefixed")


def _minor(version: str) -> str:
    """``"4.2"`` of ``"4.2.1"`` (or of ``"4.2.0.dev1"``)."""
    return ".".join(version.split(".")[:2])


def _supported(spark_version: str | None) -> str:
    """The Spark minor of ``spark_version`` (default: the installed pyspark's), which must be one
    this package has a jar for; otherwise a WJOIN_UNSUPPORTED_SPARK_VERSION error."""
    if spark_version is None:
        import pyspark
        spark_version = pyspark.__version__
    minor = _minor(spark_version)
    if minor not in spark_builds:
        raise error("WJOIN_UNSUPPORTED_SPARK_VERSION", version=__version__, supported=", ".join(spark_builds),
                    running=spark_version, runningMinor=minor)
    return minor


def artifact_name(spark_version: str | None = None) -> str:
    """The Maven artifact of the jar for a Spark version (default: the installed pyspark's),
    e.g. ``spark-wjoin_4.3_2.13`` (``spark-wjoin_3.5_2.12``: the Scala of that Spark's pyspark)."""
    minor = _supported(spark_version)
    return f"spark-wjoin_{minor}_{scala_builds[minor]}"


def maven_coordinates(spark_version: str | None = None) -> str:
    """``group:artifact:version`` of the jar for a Spark version (default: the installed pyspark's),
    for ``spark.jars.packages`` or ``--packages``."""
    return f"{maven_group}:{artifact_name(spark_version)}:{__version__}"


def jar_path(spark_version: str | None = None) -> str:
    """The bundled spark-wjoin jar for a Spark version (default: the installed pyspark's): the
    wheel carries one jar per supported Spark minor."""
    path = os.path.join(os.path.dirname(__file__), "jars", f"{artifact_name(spark_version)}-{__version__}.jar")
    if not os.path.exists(path):
        raise FileNotFoundError(f"the spark-wjoin jar is missing at {path}; build it with bin/setup")
    return path


# The plugin a Spark Connect server needs (spark.connect.extensions.relation.classes).
CONNECT_PLUGIN = "wjoin.connect.WJoinRelationPlugin"


def server_settings(jar: str | None = None, spark_version: str | None = None, packages: bool = False) -> dict:
    """The settings a Spark Connect server (or any Spark application) needs for the W-join, e.g.
    as ``--conf key=value`` of ``sbin/start-connect-server.sh``: the jar, the extension, the plugin.

    The jar is ``jar``, else the bundled one for ``spark_version`` (default: the installed
    pyspark's; give the server's when it runs another Spark); with ``packages=True``, Maven
    coordinates (``spark.jars.packages``) instead of a file."""
    location = ({"spark.jars.packages": maven_coordinates(spark_version)} if packages
                else {"spark.jars": jar or jar_path(spark_version)})
    return {**location, "spark.sql.extensions": EXTENSION, "spark.connect.extensions.relation.classes": CONNECT_PLUGIN}


def _appended(options: Mapping[str, str], key: str, value: str) -> str:
    """The comma-separated setting ``key`` with ``value`` appended unless it is there."""
    values = [v for v in options.get(key, "").split(",") if v]
    return ",".join(values if value in values else values + [value])


def configure(builder: SparkSession.Builder, packages: bool = False) -> SparkSession.Builder:
    """Adds the W-join jar (the bundled one for the installed pyspark), the extension and the
    Spark Connect plugin to a session builder (keeps what is set). With ``packages=True`` the
    jar comes by its Maven coordinates (``spark.jars.packages``; add ``spark.jars.repositories``
    for a repository other than Maven Central). A remote builder (``.remote("sc://...")``) is
    returned as it is: the server has its own settings (:func:`server_settings`); one that
    starts a local Connect server (``.remote("local[2]")``) gets them, since PySpark starts that
    server with the builder's settings.

    The settings take effect only when ``getOrCreate()`` starts the process's first session: with
    a session already running without the extension (a notebook, the pyspark shell), it warns
    and says what helps (:func:`wjoin.register` when the jar is loaded)."""
    options = getattr(builder, "_options", {})
    remote = options.get("spark.remote")
    if remote is not None and not str(remote).startswith("local"):
        return builder
    if remote is None:
        warn_if_running()
    else:
        # PySpark starts the local server with every setting, then sets them again on the
        # client's session, where the static ones warn "Failed to set ...": ours were applied.
        warnings.filterwarnings("ignore", category=UserWarning, message=r"Failed to set (spark\.jars|spark\.jars\.packages|"
                                r"spark\.sql\.extensions|spark\.connect\.extensions\.relation\.classes) ")
    location = ("spark.jars.packages", maven_coordinates()) if packages else ("spark.jars", jar_path())
    for key, value in [location, ("spark.sql.extensions", EXTENSION),
                       ("spark.connect.extensions.relation.classes", CONNECT_PLUGIN)]:
        builder = builder.config(key, _appended(options, key, value))
    return builder


_checked_sessions: set[int] = set()


def check_spark_version(spark) -> None:
    """Fails (WJOIN_UNSUPPORTED_SPARK_VERSION) unless the session runs a Spark minor this package
    has a jar for (a classic session's JVM checks its jar against its Spark itself)."""
    if id(spark) in _checked_sessions:
        return
    _supported(spark.version)
    _checked_sessions.add(id(spark))


def _is_connect(df_or_session) -> bool:
    """A DataFrame or session of Spark Connect (known without importing the Connect client)."""
    return type(df_or_session).__module__.startswith("pyspark.sql.connect.")


def _is_a(value, cls) -> bool:
    """``value`` is a ``cls`` (DataFrame, Column), of classic PySpark or of Spark Connect, whose
    classes PySpark 3.5 keeps apart (PySpark 4's derive from the classic names)."""
    return isinstance(value, cls) or (_is_connect(value) and type(value).__name__ == cls.__name__)


def _inputs(inputs) -> tuple[list[str] | None, list[DataFrame]]:
    """(names or None for the JVM's default names, DataFrames)."""
    if isinstance(inputs, Mapping):
        for name in inputs:
            if not isinstance(name, str):
                raise TypeError(f"inputs: dict keys are input names (strings), got {name!r}")
        names, dfs, labels = list(inputs), list(inputs.values()), [f"input {n!r}" for n in inputs]
    elif isinstance(inputs, Sequence) and not isinstance(inputs, str):
        names, dfs = None, list(inputs)
        labels = [f"item {i}" for i in range(len(dfs))]
    else:
        raise TypeError(f"inputs: expected a list of DataFrames or a dict name -> DataFrame, got "
                        f"{type(inputs).__name__}")
    for label, df in zip(labels, dfs):
        if not _is_a(df, DataFrame):
            raise TypeError(f"inputs: {label} is a {type(df).__name__}, not a DataFrame")
    return names, dfs


def _time(time):
    """None, a column name, a list per input or a dict input -> column, as given."""
    strings = lambda items: all(isinstance(t, str) for t in items)  # noqa: E731
    if time is None or isinstance(time, str):
        return time
    if isinstance(time, Mapping) and strings(time.keys()) and strings(time.values()):
        return dict(time)
    if isinstance(time, Sequence) and strings(time):
        return list(time)
    raise TypeError(f"time: expected a column name, a list of names or a dict input -> name, got {time!r}")


def _on(on) -> tuple[list[str], Column | None]:
    """(column names, the Columns AND-ed or None)."""
    items = [] if on is None else on if isinstance(on, (list, tuple)) else [on]
    names, condition = [], None
    for item in items:
        if isinstance(item, str):
            names.append(item)
        elif _is_a(item, Column):
            condition = item if condition is None else (condition & item)
        else:
            raise TypeError(f"on: expected column names or boolean Columns, got {type(item).__name__}")
    return names, condition


def _access_paths(access_paths) -> str | None:
    """None, the text as given, or a dict input -> path as "A:hash, B:ttree"."""
    if access_paths is None or isinstance(access_paths, str):
        return access_paths
    if not isinstance(access_paths, Mapping):
        raise TypeError(f"access_paths: expected 'auto', 'cost', a string 'A:hash, B:ttree' or a dict input -> path, "
                        f"got {type(access_paths).__name__}")
    for name, path in access_paths.items():
        if not isinstance(name, str) or not isinstance(path, str):
            raise TypeError(f"access_paths: keys are input names and values path names (strings), got "
                            f"{name!r}: {path!r}")
    return ", ".join(f"{name}:{path}" for name, path in access_paths.items())


def _choice(value, argument: str, choices: tuple, error: type) -> str:
    if not isinstance(value, str):
        shown = repr(value) if value is None else f"{type(value).__name__} {value!r}"
        raise error(f"{argument}: expected a string ({', '.join(choices)}), got {shown}")
    return value


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _transportable(number):
    """An int beyond a Java long as a float (infinite beyond a float), as a Connect client sends every
    limit: py4j cannot pass it, and the JVM then says what is wrong with the value."""
    if isinstance(number, int) and not -2**63 <= number < 2**63:
        try:
            return float(number)
        except OverflowError:
            return float("inf") if number > 0 else float("-inf")
    return number


def _number_map(value, argument: str) -> dict:
    """A dict of str -> int/float as given (the JVM checks names and values)."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{argument}: expected a dict, got {type(value).__name__} {value!r}")
    for key, number in value.items():
        if not isinstance(key, str) or not _is_number(number):
            raise TypeError(f"{argument}: keys are strings and values numbers, got {key!r}: {number!r}")
    return {key: _transportable(number) for key, number in value.items()}


def _limits(limits, allocation, seed) -> dict:
    """limits / allocation / seed as plain data: dicts of numbers, a string, an int (the JVM checks them)."""
    plain = {}
    if limits is not None:
        plain["limits"] = _number_map(limits, "limits")
    if allocation is not None:
        if isinstance(allocation, str):
            plain["allocation"] = allocation
        elif isinstance(allocation, Mapping) and allocation and all(isinstance(v, Mapping) for v in allocation.values()):
            plain["allocation"] = {k: _number_map(v, f"allocation[{k!r}]") for k, v in allocation.items()}
        elif isinstance(allocation, Mapping):
            plain["allocation"] = _number_map(allocation, "allocation")
        else:
            raise TypeError(f"allocation: expected 'auto', 'equal', 'proportional' or a dict input -> share, got "
                            f"{type(allocation).__name__} {allocation!r}")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TypeError(f"seed: expected an int, got {type(seed).__name__} {seed!r}")
        plain["seed"] = _transportable(seed)
    return plain


def _arguments(inputs, on, time, window, windows, algorithm, window_strategy, bidirectional, access_paths,
               expiration_interval, how="inner", limits=None, allocation=None, seed=None, output_names=None
               ) -> tuple[list[DataFrame], dict]:
    """The DataFrames and the W-join's arguments as plain data (names, strings, a bool, a Column),
    keyed like ``wjoin.request.RequestCodec.fromMap``; a Connect client would send the same."""
    names, dfs = _inputs(inputs)
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional: expected True or False, got {type(bidirectional).__name__} {bidirectional!r}")
    on_names, condition = _on(on)
    if expiration_interval is not None and not isinstance(expiration_interval, str):
        expiration_interval = length_text(expiration_interval, "expiration_interval")
    return dfs, {
        "names": names, "on": on_names, "condition": condition, "time": _time(time),
        "window": None if window is None else length_text(window, "window"),
        "windows": None if windows is None else terms_text(windows),
        "algorithm": _choice(algorithm, "algorithm", ALGORITHMS, TypeError),
        "window_strategy": _choice(window_strategy, "window_strategy", WINDOW_STRATEGIES, TypeError),
        "bidirectional": bidirectional, "access_paths": _access_paths(access_paths),
        "expiration_interval": expiration_interval, "how": _choice(how, "how", HOWS, TypeError),
        **_limits(limits, allocation, seed),
        "output_names": None if output_names is None else _choice(output_names, "output_names", OUTPUT_NAMES,
                                                                  TypeError)}


def _classic(spark: SparkSession, dfs: list[DataFrame], arguments: dict) -> DataFrame:
    """The one py4j call: the JVM builds and checks the W-join; its errors become WJoinAnalysisException
    (a JVM without the jar: WJOIN_JAR_NOT_LOADED; a session without the extension: WJOIN_EXTENSION_NOT_SET)."""
    plain = dict(arguments, condition=None if arguments["condition"] is None else arguments["condition"]._jc)
    try:
        return DataFrame(facade(spark).fromArguments([df._jdf for df in dfs], plain), spark)
    except AnalysisException as e:
        wjoin_error = converted(e)
        if wjoin_error is None:
            raise
    raise wjoin_error from None


def wjoin(inputs, *, on=None, time=None, window=None, windows=None, algorithm: str = "auto",
          window_strategy: str = "auto", bidirectional: bool = False, access_paths="auto",
          expiration_interval=None, how: str = "inner", limits=None, allocation=None, seed=None,
          output_names: str | None = None) -> DataFrame:
    """The W-join of ``inputs``: every combination of one row per input within the window(s).

    inputs     list of DataFrames (named by alias, else A, B, C, ...) or dict name -> DataFrame
    on         column name(s) present in every input (each kept once in the output), and/or
               boolean Column(s) over the inputs' columns, AND-ed; equalities become hash keys
    time       event-time column: one name, a list per input or a dict name -> column;
               default: each input's only timestamp column
    window     every pair within a length: "2 seconds", "INTERVAL 5 MINUTES", a
               datetime.timedelta, or a number for integral time columns
    windows    "WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [1 minute, 3 minutes]" (also RANGE(B),
               ROWS(B)), a dict {("A", "B"): "5 minutes", ("B", "C"): (low, high)}, or a list of
               terms, wjoin.directed(), wjoin.range_window(), wjoin.rows_window()
    algorithm  "auto" (HW-join with a key shared by all inputs, else MW-join), "nlw", "hw", "mw"
    window_strategy
               "exact" (= "auto"), "gca" or "lca" (Hammad et al. Sec. 5.1); same result
    bidirectional
               True with only DWINDOW terms: the path or the reversed path, each combination once
    access_paths
               {"A": "hash", "B": "ttree"} or "A:hash, B:ttree" forces paths (scan, hash, ttree,
               bplustree); "auto" (default, "cost" is a synonym): the cost model chooses
    expiration_interval
               lazy expiration every tau time units (a length like window=), "auto", or None/0
               for eager expiration; results never change
    how        what is emitted, the first input being the anchor: "inner" (default, every
               combination), "left" (also each anchor row in no combination, NULLs for the other
               inputs' columns), "left_semi" (each anchor row in some combination, once, its own
               columns), "left_anti" (each anchor row in no combination, once: "never completed");
               Spark's other spellings too ("left_outer", "leftsemi", "anti", ...)
    limits     resource limits per partition (Kang et al. Sec. 5.2), an approximate
               inner W-join whose result is a sub-bag of the exact one: {"state_rows": M} (at most
               M buffered rows, each input's window a random subset within its share) and/or
               {"probe_rate": mu} (at most mu arriving rows per second of event time probe);
               shed rows and probes are counted in numShedRows / numShedProbes
    allocation how the limits are split: "auto" (default: the paper's unit-time model), "equal",
               "proportional" (to the arrival rates), {input: share}, or
               {"state_rows": {input: share}, "probe_rate": {input: share}}
    seed       seed of the random choices (default 0): the same rows on every run
    output_names
               "join" (as DataFrame.join: k, ts, v, ts, v, told apart by qualifier, A.ts) or
               "prefixed" (k, A_ts, A_v, B_ts, B_v: every column but the ``on`` names as
               <input>_<column>, unique names a file sink can write); None (default): the
               session's spark.wjoin.outputNames (default "join")
    """
    dfs, arguments = _arguments(inputs, on, time, window, windows, algorithm, window_strategy, bidirectional,
                                access_paths, expiration_interval, how, limits, allocation, seed, output_names)
    spark = dfs[0].sparkSession if dfs else SparkSession.getActiveSession()
    if spark is None:
        raise error("WJOIN_TOO_FEW_INPUTS", count=len(dfs))
    if any(_is_connect(df) != _is_connect(spark) for df in dfs):
        raise error("WJOIN_SESSION_MISMATCH")
    check_spark_version(spark)
    if _is_connect(spark):
        from ._connect import connect_wjoin
        return connect_wjoin(spark, dfs, arguments)
    return _classic(spark, dfs, arguments)
