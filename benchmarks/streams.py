"""The papers' synthetic streams: exponential inter-arrival times at a given rate per stream,
keys drawn uniformly from a small domain, a payload column. Deterministic per seed."""
from __future__ import annotations

import random

from pyspark.sql import DataFrame, SparkSession


def stream_rows(seed: int, rows: int, rate: float, keys: int, variable: bool = False):
    """rows of (k, ts_micros, v); with variable=True the rate alternates between rate/4 and 4*rate
    every 1000 rows (Hammad et al.'s variable-rate streams)."""
    rnd = random.Random(seed)
    t = 0.0
    out = []
    for i in range(rows):
        r = rate if not variable else (rate / 4 if (i // 1000) % 2 == 0 else rate * 4)
        t += rnd.expovariate(r)
        out.append((rnd.randrange(keys), int(t * 1e6), rnd.random()))
    return out


def streams(spark: SparkSession, n: int, rows: int, rate: float, keys: int, variable: bool = False,
            partitions: int = 2) -> list[DataFrame]:
    """n cached streams with columns k int, ts timestamp, v double."""
    dfs = []
    for i in range(n):
        data = stream_rows(1000 + i, rows, rate, keys, variable)
        df = (spark.createDataFrame(data, "k int, t long, v double")
              .selectExpr("k", "timestamp_micros(t) AS ts", "v")
              .repartition(partitions).cache())
        df.count()
        dfs.append(df)
    return dfs
