"""The broadcast W-join (spark.wjoin.broadcastBytes) against the shuffled plan (-1) and Spark's
built-in chained join, alternating in one process (which goes first rotates), every output column
written to Spark's noop sink; medians, the ratios, and where the broadcast plan's time goes (the
SQL metrics of its last run: Spark's collect / broadcast of each input, our index build, the join).

Cells: the workload matrix's keyed cells where Spark broadcasts two of three cached 4.2 MiB inputs
(bench_matrix.py's generator: 3 x 150k rows at 1000 rows/s, 1 s window):

  keys 100k        100,000 key values (42 results): the plans are moving rows
  window 60 s      100,000 key values, 60 s window (118k results)
  keys 500         the matrix's key:base (1.8M results)

    .venv/bin/python benchmarks/bench_broadcast.py --repeats 5
    .venv/bin/python benchmarks/bench_broadcast.py --only "keys 100k" --rows 300000
"""
from __future__ import annotations

import argparse

from pyspark.sql import functions as F

import wjoin
from common import last_metrics, median, rotating_runs, say, session

KEY = "spark.wjoin.broadcastBytes"


def generated(spark, rows: int, keys: int, seed: int, rate: float = 1000.0):
    """bench_matrix.py's keyed input: ts at `rate` rows/s with jitter, k uniform over `keys`, cached."""
    df = (spark.range(rows).select(
        F.timestamp_micros(((F.col("id") + F.rand(seed)) / rate * 1e6).cast("long")).alias("ts"),
        (F.rand(seed + 1) * keys).cast("int").alias("k"),
        (F.rand(seed + 2) * 1000.0).alias("x"),
        F.rand(seed + 4).alias("v")).repartition(2).cache())
    df.count()
    return df


def cells(spark, rows: int):
    def make(keys: int, window: str):
        dfs = [generated(spark, rows, keys, 7 * i + 1).alias(n) for i, n in enumerate("ABC")]
        columns = ["k"] + [F.col(f"{n}.{c}") for n in "ABC" for c in ("ts", "x", "v")]
        seconds = float(window.split()[0])

        def ours():
            return wjoin.wjoin(dict(zip("ABC", dfs)), on="k", time="ts", window=window).select(*columns)

        def builtin():
            a, b, c = dfs
            near = lambda p, q: F.abs(F.col(f"{p}.ts").cast("double") - F.col(f"{q}.ts").cast("double")) <= seconds  # noqa: E731
            ab = a.join(b, (F.col("A.k") == F.col("B.k")) & near("A", "B"))
            return ab.join(c, (F.col("B.k") == F.col("C.k")) & near("A", "C") & near("B", "C")).select(
                F.col("A.k").alias("k"), *columns[1:])
        return ours, builtin

    return {"keys 100k": lambda: make(100_000, "1 second"), "window 60 s": lambda: make(100_000, "60 seconds"),
            "keys 500": lambda: make(500, "1 second")}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=150_000, help="rows per input")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--only", default="", help="semicolon-separated cell names")
    args = p.parse_args()
    spark = session("bench_broadcast")
    say(f"rows {args.rows} x 3, repeats {args.repeats} (rotating broadcast / shuffled / built-in after one warm-up each)")
    for name, make in cells(spark, args.rows).items():
        if args.only and name not in args.only.split(";"):
            continue
        ours, builtin = make()
        def setting(value):
            return (lambda: spark.conf.unset(KEY)) if value is None else (lambda: spark.conf.set(KEY, value))
        plans = [("broadcast", setting("10MB"), ours), ("shuffled", setting("-1"), ours),
                 ("built-in", setting(None), builtin)]
        times, counts = rotating_runs(plans, args.repeats)
        spark.conf.unset(KEY)
        assert len(set(counts.values())) == 1, f"{name}: counts differ {counts}"
        med = {plan: median(ts) for plan, ts in times.items()}
        say(f"{name}: broadcast {med['broadcast']:.2f} s, shuffled {med['shuffled']:.2f} s, built-in "
            f"{med['built-in']:.2f} s; shuffled / broadcast {med['shuffled'] / med['broadcast']:.2f}x, "
            f"built-in / broadcast {med['built-in'] / med['broadcast']:.2f}x; {counts['broadcast']} rows")
        spark.conf.set(KEY, "10MB")
        ours().write.format("noop").mode("overwrite").save()
        spark.conf.unset(KEY)
        say(f"  last broadcast run: {where_time_goes(spark)}")
        builtin().write.format("noop").mode("overwrite").save()
        say(f"  last built-in run: {where_time_goes(spark)}")


def where_time_goes(spark) -> str:
    """The timing metrics of the last SQL execution (Spark's BroadcastExchange ones and ours)."""
    found = last_metrics(spark, lambda name: "time to" in name or "indexed" in name or name.startswith("W-join time"))
    status = spark._jsparkSession.sharedState().statusStore()
    executions = status.executionsList()
    last = executions.apply(executions.size() - 1)
    took = last.completionTime().get().getTime() - last.submissionTime()
    return f"execution {took} ms; " + "; ".join(sorted(f"{name}: {value}".replace("\n", " ") for name, value in found.values()))


if __name__ == "__main__":
    main()
