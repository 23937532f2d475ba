"""The Python side of the W-join: validates and converts arguments, then calls the JVM
facade ``wjoin.WJoin.create``. Bad input raises TypeError / ValueError here, naming what was
found; what only the JVM can check (closure of the window constraints, resolution of column
expressions) comes back as ValueError too, before any Spark job runs.
"""
from __future__ import annotations

import os
from typing import Mapping, Sequence

from pyspark.errors import AnalysisException, IllegalArgumentException
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import types as T

from ._windows import length_text, terms_text

ALGORITHMS = ("auto", "nlw", "hw", "mw")
WINDOW_STRATEGIES = ("auto", "exact", "gca", "lca")
ACCESS_PATHS = ("scan", "hash", "ttree", "bplustree")
_PATH_ALIASES = {"nlj": "scan", "nested-loops": "scan", "n": "scan", "h": "hash", "t": "ttree", "t-tree": "ttree",
                 "b": "bplustree", "btree": "bplustree", "b+tree": "bplustree"}
_INTEGRAL = (T.LongType, T.IntegerType, T.ShortType, T.ByteType)
_TIMESTAMP = (T.TimestampType, T.TimestampNTZType)


def jar_path() -> str:
    """The spark-wjoin jar bundled in this package."""
    path = os.path.join(os.path.dirname(__file__), "jars", "spark-wjoin.jar")
    if not os.path.exists(path):
        raise FileNotFoundError(f"the spark-wjoin jar is missing at {path}; build it with bin/setup")
    return path


def configure(builder: SparkSession.Builder) -> SparkSession.Builder:
    """Adds the bundled jar and the W-join extension to a session builder (keeps what is set)."""
    options = getattr(builder, "_options", {})
    jars = [j for j in options.get("spark.jars", "").split(",") if j]
    extensions = [e for e in options.get("spark.sql.extensions", "").split(",") if e]
    if jar_path() not in jars:
        jars.append(jar_path())
    if "wjoin.WJoinExtensions" not in extensions:
        extensions.append("wjoin.WJoinExtensions")
    return builder.config("spark.jars", ",".join(jars)).config("spark.sql.extensions", ",".join(extensions))


def _facade(spark: SparkSession):
    return spark._jvm.wjoin.WJoin


def _inputs(inputs) -> tuple[list[str] | None, list[DataFrame]]:
    """(names or None, DataFrames), checked: a list or dict of at least 2 DataFrames."""
    if isinstance(inputs, Mapping):
        names, dfs = list(inputs.keys()), list(inputs.values())
        for name in names:
            if not isinstance(name, str) or not name:
                raise TypeError(f"inputs: dict keys are input names (non-empty strings), got {name!r}")
        labels = [f"input {name!r}" for name in names]
    elif isinstance(inputs, Sequence) and not isinstance(inputs, str):
        names, dfs = None, list(inputs)
        labels = [f"item {i}" for i in range(len(dfs))]
    else:
        raise TypeError(f"inputs: expected a list of DataFrames or a dict name -> DataFrame, got "
                        f"{type(inputs).__name__}")
    for label, df in zip(labels, dfs):
        if not isinstance(df, DataFrame):
            raise TypeError(f"inputs: {label} is a {type(df).__name__}, not a DataFrame")
    if len(dfs) < 2:
        raise ValueError(f"a W-join needs at least 2 inputs, got {len(dfs)}")
    return names, dfs


def _names(inputs, spark) -> tuple[list[str], list[DataFrame]]:
    names, dfs = _inputs(inputs)
    if names is None:
        names = list(_facade(spark).defaultNames([df._jdf for df in dfs]))
    lowered = [n.lower() for n in names]
    dupes = sorted({n for n in names if lowered.count(n.lower()) > 1})
    if dupes:
        raise ValueError(f"inputs: names must be unique, but {', '.join(dupes)} appears twice; name the inputs "
                         "with a dict or DataFrame.alias")
    return names, dfs


def _field(df: DataFrame, column: str, name: str, what: str) -> T.StructField:
    matches = [f for f in df.schema.fields if f.name.lower() == column.lower()]
    if not matches:
        raise ValueError(f"{what} column {column!r} is not a column of input {name} (its columns: "
                         f"{', '.join(df.columns)})")
    return matches[0]


