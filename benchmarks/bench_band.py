"""A keyless (band / inequality) W-join over 3 inputs vs Spark's built-in join, same data, one process.

Three streams (exponential inter-arrival at `rate` rows/s each) carry a position x uniform over
`positions` values; the join asks for every pair within `window` seconds AND neighbouring
positions: abs(A.x - B.x) <= d AND abs(B.x - C.x) <= d. There is no equality, so Spark's own
join falls back to nested loops (BroadcastNestedLoopJoin / CartesianProduct), while wjoin
partitions by event time into bands (spark.wjoin.timeBands, default spark.sql.shuffle.partitions)
and runs MW-join per band. Also timed: wjoin in one partition (spark.wjoin.timeBands=1).
Each run writes every output column to Spark's `noop` sink; the counts of all three must agree.
The W-join enumerates the combinations inside the window and tests the band predicate on them,
so it pays off where the window is selective (the default: about 20 partners per input within
10 ms); nested loops pay for every pair of rows whatever the window.

    .venv/bin/python benchmarks/bench_band.py
    .venv/bin/python benchmarks/bench_band.py --rows 200000 --window 0.02 --no-builtin  # bands vs one partition
    .venv/bin/python benchmarks/bench_band.py --rows 200000 --window 0.02 --no-builtin \
        --access-paths "A:scan, B:scan, C:scan"                                      # the same, join-bound
"""
from __future__ import annotations

import argparse
import re

from pyspark.sql import functions as F

from common import median, say, session, timed
from streams import streams

NAMES = "ABC"


def inputs(spark, rows: int, rate: float, positions: int):
    """The streams of streams.py with their key column renamed to the position x."""
    return [df.withColumnRenamed("k", "x").alias(n) for df, n in zip(streams(spark, 3, rows, rate, positions), NAMES)]


def band(d: int):
    return (F.abs(F.col("A.x") - F.col("B.x")) <= d) & (F.abs(F.col("B.x") - F.col("C.x")) <= d)


def columns():
    return [F.col(f"{n}.{c}") for n in NAMES for c in ("x", "ts", "v")]


def ours(dfs, window: float, d: int, algorithm: str, access_paths: str = "auto"):
    return dfs[0].wjoin(*dfs[1:], on=band(d), time="ts", window=f"{int(window * 1e6)} microseconds",
                        algorithm=algorithm, access_paths=access_paths).select(columns())


def builtin(dfs, window: float, d: int):
    """Spark's chained inner joins: every pair within the window and the same band predicate."""
    a, b, c = dfs
    w = F.expr(f"INTERVAL {int(window * 1e6)} MICROSECONDS")
    within = lambda x, y: F.col(f"{x}.ts").between(F.col(f"{y}.ts") - w, F.col(f"{y}.ts") + w)  # noqa: E731
    ab = a.join(b, within("B", "A") & (F.abs(F.col("A.x") - F.col("B.x")) <= d), "inner")
    abc = ab.join(c, within("C", "A") & within("C", "B") & (F.abs(F.col("B.x") - F.col("C.x")) <= d), "inner")
    return abc.select(columns())


def noop(df):
    df.write.format("noop").mode("overwrite").save()


def single(spark, action):
    spark.conf.set("spark.wjoin.timeBands", "1")
    try:
        return action()
    finally:
        spark.conf.unset("spark.wjoin.timeBands")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=10000, help="rows per input")
    p.add_argument("--rate", type=float, default=1000.0, help="rows per second per input")
    p.add_argument("--positions", type=int, default=100, help="x is uniform over this many values")
    p.add_argument("--d", type=int, default=5, help="band half-width: abs(A.x - B.x) <= d")
    p.add_argument("--window", type=float, default=0.01, help="seconds")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--algorithm", default="auto")
    p.add_argument("--access-paths", default="auto", help='wjoin access_paths, e.g. "A:scan, B:scan, C:scan"')
    p.add_argument("--no-builtin", action="store_true", help="time wjoin only (for sizes nested loops cannot do)")
    p.add_argument("--shuffle-partitions", type=int, default=8, help="spark.sql.shuffle.partitions, for both")
    args = p.parse_args()
    spark = session("wjoin-bench-band", shuffle_partitions=args.shuffle_partitions)
    say(f"local[*] on {spark.sparkContext.defaultParallelism} cores, spark.sql.shuffle.partitions="
        f"{args.shuffle_partitions}, AQE on; each run writes every output column to the noop sink")
    dfs = inputs(spark, args.rows, args.rate, args.positions)
    total_in = 3 * args.rows
    results = ours(dfs, args.window, args.d, args.algorithm, args.access_paths).count()
    check = results if args.no_builtin else builtin(dfs, args.window, args.d).count()
    alone = single(spark, lambda: ours(dfs, args.window, args.d, args.algorithm, args.access_paths).count())
    if not (results == check == alone):
        raise SystemExit(f"result counts differ: wjoin {results}, one partition {alone}, built-in {check}")
    plan = "" if args.no_builtin else builtin(dfs, args.window, args.d)._jdf.queryExecution().executedPlan().toString()
    joins = sorted({op for op in ("BroadcastNestedLoopJoin", "CartesianProduct", "SortMergeJoin",
                                  "BroadcastHashJoin", "ShuffledHashJoin") if op in plan})
    say(f"\n3 inputs x {args.rows} rows, {args.rate:g} rows/s, x over {args.positions} values, "
        f"abs(x - x') <= {args.d}, {args.window:g} s window: {results:,} results"
        + ("" if args.no_builtin else f"; Spark's plan uses {', '.join(joins)}"))
    ours_plan = ours(dfs, args.window, args.d, args.algorithm, args.access_paths)._jdf.queryExecution().executedPlan().toString()
    chosen = re.search(r"access paths=\[[^\]]*\]", ours_plan)
    say(f"  wjoin {chosen.group(0) if chosen else '(no access paths in the plan)'}")
    noop(ours(dfs, args.window, args.d, args.algorithm, args.access_paths))  # warm-up
    t_ours, t_single, t_builtin = [], [], []
    for _ in range(args.repeats):
        t_ours.append(timed(lambda: noop(ours(dfs, args.window, args.d, args.algorithm, args.access_paths))))
        t_single.append(single(spark, lambda: timed(lambda: noop(ours(dfs, args.window, args.d, args.algorithm, args.access_paths)))))
        if not args.no_builtin:
            t_builtin.append(timed(lambda: noop(builtin(dfs, args.window, args.d))))
    for label, ts in (("wjoin, time bands", t_ours), ("wjoin, one partition", t_single),
                      ("Spark built-in", t_builtin)):
        if not ts:
            continue
        m = median(ts)
        say(f"  {label:22s} median {m:7.2f} s  {total_in / m:10,.0f} input rows/s   runs "
            + ", ".join(f"{t:.2f}" for t in ts))
    if t_builtin:
        say(f"  ratio built-in / wjoin (time bands): {median(t_builtin) / median(t_ours):.1f}x")
    say(f"  ratio one partition / time bands: {median(t_single) / median(t_ours):.2f}x")
    for df in dfs:
        df.unpersist()
    spark.stop()


if __name__ == "__main__":
    main()
