"""The workload matrix: spark-wjoin vs its peers — Spark's built-in joins, DuckDB and Polars
(peers.py) — one factor at a time around a base workload of each join-attribute kind.

Kinds (the join attribute; rows of the heat map):
  key        an int key shared by all inputs (`on="k"`), every pair within the window
  long       no key; a band on a long attribute: abs(A.x - B.x) <= 2000 between neighbours
  double     no key; a band on a double attribute uniform over [0, 1000): abs(A.x - B.x) <= 2.0
  timestamp  no key; a band on a second timestamp: B.y BETWEEN A.y - 2 s AND A.y + 2 s
  udf        the int key plus a Python UDF over two inputs (A.v < B.v)
  key+long, key+double, key+timestamp   the int key (10 values; `keys 1/3/20` cells: 1, 3, 20
             values) plus that kind's band between neighbours, on the band kinds' inputs
Variations (columns): the base cell, then one axis changed: key cardinality (keyed kinds),
per-input rates 1:10:100, window 10 ms and 60 s of event time, N = 2 and 5, input size small
and large. Where a variation would make the output explode, the cell's window is narrowed and
the cell says so (`window` column).

Each cell: the same cached inputs, collected once to Arrow for DuckDB and Polars (untimed); the
floor (`floor_s`: the inputs read and written with no join, what no Spark plan undercuts) timed
beside the plans; every plan counted once (the counts must agree: a peer's differing count is printed loudly and
recorded as `<peer>_agrees: false`), `--warmups` warm-ups each (1; a peer's warm-up is its count), then
`--repeats` alternating timed runs: the Spark plans write every output column to the noop
sink, the peers materialize the same columns in memory (peers.py says how). A plan whose count
took 30 s or more is timed once; one slower than --builtin-cap (45 s) is stopped (Spark: job
group cancelled, DuckDB: interrupted, Polars: its worker killed) and the cell records the cap as
a lower bound, without a count to compare. Medians, input rows/s, the ratio built-in / wjoin
(`ratio`) and the ratio best peer / wjoin (`best_ratio`, `best_peer`: the fastest of builtin,
duckdb, polars) are printed and appended as JSON lines to --out. `--cold` also measures, per
kind's base cell, the first run of each Spark plan in a fresh session (a new process). `--plot`
draws the heat map of best_ratio (older files without peers: the built-in ratio).

    .venv/bin/python -m pip install -r benchmarks/requirements.txt  # duckdb, polars, matplotlib
    .venv/bin/python benchmarks/bench_matrix.py --out benchmarks/.data/matrix.jsonl --cold
    .venv/bin/python benchmarks/bench_matrix.py --plot benchmarks/.data/matrix.jsonl docs/img/matrix.png
    .venv/bin/python benchmarks/bench_matrix.py --table benchmarks/.data/matrix.jsonl   # docs/benchmarks.md's table
    .venv/bin/python benchmarks/bench_matrix.py --only double:base --repeats 3     # one cell
    .venv/bin/python benchmarks/bench_matrix.py --only "key:size 10k" --conf spark.wjoin.smallInputBytes=-1
    .venv/bin/python benchmarks/bench_matrix.py --only double:base --rows 200000,1000000 --no-builtin --out s.jsonl  # sizes
    .venv/bin/python benchmarks/bench_matrix.py --plot-sizes docs/data/matrix.jsonl s.jsonl sizes.png
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import asdict

from common import median, say, session, timed
from matrix_cells import SLOW_BUILTIN_S, Cell, builtin, cells, floor, inputs, noop, ours, scaled
from peers import Peers


def capped(spark, action, cap: float):
    """Runs `action` in a job group cancelled after `cap` seconds: its time, or None if cancelled."""
    sc = spark.sparkContext
    group = f"wjoin-matrix-{uuid.uuid4().hex}"
    sc.setJobGroup(group, "built-in join (capped)", interruptOnCancel=True)
    timer = threading.Timer(cap, sc.cancelJobGroup, [group])
    timer.start()
    started = time.perf_counter()
    try:
        action()
        return time.perf_counter() - started
    except Exception:
        if time.perf_counter() - started >= cap * 0.98:
            return None
        raise
    finally:
        timer.cancel()
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)


def measure(spark, cell: Cell, repeats: int, cap: float, known: tuple | None = None, with_builtin: bool = True,
            warmups: int = 1) -> dict:
    """`known`: (seconds, capped) of this cell's built-in join in an earlier run, which is not run
    again: it was stopped at the cap or took half of it or more (Spark does not stop a cancelled
    nested-loop join's tasks: they would load every later cell). Recorded as that run's figure.
    `with_builtin` False (`--no-builtin`): Spark's join is not run at all, nor recorded.
    `warmups`: untimed runs of each Spark plan before the timed ones (`--warmups`; the peers' is
    their count)."""
    dfs = inputs(spark, cell)
    tables = [df.toArrow() for df in dfs]     # the peers' copy of the same rows, untimed
    total_in = sum(cell.rows_of(i) for i in range(cell.n))
    counts = [0, None]
    timed(lambda: counts.__setitem__(0, ours(dfs, cell).count()))
    builtin_count_s = None if known or not with_builtin else \
        capped(spark, lambda: counts.__setitem__(1, builtin(dfs, cell).count()), cap)
    # A built-in plan slower than `cap` is cancelled: the cell records a lower bound (cap) for
    # it and no count to compare. One that takes SLOW_BUILTIN_S or more to count is warm after
    # its count (JIT and code generation are a small part of it) and is timed once.
    slow = builtin_count_s is None or builtin_count_s >= SLOW_BUILTIN_S
    peers = Peers(cell.spec(), tables, cap, SLOW_BUILTIN_S)   # their warm-ups, same cap and rule
    del tables
    for _ in range(warmups):
        noop(ours(dfs, cell))
        noop(floor(dfs, cell))
        if with_builtin and not slow:
            noop(builtin(dfs, cell))
    t_ours, t_builtin, t_floor = [], [], []
    for i in range(repeats):
        t_ours.append(timed(lambda: noop(ours(dfs, cell))))
        t_floor.append(timed(lambda: noop(floor(dfs, cell))))
        if builtin_count_s is not None and (not slow or i == 0):
            t = capped(spark, lambda: noop(builtin(dfs, cell)), 2 * cap)
            t_builtin.append(t if t is not None else 2 * cap)
        peers.run(i, 2 * cap)
    for df in dfs:
        df.unpersist()
    mo = median(t_ours)
    mb = median(t_builtin) if t_builtin else known[0] if known else cap if with_builtin else None
    builtin_capped = known[1] if known else not t_builtin and with_builtin
    times, extra = peers.finish(counts[0], lambda rows, name: say(
        f"!!! COUNTS DIFFER in {cell.name}: {name} {rows:,} rows, wjoin {counts[0]:,} rows !!!"))
    if with_builtin:
        times["builtin"] = (mb, builtin_capped)
    best = min(times, key=lambda k: times[k])   # the fastest median; a capped one as its lower bound
    return dict(asdict(cell), name=cell.name, input_rows=total_in, wjoin_results=counts[0],
                builtin_results=counts[1], wjoin_s=mo, builtin_s=mb,
                builtin_capped=builtin_capped,
                wjoin_rows_per_s=total_in / mo, builtin_rows_per_s=total_in / mb if mb else None,
                ratio=mb / mo if mb else None,
                runs_wjoin=t_ours, runs_builtin=t_builtin, floor_s=median(t_floor), runs_floor=t_floor, **extra, best_peer=best,
                best_peer_s=times[best][0], best_capped=times[best][1],
                best_ratio=times[best][0] / mo,
                builtin_earlier_run=bool(known))


def cold(cell: Cell, plan: str, conf=(), cap: float = 45.0) -> dict:
    """The first run of `plan` in this fresh process, then two more (the warm time; one more
    when the first took 30 s or more). The built-in plan's first run is capped at `cap` seconds:
    slower, the cell records only that lower bound."""
    spark = session(f"wjoin-matrix-cold-{plan}", conf=conf)
    dfs = inputs(spark, cell)
    build = ours if plan == "wjoin" else builtin
    first = capped(spark, lambda: noop(build(dfs, cell)), cap)
    if first is None:
        spark.stop()
        return dict(name=cell.name, plan=plan, first_s=None, warm_s=None, cold_ratio=None, capped_at=cap)
    runs = [first]
    for _ in range(1 if first >= SLOW_BUILTIN_S else 2):  # a slow plan: one warm run
        runs.append(timed(lambda: noop(build(dfs, cell))))
    spark.stop()
    return dict(name=cell.name, plan=plan, first_s=runs[0], warm_s=median(runs[1:]), cold_ratio=runs[0] / median(runs[1:]))


def _peer(r: dict, name: str) -> str:
    if f"{name}_s" not in r:
        return f"{name} failed ({r.get(f'{name}_error', '?')})" if f"{name}_error" in r else ""
    at_least = ">=" if r.get(f"{name}_capped") else ""
    results = r.get(f"{name}_results")
    agree = ("" if r.get(f"{name}_capped") or results == r["wjoin_results"]
             else f" COUNT DIFFERS: {results}" if results is not None else "")
    plan = f" [{r[name + '_plan']}]" if r.get(f"{name}_plan") else ""
    return f"{name} {at_least}{r[name + '_s']:.2f} s{plan}{agree}"


def line(r: dict) -> str:
    agree = ("  built-in not run: an earlier run's figure" if r.get("builtin_earlier_run")
             else "  built-in cancelled after the cap: counts not compared" if r.get("builtin_capped")
             else "" if r["wjoin_results"] == r["builtin_results"] else "  COUNTS DIFFER")
    at_least = ">=" if r.get("builtin_capped") else "  "
    builtin_text = ("built-in not run" if r["builtin_s"] is None else
                    f"built-in {at_least}{r['builtin_s']:7.2f} s ({r['builtin_rows_per_s']:>11,.0f}/s)  "
                    f"ratio {at_least}{r['ratio']:6.1f}x{agree}")
    best = (f"  best peer {r['best_peer']}: {'>=' if r['best_capped'] else ''}{r['best_ratio']:.1f}x"
            if "best_peer" in r else "")
    return (f"{r['name']:<26} N={r['n']} rows={r['input_rows']:>9,} window={r['window']:g}s "
            f"results={r['wjoin_results']:>11,}  wjoin {r['wjoin_s']:7.2f} s ({r['wjoin_rows_per_s']:>11,.0f}/s)  "
            + (f"floor {r['floor_s']:.2f} s  " if "floor_s" in r else "")
            + builtin_text
            + "".join(f"  {_peer(r, n)}" for n in ("duckdb", "polars") if _peer(r, n)) + best)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="benchmarks/.data/matrix.jsonl")
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--warmups", type=int, default=1,
                   help="untimed runs of each Spark plan per cell before the timed ones: the JVM's JIT is "
                        "still compiling after one in a process's first cells (a sweep's first cell ran "
                        "1.5x slower than the same cell again later in the process)")
    p.add_argument("--only", help="comma-separated cell names (kind:variation) or kinds")
    p.add_argument("--builtin-cap", type=float, default=45.0, metavar="SECONDS",
                   help="cancel a built-in count slower than this; the cell records it as a lower bound")
    p.add_argument("--builtin-known", metavar="JSONL",
                   help="an earlier run: cells whose built-in join it stopped at its cap, or which took half "
                        "of --builtin-cap or more, do not run it again (recorded with that run's figure)")
    p.add_argument("--cold", action="store_true", help="also time each kind's base cell cold, in fresh processes")
    p.add_argument("--cold-cell", nargs=2, metavar=("CELL", "PLAN"), help=argparse.SUPPRESS)
    p.add_argument("--plot", nargs=2, metavar=("JSONL", "PNG"))
    p.add_argument("--table", metavar="JSONL", help="print the cells of JSONL as a Markdown table")
    p.add_argument("--plot-sizes", nargs="+", metavar="JSONL_THEN_PNG",
                   help="time against rows per input from size-sweep files (--rows), the last argument the PNG")
    p.add_argument("--rows", metavar="N[,N...]",
                   help="run each chosen cell again with N rows in its fastest input (a size sweep: same rates, "
                        "a longer span of event time)")
    p.add_argument("--no-builtin", action="store_true",
                   help="do not run Spark's built-in join (the peers and the floor only); for sizes where it is hopeless")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="a session setting for both plans, e.g. spark.wjoin.smallInputBytes=-1 (the shuffled plan)")
    args = p.parse_args()
    conf = [tuple(kv.split("=", 1)) for kv in args.conf]
    if args.plot or args.table or args.plot_sizes:
        from matrix_report import plot, plot_sizes, table   # reads this module's cells: imported here, not at the top
        if args.plot_sizes:
            return plot_sizes(args.plot_sizes[:-1], args.plot_sizes[-1])
        return plot(*args.plot) if args.plot else table(args.table)
    chosen = [c for c in cells() if not args.only
              or any(o in (c.name, c.kind) for o in args.only.split(","))]
    if args.rows:
        chosen = [scaled(c, int(n)) for c in chosen for n in args.rows.split(",")]
    if args.cold_cell:
        cell = next(c for c in cells() if c.name == args.cold_cell[0])
        print(json.dumps(cold(cell, args.cold_cell[1], conf, args.builtin_cap)), flush=True)
        return
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    spark = session("wjoin-bench-matrix", conf=conf)
    say(f"local[*] on {spark.sparkContext.defaultParallelism} cores; medians of {args.repeats} alternating runs "
        f"after {args.warmups} warm-up(s) each; every output column to the noop sink" + "".join(f"; {k}={v}" for k, v in conf))
    with open(args.out, "a") as out:
        known = {} if not args.builtin_known else {
            r["name"]: (r["builtin_s"], r.get("builtin_capped", False)) for r in map(json.loads, open(args.builtin_known))
            if r.get("builtin_s") is not None and (r.get("builtin_capped") or r["builtin_s"] >= args.builtin_cap / 2)}
        for cell in chosen:
            r = dict(measure(spark, cell, args.repeats, args.builtin_cap, known.get(cell.name), not args.no_builtin,
                             args.warmups),
                     conf=dict(conf), warmups=args.warmups,
                     load=round(os.getloadavg()[0], 1))   # the 1-minute load average at the cell's end
            say(line(r))
            out.write(json.dumps(r) + "\n")
            out.flush()
        spark.stop()
        if args.cold:
            for cell in (c for c in chosen if c.variation == "base"):
                for plan in ("wjoin", "builtin"):
                    done = subprocess.run([sys.executable, __file__, "--cold-cell", cell.name, plan,
                                           f"--builtin-cap={args.builtin_cap}"]
                                          + [f"--conf={k}={v}" for k, v in conf],
                                          capture_output=True, text=True, check=True)
                    r = json.loads(done.stdout.strip().splitlines()[-1])
                    if r["first_s"] is None:
                        say(f"cold {r['name']:<20} {plan:<8} first > {r['capped_at']:.0f} s (cancelled)")
                    else:
                        say(f"cold {r['name']:<20} {plan:<8} first {r['first_s']:6.2f} s, warm {r['warm_s']:6.2f} s, "
                            f"first / warm {r['cold_ratio']:.2f}")
                    out.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
