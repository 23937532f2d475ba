"""Vehicles seen by three cameras along a road (Hammad et al., Example 2), joined with spark-wjoin.

A vehicle passes camera C1, then C2 between 30 seconds and 2 minutes later, then C3 between
1 and 3 minutes after C2. The cameras also report vehicles that take other roads. The W-join
finds every journey C1 -> C2 -> C3 of the same vehicle within those travel times.

Run it with bin/demo (it sets everything up first).
"""
import datetime as dt
import random
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

import wjoin


def sightings(seed=2002, vehicles=400):
    rnd = random.Random(seed)
    start = dt.datetime(2026, 11, 21, 8, 0, 0)
    c1, c2, c3 = [], [], []
    for v in range(vehicles):
        t1 = start + dt.timedelta(seconds=rnd.uniform(0, 3600))
        c1.append((f"V{v:04d}", t1, rnd.randint(40, 90)))
        if rnd.random() < 0.8:   # most vehicles drive on to C2 ...
            t2 = t1 + dt.timedelta(seconds=rnd.uniform(20, 130))
            c2.append((f"V{v:04d}", t2, rnd.randint(40, 90)))
            if rnd.random() < 0.8:   # ... and to C3
                t3 = t2 + dt.timedelta(seconds=rnd.uniform(50, 190))
                c3.append((f"V{v:04d}", t3, rnd.randint(40, 90)))
    return c1, c2, c3


def main():
    spark = wjoin.configure(SparkSession.builder.master("local[*]").appName("wjoin-demo")
                            .config("spark.ui.enabled", "false")
                            .config("spark.ui.showConsoleProgress", "false")
                            .config("spark.sql.shuffle.partitions", "4")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    schema = "vehicle_id string, seen_at timestamp, speed_kmh int"
    c1, c2, c3 = (spark.createDataFrame(rows, schema) for rows in sightings())

    started = time.perf_counter()
    journeys = wjoin.wjoin(
        {"C1": c1, "C2": c2, "C3": c3},
        on="vehicle_id",
        time="seen_at",
        windows="DWINDOW(C1,C2) = [30 seconds, 2 minutes] AND DWINDOW(C2,C3) = [1 minute, 3 minutes]",
    )
    result = journeys.select(
        "vehicle_id",
        F.col("C1.seen_at").alias("at_c1"),
        F.col("C2.seen_at").alias("at_c2"),
        F.col("C3.seen_at").alias("at_c3"),
        (F.col("C3.seen_at").cast("long") - F.col("C1.seen_at").cast("long")).alias("trip_seconds"),
    ).orderBy("at_c1").cache()
    matched = result.count()
    seconds = time.perf_counter() - started

    print("Vehicles seen at C1, then C2 within [30 s, 2 min], then C3 within [1 min, 3 min]:")
    result.show(10, truncate=False)
    plan = journeys._jdf.queryExecution().executedPlan().toString()
    algorithm = "hw" if "WindowJoin hw" in plan else ("mw" if "WindowJoin mw" in plan else "nlw")
    sizes = " + ".join(str(df.count()) for df in (c1, c2, c3))
    print(f"W-join ({algorithm}) of 3 camera streams ({sizes} sightings): {matched} journeys in {seconds:.2f} s")
    spark.stop()
    return 0 if matched > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
