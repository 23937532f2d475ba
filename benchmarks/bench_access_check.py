"""The run-time access check (spark.wjoin.accessCheckRows): each cell run with the check on
(default 4096 rows) and off (0), alternating in one process (which goes first alternates too), every output column written to
Spark's noop sink; medians, the ratio off / on, and what the partitions did (the metrics
numCheckedPartitions / numRechosenPartitions of the last run).

Cells: where the planner's assumptions are wrong (inputs from spark.range: Spark knows their
row counts, not their time spans, key counts or band selectivities), and where they are right
or nothing can change (to show what the check costs):

  wide band, dense     2 inputs, windows of ~3 rows, a band that accepts every pair:
                       planned trees (band assumed 1/1000), measured: scans
  narrow+wide bands    3 inputs, abs(A.x - B.x) <= 60 (of 100) AND abs(B.x - C.x) <= 0.5:
                       probe orders planned on equal assumed selectivities
  key, 200 partitions  3 inputs keyed on 500 values (hash partitioning: 200 checks)
  double band          3 inputs, a narrow band, trees planned and kept
  key N=5              5 keyed inputs (orders over 4! per origin, per partition)

    .venv/bin/python benchmarks/bench_access_check.py --repeats 5
    .venv/bin/python benchmarks/bench_access_check.py --only "wide band, dense" --rows 200000
    .venv/bin/python benchmarks/bench_access_check.py --conf spark.wjoin.smallInputBytes=-1   # shuffled plans
"""
from __future__ import annotations

import argparse

from pyspark.sql import functions as F

from common import last_metrics, median, rotating_runs, say, session

KEY = "spark.wjoin.accessCheckRows"


def generated(spark, rows: int, step: int, domain: float, keys: int, seed: int):
    return spark.range(rows).select((F.col("id") * step).alias("t"), (F.rand(seed) * domain).alias("x"),
                                    (F.rand(seed + 100) * keys).cast("int").alias("k"), F.col("id").alias("v"))


def cells(spark, rows: int):
    def wide():
        a, b = (generated(spark, rows, 10, 1.0, 1, s).cache() for s in (1, 2))
        return a.wjoin(b, on=[F.abs(F.col("A.x") - F.col("B.x")) <= 5.0], time="t", window=15)

    def bands():
        a, b, c = (generated(spark, rows // 4, 10, 100.0, 1, s).cache() for s in (3, 4, 5))
        return a.wjoin(b, c, on=[F.abs(F.col("A.x") - F.col("B.x")) <= 60.0,
                                 F.abs(F.col("B.x") - F.col("C.x")) <= 0.5], time="t", window=200)

    def keyed():
        dfs = [generated(spark, rows, 10, 1.0, 500, s).cache() for s in (6, 7, 8)]
        return dfs[0].wjoin(*dfs[1:], on="k", time="t", window=5000)

    def double():
        dfs = [generated(spark, rows // 2, 10, 1000.0, 1, s).cache() for s in (9, 10, 11)]
        return dfs[0].wjoin(*dfs[1:], on=[F.abs(F.col("A.x") - F.col("B.x")) <= 2.0,
                                          F.abs(F.col("B.x") - F.col("C.x")) <= 2.0], time="t", window=10000)

    def five():
        dfs = [generated(spark, rows // 2, 10, 1.0, 2000, s).cache() for s in range(12, 17)]
        return dfs[0].wjoin(*dfs[1:], on="k", time="t", window=5000)

    return {"wide band, dense": wide, "narrow+wide bands": bands, "key, 200 partitions": keyed,
            "double band": double, "key N=5": five}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=100_000, help="rows per input (some cells take a share)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", default="", help="semicolon-separated cell names")
    p.add_argument("--conf", action="append", default=[], help="a session setting key=value (repeatable)")
    args = p.parse_args()
    spark = session("bench_access_check", conf=[tuple(c.split("=", 1)) for c in args.conf])
    say(f"rows {args.rows}, repeats {args.repeats} (alternating on / off after one warm-up each)")
    for name, build in cells(spark, args.rows).items():
        if args.only and name not in args.only.split(";"):
            continue
        # the order alternates too: the second run of a pair gains from the first (caches, GC)
        plans = [("off", lambda: spark.conf.set(KEY, "0"), build), ("on", lambda: spark.conf.set(KEY, "4096"), build)]
        times, counts = rotating_runs(plans, args.repeats)
        spark.conf.unset(KEY)
        on, off = median(times["on"]), median(times["off"])
        assert counts["on"] == counts["off"], f"{name}: counts differ {counts}"
        say(f"{name}: on {on:.2f} s, off {off:.2f} s, off/on {off / on:.2f}x, {counts['on']} rows; "
            f"runs on {['%.2f' % t for t in times['on']]} off {['%.2f' % t for t in times['off']]}")
        say(f"  {checked(spark, build)}")


def checked(spark, build) -> str:
    """Partitions that checked / re-chose, from the SQL metrics of one more run with the check on."""
    spark.conf.set(KEY, "4096")
    df = build()
    df.write.format("noop").mode("overwrite").save()
    spark.conf.unset(KEY)
    found = dict(last_metrics(spark, lambda name: name.startswith("partitions that")).values())
    return "; ".join(f"{k}: {v}" for k, v in found.items()) or "no run-time check metrics (nothing to choose)"


if __name__ == "__main__":
    main()
