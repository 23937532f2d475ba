"""W-joins on a multi-process cluster: Spark's `local-cluster` master (a standalone master and two
worker JVMs, each with its own executor) against the test session's local mode.

The cluster runs in a child process (one SparkContext per process): batch W-joins (keyed with
every algorithm, a keyless band by cells, left and left_anti) and a streaming W-join (HW-join,
file-source micro-batches into a foreachBatch sink; the ordered mode's state is the same store) over parquet files this test
writes. It prints a count and an order-free checksum per query; the test computes the same
queries in local mode and wants the same figures. So the jar reaches the executors through
`spark.jars` (wjoin.configure), every plan and evaluator serialises to another JVM, and the
streaming state lives in the executors' state stores, as on any cluster.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import wjoin  # noqa: F401  (DataFrame.wjoin)

NAMES = "ABC"

# Shared by the child (cluster) and the test (local): the queries and their figures.
QUERIES = textwrap.dedent('''
    from pyspark.sql import functions as F

    def figures(df):
        d = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
        row = d.agg(F.count(F.lit(1)).alias("n"), F.sum(F.hash(*d.columns)).alias("h")).first()
        return [row["n"], row["h"] or 0]

    def batch_queries(spark, root):
        a, b, c = [spark.read.option("recursiveFileLookup", "true").parquet(f"{root}/{n}").alias(n) for n in "ABC"]
        out = {}
        for alg in ["hw", "mw"]:
            out[f"keyed {alg}"] = figures(a.wjoin(b, c, on="k", time="ts", window="1 second", algorithm=alg))
        out["band"] = figures(a.wjoin(b, on=F.abs(F.col("A.x") - F.col("B.x")) <= 2, time="ts",
                                      window="500 milliseconds"))
        out["left"] = figures(a.wjoin(b, on="k", time="ts", window="200 milliseconds", how="left"))
        out["left_anti"] = figures(a.wjoin(b, c, on="k", time="ts", window="200 milliseconds",
                                           how="left_anti"))
        return out

    def stream_queries(spark, root, checkpoints):
        out = {}
        for alg in ["hw"]:
            streams = [spark.readStream.schema("k int, ts timestamp, x long, v long")
                       .option("maxFilesPerTrigger", 1).option("recursiveFileLookup", "true").parquet(f"{root}/{n}")
                       .withWatermark("ts", "1 second").alias(n) for n in "ABC"]
            totals = [0, 0]

            def sink(df, batch_id):
                n, h = figures(df)
                totals[0] += n
                totals[1] += h

            q = (streams[0].wjoin(*streams[1:], on="k", time="ts", window="1 second", algorithm=alg)
                 .writeStream.foreachBatch(sink).option("checkpointLocation", f"{checkpoints}/{alg}")
                 .trigger(availableNow=True).start())
            q.awaitTermination()
            out[f"stream {alg}"] = totals
        return out
''')

CHILD = textwrap.dedent('''
    import json, os, sys
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession
    import wjoin
    exec(open(sys.argv[1]).read())
    spark = wjoin.configure(SparkSession.builder.master("local-cluster[2,1,1024]")
                            .config("spark.sql.shuffle.partitions", "4")
                            .config("spark.ui.enabled", "false")
                            .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    root, checkpoints = sys.argv[2], sys.argv[3]
    out = batch_queries(spark, root)
    out.update(stream_queries(spark, root, checkpoints))
    # Block managers: the driver's and one per worker's executor JVM.
    out["executor processes"] = spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1
    print("FIGURES " + json.dumps(out))
    spark.stop()
''')


def write_inputs(spark, root: str) -> None:
    """Three inputs of 6,000 rows, each in three files (three micro-batches when streamed)."""
    for i, name in enumerate(NAMES):
        df = spark.range(6000).selectExpr(
            f"cast(pmod(hash(id, {i}), 300) as int) as k",
            f"timestamp_micros(id * 1000 + pmod(hash(id, {i + 10}), 1000)) as ts",
            f"cast(pmod(hash(id, {i + 20}), 500) as long) as x", "id as v")
        for part in range(3):
            (df.where(f"v >= {part * 2000} and v < {(part + 1) * 2000}").coalesce(1)
             .write.parquet(os.path.join(root, name, f"part-{part}")))


def test_multi_process_cluster_gives_the_local_results(spark, tmp_path):
    data, queries = tmp_path / "data", tmp_path / "queries.py"
    queries.write_text(QUERIES)
    write_inputs(spark, str(data))
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(child), str(queries), str(data), str(tmp_path / "ck-cluster")],
                          capture_output=True, text=True, timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("FIGURES ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-5000:]
    cluster = json.loads(lines[0][len("FIGURES "):])
    assert cluster.pop("executor processes") == 2

    scope: dict = {}
    exec(QUERIES, scope)
    local = scope["batch_queries"](spark, str(data))
    local.update(scope["stream_queries"](spark, str(data), str(tmp_path / "ck-local")))
    assert cluster == local
    # Not vacuous: every query produced rows, and the streams equal the batch W-join.
    assert all(n > 0 for n, _ in local.values()), local
    assert local["stream hw"] == local["keyed hw"]
