"""Streaming W-join on Spark vs Flink's interval joins, on the same rows, at several micro-batch sizes.

The rows: 3 inputs A, B, C of --rows rows each, the papers' synthetic streams
(benchmarks/streams.py: exponential inter-arrival times at --rates rows/s of event time, keys
uniform over --keys values), event times rounded to milliseconds (Flink's event-time attribute
is TIMESTAMP(3)), v = the row's number. The join: every (a, b, c) with one key and each pair
within --window-ms of each other (inclusive), watermark delay --delay-ms on every input.

They are written once to CSV files in a temp dir: for Flink one time-ordered file per input;
for Spark, per micro-batch size, one file per input and micro-batch. Then each round, alternating
the order every other round, runs:
  - Flink: benchmarks/flink_job.py in the Flink virtualenv (benchmarks/flink_env.sh), a worker
    that keeps its JVM warm between jobs: two interval joins, event time with watermarks,
    parallelism --parallelism, counting the combinations in Flink; timed from submitting the
    job to its last result;
  - per micro-batch size: the W-join (eager HW-join by default) as a Structured Streaming query
    over the CSV files (maxFilesPerTrigger=1, trigger availableNow) into a foreachBatch sink that
    counts the combinations; with --floors also Spark's stateless floor (the three streams
    unioned, no shuffle, no state) and a stateful floor (the union counted per key in the state
    store, update mode: one exchange and a state store per partition, no join).
Every engine must give the same count and checksums (printed loudly if not). Prints per batch
size the medians over --repeats, input rows/s, the W-join / Flink ratio, and where a micro-batch's
time goes (medians of Spark's per-batch durationMs phases and the state operator's times).

    benchmarks/flink_env.sh                                    # once: .tools/flink-venv with PyFlink
    .venv/bin/python benchmarks/bench_flink.py                 # 3 x 120k rows, 10k and 120k-row batches
    .venv/bin/python benchmarks/bench_flink.py --batch-rows 6000,40000,120000 --repeats 3 --floors
    .venv/bin/python benchmarks/bench_flink.py --rows 600000 --batch-rows 10000,100000,600000
    .venv/bin/python benchmarks/bench_flink.py --flink-naive    # also Flink's regular (unbounded) joins

Needs Java 17; PyFlink is never imported here (it lives in its own virtualenv, see
benchmarks/flink-requirements.txt).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NAMES = "ABC"
PHASES = ["triggerExecution", "latestOffset", "getBatch", "queryPlanning", "addBatch", "walCommit", "commitOffsets"]


def say(*parts):
    print(*parts, flush=True)


def write_rows(root: str, rows: int, rates: list[float], keys: int, batch_rows: list[int]) -> tuple[str, dict]:
    """Writes root/flink/{A,B,C}.csv and root/spark-<size>/<X>/<batch>.csv; returns the Flink dir and
    {size: [folder per input]}."""
    from streams import stream_rows  # the project venv's module (imports pyspark)
    flink = os.path.join(root, "flink")
    os.makedirs(flink)
    spark_dirs = {size: [] for size in batch_rows}
    stamp = time.time() - 100_000
    for i, x in enumerate(NAMES):
        # (k, t in ms, v = row number); t rounded to ms, so both engines see the same times.
        data = [f"{k},{ts // 1000},{r}\n" for r, (k, ts, _) in enumerate(stream_rows(1000 + i, rows, rates[i], keys))]
        with open(os.path.join(flink, f"{x}.csv"), "w") as f:
            f.writelines(data)
        for size in batch_rows:
            folder = os.path.join(root, f"spark-{size}", x)
            os.makedirs(folder)
            for b, start in enumerate(range(0, rows, size)):
                path = os.path.join(folder, f"batch-{b:05d}.csv")
                with open(path, "w") as f:
                    f.writelines(data[start:start + size])
                # The file source takes the oldest files first: make the order explicit.
                os.utime(path, (stamp + b, stamp + b))
            spark_dirs[size].append(folder)
    return flink, spark_dirs


# ---------------------------------------------------------------- Spark

def read_streams(spark, folders: list[str], delay_ms: int):
    from pyspark.sql import functions as F
    return [spark.readStream.schema("k int, t long, v long").option("maxFilesPerTrigger", 1).csv(f)
            .withColumn("ts", F.timestamp_millis("t")).withWatermark("ts", f"{delay_ms} milliseconds").alias(NAMES[i])
            for i, f in enumerate(folders)]


def spark_query(spark, kind: str, folders: list[str], args):
    """(streaming DataFrame, aggregate columns for the sink, output mode)."""
    from functools import reduce
    from pyspark.sql import functions as F
    dfs = read_streams(spark, folders, args.delay_ms)
    if kind == "wjoin":
        df = dfs[0].wjoin(*dfs[1:], on="k", time="ts", window=f"{args.window_ms / 1000} seconds",
                          algorithm=args.algorithm)
        v = {x: F.col(f"{x}.v") for x in NAMES}
        t = {x: F.col(f"{x}.t") for x in NAMES}
        aggs = [F.count(F.lit(1)).alias("n"),
                F.sum(v["A"] * 7 + v["B"] * 11 + v["C"] * 13).alias("h1"),
                F.sum((t["B"] - t["A"]) + (t["C"] - t["B"]) * 3).alias("h2")]
        return df, aggs, "append"
    union = reduce(lambda l, r: l.unionByName(r), [d.select("k", "t", "v", "ts") for d in dfs])
    if kind == "floor":
        return union, [F.count(F.lit(1)).alias("n")], "append"
    if kind == "stateful":
        return union.groupBy("k").count(), [F.count(F.lit(1)).alias("n")], "update"
    raise ValueError(kind)


def run_spark(spark, kind: str, folders: list[str], checkpoint: str, args) -> dict:
    df, aggs, mode = spark_query(spark, kind, folders, args)
    totals = {"n": 0, "h1": 0, "h2": 0}

    def sink(batch, _batch_id):
        row = batch.agg(*aggs).collect()[0].asDict()
        for key in totals:
            totals[key] += row.get(key) or 0

    started = time.perf_counter()
    q = (df.writeStream.foreachBatch(sink).outputMode(mode).option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    seconds = time.perf_counter() - started
    progress = [p for p in q.recentProgress if p.get("numInputRows", 0) > 0]
    phases = {k: statistics.median(p["durationMs"].get(k, 0) for p in progress) for k in PHASES} if progress else {}
    ops = [p["stateOperators"][0] for p in progress if p.get("stateOperators")]
    if ops:
        for k in ("allUpdatesTimeMs", "allRemovalsTimeMs", "commitTimeMs"):
            phases[k] = statistics.median(o.get(k, 0) for o in ops)
        phases["stateRows"] = max(o.get("numRowsTotal", 0) for o in ops)
    # Wall time inside the micro-batches (their triggerExecution, summed); the rest of `seconds` is
    # starting and stopping the query (and availableNow's final no-data trigger, if any).
    in_batches = sum(p["durationMs"].get("triggerExecution", 0) for p in q.recentProgress) / 1000
    return {"seconds": seconds, "in_batches": in_batches, "batches": len(progress), "phases": phases, **totals}


# ---------------------------------------------------------------- Flink

class Flink:
    """The worker (flink_job.py) in the Flink virtualenv: one JSON job a line, one answer a line."""

    def __init__(self, python: str, parallelism: int):
        self.proc = subprocess.Popen([python, os.path.join(HERE, "flink_job.py"), "--parallelism", str(parallelism)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=HERE)
        hello = self._read()
        if not hello.get("ready"):
            raise RuntimeError(f"the Flink worker did not start: {hello}")

    def _read(self) -> dict:
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"the Flink worker exited ({self.proc.wait()})")
            line = line.strip()
            if line.startswith("{"):
                return json.loads(line)
            say(f"    [flink] {line}")  # anything else the JVM or PyFlink printed

    def run(self, **job) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        out = self._read()
        if "error" in out:
            raise RuntimeError(f"Flink job failed: {out['error']}")
        return out

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def flink_python(given: str | None) -> str:
    if given:
        return given
    default = os.path.join(ROOT, ".tools", "flink-venv", "bin", "python")
    if os.path.exists(default):
        return default
    done = subprocess.run([os.path.join(HERE, "flink_env.sh")], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"benchmarks/flink_env.sh failed:\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1]


# ---------------------------------------------------------------- main

def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "load average unknown"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=120_000, help="rows per input")
    p.add_argument("--rates", default="300,900,600", help="rows per second of event time, per input")
    p.add_argument("--keys", type=int, default=400)
    p.add_argument("--window-ms", type=int, default=1000)
    p.add_argument("--delay-ms", type=int, default=3000, help="watermark delay")
    p.add_argument("--batch-rows", default="10000,120000",
                   help="micro-batch sizes to run, rows per input and micro-batch, comma-separated")
    p.add_argument("--repeats", type=int, default=3, help="rounds (order reversed every other round); medians")
    p.add_argument("--algorithm", default="hw", help="the W-join's algorithm (hw: eager; mw: ordered)")
    p.add_argument("--shuffle-partitions", type=int, default=2, help="Spark's (state) partitions")
    p.add_argument("--parallelism", type=int, default=2, help="Flink's parallelism")
    p.add_argument("--floors", action="store_true",
                   help="also run Spark's stateless floor (union) and stateful floor (union counted per key)")
    p.add_argument("--flink-naive", action="store_true",
                   help="also run Flink's regular joins (no time attributes: state never cleaned)")
    p.add_argument("--skip-flink", action="store_true")
    p.add_argument("--flink-python", default=None,
                   help="python of the Flink virtualenv (default .tools/flink-venv, made by benchmarks/flink_env.sh)")
    p.add_argument("--explain", action="store_true", help="print Flink's plan once")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark session setting")
    p.add_argument("--json", default=None, help="also write every run's figures to this file")
    args = p.parse_args()

    sys.path.insert(0, HERE)
    from common import session
    rates = [float(r) for r in args.rates.split(",")]
    assert len(rates) == 3, "three rates"
    sizes = [int(s) for s in args.batch_rows.split(",")]
    root = tempfile.mkdtemp(prefix="wjoin-bench-flink-")
    flink = None
    try:
        say(f"3 inputs x {args.rows:,} rows, rates {args.rates} rows/s, {args.keys} keys, window {args.window_ms} ms, "
            f"watermark delay {args.delay_ms} ms; micro-batches of {sizes} rows per input; Spark {args.shuffle_partitions} "
            f"shuffle partitions, W-join {args.algorithm}; Flink parallelism {args.parallelism}; {args.repeats} rounds")
        say(f"start: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {load()}, {os.cpu_count()} cores")
        flink_dir, spark_dirs = write_rows(root, args.rows, rates, args.keys, sizes)
        warm_rows = max(2000, args.rows // 20)
        warm_flink, warm_spark = write_rows(os.path.join(root, "warm"), warm_rows, rates, args.keys, [warm_rows // 2])

        if not args.skip_flink:
            flink = Flink(flink_python(args.flink_python), args.parallelism)
            out = flink.run(dir=warm_flink, query="interval", window_ms=args.window_ms, delay_ms=args.delay_ms,
                            explain=args.explain)
            if args.explain:
                say(out["plan"])
            if args.flink_naive:
                flink.run(dir=warm_flink, query="naive", window_ms=args.window_ms, delay_ms=args.delay_ms)
        spark = session("bench_flink", args.shuffle_partitions, conf=[kv.split("=", 1) for kv in args.conf])
        counter = iter(range(1_000_000))
        ck = lambda name: os.path.join(root, f"ck-{name}-{next(counter)}")
        kinds = (["floor", "stateful"] if args.floors else []) + ["wjoin"]
        for kind in kinds:  # warm-up: JIT, code generation
            run_spark(spark, kind, warm_spark[warm_rows // 2], ck("warm"), args)

        # One round: Flink, then every (size, kind); odd rounds in reverse order.
        tasks = ([("flink", "interval")] if flink else []) + ([("flink", "naive")] if flink and args.flink_naive else [])
        tasks += [(size, kind) for size in sizes for kind in kinds]
        results = {t: [] for t in tasks}
        for r in range(args.repeats):
            say(f"round {r + 1}: {time.strftime('%H:%M:%S')}, {load()}")
            for task in (tasks if r % 2 == 0 else list(reversed(tasks))):
                if task[0] == "flink":
                    out = flink.run(dir=flink_dir, query=task[1], window_ms=args.window_ms, delay_ms=args.delay_ms)
                    out.pop("plan", None)
                    net = f", job net runtime {out['net_runtime_s']:.2f} s" if out.get("net_runtime_s") else ""
                    say(f"  flink/{task[1]:<9} {out['seconds']:7.2f} s{net}  {out['n']:>10,} combinations")
                else:
                    size, kind = task
                    out = run_spark(spark, kind, spark_dirs[size], ck(f"{kind}-{size}"), args)
                    ph = out["phases"]
                    say(f"  {kind:<8} {size:>7,}/batch {out['seconds']:7.2f} s  {out['n']:>10,} rows  "
                        f"{out['batches']} batches, per batch (median ms) trigger {ph.get('triggerExecution', 0):.0f}, "
                        f"addBatch {ph.get('addBatch', 0):.0f}"
                        + (f", state commit {ph['commitTimeMs']:.0f}" if "commitTimeMs" in ph else ""))
                results[task].append(out)

        say(f"end: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}, {load()}")
        report(args, sizes, kinds, results)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"args": vars(args), "results": {str(k): v for k, v in results.items()}}, f, indent=1)
    finally:
        if flink:
            flink.close()
        shutil.rmtree(root, ignore_errors=True)


def report(args, sizes, kinds, results):
    med = lambda runs, key="seconds": statistics.median(r[key] for r in runs)
    input_rows = 3 * args.rows
    say(f"\nmedians of {args.repeats} rounds ({input_rows:,} input rows):")
    counts = {}
    flink_s = None
    for task, runs in results.items():
        if task[0] == "flink":
            s = med(runs)
            counts[f"flink/{task[1]}"] = {(r["n"], r["h1"], r["h2"]) for r in runs}
            if task[1] == "interval":
                flink_s = s
            net = [r["net_runtime_s"] for r in runs if r.get("net_runtime_s")]
            say(f"  flink/{task[1]:<9} {s:7.2f} s  {input_rows / s:>10,.0f} rows/s"
                + (f"  (job net runtime {statistics.median(net):.2f} s)" if net else ""))
    for size in sizes:
        for kind in kinds:
            runs = results[(size, kind)]
            s = med(runs)
            if kind == "wjoin":
                counts[f"wjoin/{size}"] = {(r["n"], r["h1"], r["h2"]) for r in runs}
            ratio = f"  {s / flink_s:.2f}x Flink's time" if flink_s and kind == "wjoin" else ""
            say(f"  {kind:<8} {size:>7,}/batch ({runs[0]['batches']:>3} batches) {s:7.2f} s "
                f"{input_rows / s:>10,.0f} rows/s  ({', '.join('%.2f' % r['seconds'] for r in runs)}){ratio}"
                f"; in batches {med(runs, 'in_batches'):.2f} s")
    say("\nper micro-batch, medians over the batches and then over the rounds (ms):")
    cols = PHASES + ["allUpdatesTimeMs", "commitTimeMs"]
    say("  " + " " * 24 + "".join(f"{c[:14]:>15}" for c in cols))
    for size in sizes:
        for kind in kinds:
            runs = results[(size, kind)]
            vals = [statistics.median(r["phases"].get(c, 0) for r in runs) for c in cols]
            say(f"  {kind:<8} {size:>7,}/batch     " + "".join(f"{v:>15.0f}" for v in vals))
    distinct = set().union(*counts.values()) if counts else set()
    if len(distinct) == 1:
        n, h1, h2 = next(iter(distinct))
        say(f"\nsame result everywhere: {n:,} combinations (checksums {h1}, {h2})")
    else:
        say("\n" + "!" * 72 + "\n!!! DIFFERENT RESULTS between engines or runs (n, h1, h2):")
        for name, c in counts.items():
            say(f"!!!   {name}: {sorted(c)}")
        say("!" * 72)


if __name__ == "__main__":
    main()
