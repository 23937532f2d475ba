"""Same key AND band over 3 inputs: the keyed range path (hash+tree) against the keyless band.

Three inputs of `rows` rows each, one row per time unit, a window wide enough to hold them all;
k uniform over `keys` values (0: no key at all), x a double uniform over [0, rows), so the band
abs(A.x - B.x) < 0.5 finds about one row per probe without the key and 1/keys with it:

    on = ["k", abs(A.x - B.x) < 0.5, abs(B.x - C.x) < 0.5]        (keys >= 1)
    on = [abs(A.x - B.x) < 0.5, abs(B.x - C.x) < 0.5]             (keys = 0)

--types long,timestamp: the same with x a long over [0, 4 rows) and abs(A.x - B.x) <= 1, or a
timestamp over `rows` seconds and B.x BETWEEN A.x - 0.5 s AND A.x + 0.5 s.

The inputs come from spark.range (Spark knows their row count, not their distinct keys, so the
planner assumes the key's selectivity). Each cell: the median of `repeats` timed runs after one
untimed run, every output column written to Spark's `noop` sink; the result count and the
EXPLAIN access paths are printed with it. WJOIN_JAR=<jar> runs another build of the operator
(e.g. main's, for a before/after).

    .venv/bin/python benchmarks/bench_key_band.py --rows 20000 --keys 0,1,3,20
    .venv/bin/python benchmarks/bench_key_band.py --rows 1000000 --keys 0,1 --types double,long,timestamp --repeats 1
"""
from __future__ import annotations

import argparse
import os
import re

from pyspark.sql import functions as F

import wjoin  # noqa: F401  (adds DataFrame.wjoin)
from common import median, say, session, timed

NAMES = "ABC"


# Each type's x over [0, rows) (longs over [0, 4 rows)) and its band, about one match per probe.
TYPES = {
    "double": (lambda rows, seed: F.rand(seed) * rows, "abs({a}.x - {b}.x) < 0.5"),
    "long": (lambda rows, seed: F.floor(F.rand(seed) * 4 * rows).cast("long"), "abs({a}.x - {b}.x) <= 1"),
    "timestamp": (lambda rows, seed: F.timestamp_micros((F.rand(seed) * rows * 1e6).cast("long")),
                  "{b}.x BETWEEN {a}.x - INTERVAL 500 MILLISECONDS AND {a}.x + INTERVAL 500 MILLISECONDS"),
}


def inputs(spark, rows: int, keys: int, seed: int, kind: str = "double"):
    x = TYPES[kind][0]
    return [spark.range(rows).select(
        (F.floor(F.rand(seed + i) * max(keys, 1))).cast("int").alias("k"), F.col("id").alias("ts"),
        x(rows, seed + 10 + i).alias("x")).alias(n) for i, n in enumerate(NAMES)]


def query(dfs, rows: int, keys: int, kind: str = "double"):
    band = [F.expr(TYPES[kind][1].format(a=a, b=b)) for a, b in (("A", "B"), ("B", "C"))]
    on = (["k"] if keys > 0 else []) + band
    return dfs[0].wjoin(*dfs[1:], on=on, time="ts", window=rows + 1).select(
        [F.col(f"{n}.{c}") for n in NAMES for c in ("ts", "x")])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=20000, help="rows per input")
    p.add_argument("--keys", default="0,1,3,20", help="key counts to run (0: keyless)")
    p.add_argument("--types", default="double", help=f"band types to run: {', '.join(TYPES)}")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--timeout", type=float, default=0, help="skip the repeats of a cell whose first run took longer")
    args = p.parse_args()
    spark = session("bench_key_band", shuffle_partitions=4)
    say(f"jar: {os.environ.get('WJOIN_JAR', 'bundled')}, rows per input {args.rows}, load {os.getloadavg()[0]:.1f}")
    for kind, keys in [(t, int(k)) for t in args.types.split(",") for k in args.keys.split(",")]:
        df = query(inputs(spark, args.rows, keys, 7, kind), args.rows, keys, kind)
        plan = df._jdf.queryExecution().executedPlan().toString()
        paths = re.search(r"access paths=\[[^\]]*\]", plan)
        count = None
        first = timed(lambda: df.write.format("noop").mode("overwrite").save())
        times = [first] if args.timeout and first > args.timeout else \
            [timed(lambda: df.write.format("noop").mode("overwrite").save()) for _ in range(args.repeats)]
        count = df.count()
        say(f"{kind}, keys {keys}: median {median(times):.2f} s of {['%.2f' % t for t in times]} (first {first:.2f} s), "
            f"{count} rows, {paths.group(0) if paths else '?'}")
    say(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
