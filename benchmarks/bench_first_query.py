"""The first W-join of a session against the next ones, with and without the background
warm-up (`spark.wjoin.warmUp`), each in fresh processes, alternated.

In each process: a new local session, the cell's inputs generated and cached, one built-in join
(Spark itself warm, as in a notebook that ran other queries first), then the W-join `--runs`
times (3): the first run, and the median of the others (warm; with more runs the JIT's later
compilations count too, and the warm time is lower). Cells are bench_matrix.py's.

    .venv/bin/python benchmarks/bench_first_query.py                         # key:base, 3 rounds
    .venv/bin/python benchmarks/bench_first_query.py --cell "double:size large" --rounds 2
    .venv/bin/python benchmarks/bench_first_query.py --no-builtin-first      # the W-join is the session's first query
    .venv/bin/python benchmarks/bench_first_query.py --runs 8                # warm = the median of runs 2-8
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

from matrix_cells import builtin, cells, inputs, noop, ours
from common import median, say, session, timed


def one_process(cell_name: str, warm_up: bool, builtin_first: bool, runs: int = 3) -> dict:
    spark = session("wjoin-first-query", conf=[("spark.wjoin.warmUp", str(warm_up).lower())])
    cell = next(c for c in cells() if c.name == cell_name)
    dfs = inputs(spark, cell)
    if builtin_first:
        noop(builtin(dfs, cell))
    times = [timed(lambda: noop(ours(dfs, cell))) for _ in range(runs)]
    spark.stop()
    return dict(cell=cell_name, warm_up=warm_up, first_s=times[0], warm_s=median(times[1:]),
                first_over_warm=times[0] / median(times[1:]), runs=times)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cell", default="key:base", help="a bench_matrix.py cell (kind:variation)")
    p.add_argument("--rounds", type=int, default=3, help="fresh processes per setting, alternated")
    p.add_argument("--no-builtin-first", action="store_true")
    p.add_argument("--runs", type=int, default=3, help="W-join runs per process: the first, then the warm ones (>= 2)")
    p.add_argument("--one", choices=["on", "off"], help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one_process(args.cell, args.one == "on", not args.no_builtin_first, args.runs)), flush=True)
        return
    results = {"on": [], "off": []}
    for _ in range(args.rounds):
        for setting in ("off", "on"):
            done = subprocess.run([sys.executable, __file__, "--one", setting, "--cell", args.cell, "--runs", str(args.runs)]
                                  + (["--no-builtin-first"] if args.no_builtin_first else []),
                                  capture_output=True, text=True, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            results[setting].append(r)
            say(f"warm-up {setting:<3} first {r['first_s']:6.2f} s, warm {r['warm_s']:6.2f} s, "
                f"first / warm {r['first_over_warm']:.2f}")
    for setting, rs in results.items():
        say(f"{args.cell}, warm-up {setting}: medians of {len(rs)} processes: first "
            f"{median([r['first_s'] for r in rs]):.2f} s, warm {median([r['warm_s'] for r in rs]):.2f} s, "
            f"first / warm {median([r['first_over_warm'] for r in rs]):.2f}")


if __name__ == "__main__":
    main()
