"""NLW-join vs HW-join vs MW-join on the Spark-free engine (Hammad et al. Figs. 7-9 redrawn):
time-stamp comparisons and service time per input row, for 2-6 streams at constant and
variable rates, and over the window size.

    bin/sbt bench/package   # the benchmarks' jar (wjoin.bench.EngineBenchmark), not in the product
    .venv/bin/python benchmarks/bench_algorithms.py
"""
from __future__ import annotations

import argparse
import os

from common import say, session


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=20_000, help="rows per input")
    p.add_argument("--rate", type=float, default=1000.0)
    p.add_argument("--keys", type=int, default=1000)
    args = p.parse_args()
    bench_jar = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jvm", "target", "spark-wjoin-bench.jar")
    if not os.path.isfile(bench_jar):
        raise SystemExit(f"{bench_jar} is missing: run bin/sbt bench/package first")
    spark = session("wjoin-bench-algorithms", shuffle_partitions=2, jars=[bench_jar])
    bench = spark._jvm.wjoin.bench.EngineBenchmark

    def row(n, window_ms, variable, algorithms=("nlw", "hw", "mw")):
        cells = []
        results = None
        for algorithm in algorithms:
            bench.run(n, 2000, args.rate, args.keys, window_ms * 1000, algorithm, variable, 7)  # JIT warm-up
            m = bench.run(n, args.rows, args.rate, args.keys, window_ms * 1000, algorithm, variable, 11)
            if results is not None and m["results"] != results:
                raise SystemExit(f"{algorithm} found {m['results']} results, expected {results}")
            results = m["results"]
            rows = n * args.rows
            cells.append(f"{algorithm}: {m['comparisons'] / rows:9.1f} cmp/row {m['nanos'] / rows:8.0f} ns/row")
        say(f"  N={n} window={window_ms:5d} ms {'variable' if variable else 'constant'}  results={results:>9,}  | "
            + " | ".join(cells))

    say(f"Per input row: time-stamp comparisons and service time; {args.rows} rows/input, {args.rate:g} rows/s, "
        f"{args.keys} keys")
    say("Number of streams (Fig. 9 a/b), window 1 s:")
    for variable in (False, True):
        for n in range(2, 7):
            row(n, 1000, variable)
    say("Window size (Figs. 7-8), 3 streams:")
    for window_ms in (100, 500, 1000, 2000, 5000):
        row(3, window_ms, False)
    spark.stop()


if __name__ == "__main__":
    main()