def _time_columns(time, names, dfs) -> list[str]:
    if time is None:
        chosen = []
        for name, df in zip(names, dfs):
            stamps = [f.name for f in df.schema.fields if isinstance(f.dataType, _TIMESTAMP)]
            if len(stamps) != 1:
                raise ValueError(f"time: input {name} has {len(stamps)} timestamp columns ({', '.join(stamps) or 'none'}); "
                                 "name its event-time column with time=")
            chosen.append(stamps[0])
        return chosen
    if isinstance(time, str):
        return [time] * len(dfs)
    if isinstance(time, Mapping):
        unknown = [k for k in time if k not in names]
        if unknown:
            raise ValueError(f"time: unknown input(s) {', '.join(map(str, unknown))}; the inputs are {', '.join(names)}")
        missing = [n for n in names if n not in time]
        if missing:
            raise ValueError(f"time: no time column for input(s) {', '.join(missing)}")
        time = [time[n] for n in names]
    if isinstance(time, Sequence) and all(isinstance(t, str) for t in time):
        if len(time) != len(dfs):
            raise ValueError(f"time: got {len(time)} columns for {len(dfs)} inputs")
        return list(time)
    raise TypeError(f"time: expected a column name, a list of names or a dict input -> name, got {time!r}")


def _on(on) -> tuple[list[str], Column | None]:
    if on is None:
        return [], None
    items = on if isinstance(on, (list, tuple)) else [on]
    names, conditions = [], []
    for item in items:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, Column):
            conditions.append(item)
        else:
            raise TypeError(f"on: expected column names or boolean Columns, got {type(item).__name__}")
    condition = None
    for c in conditions:
        condition = c if condition is None else (condition & c)
    return names, condition


def _access_paths(access_paths, names) -> str:
    """access_paths as the JVM's text: "auto", "cost", "A:hash, B:ttree" (checked here)."""
    if access_paths is None:
        return "auto"
    if isinstance(access_paths, str):
        modes = [e.strip().lower() for e in access_paths.split(",") if e.strip() and ":" not in e and "=" not in e]
        bad = [m for m in modes if m not in ("auto", "cost")]
        if bad:
            raise ValueError(f"access_paths: {bad[0]!r} is neither 'auto', 'cost' nor input:path (e.g. 'A:hash, B:ttree')")
        return access_paths
    if not isinstance(access_paths, Mapping):
        raise TypeError(f"access_paths: expected 'auto', 'cost', a string 'A:hash, B:ttree' or a dict input -> path, "
                        f"got {type(access_paths).__name__}")
    entries = []
    lowered = [n.lower() for n in names]
    for name, path in access_paths.items():
        if not isinstance(name, str) or not isinstance(path, str):
            raise TypeError(f"access_paths: keys are input names and values path names (strings), got {name!r}: {path!r}")
        if name.lower() not in lowered:
            raise ValueError(f"access_paths: unknown input {name!r}; the inputs are {', '.join(names)}")
        p = _PATH_ALIASES.get(path.strip().lower(), path.strip().lower())
        if p not in ACCESS_PATHS:
            raise ValueError(f"access_paths: unknown access path {path!r} for input {name}; use one of "
                             f"{', '.join(ACCESS_PATHS)}")
        entries.append(f"{name}:{p}")
    return ", ".join(entries) or "auto"


def _expiration(expiration_interval, integral: bool) -> str:
    if expiration_interval is None:
        return "0"
    if isinstance(expiration_interval, str) and expiration_interval.strip().lower() in ("auto", "eager"):
        return expiration_interval.strip().lower()
    return length_text(expiration_interval, integral, "expiration_interval")


