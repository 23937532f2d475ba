"""Is a classic session ready for the W-join, and the one line that fixes it when it is not.

A session can run a W-join when its JVM has the jar and the session was started with the
extension (``spark.sql.extensions=wjoin.WJoinExtensions``). Both are fixed when the session
starts, so ``wjoin.configure(builder)`` does nothing for a session that already runs (a notebook,
the ``pyspark`` shell, a managed cluster): Spark's ``getOrCreate()`` returns that session.
What is missing is told at once, before any job:

- no jar: ``wjoin.wjoin(...)`` raises WJOIN_JAR_NOT_LOADED (Python raises it, since the JVM has
  no catalogue to raise it from); ``configure`` warns when it sees such a running session.
- the jar but no extension: the JVM raises WJOIN_EXTENSION_NOT_SET, and :func:`register`
  enables the DataFrame API on that running session (SQL's window clause needs the extension's
  parser, which exists only from the session's start).
"""
from __future__ import annotations

import warnings

EXTENSION = "wjoin.WJoinExtensions"


def _extension_set(conf) -> bool:
    """``spark.sql.extensions`` of a SparkConf (or a session's conf) names the W-join's extension."""
    return EXTENSION in [e.strip() for e in (conf.get("spark.sql.extensions", "") or "").split(",")]


def _facade_class(jvm):
    """The JVM's ``wjoin.WJoin`` class, or None without the jar (py4j answers a JavaPackage for a
    class it cannot find). One lookup: each is a call into the JVM."""
    from py4j.java_gateway import JavaClass
    found = jvm.wjoin.WJoin
    return found if isinstance(found, JavaClass) else None


def _jar_loaded(jvm) -> bool:
    """The JVM has the jar's facade class."""
    return _facade_class(jvm) is not None


def _where_the_jar_is() -> dict:
    """The WJOIN_JAR_NOT_LOADED message's parameters: this package's jar and its Maven coordinates."""
    from ._api import jar_path, maven_coordinates
    try:
        jar = jar_path()
    except FileNotFoundError:
        jar = "the spark-wjoin jar"
    return {"jar": jar, "coordinates": maven_coordinates()}


def facade(spark):
    """The JVM's ``wjoin.WJoin`` of a classic session; WJOIN_JAR_NOT_LOADED when the JVM lacks the jar."""
    from ._errors import error
    found = _facade_class(spark._jvm)
    if found is None:
        raise error("WJOIN_JAR_NOT_LOADED", **_where_the_jar_is())
    return found


def register(spark):
    """Enables the DataFrame API of the W-join on a running classic session whose JVM has the jar
    but which was started without the extension (e.g. a managed cluster that only takes
    ``--jars``): adds the planner strategy and optimizer rules the extension would have, through
    Spark's runtime hooks (``spark.experimental``); a no-op on a session with the extension.
    SQL's window clause still needs the extension at the session's start. Returns ``spark``.

    Raises WJOIN_JAR_NOT_LOADED when the JVM lacks the jar (then only a new process helps)."""
    if type(spark).__module__.startswith("pyspark.sql.connect."):
        raise TypeError("wjoin.register(spark) works on a classic session; a Spark Connect server needs "
                        "wjoin.server_settings() when it starts")
    facade(spark).register(spark._jsparkSession)
    return spark


def warn_if_running() -> None:
    """Warns when a SparkContext already runs without the extension: ``getOrCreate()`` will
    return its session, and the settings ``configure`` added will not take effect."""
    from pyspark import SparkContext
    sc = SparkContext._active_spark_context
    if sc is None or _extension_set(sc.getConf()):
        return
    fix = ("call wjoin.register(spark) on it to enable the DataFrame API (SQL's window clause needs the "
           "extension from the start)" if _jar_loaded(sc._jvm) else
           "its JVM lacks the jar, so restart the Python process (the notebook kernel) and run "
           "wjoin.configure before the first session")
    warnings.warn("wjoin.configure: a Spark session is already running in this process without the W-join "
                  "extension, so getOrCreate() returns it and the jar and extension settings do not take effect "
                  f"(Spark: 'Using an existing Spark session'); {fix}", UserWarning, stacklevel=3)
