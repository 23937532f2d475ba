"""Very many distinct keys and next to no output: the W-join (its default plan, shuffled with
spark.wjoin.broadcastBytes=-1, and shuffled in time order with spark.wjoin.keyGroupRows=-1 as
well; inputs under spark.wjoin.smallInputBytes run in one task either way), Spark's built-in
chained join and DuckDB on the same rows, the
Spark plans alternating in one process (which goes first rotates), every output column written
to Spark's noop sink; DuckDB counts the same join on the same rows generated in SQL, 2 threads.

Three inputs of R rows each, generated in Spark (not cached): key = a permutation of the row id
into K values (K = 1M, or R / 2: a key in about two rows per input), time spread evenly over
1,000,000 units, the window W over every pair:

    .venv/bin/python benchmarks/bench_many_keys.py --repeats 3
    .venv/bin/python benchmarks/bench_many_keys.py --only "400k rows, 1M keys, window 1M"
    .venv/bin/python benchmarks/bench_many_keys.py --key-type string   # the number's digits reversed
    .venv/bin/python benchmarks/bench_many_keys.py --key-type prefixed # 'k<number>': 8 leading bytes shared
    .venv/bin/python benchmarks/bench_many_keys.py --key-type double   # the same numbers as doubles

Where Spark estimates each input under spark.sql.autoBroadcastJoinThreshold it broadcasts two
of them; so does the W-join (each broadcast input under spark.wjoin.broadcastBytes, by default
that threshold). Above it both shuffle: Spark sorts by key and merges; the W-join sorts by time
and keeps each key's bucket while the window holds it, or, where a partition's windows would hold
many rows, sorts again by key and joins one key's rows at a time (key groups).
"""
from __future__ import annotations

import argparse

import wjoin
from common import median, rotating_runs, say, session

MULTIPLIERS = (2654435761, 2246822519, 3266489917)
TIME_STEPS = (48271, 69621, 16807)
SPAN = 1_000_000


def columns(i: int, rows: int, keys: int, key_type: str = "long") -> dict:
    """Input i's columns as SQL over `id` (Spark and DuckDB alike)."""
    key = f"CAST((id * {MULTIPLIERS[i]}) % {keys} + 1000000000000 AS BIGINT)"
    text = {"long": key, "string": f"REVERSE(CAST({key} AS STRING))", "prefixed": f"CONCAT('k', CAST({key} AS STRING))",
            "double": f"CAST({key} AS DOUBLE)"}
    return {"k": text[key_type],
            "ts": f"CAST((((id * {TIME_STEPS[i]}) % {rows}) * {SPAN}) // {rows} + {i} AS BIGINT)",
            "v": "id"}


def cells() -> dict:
    out = {}
    for rows in (200_000, 400_000, 800_000):
        for keys, label in ((1_000_000, "1M keys"), (rows // 2, "keys = rows / 2")):
            for window in (1000, 1_000_000):
                out[f"{rows // 1000}k rows, {label}, window {'1M' if window == SPAN else window}"] = (rows, keys, window)
    return out


def spark_inputs(spark, rows: int, keys: int, key_type: str = "long"):
    return [spark.range(rows).selectExpr(*[f"{e.replace('//', 'div')} AS {c}" for c, e in columns(i, rows, keys, key_type).items()])
            .alias("ABC"[i]) for i in range(3)]


def builtin_sql(window: int, tables) -> str:
    a, b, c = tables
    return (f"SELECT * FROM {a} A JOIN {b} B ON A.k = B.k AND B.ts BETWEEN A.ts - {window} AND A.ts + {window} "
            f"JOIN {c} C ON A.k = C.k AND C.ts BETWEEN A.ts - {window} AND A.ts + {window} "
            f"AND C.ts BETWEEN B.ts - {window} AND B.ts + {window}")


def duckdb_seconds(rows: int, keys: int, window: int, repeats: int, key_type: str):
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads = 2")
    for i in range(3):
        cs = ", ".join(f"{e} AS {c}" for c, e in columns(i, rows, keys, key_type).items())
        con.execute(f"CREATE TABLE t{i} AS SELECT {cs} FROM range(0, {rows}) r(id)")
    query = f"SELECT count(*) FROM ({builtin_sql(window, ('t0', 't1', 't2'))})"
    import time
    times, count = [], None
    for _ in range(repeats + 1):
        t0 = time.perf_counter()
        count = con.execute(query).fetchone()[0]
        times.append(time.perf_counter() - t0)
    con.close()
    return median(times[1:]), count


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--only", help="cell names separated by ';' (the names hold commas)")
    p.add_argument("--no-duckdb", action="store_true")
    p.add_argument("--key-type", choices=("long", "string", "prefixed", "double"), default="long",
                   help="string: the number's digits reversed (leading bytes differ, as in ids or hashes); "
                        "prefixed: 'k' and the number (every key's first 8 bytes the same, as in 'sensor-0042')")
    args = p.parse_args()
    spark = session("bench_many_keys")
    wanted = {name.strip() for name in args.only.split(";")} if args.only else None
    say(f"local[*] on {spark.sparkContext.defaultParallelism} cores; {args.key_type} keys; medians of {args.repeats} "
        "alternating runs after one warm-up; every output column to the noop sink")
    for name, (rows, keys, window) in cells().items():
        if wanted and name not in wanted:
            continue
        dfs = spark_inputs(spark, rows, keys, args.key_type)
        for i, df in enumerate(dfs):
            df.createOrReplaceTempView(f"many_keys_{i}")
        windows = f"WINDOW(A,B) = {window} AND WINDOW(A,C) = {window} AND WINDOW(B,C) = {window}"

        def ours():
            return wjoin.wjoin(dict(zip("ABC", dfs)), on="k", time="ts", windows=windows)

        def default():
            spark.conf.unset("spark.wjoin.broadcastBytes")
            spark.conf.unset("spark.wjoin.keyGroupRows")

        def shuffled():
            spark.conf.set("spark.wjoin.broadcastBytes", "-1")

        def time_order():  # shuffled, never key groups
            spark.conf.set("spark.wjoin.broadcastBytes", "-1")
            spark.conf.set("spark.wjoin.keyGroupRows", "-1")

        plans = [("wjoin", default, ours), ("wjoin shuffled", shuffled, ours), ("wjoin time order", time_order, ours),
                 ("built-in", default, lambda: spark.sql(builtin_sql(window, [f"many_keys_{i}" for i in range(3)])))]
        times, counts = rotating_runs(plans, args.repeats)
        default()
        plan = ours()._jdf.queryExecution().executedPlan().toString()
        how = ("broadcast" if "BroadcastWindowJoin" in plan else "one task" if "partitioning=single task" in plan
               else "shuffled")
        line = (f"{name:42s} results={counts['wjoin']:>9,}  wjoin {median(times['wjoin']):6.2f} s ({how})  "
                f"shuffled {median(times['wjoin shuffled']):6.2f} s  time order {median(times['wjoin time order']):6.2f} s  "
                f"built-in {median(times['built-in']):6.2f} s  "
                f"built-in / wjoin {median(times['built-in']) / median(times['wjoin']):5.2f}x")
        if len(set(counts.values())) != 1:
            line += f"  COUNTS DIFFER {counts}"
        if not args.no_duckdb:
            seconds, count = duckdb_seconds(rows, keys, window, args.repeats, args.key_type)
            line += f"  duckdb {seconds:5.2f} s" + ("" if count == counts["wjoin"] else f" COUNT {count}")
        say(line)


if __name__ == "__main__":
    main()
