"""The Flink side of bench_flink.py: a PyFlink worker run by the Flink virtualenv's python
(benchmarks/flink_env.sh), never by the project's .venv.

It keeps one Flink streaming TableEnvironment (a local mini-cluster, parallelism 2 by default)
alive, reads one JSON job per line on stdin and answers one JSON line on stdout, so the JVM stays
warm between jobs and bench_flink.py can alternate Flink and Spark runs:

    {"dir": "/tmp/x/flink", "query": "interval", "window_ms": 1000, "delay_ms": 3000}
 -> {"seconds": 3.1, "net_runtime_s": 2.9, "n": 403006, "h1": ..., "h2": ..., "plan": "..."}

The inputs are three CSV files dir/A.csv, dir/B.csv, dir/C.csv of (k, t, v): key, event time in
epoch milliseconds, row number; each file in event-time order. Every table gets an event-time
attribute ts = TO_TIMESTAMP_LTZ(t, 3) with the watermark ts - delay.

Queries (count and two checksums of every combination, computed in Flink):
  - interval: two interval joins, (A JOIN B ON A.k = B.k AND |A.ts - B.ts| <= w) JOIN C ON the
    key and C within w of both A and B. Flink plans both as interval joins (bounded state,
    cleaned by the watermark): only A's ts goes on as the time attribute of A JOIN B (a join's
    output keeps one), so C's bound against B is a residual condition on the milliseconds.
  - naive: the same conditions on plain TIMESTAMP columns (no time attribute), so Flink plans
    regular joins with state that is never cleaned.

A job line may also hold "sink": "blackhole" (the join's rows discarded, no count: what the
counting aggregate costs).

    .tools/flink-venv/bin/python benchmarks/flink_job.py --once DIR [--query naive] [--explain] [--sink blackhole]
"""
from __future__ import annotations

import argparse
import json
import sys
import time


def environment(parallelism: int, minibatch: bool = True):
    from pyflink.table import EnvironmentSettings, TableEnvironment
    env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    conf = env.get_config()
    conf.set("parallelism.default", str(parallelism))
    # The count is a global aggregate over the join's output: mini-batches and a local/global
    # split keep its changelog short (a few updates, not one per combination).
    conf.set("table.exec.mini-batch.enabled", "true" if minibatch else "false")
    conf.set("table.exec.mini-batch.allow-latency", "200 ms")
    conf.set("table.exec.mini-batch.size", "5000")
    conf.set("table.optimizer.agg-phase-strategy", "TWO_PHASE")
    conf.set("pipeline.name", "wjoin-bench")
    return env


COUNTER = iter(range(1_000_000))


def register(env, folder: str, delay_ms: int, rowtime: bool) -> dict:
    """Temporary tables over dir/A.csv, ...; returns name per input."""
    names = {}
    job = next(COUNTER)
    for x in "ABC":
        name = f"{x}_{job}"
        ts = ("ts AS TO_TIMESTAMP_LTZ(t, 3), "
              f"WATERMARK FOR ts AS ts - INTERVAL '{delay_ms / 1000:.3f}' SECOND" if rowtime
              else "ts AS CAST(TO_TIMESTAMP_LTZ(t, 3) AS TIMESTAMP(3))")
        env.execute_sql(f"""
            CREATE TEMPORARY TABLE {name} (k INT, t BIGINT, v BIGINT, {ts})
            WITH ('connector' = 'filesystem', 'path' = 'file://{folder}/{x}.csv', 'format' = 'csv')""")
        names[x] = name
    return names


