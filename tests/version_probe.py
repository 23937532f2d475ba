"""What every supported Spark must run alike, as a script for a fresh environment (one pyspark
release with the wheel installed); test_spark_versions.py runs it there and checks the JSON it
prints against a brute-force W-join.

    python version_probe.py WORKDIR [--example] [--rounds FIRST LAST [--fail-at BATCH]] [--output]

    --example   the README's first example
    --rounds    writes rounds FIRST..LAST-1 of three inputs under WORKDIR/in, then runs the
                streaming W-join over every unread file from WORKDIR/checkpoint (RocksDB state)
                to the end; with --fail-at, micro-batch BATCH fails once and the query restarts
                from its checkpoint
    --output    the rows the streaming runs wrote (one file per micro-batch, rewritten when a
                batch runs again) and the batch W-join of every input row
"""
from __future__ import annotations

import datetime as dt
import glob
import json
import os
import random
import sys

from pyspark.sql import SparkSession
from pyspark.sql.utils import StreamingQueryException

import wjoin

SCHEMA = "k int, ts timestamp, id int"
NAMES = ("A", "B", "C")
WINDOW_SECONDS = 5


def rows(round_: int, name: str) -> list[tuple]:
    """Round `round_` of input `name`: 8 rows on keys 0..2 within 10 seconds of the round's start."""
    rng = random.Random(f"{round_}-{name}")
    start = dt.datetime(2024, 1, 1) + dt.timedelta(seconds=10 * round_)
    return [(rng.randrange(3), start + dt.timedelta(seconds=rng.randrange(10)), 1000 * round_ + i) for i in range(8)]


def session() -> SparkSession:
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.sql.shuffle.partitions", "3")
               .config("spark.sql.streaming.stateStore.providerClass",
                       "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"))
    spark = wjoin.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def joined(inputs):
    return inputs[0].wjoin(*inputs[1:], on="k", time="ts", window=f"{WINDOW_SECONDS} seconds").select(
        *[f"{n}.id" for n in NAMES])


def example(spark) -> list:
    a = spark.createDataFrame([(1, 10), (1, 20), (2, 11)], "k int, ts bigint")
    b = spark.createDataFrame([(1, 12), (2, 30), (1, 24)], "k int, ts bigint")
    return sorted(list(r) for r in a.wjoin(b, on="k", time="ts", window=5).collect())


def stream(spark, work: str, first: int, last: int, fail_at: int | None) -> None:
    for round_ in range(first, last):
        for name in NAMES:
            spark.createDataFrame(rows(round_, name), SCHEMA).coalesce(1).write.parquet(
                os.path.join(work, "in", name, f"r{round_:03d}"))
    os.makedirs(os.path.join(work, "out"), exist_ok=True)
    failed = []

    def write(batch, batch_id):
        if batch_id == fail_at and not failed:
            failed.append(batch_id)
            raise RuntimeError(f"failure injected into micro-batch {batch_id}")
        with open(os.path.join(work, "out", f"batch-{batch_id:05d}.json"), "w") as f:
            json.dump(sorted(list(r) for r in batch.collect()), f)

    def run():
        inputs = [spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", 1).option("recursiveFileLookup", "true")
                  .parquet(os.path.join(work, "in", n)).withWatermark("ts", "30 seconds").alias(n) for n in NAMES]
        query = (joined(inputs).writeStream.foreachBatch(write)
                 .option("checkpointLocation", os.path.join(work, "checkpoint")).trigger(availableNow=True).start())
        query.awaitTermination()

    try:
        run()
    except StreamingQueryException:
        assert failed, "the query failed without the injected failure"
        run()  # the restart: the failed micro-batch runs again from the checkpoint
    assert fail_at is None or failed, "the injected failure did not happen"


def output(spark, work: str) -> dict:
    streamed = [r for path in sorted(glob.glob(os.path.join(work, "out", "batch-*.json")))
                for r in json.load(open(path))]
    inputs = [spark.read.schema(SCHEMA).option("recursiveFileLookup", "true").parquet(os.path.join(work, "in", n))
              .alias(n) for n in NAMES]
    return {"streamed": sorted(streamed), "batch": sorted(list(r) for r in joined(inputs).collect())}


def main(args: list[str]) -> None:
    work = args[0]
    spark = session()
    result = {"spark": spark.version, "jars": [j for j in spark.conf.get("spark.jars").split(",") if "wjoin" in j]}
    if "--example" in args:
        result["example"] = example(spark)
    if "--rounds" in args:
        at = args.index("--rounds")
        fail_at = int(args[args.index("--fail-at") + 1]) if "--fail-at" in args else None
        stream(spark, work, int(args[at + 1]), int(args[at + 2]), fail_at)
    if "--output" in args:
        result.update(output(spark, work))
    spark.stop()
    print("RESULT " + json.dumps(result, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
