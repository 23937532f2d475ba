"""Streaming W-join vs Spark's chained stream-stream joins vs the floor, in one process.

The inputs are parquet files, one per input and micro-batch (`maxFilesPerTrigger=1`, trigger
availableNow): N inputs of `rate` rows/s each in event-time order, keys uniform over `keys`
values, a uniform window. Three queries read the same files through a foreachBatch sink that
computes every output column (count and checksum of all columns, which also proves that our
join and Spark's return the same rows):
  - ours: `wjoin` on the key with the window (eager HW-join, or ordered MW-join with --mode);
  - built-in: Spark's chained stream-stream inner joins with every pairwise BETWEEN condition;
  - floor: a plain union of the inputs, no join (reading, shuffling nothing, sinking);
  - with --shuffle-floor also the floor with the W-join's exchanges (each input repartitioned by the
    key into the shuffle partitions, then unioned: no state, no join).
With --stages it prints each run's stages grouped by task count (wall, task run and CPU time).
Prints wall time per query and the ratios, the state size after each batch (it must stay
flat), and for ours the latency in micro-batches from a combination's last member to its output.

With --keyless-band D it measures instead how a keyless band join scales: inputs get a band
attribute x uniform over --band-range values, the join is `abs(A.x - B.x) <= D` (chained over
the inputs) within the window, with no equality key, so it is partitioned by band cells; it runs
at 1 and at --cells-partitions shuffle partitions (fresh checkpoints), alternated --repeat times
on the same files; prints the medians, the speedup and whether the row counts and checksums
agree, the task CPU time of the join's stages (total, and of the largest partition), and the
speedup of a trivially parallel CPU-bound job run after each query (what the shared machine
allows at that moment).

    .venv/bin/python benchmarks/bench_streaming.py                        # 3 x 600k rows, 10 batches
    .venv/bin/python benchmarks/bench_streaming.py --rows 200000 --batches 20
    .venv/bin/python benchmarks/bench_streaming.py --rows 60000 --skip-builtin --mode ordered
    # small micro-batches, unequal rates; each query 3 times alternated, medians; kept vs rebuilt engines
    .venv/bin/python benchmarks/bench_streaming.py --rows 120000 --rates 300,900,600 --keys 400 \
        --delay "3 seconds" --batches 20 --shuffle-partitions 4 --repeat 3 --compare-rebuilt
    .venv/bin/python benchmarks/bench_streaming.py --inputs 2 --rows 200000 --keyless-band 20
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from functools import reduce

from pyspark.sql import functions as F

from common import median, say, session

NAMES = "ABCDEFGH"


def write_inputs(spark, root: str, inputs: int, rows: int, rates: list[int], keys: int, batches: int,
                 band_range: int = 1) -> list[str]:
    """Per input, `batches` parquet files of consecutive event-time slices (input i at rates[i] rows/s;
    x: a band attribute)."""
    per_batch = rows // batches
    folders = []
    for i in range(inputs):
        step = 1_000_000 // rates[i]
        folder = os.path.join(root, NAMES[i])
        for b in range(batches):
            # Row r of input i: time r / rate seconds plus a jitter below 1/rate, a pseudo-random key.
            df = spark.range(b * per_batch, (b + 1) * per_batch, numPartitions=1).selectExpr(
                f"cast(pmod(hash(id, {i}), {keys}) as int) as k",
                f"timestamp_micros(id * {step} + pmod(hash(id, {i + 100}), {step})) as ts", "id as v",
                f"cast(pmod(hash(id, {i + 200}), {band_range}) as long) as x")
            df.write.mode("append").parquet(os.path.join(folder, f"batch={b:04d}"))
        folders.append(folder)
    return folders


def read_streams(spark, folders: list[str], delay: str):
    schema = "k int, ts timestamp, v long, x long"
    return [spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).option("recursiveFileLookup", "true")
            .parquet(f).withWatermark("ts", delay).alias(NAMES[i]) for i, f in enumerate(folders)]


def builtin(dfs, window_s: float):
    """Spark's chained stream-stream joins. After each join only A's time column keeps its watermark
    metadata (Spark accepts one event-time column per stream), as a user would write it."""
    w = F.expr(f"INTERVAL {int(window_s * 1e6)} MICROSECONDS")
    flat = lambda df, x: df.select(F.col(f"{x}.k").alias(f"{x}_k"), F.col(f"{x}.ts").alias(f"{x}_ts"),
                                   F.col(f"{x}.v").alias(f"{x}_v"))
    joined = flat(dfs[0], "A")
    for i in range(1, len(dfs)):
        me = NAMES[i]
        right = flat(dfs[i], me)
        conds = [F.col("A_k") == F.col(f"{me}_k")]
        for j in range(i):
            other = F.col(f"{NAMES[j]}_ts")
            conds.append(F.col(f"{me}_ts").between(other - w, other + w))
        joined = joined.join(right, reduce(lambda a, b: a & b, conds), "inner")
        joined = joined.withColumn(f"{me}_ts", F.col(f"{me}_ts") + F.expr("INTERVAL 0 SECONDS"))
    return joined


def ours(dfs, window_s: float, mode: str):
    return dfs[0].wjoin(*dfs[1:], on="k", time="ts", window=f"{window_s} seconds",
                        algorithm="hw" if mode == "eager" else "mw")


def keyless(dfs, window_s: float, band: int):
    """The keyless band join: neighbouring inputs within `band` of each other on x, no equality key."""
    cond = reduce(lambda a, b: a & b, [F.abs(F.col(f"{NAMES[i - 1]}.x") - F.col(f"{NAMES[i]}.x")) <= band
                                       for i in range(1, len(dfs))])
    return dfs[0].wjoin(*dfs[1:], on=cond, time="ts", window=f"{window_s} seconds")


def compare_cells(spark, args, root: str):
    """The keyless band join at 1 and at args.cells_partitions partitions, alternated; medians."""
    rates = [args.rate] * args.inputs
    folders = write_inputs(spark, os.path.join(root, "band"), args.inputs, args.rows, rates, args.keys,
                           args.batches, args.band_range)
    warm = write_inputs(spark, os.path.join(root, "band-warm"), args.inputs, max(1000, args.rows // 5), rates,
                        args.keys, 2, args.band_range)
    slice_us = [(args.rows // args.batches) * (1_000_000 // args.rate)] * args.inputs
    out = columns(args.inputs)
    counts = {1: [], args.cells_partitions: []}
    times = {1: [], args.cells_partitions: []}
    cpu = {1: [], args.cells_partitions: []}
    ceiling = {1: [], args.cells_partitions: []}
    for rep in range(-1, args.repeat):  # rep -1: warm-up on a fifth of the rows, not timed
        order = [1, args.cells_partitions] if rep % 2 == 0 else [args.cells_partitions, 1]
        for parts in order:
            spark.conf.set("spark.sql.shuffle.partitions", str(parts))
            df = keyless(read_streams(spark, warm if rep < 0 else folders, args.delay), args.window,
                         args.keyless_band)
            before = stage_ids(spark)
            seconds, rows, checksum = run(f"{parts} part.", df, out, os.path.join(root, f"ck-cells-{rep}-{parts}"),
                                          False, slice_us, args.inputs, report=rep >= 0)
            if rep >= 0:
                # The machine's ceiling at this moment: a trivially parallel CPU-bound job.
                started = time.perf_counter()
                spark.range(0, 300_000_000, numPartitions=parts).selectExpr("sum(hash(id, id * 3))").collect()
                ceiling[parts].append(time.perf_counter() - started)
                times[parts].append(seconds)
                counts[parts].append((rows, checksum))
                cpu[parts].append(join_cpu(spark, before, parts))
                if cpu[parts][-1]:
                    total, largest = cpu[parts][-1]
                    say(f"    join stages' task CPU {total:.1f} s, largest partition {largest:.1f} s")
    one, many = median(times[1]), median(times[args.cells_partitions])
    same = len(set(counts[1] + counts[args.cells_partitions])) == 1
    say(f"keyless band join: median of {args.repeat} alternated runs: 1 partition {one:.1f} s, "
        f"{args.cells_partitions} partitions {many:.1f} s: {one / many:.2f}x faster; "
        + ("same rows and checksum in every run" if same else f"DIFFERENT rows: {counts}"))
    say(f"the machine's ceiling (a CPU-bound job of independent tasks, run after each query): 1 partition "
        f"{median(ceiling[1]):.1f} s, {args.cells_partitions} partitions {median(ceiling[args.cells_partitions]):.1f} s: "
        f"{median(ceiling[1]) / median(ceiling[args.cells_partitions]):.2f}x")
    if all(cpu[1]) and all(cpu[args.cells_partitions]):
        c1, cn = median([c[0] for c in cpu[1]]), median([c[0] for c in cpu[args.cells_partitions]])
        largest = median([c[1] for c in cpu[args.cells_partitions]])
        say(f"join stages' task CPU (medians): 1 partition {c1:.1f} s; {args.cells_partitions} partitions "
            f"{cn:.1f} s in all, {largest:.1f} s in the largest partition: {c1 / largest:.2f}x less on the "
            f"critical path with a core per partition")


def stage_ids(spark) -> set:
    return {s["stageId"] for s in stages(spark)}


def stages(spark, path: str = "stages?status=complete"):
    """Spark's monitoring API of this application (the driver's UI), or [] without a UI."""
    import json
    import urllib.request
    sc = spark.sparkContext
    if not sc.uiWebUrl:
        return []
    with urllib.request.urlopen(f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/{path}") as r:
        return json.load(r)


def join_cpu(spark, before: set, parts: int):
    """(task CPU seconds of the W-join's stages, CPU seconds of the partition that used the most).

    The W-join's stages are the query's stages with `parts` tasks (the shuffle reads into the
    state partitions; the file reads have one task per file). The machine is shared, so wall
    time mixes work and waiting for a core; task CPU time is the work."""
    per_partition = {}
    for s in stages(spark):
        if s["stageId"] in before or s["numTasks"] != parts:
            continue
        tasks = stages(spark, f"stages/{s['stageId']}/{s['attemptId']}/taskList?length={parts + 10}")
        for t in tasks:
            cpu_ns = t.get("taskMetrics", {}).get("executorCpuTime", 0)
            per_partition[t["index"]] = per_partition.get(t["index"], 0) + cpu_ns / 1e9
    if not per_partition:
        return None
    return sum(per_partition.values()), max(per_partition.values())


def stage_split(spark, before: set):
    """The query's stages grouped by task count and call site: count, wall time (submission to
    completion, summed), task run time and task CPU time."""
    from datetime import datetime
    at = lambda x: datetime.strptime(x.replace("GMT", ""), "%Y-%m-%dT%H:%M:%S.%f")
    groups = {}
    for s in stages(spark):
        if s["stageId"] in before or not s.get("completionTime"):
            continue
        g = groups.setdefault((s["numTasks"], s["name"][:60]), [0, 0.0, 0.0, 0.0])
        g[0] += 1
        g[1] += (at(s["completionTime"]) - at(s["submissionTime"])).total_seconds()
        g[2] += s.get("executorRunTime", 0) / 1000
        g[3] += s.get("executorCpuTime", 0) / 1e9
    for (tasks, name), (n, wall, run_s, cpu) in sorted(groups.items(), key=lambda kv: -kv[1][1]):
        say(f"             {n:>3} stages of {tasks:>2} task(s) ({name}): wall {wall:.2f} s, task run {run_s:.2f} s, "
            f"task CPU {cpu:.2f} s")


def columns(n: int):
    return [F.col(f"{NAMES[i]}.{c}") for i in range(n) for c in ("ts", "v")]


def run(name: str, df, out_cols, checkpoint: str, with_latency: bool, batch_slice_us: list[int], n: int,
        report: bool = True, by_stage: bool = False):
    """Runs to the end of the files; returns seconds, rows, checksum (prints state sizes, latency)."""
    totals = {"rows": 0, "checksum": 0, "lag": 0}

    def sink(batch, batch_id):
        aggs = [F.count(F.lit(1)).alias("n"), F.sum(F.hash(*out_cols).cast("long")).alias("h")]
        if with_latency:  # the batch that delivered the last member: file k of input i holds slice k of its times
            last = F.greatest(*[F.floor(F.unix_micros(F.col(f"{NAMES[i]}.ts")) / batch_slice_us[i]) for i in range(n)])
            aggs.append(F.sum(F.lit(batch_id) - last).alias("lag"))
        row = batch.agg(*aggs).collect()[0]
        totals["rows"] += row["n"]
        totals["checksum"] += row["h"] or 0
        if with_latency:
            totals["lag"] += row["lag"] or 0

    before = stage_ids(df.sparkSession) if by_stage and report else set()
    started = time.perf_counter()
    q = (df.writeStream.foreachBatch(sink).option("checkpointLocation", checkpoint)
         .trigger(availableNow=True).start())
    q.awaitTermination()
    seconds = time.perf_counter() - started
    progress = list(q.recentProgress)
    states = [p["stateOperators"][0]["numRowsTotal"] for p in progress if p["stateOperators"]]
    lag = totals["lag"] / totals["rows"] if with_latency and totals["rows"] else None
    if report:
        say(f"  {name:<10} {seconds:7.1f} s  {totals['rows']:>10,} rows  batches {len(progress)}"
            + (f"  state rows per batch {min(states):,}..{max(states):,}" if states else "")
            + (f"  latency {lag:.2f} batches" if lag is not None else ""))
        # Where a micro-batch's time goes (medians over the batches, ms): Spark's trigger phases and
        # the W-join operator's update and state-commit time (summed over its tasks).
        phase = lambda k: statistics.median(p["durationMs"].get(k, 0) for p in progress) if progress else 0
        ops = [p["stateOperators"][0] for p in progress if p["stateOperators"]]
        op = lambda k: statistics.median(o[k] for o in ops) if ops else 0
        say(f"             per batch (median ms): trigger {phase('triggerExecution'):.0f}, planning "
            f"{phase('queryPlanning'):.0f}, addBatch {phase('addBatch'):.0f}, offsets+WAL "
            f"{phase('latestOffset') + phase('walCommit') + phase('commitOffsets'):.0f}"
            + (f", operator updates {op('allUpdatesTimeMs'):.0f}, state commit {op('commitTimeMs'):.0f}" if ops else ""))
        if by_stage:
            stage_split(df.sparkSession, before)
    return seconds, totals["rows"], totals["checksum"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--inputs", type=int, default=3)
    p.add_argument("--rows", type=int, default=600_000, help="rows per input")
    p.add_argument("--batches", type=int, default=10)
    p.add_argument("--rate", type=int, default=1000, help="rows per second of event time, per input")
    p.add_argument("--rates", default=None, help="per-input rates, e.g. 300,900,600 (overrides --rate)")
    p.add_argument("--repeat", type=int, default=None,
                   help="runs of each query, alternated; medians reported (default 1; keyless band join: 3 per "
                        "partition count)")
    p.add_argument("--compare-rebuilt", action="store_true",
                   help="also run ours with spark.wjoin.streaming.keptEngineRows=0 (engines rebuilt every batch)")
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--window", type=float, default=1.0, help="seconds")
    p.add_argument("--delay", default="2 seconds", help="watermark delay")
    p.add_argument("--mode", choices=["eager", "ordered", "both"], default="both")
    p.add_argument("--skip-builtin", action="store_true")
    p.add_argument("--shuffle-partitions", type=int, default=8)
    p.add_argument("--keyless-band", type=int, default=0,
                   help="measure the keyless band join abs(A.x - B.x) <= this instead (cells, 1 vs N partitions)")
    p.add_argument("--band-range", type=int, default=100_000, help="x is uniform over this many values")
    p.add_argument("--cells-partitions", type=int, default=4)
    p.add_argument("--shuffle-floor", action="store_true",
                   help="also run the floor with the W-join's exchanges: each input repartitioned by the key "
                        "into the shuffle partitions, then unioned (no state, no join)")
    p.add_argument("--stages", action="store_true",
                   help="print each run's stages grouped by task count: wall, task run and task CPU time")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE",
                   help="extra session setting (repeatable), e.g. spark.sql.streaming.checkpointFileManagerClass=...")
    args = p.parse_args()
    if args.repeat is None:
        args.repeat = 3 if args.keyless_band else 1

    spark = session("bench_streaming", args.shuffle_partitions, conf=[kv.split("=", 1) for kv in args.conf])
    rates = [int(r) for r in args.rates.split(",")] if args.rates else [args.rate] * args.inputs
    assert len(rates) == args.inputs, "one rate per input"
    root = tempfile.mkdtemp(prefix="wjoin-bench-stream-")
    try:
        say(f"{args.inputs} inputs x {args.rows:,} rows in {args.batches} micro-batches, rates {rates} rows/s, "
            f"{args.keys} keys, window {args.window} s, watermark delay {args.delay}, "
            f"{args.shuffle_partitions} shuffle partitions, {args.repeat} run(s) each")
        if args.keyless_band:
            say(f"keyless band join: |x_i - x_i+1| <= {args.keyless_band}, x over {args.band_range:,} values, "
                f"1 vs {args.cells_partitions} partitions")
            compare_cells(spark, args, root)
            return
        folders = write_inputs(spark, root, args.inputs, args.rows, rates, args.keys, args.batches)
        slice_us = [(args.rows // args.batches) * (1_000_000 // r) for r in rates]  # event time per file, per input
        out = columns(args.inputs)
        flat_out = [F.col(f"{NAMES[i]}_{c}") for i in range(args.inputs) for c in ("ts", "v")]
        counter = iter(range(1_000_000))
        ck = lambda name: os.path.join(root, f"ck-{name}-{next(counter)}")
        modes = ["eager", "ordered"] if args.mode == "both" else [args.mode]

        def with_kept(rows: str, body):
            old = spark.conf.get("spark.wjoin.streaming.keptEngineRows", None)
            spark.conf.set("spark.wjoin.streaming.keptEngineRows", rows)
            try:
                return body()
            finally:
                if old is None:
                    spark.conf.unset("spark.wjoin.streaming.keptEngineRows")
                else:
                    spark.conf.set("spark.wjoin.streaming.keptEngineRows", old)

        # name -> (query builder, output columns, latency); every entry runs once per round, alternated.
        queries = {"floor": (lambda fs: reduce(lambda a, b: a.unionByName(b), read_streams(spark, fs, args.delay)),
                             [F.col("ts"), F.col("v")], False)}
        if args.shuffle_floor:
            queries["shuffle"] = (lambda fs: reduce(lambda a, b: a.unionByName(b), [
                d.repartition(args.shuffle_partitions, "k") for d in read_streams(spark, fs, args.delay)]),
                [F.col("ts"), F.col("v")], False)
        for mode in modes:
            queries[f"ours/{mode}"] = (lambda fs, m=mode: ours(read_streams(spark, fs, args.delay), args.window, m),
                                       out, True)
            if args.compare_rebuilt:
                queries[f"rebuilt/{mode}"] = (lambda fs, m=mode: ours(read_streams(spark, fs, args.delay),
                                                                    args.window, m), out, False)
        if not args.skip_builtin:
            queries["built-in"] = (lambda fs: builtin(read_streams(spark, fs, args.delay), args.window), flat_out, False)

        def run_query(name, fs, report):
            make, cols, latency = queries[name]
            go = lambda: run(name, make(fs), cols, ck(name.replace("/", "-")), latency and report, slice_us,
                             args.inputs, report, args.stages)
            return with_kept("0", go) if name.startswith("rebuilt/") else go()

        # Warm-up: every query once on a small copy of the workload (JIT, code generation).
        warm = write_inputs(spark, os.path.join(root, "warm"), args.inputs, max(1000, args.rows // 50), rates,
                            args.keys, 2)
        for name in queries:
            run_query(name, warm, False)

        times = {name: [] for name in queries}
        results = {}
        for r in range(args.repeat):
            # Alternate the order: the first query of a round pays for whatever the JVM still
            # warms up (JIT, heap growth), so a fixed order would always charge the same one.
            for name in (list(queries) if r % 2 == 0 else list(reversed(queries))):
                seconds, rows, checksum = run_query(name, folders, True)
                times[name].append(seconds)
                results[name] = (rows, checksum)
        med = {name: statistics.median(ts) for name, ts in times.items()}
        say("medians: " + ", ".join(f"{name} {t:.1f} s" for name, t in med.items()))
        for name in queries:
            if name in ("floor", "built-in", "shuffle"):
                continue
            rows, checksum = results[name]
            line = f"{name}: {med[name] / med['floor']:.2f}x the floor"
            if "built-in" in results:
                brows, bsum = results["built-in"]
                line += f", {med['built-in'] / med[name]:.1f}x faster than the built-in join"
                if (rows, checksum) == (brows, bsum):
                    line += ", same rows"
                elif "ordered" in name and rows < brows:
                    # Ordered mode emits a combination once the watermark passes it; the files end
                    # before the watermark passes the last (window + delay) of data.
                    line += f", {brows - rows:,} rows still waiting for the watermark at the end of the data"
                else:
                    line += f", DIFFERENT rows ({rows} vs {brows})"
            mode = name.split("/")[1]
            if name.startswith("rebuilt/") and results[f"ours/{mode}"] != results[name]:
                line += ", DIFFERENT rows from the kept engines"
            say(line)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
