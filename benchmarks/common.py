"""Shared set-up for the benchmarks: one local session with spark-wjoin, timing helpers."""
from __future__ import annotations

import os
import statistics
import sys
import time

from pyspark.sql import SparkSession

import wjoin


def session(app: str, shuffle_partitions: int = 200, jars=(), conf=()) -> SparkSession:
    """`conf`: extra session settings, (key, value) pairs (e.g. spark.wjoin.smallInputBytes=-1).
    WJOIN_JAR=<jar> in the environment runs that build of the operator instead of the installed
    wheel's (e.g. a work tree's `bin/sbt wjoin/package`, or main's for a before/after)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if os.environ.get("WJOIN_JAR"):
        wjoin._api.jar_path = lambda: os.environ["WJOIN_JAR"]
    builder = (SparkSession.builder.master("local[*]").appName(app)
               .config("spark.jars", ",".join(jars))
               .config("spark.driver.memory", "8g")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(shuffle_partitions)))
    for key, value in conf:
        builder = builder.config(key, value)
    spark = wjoin.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def median(values):
    return statistics.median(values)


def say(*parts):
    print(*parts, flush=True)
    sys.stdout.flush()


def rotating_runs(plans, repeats: int):
    """Runs each plan (name, prepare, build): `prepare()` (e.g. a setting), then `build()`'s DataFrame
    written to the noop sink; one warm-up round (its counts kept) and `repeats` timed rounds, the
    plan that goes first rotating each round (a run gains from the one before it: caches, GC).
    Returns ({name: [seconds]}, {name: rows})."""
    times = {name: [] for name, _, _ in plans}
    counts = {}
    for rep in range(repeats + 1):
        k = rep % len(plans)
        for name, prepare, build in plans[k:] + plans[:k]:
            prepare()
            df = build()
            t = timed(lambda: df.write.format("noop").mode("overwrite").save())
            if rep == 0:
                counts[name] = df.count()
            else:
                times[name].append(t)
    return times, counts


def last_metrics(spark, wanted) -> dict:
    """The SQL metrics of the session's last execution whose name `wanted(name)` accepts, by
    accumulator: {id: (name, value)} (values as the Spark UI shows them)."""
    status = spark._jsparkSession.sharedState().statusStore()
    executions = status.executionsList()
    last = executions.apply(executions.size() - 1)
    values = status.executionMetrics(last.executionId())
    found = {}
    it = last.metrics().iterator()
    while it.hasNext():
        m = it.next()
        if wanted(m.name()) and values.contains(m.accumulatorId()):
            found[m.accumulatorId()] = (m.name(), values.apply(m.accumulatorId()))
    return found
