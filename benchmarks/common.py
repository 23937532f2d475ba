"""Shared set-up for the benchmarks: one local session with spark-wjoin, timing helpers."""
from __future__ import annotations

import os
import statistics
import sys
import time

from pyspark.sql import SparkSession

import wjoin


def session(app: str, shuffle_partitions: int = 200, jars=(), conf=()) -> SparkSession:
    """`conf`: extra session settings, (key, value) pairs (e.g. spark.wjoin.smallInputBytes=-1)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
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
