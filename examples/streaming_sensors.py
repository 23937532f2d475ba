"""Three road cameras as streams: the W-join finds each vehicle's journey C1 -> C2 -> C3 as the
sightings arrive, in Structured Streaming micro-batches.

Each round, every camera drops one parquet file of its last 10 minutes of sightings into its
folder (as an upload job would), and the query runs once over the new files (trigger
availableNow) from the same checkpoint: the join's state carries the vehicles seen by C1 or C2
but not yet by C3 from one round to the next. Then it prints the new journeys and the join's
metrics from the streaming progress.

    .venv/bin/python examples/streaming_sensors.py        # after bin/setup
"""
import datetime as dt
import os
import random
import sys
import tempfile

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import wjoin

START = dt.datetime(2026, 11, 21, 8, 0, 0)
SCHEMA = "vehicle string, ts timestamp, speed int"


def sightings(rounds=4, per_round=60, seed=7):
    """Per round and camera, the sightings made in that round's 10 minutes."""
    rnd = random.Random(seed)
    out = [[[] for _ in range(3)] for _ in range(rounds)]
    for v in range(rounds * per_round):
        t = rnd.uniform(0, rounds * 600 - 400)
        for cam in range(3):
            if cam and rnd.random() < 0.15:
                break  # took another road
            if cam:
                t += rnd.uniform(30, 120) if cam == 1 else rnd.uniform(60, 180)
            r = min(rounds - 1, int(t // 600))
            out[r][cam].append((f"V{v:04d}", START + dt.timedelta(seconds=t), rnd.randint(40, 90)))
    return out


def main():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = wjoin.configure(SparkSession.builder.master("local[2]").appName("streaming-sensors")
                            .config("spark.sql.shuffle.partitions", "4")
                            .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    root = tempfile.mkdtemp(prefix="wjoin-cameras-")
    folders = [os.path.join(root, f"C{i + 1}") for i in range(3)]
    for folder in folders:
        os.makedirs(folder)
    c1, c2, c3 = [spark.readStream.schema(SCHEMA).option("recursiveFileLookup", "true").parquet(f)
                  .withWatermark("ts", "5 minutes").alias(f"C{i + 1}") for i, f in enumerate(folders)]
    journeys = c1.wjoin(c2, c3, on="vehicle", time="ts",
                        windows="DWINDOW(C1,C2) = [30 seconds, 2 minutes] AND "
                                "DWINDOW(C2,C3) = [1 minute, 3 minutes]") \
        .select("vehicle", F.col("C1.ts").alias("at_c1"), F.col("C3.ts").alias("at_c3"))

    total = 0
    for r, per_camera in enumerate(sightings()):
        for folder, rows in zip(folders, per_camera):
            spark.createDataFrame(rows, SCHEMA).write.parquet(os.path.join(folder, f"round={r}"))

        found = []
        query = (journeys.writeStream.option("checkpointLocation", os.path.join(root, "checkpoint"))
                 .foreachBatch(lambda df, _: found.extend(df.collect()))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        total += len(found)
        progress = query.lastProgress["stateOperators"][0]
        metrics = progress["customMetrics"]
        print(f"round {r}: {sum(len(x) for x in per_camera)} sightings, {len(found)} new journeys "
              f"(e.g. {found[0]['vehicle']} {found[0]['at_c1']:%H:%M:%S} -> {found[0]['at_c3']:%H:%M:%S})"
              if found else f"round {r}: {sum(len(x) for x in per_camera)} sightings, no journey completed")
        print(f"    state: {progress['numRowsTotal']} rows (C1 {metrics['numStateRows0']}, "
              f"C2 {metrics['numStateRows1']}, C3 {metrics['numStateRows2']}), "
              f"{progress['numRowsRemoved']} evicted, {progress['numRowsDroppedByWatermark']} late")
    print(f"{total} journeys in all")
    spark.stop()
    return 0 if total > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
