"""Vehicles that never completed the journey C1 -> C2 -> C3: a left anti W-join of three road
cameras as streams. A vehicle seen at C1 is reported once the watermark proves it can no
longer reach C2 within 30 s .. 2 min and then C3 within 1 .. 3 min (its horizon: 5 minutes),
exactly once, in the micro-batch where that becomes certain.

Each round, every camera drops one parquet file of its sightings into its folder and the query
runs once over the new files (trigger availableNow) from the same checkpoint. The answer is
checked against the batch W-join of all sightings (how="left_anti") and, independently, against
the vehicles simulated as lost.

    .venv/bin/python examples/never_completed.py        # after bin/setup
"""
import datetime as dt
import os
import random
import sys
import tempfile

from pyspark.sql import SparkSession

import wjoin

START = dt.datetime(2026, 11, 21, 8, 0, 0)
SCHEMA = "vehicle string, ts timestamp, speed int"
JOURNEY = "DWINDOW(C1,C2) = [30 seconds, 2 minutes] AND DWINDOW(C2,C3) = [1 minute, 3 minutes]"


def sightings(rounds=4, per_round=40, seed=11):
    """Per round and camera, the sightings of that round's 10 minutes; and the vehicles that
    left the road (never reached C2 or C3) or were too slow (reached C3 too late)."""
    rnd = random.Random(seed)
    out = [[[] for _ in range(3)] for _ in range(rounds)]
    lost = set()
    for v in range(rounds * per_round):
        name = f"V{v:04d}"
        t = rnd.uniform(0, rounds * 600 - 400)
        for cam in range(3):
            if cam and rnd.random() < 0.15:
                lost.add(name)  # took another road
                break
            if cam == 1:
                t += rnd.uniform(30, 120)
            elif cam == 2:
                slow = rnd.random() < 0.1
                t += rnd.uniform(200, 260) if slow else rnd.uniform(60, 180)
                if slow:
                    lost.add(name)
            r = min(rounds - 1, int(t // 600))
            out[r][cam].append((name, START + dt.timedelta(seconds=t), rnd.randint(40, 90)))
    return out, lost


def run(spark, root):
    """Runs the rounds; returns the vehicles the stream reported, the batch answer and the simulated lost ones."""
    folders = [os.path.join(root, f"C{i + 1}") for i in range(3)]
    for folder in folders:
        os.makedirs(folder)
    streams = {f"C{i + 1}": spark.readStream.schema(SCHEMA).option("recursiveFileLookup", "true").parquet(f)
               .withWatermark("ts", "5 minutes") for i, f in enumerate(folders)}
    never = wjoin.wjoin(streams, on="vehicle", time="ts", windows=JOURNEY, how="left_anti")

    rounds, lost = sightings()
    # A parquet file sink: exactly once across restarts, and readable from a classic or a
    # Spark Connect session alike (a foreachBatch function would run on a Connect server).
    output = os.path.join(root, "never-completed")
    seen = 0
    for r, per_camera in enumerate(rounds + [[[("FLUSH", START + dt.timedelta(hours=2), 0)]] * 3]):
        for folder, rows in zip(folders, per_camera):
            spark.createDataFrame(rows, SCHEMA).write.parquet(os.path.join(folder, f"round={r}"))
        query = (never.writeStream.format("parquet").option("path", output)
                 .option("checkpointLocation", os.path.join(root, "checkpoint"))
                 .trigger(availableNow=True).start())
        query.awaitTermination()
        reported = [row.vehicle for row in spark.read.schema(SCHEMA).parquet(output).collect()]
        metrics = query.lastProgress["stateOperators"][0]["customMetrics"]
        print(f"round {r}: {len(reported) - seen} more vehicles never completed the journey; "
              f"{metrics['numUndecidedAnchorRows']} seen at C1 still undecided")
        seen = len(reported)
    reported = [v for v in reported if v != "FLUSH"]

    batch = {name: spark.createDataFrame([row for rnd in rounds for row in rnd[i]], SCHEMA)
             for i, name in enumerate(["C1", "C2", "C3"])}
    expected = [row.vehicle for row in
                wjoin.wjoin(batch, on="vehicle", time="ts", windows=JOURNEY, how="left_anti").collect()]
    return sorted(reported), sorted(expected), sorted(lost)


def main():
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    spark = wjoin.configure(SparkSession.builder.master("local[2]").appName("never-completed")
                            .config("spark.sql.shuffle.partitions", "4")
                            .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    reported, expected, lost = run(spark, tempfile.mkdtemp(prefix="wjoin-never-"))
    print(f"{len(reported)} vehicles never completed the journey; the batch W-join finds {len(expected)}, "
          f"the simulation lost {len(lost)}")
    spark.stop()
    return 0 if reported == expected == lost else 1


if __name__ == "__main__":
    sys.exit(main())