def wjoin(inputs, *, on=None, time=None, window=None, windows=None, algorithm: str = "auto",
          window_strategy: str = "auto", bidirectional: bool = False, access_paths=None,
          expiration_interval=None) -> DataFrame:
    """The W-join of ``inputs``: every combination of one row per input within the window(s).

    inputs     list of DataFrames (named by alias, else A, B, C, ...) or dict name -> DataFrame
    on         column name(s) present in every input (each kept once in the output), and/or
               boolean Column(s) over the inputs' columns, AND-ed; equalities become hash keys
    time       event-time column: one name, a list per input or a dict name -> column;
               default: each input's only timestamp column
    window     Form 1 (every pair): "2 seconds", "INTERVAL 5 MINUTES", datetime.timedelta, or a
               number for integral time columns
    windows    the papers' syntax "WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [1 minute, 3 minutes]",
               a dict {("A", "B"): "5 minutes", ("B", "C"): (low, high)} or a list of terms and
               wjoin.directed("A", "B", high, low)
    algorithm  "auto" (HW-join with a shared equality key, else MW-join), "nlw", "hw" or "mw"
    window_strategy
               how the engine bounds its periods when windows differ per pair (paper 000
               Sec. 5.1): "exact" (the closed per-pair windows), "gca" (the largest window for
               every pair, then refine), "lca" (each input's largest local window, then refine)
               or "auto" (= "exact"); the result is the same for all
    bidirectional
               True with only DWINDOW terms: the path or the reversed path (DWINDOW(A,B) read
               as DWINDOW(B,A) as well), each combination once (paths ABCD or DCBA)
    access_paths
               how each input's window is searched: a dict {"A": "hash", "B": "ttree"} or the text
               "A:hash, B:ttree" forces paths (scan, hash, ttree, bplustree); "auto" (default) lets
               the unit-time cost model choose each input's path among scan, hash (with a key
               shared by all inputs) and trees (where a band or inequality predicate such as
               abs(A.x - B.x) <= 5 allows); "cost" is a synonym of "auto"
    expiration_interval
               lazy expiration every tau time units (a length like window=), "auto", or None/0
               for eager expiration; results never change, only buffered rows and speed
    """
    if not isinstance(algorithm, str) or algorithm.lower() not in ALGORITHMS:
        raise ValueError(f"algorithm: expected one of {', '.join(ALGORITHMS)}, got {algorithm!r}")
    if not isinstance(window_strategy, str):
        raise TypeError(f"window_strategy: expected a string ({', '.join(WINDOW_STRATEGIES)}), got "
                        f"{type(window_strategy).__name__}")
    if window_strategy.strip().lower() not in WINDOW_STRATEGIES:
        raise ValueError(f"window_strategy: expected one of {', '.join(WINDOW_STRATEGIES)}, got {window_strategy!r}")
    if not isinstance(bidirectional, bool):
        raise TypeError(f"bidirectional: expected True or False, got {type(bidirectional).__name__} {bidirectional!r}")
    if bidirectional and window is not None:
        raise ValueError("bidirectional=True reverses a path of DWINDOW terms, but window= is a window for every "
                         "pair (not directed); give windows=\"DWINDOW(A,B) = ... AND DWINDOW(B,C) = ...\"")
    _, dfs0 = _inputs(inputs)
    spark = dfs0[0].sparkSession
    names, dfs = _names(inputs, spark)
    times = _time_columns(time, names, dfs)
    kinds = set()
    for name, df, column in zip(names, dfs, times):
        field = _field(df, column, name, "time")
        if not isinstance(field.dataType, _TIMESTAMP + _INTEGRAL):
            raise ValueError(f"time column {column!r} of input {name} has type {field.dataType.simpleString()}; "
                             "use a timestamp, timestamp_ntz or integral column")
        kinds.add("integral" if isinstance(field.dataType, _INTEGRAL) else field.dataType.simpleString())
    if len(kinds) > 1:
        raise ValueError(f"time: the time columns mix kinds ({', '.join(sorted(kinds))}); cast them to one kind")
    integral = kinds == {"integral"}
    on_names, condition = _on(on)
    for column in on_names:
        for name, df in zip(names, dfs):
            _field(df, column, name, "join")
    if window is None and windows is None:
        raise ValueError('give the window: window="2 seconds" (every pair) or windows="WINDOW(A,B) = ..."')
    window_text = None if window is None else length_text(window, integral, "window")
    windows_text = None if windows is None else terms_text(windows, names, integral)
    paths_text = _access_paths(access_paths, names)
    tau_text = _expiration(expiration_interval, integral)
    try:
        jdf = _facade(spark).create([df._jdf for df in dfs], names, on_names,
                                    None if condition is None else condition._jc,
                                    times, window_text, windows_text, algorithm.lower(),
                                    window_strategy.strip().lower(), bidirectional, paths_text, tau_text)
    except (IllegalArgumentException, AnalysisException) as e:
        raise ValueError(getattr(e, "_desc", None) or str(e)) from None
    return DataFrame(jdf, spark)
