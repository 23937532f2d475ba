"""A long streaming run: state size and per-micro-batch time of the W-join over many micro-batches.

Same plumbing as bench_streaming.py (parquet files, one per input and micro-batch, a foreachBatch
sink), ours (eager HW-join) and the floor (the same streams unioned, no join) one after the other.
Per micro-batch it records the W-join's state rows (numRowsTotal), the rows read back from the
state store (numRestoredStateRows: 0 while engines are kept in memory) and the batch's duration
(addBatch, the part of the trigger that runs the query), and plots both over the batch index: state
and time must stay flat, set by window x rate, not by how long the stream has run.

    .venv/bin/python benchmarks/bench_streaming_long.py --batches 200 --plot docs/img/streaming_long.png
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from functools import reduce

from pyspark.sql import functions as F

from bench_streaming import ours, read_streams, write_inputs
from common import say, session


def per_batch(spark, df, checkpoint):
    totals = {"rows": 0}

    def sink(batch, batch_id):
        totals["rows"] += batch.agg(F.count(F.lit(1))).collect()[0][0]

    q = df.writeStream.foreachBatch(sink).option("checkpointLocation", checkpoint).trigger(availableNow=True).start()
    q.awaitTermination()
    progress = list(q.recentProgress)
    rows = []
    for p in progress:
        ops = p["stateOperators"]
        rows.append({"batch": p["batchId"], "ms": p["durationMs"].get("addBatch", 0),
                     "state": ops[0]["numRowsTotal"] if ops else 0,
                     "restored": ops[0]["customMetrics"].get("numRestoredStateRows", 0) if ops else 0})
    return rows, totals["rows"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--inputs", type=int, default=3)
    p.add_argument("--batches", type=int, default=200)
    p.add_argument("--rows-per-batch", type=int, default=1500, help="rows per input and micro-batch")
    p.add_argument("--rate", type=int, default=500, help="rows per second of event time, per input")
    p.add_argument("--keys", type=int, default=400)
    p.add_argument("--window", type=float, default=1.0, help="seconds")
    p.add_argument("--delay", default="3 seconds")
    p.add_argument("--shuffle-partitions", type=int, default=4)
    p.add_argument("--plot", default=None, help="PNG to write (matplotlib)")
    args = p.parse_args()

    spark = session("bench_streaming_long", args.shuffle_partitions)
    spark.conf.set("spark.sql.streaming.numRecentProgressUpdates", str(args.batches + 50))
    root = tempfile.mkdtemp(prefix="wjoin-bench-long-")
    try:
        rows = args.rows_per_batch * args.batches
        say(f"{args.inputs} inputs x {rows:,} rows in {args.batches} micro-batches, {args.rate} rows/s each, "
            f"{args.keys} keys, window {args.window} s, delay {args.delay}, {args.shuffle_partitions} partitions")
        folders = write_inputs(spark, root, args.inputs, rows, [args.rate] * args.inputs, args.keys, args.batches)
        warm = write_inputs(spark, os.path.join(root, "warm"), args.inputs, 2000, [args.rate] * args.inputs,
                            args.keys, 2)
        union = lambda fs: reduce(lambda a, b: a.unionByName(b), read_streams(spark, fs, args.delay))
        per_batch(spark, union(warm), os.path.join(root, "ck-warm-floor"))
        per_batch(spark, ours(read_streams(spark, warm, args.delay), args.window, "eager"), os.path.join(root, "ck-w"))
        floor, _ = per_batch(spark, union(folders), os.path.join(root, "ck-floor"))
        mine, out = per_batch(spark, ours(read_streams(spark, folders, args.delay), args.window, "eager"),
                              os.path.join(root, "ck-ours"))
        data = [r for r in mine if r["state"] > 0]
        tenth = max(1, len(data) // 10)
        first, last = data[tenth:2 * tenth], data[-tenth:]
        med = lambda rs, k: statistics.median(r[k] for r in rs)
        say(f"ours: {out:,} rows out, {len(mine)} micro-batches")
        say(f"  state rows: median {med(first, 'state'):,.0f} in the 2nd tenth of the run, "
            f"{med(last, 'state'):,.0f} in the last tenth (max {max(r['state'] for r in data):,})")
        say(f"  per-batch ms: median {med(first, 'ms'):.0f} in the 2nd tenth, {med(last, 'ms'):.0f} in the last; "
            f"floor median {statistics.median(r['ms'] for r in floor):.0f}")
        say(f"  rows read back from the state store after batch 1: {sum(r['restored'] for r in mine[2:]):,}")
        if args.plot:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
            a1.plot([r["batch"] for r in mine], [r["state"] for r in mine], label="W-join state rows")
            a1.set_ylabel("state rows")
            a1.legend(loc="lower right")
            a2.plot([r["batch"] for r in mine], [r["ms"] for r in mine], label="wjoin (eager)", lw=0.8)
            a2.plot([r["batch"] for r in floor], [r["ms"] for r in floor], label="floor (no join)", lw=0.8)
            a2.set_ylabel("ms per micro-batch (addBatch)")
            a2.set_xlabel("micro-batch")
            a2.legend(loc="upper right")
            fig.suptitle(f"{args.batches} micro-batches, {args.inputs} x {args.rows_per_batch} rows each, "
                         f"{args.shuffle_partitions} partitions")
            fig.tight_layout()
            fig.savefig(args.plot, dpi=110)
            say(f"plot: {args.plot}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
        spark.stop()


if __name__ == "__main__":
    main()