def query(names: dict, window_ms: int, rowtime: bool) -> str:
    """Flink keeps one event-time attribute through a join: the first interval join passes A's
    ts on (B's time goes on as the plain column t), so the second is an interval join on A.ts
    with C within w of B as a residual condition on the milliseconds."""
    w = f"INTERVAL '{window_ms / 1000:.3f}' SECOND"
    a, b, c = names["A"], names["B"], names["C"]
    return f"""
        SELECT COUNT(*) AS n,
               SUM(AB.av * 7 + AB.bv * 11 + C.v * 13) AS h1,
               SUM((AB.b_t - AB.a_t) + 3 * (C.t - AB.b_t)) AS h2
        FROM (SELECT A.k, A.ts, A.t AS a_t, A.v AS av, B.t AS b_t, B.v AS bv
              FROM {a} AS A JOIN {b} AS B ON A.k = B.k AND B.ts BETWEEN A.ts - {w} AND A.ts + {w}) AS AB
        JOIN {c} AS C ON AB.k = C.k AND C.ts BETWEEN AB.ts - {w} AND AB.ts + {w}
                      AND C.t BETWEEN AB.b_t - {window_ms} AND AB.b_t + {window_ms}"""


def run(env, job: dict) -> dict:
    rowtime = job.get("query", "interval") == "interval"
    names = register(env, job["dir"], int(job.get("delay_ms", 3000)), rowtime)
    sql = query(names, int(job.get("window_ms", 1000)), rowtime)
    if job.get("sink") == "blackhole":
        # The join alone, its rows discarded (no count): what the counting aggregate costs.
        sink = f"sink_{next(COUNTER)}"
        env.execute_sql(f"CREATE TEMPORARY TABLE {sink} (n BIGINT, h1 BIGINT, h2 BIGINT) WITH ('connector' = 'blackhole')")
        rows_sql = sql.replace("SELECT COUNT(*) AS n,", "SELECT CAST(1 AS BIGINT) AS n,").replace("SUM(", "(")
        started = time.perf_counter()
        result = env.execute_sql(f"INSERT INTO {sink} {rows_sql}")
        result.wait()
        seconds = time.perf_counter() - started
        env.execute_sql(f"DROP TEMPORARY TABLE {sink}")
        n = h1 = h2 = plan = None
    else:
        table = env.sql_query(sql)
        plan = table.explain() if job.get("explain") else None
        started = time.perf_counter()
        result = table.execute()
        n = h1 = h2 = None
        with result.collect() as rows:
            for row in rows:  # a changelog: the last insert/update-after row holds the final figures
                kind = str(row.get_row_kind())
                if "DELETE" in kind or "UPDATE_BEFORE" in kind:
                    continue
                n, h1, h2 = row[0], row[1], row[2]
        seconds = time.perf_counter() - started
    net = None
    try:
        net = result.get_job_client().get_job_execution_result().result().get_net_runtime() / 1000
    except Exception:  # noqa: BLE001 - the job's own figure is a bonus; the wall time is measured above
        pass
    for name in names.values():
        env.execute_sql(f"DROP TEMPORARY TABLE {name}")
    return {"seconds": seconds, "net_runtime_s": net, "n": n, "h1": h1, "h2": h2, "plan": plan}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--parallelism", type=int, default=2)
    p.add_argument("--once", metavar="DIR", help="run one job on DIR and exit (else: JSON jobs on stdin)")
    p.add_argument("--query", choices=["interval", "naive"], default="interval")
    p.add_argument("--window-ms", type=int, default=1000)
    p.add_argument("--delay-ms", type=int, default=3000)
    p.add_argument("--explain", action="store_true")
    p.add_argument("--no-minibatch", action="store_true", help="count without mini-batches (one update a row)")
    p.add_argument("--sink", choices=["count", "blackhole"], default="count",
                   help="blackhole: the join's rows discarded, nothing counted (what the count costs)")
    args = p.parse_args()
    env = environment(args.parallelism, not args.no_minibatch)
    if args.once:
        out = run(env, {"dir": args.once, "query": args.query, "window_ms": args.window_ms,
                        "delay_ms": args.delay_ms, "explain": args.explain, "sink": args.sink})
        plan = out.pop("plan", None)
        if plan:
            print(plan, file=sys.stderr)
        print(json.dumps(out), flush=True)
        return
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            out = run(env, json.loads(line))
        except Exception as e:  # noqa: BLE001 - report to the driver, keep serving
            out = {"error": f"{type(e).__name__}: {e}"}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
