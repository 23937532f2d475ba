"""spark-wjoin vs Spark's built-in joins on the same cached streams, in one process.

For each workload: N streams (exponential inter-arrival, `rate` rows/s each, keys uniform
over `keys` values), a uniform window; our `wjoin` and Spark's chained inner joins with every
pairwise BETWEEN condition, run alternately `repeats` times after a warm-up; each run writes
every output column to Spark's `noop` sink. Prints input rows/s of both and the ratio, and the
floor: the same inputs shuffled on the key and sorted by time with no join at all; and the
shuffle alone (no sort), whose difference to the floor is what Spark's sort costs.

    .venv/bin/python benchmarks/bench_batch.py                  # the two keyed workloads (200k rows / 1000 keys, 50k / 100)
    .venv/bin/python benchmarks/bench_batch.py --rows 20000 --keys 100 --inputs 4
"""
from __future__ import annotations

import argparse
from functools import reduce

from pyspark.sql import functions as F

from common import median, say, session, timed
from streams import streams


def builtin_join(dfs, window_seconds: float):
    """Spark's own chained inner joins: equal keys and every pair within the window."""
    names = [chr(ord("A") + i) for i in range(len(dfs))]
    aliased = [df.alias(n) for df, n in zip(dfs, names)]
    w = F.expr(f"INTERVAL {int(window_seconds * 1e6)} MICROSECONDS")
    joined = aliased[0]
    for i in range(1, len(dfs)):
        me = names[i]
        conds = [F.col(f"{names[0]}.k") == F.col(f"{me}.k")]
        for j in range(i):
            other = names[j]
            conds.append(F.col(f"{me}.ts").between(F.col(f"{other}.ts") - w, F.col(f"{other}.ts") + w))
        joined = joined.join(aliased[i], reduce(lambda a, b: a & b, conds), "inner")
    return joined.select([F.col(f"{n}.{c}") for n in names for c in ("k", "ts", "v")])


def ours(dfs, window_seconds: float, algorithm: str):
    names = [chr(ord("A") + i) for i in range(len(dfs))]
    joined = dfs[0].wjoin(*dfs[1:], on="k", time="ts", window=f"{int(window_seconds * 1e6)} microseconds",
                          algorithm=algorithm)
    return joined.select(["k"] + [F.col(f"{n}.{c}") for n in names for c in ("k", "ts", "v") if c != "k"])


def floor(dfs, partitions: int):
    """What any partitioned W-join plan pays before joining: every input shuffled on the key
    and sorted by time, then read by as many tasks as there are cores (as AQE coalesces the
    W-join's inputs), with no join."""
    parts = [df.repartition(partitions, "k").sortWithinPartitions("ts") for df in dfs]
    cores = dfs[0].sparkSession.sparkContext.defaultParallelism
    return reduce(lambda x, y: x.union(y), parts).coalesce(cores)


def shuffle_only(dfs, partitions: int):
    """The floor without Spark's sort: what a W-join that ordered its rows itself could go
    down to at best (the sort's share of the floor)."""
    parts = [df.repartition(partitions, "k") for df in dfs]
    cores = dfs[0].sparkSession.sparkContext.defaultParallelism
    return reduce(lambda x, y: x.union(y), parts).coalesce(cores)


def noop(df):
    df.write.format("noop").mode("overwrite").save()


def run(spark, inputs: int, rows: int, keys: int, rate: float, window: float, repeats: int, algorithm: str,
        builtin: bool):
    dfs = streams(spark, inputs, rows, rate, keys)
    total_in = inputs * rows
    ours_df = ours(dfs, window, algorithm)
    results = ours_df.count()
    if builtin:
        check = builtin_join(dfs, window).count()
        if check != results:
            raise SystemExit(f"result counts differ: wjoin {results}, built-in {check}")
    say(f"\n{inputs} inputs x {rows} rows, {rate:g} rows/s, {keys} keys, {window:g} s window: {results:,} results")
    noop(ours_df)  # warm-up
    if builtin:
        noop(builtin_join(dfs, window))
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    noop(floor(dfs, partitions))
    noop(shuffle_only(dfs, partitions))
    t_ours, t_builtin, t_floor, t_shuffle = [], [], [], []
    for _ in range(repeats):
        t_floor.append(timed(lambda: noop(floor(dfs, partitions))))
        t_shuffle.append(timed(lambda: noop(shuffle_only(dfs, partitions))))
        t_ours.append(timed(lambda: noop(ours(dfs, window, algorithm))))
        if builtin:
            t_builtin.append(timed(lambda: noop(builtin_join(dfs, window))))
    mo = median(t_ours)
    say(f"  wjoin ({algorithm}):  median {mo:6.2f} s  {total_in / mo:12,.0f} input rows/s   runs "
        + ", ".join(f"{t:.2f}" for t in t_ours))
    mf = median(t_floor)
    say(f"  floor (shuffle + sort, no join): median {mf:6.2f} s   wjoin / floor: {mo / mf:.2f}")
    ms = median(t_shuffle)
    say(f"  shuffle only (no sort, no join): median {ms:6.2f} s   Spark's sort: {mf - ms:.2f} s of the floor")
    if builtin:
        mb = median(t_builtin)
        say(f"  Spark built-in: median {mb:6.2f} s  {total_in / mb:12,.0f} input rows/s   runs "
            + ", ".join(f"{t:.2f}" for t in t_builtin))
        say(f"  ratio built-in / wjoin: {mb / mo:.1f}x")
    for df in dfs:
        df.unpersist()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--inputs", type=int, default=3)
    p.add_argument("--rows", type=int, help="rows per input (default: the two keyed workloads)")
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--rate", type=float, default=1000.0)
    p.add_argument("--window", type=float, default=1.0, help="seconds")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--algorithm", default="auto")
    p.add_argument("--no-builtin", action="store_true")
    p.add_argument("--shuffle-partitions", type=int, default=200, help="spark.sql.shuffle.partitions, for both")
    args = p.parse_args()
    spark = session("wjoin-bench-batch", shuffle_partitions=args.shuffle_partitions)
    say(f"local[*] on {spark.sparkContext.defaultParallelism} cores, spark.sql.shuffle.partitions="
        f"{args.shuffle_partitions}, AQE on; each run writes every output column to the noop sink")
    workloads = [(args.rows, args.keys)] if args.rows else [(200_000, 1000), (50_000, 100)]
    for rows, keys in workloads:
        run(spark, args.inputs, rows, keys, args.rate, args.window, args.repeats, args.algorithm,
            not args.no_builtin)
    spark.stop()


if __name__ == "__main__":
    main()
