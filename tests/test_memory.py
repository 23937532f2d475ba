"""A W-join whose windows do not fit in memory fails with WJOIN_WINDOW_MEMORY_EXCEEDED (a broadcast
input's index: the shuffled plan instead, or with spark.wjoin.broadcastFallback=false
WJOIN_BROADCAST_MEMORY_EXCEEDED), not a JVM OutOfMemoryError that takes the executor down.

The windows are Spark execution memory of their task (a MemoryConsumer): on Spark's `local-cluster`
master (one worker whose executor JVM has a 512 MB heap, killed by nothing but its own errors) in a
child process, with spark.memory.fraction 0.15 (about 32 MB for Spark's execution and storage; the
fraction is lowered only to keep the test's inputs small), three inputs of 100,000 rows whose times
all fall in one 1000-second window, joined by a band on a double (T-tree or B+tree windows, about
164 bytes a row), need some 49 MB of windows in one task. The query fails with the condition once
the windows hold about 32 MB, and the same executor (no other was started) still runs queries.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pyspark
import pytest

CHILD = textwrap.dedent('''
    import os
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession, functions as F
    import wjoin
    spark = wjoin.configure(SparkSession.builder.master("local-cluster[1,2,512]")
                            .config("spark.executor.memory", "512m")
                            .config("spark.task.maxFailures", "1")
                            .config("spark.sql.shuffle.partitions", "2")
                            .config("spark.memory.fraction", "0.15")
                            .config("spark.ui.enabled", "false")
                            .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("OFF")
    rows = 100000

    def inp(name, seed):
        return spark.range(rows).select(
            (F.lit(1700000000) + F.col("id") * 1000.0 / rows).cast("timestamp").alias("ts"),
            (F.rand(seed) * 1e7).alias("x"), F.col("id").alias("v")).alias(name)

    def executors():  # host:port of every block manager: the driver's and the executor's
        return sorted(f"{e.host()}:{e.port()}" for e in spark.sparkContext._jsc.sc().statusTracker().getExecutorInfos())
    spark.range(10).count()  # the executor is up
    before = executors()
    a, b, c = inp("A", 1), inp("B", 2), inp("C", 3)
    band = (F.abs(F.col("A.x") - F.col("B.x")) < 0.5) & (F.abs(F.col("B.x") - F.col("C.x")) < 0.5)
    try:
        print("COUNT", a.wjoin(b, c, on=band, time="ts", window="1000 seconds").count())
    except Exception as e:
        print("ERROR", type(e).__name__, e.getCondition(), e.getSqlState(), e.getMessageParameters()["input"],
              " ".join(str(e).split("\\n")[:3]))
    # A broadcast input whose index does not fit (the plan forced past Spark's estimate): keyed,
    # the largest input streamed, B's million rows broadcast. By default the plan checks the
    # collected rows and runs shuffled (its windows hold 2000 seconds of rows, not all of B).
    spark.conf.set("spark.wjoin.broadcastBytes", str(1 << 30))
    spark.conf.set("spark.wjoin.smallInputBytes", "-1")  # 2 MB of inputs: not one task

    def spread(name, n, step):
        return spark.range(n).select((F.col("id") % 1000).alias("k"),
                                     (F.lit(1700000000) + F.col("id") * step).cast("timestamp").alias("ts")).alias(name)
    spreads = spread("A", 10, 10000).wjoin(spread("B", 100000, 1), spread("C", 150000, 1), on="k", window="2000 seconds")
    print("PLAN", "BroadcastWindowJoin" in spreads._jdf.queryExecution().executedPlan().toString())

    def fallbacks(df):  # df's rows, and its broadcast node's numBroadcastFallbacks
        rows = len(df.collect())
        todo = [df._jdf.queryExecution().executedPlan()]
        while todo:
            p = todo.pop()
            if p.getClass().getSimpleName() == "AdaptiveSparkPlanExec":
                todo.append(p.executedPlan())
            elif p.getClass().getSimpleName().endswith("QueryStageExec"):  # a leaf holding its plan
                todo.append(p.plan())
            elif p.getClass().getSimpleName() == "BroadcastWindowJoinExec":
                return rows, p.metrics().apply("numBroadcastFallbacks").value()
            else:
                todo += [p.children().apply(i) for i in range(p.children().size())]
    print("FALLBACK %d %d" % fallbacks(spreads))
    # Without the check: the broadcast plan fails with the condition (every row of B in 1000 s).
    spark.conf.set("spark.wjoin.broadcastFallback", "false")

    def keyed(name, n):
        return spark.range(n).select((F.col("id") % 1000).alias("k"),
                                     (F.lit(1700000000) + F.col("id") % 1000).cast("timestamp").alias("ts")).alias(name)
    joined = keyed("A", 10).wjoin(keyed("B", 1000000), keyed("C", 2000000), on="k", window="1000 seconds")
    print("PLAN", "BroadcastWindowJoin" in joined._jdf.queryExecution().executedPlan().toString())
    try:
        print("COUNT", joined.count())
    except Exception as e:
        print("ERROR", type(e).__name__, e.getCondition(), e.getSqlState(), " ".join(str(e).split("\\n")[:3]))
    # The executor survives: the session still runs jobs on the same one.
    print("AFTER", spark.range(1000).count())
    print("SAME EXECUTORS", executors() == before, len(before))
    spark.stop()
''')


def test_windows_too_large_for_memory_fail_with_the_condition_not_an_out_of_memory_error(tmp_path):
    child = tmp_path / "child.py"
    child.write_text(CHILD)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(child)], capture_output=True, text=True, timeout=300, env=env)
    out = done.stdout
    assert done.returncode == 0, out[-3000:] + done.stderr[-5000:]
    errors = [line for line in out.splitlines() if line.startswith("ERROR ")]
    assert len(errors) == 2, out[-3000:] + done.stderr[-5000:]
    # wjoin.WJoinRuntimeException, with the JVM error's condition, SQLSTATE and parameters: on a
    # cluster the JVM's is Spark's job failure, caused by the task's W-join error.
    assert errors[0].startswith("ERROR WJoinRuntimeException WJOIN_WINDOW_MEMORY_EXCEEDED 53200 "), errors[0]
    assert "[WJOIN_WINDOW_MEMORY_EXCEEDED] " in errors[0], out[-3000:] + done.stderr[-5000:]
    assert "the window of input " in errors[0] and "spark.executor.memory" in errors[0]
    # The broadcast plan, checked once its inputs were collected: shuffled instead, the same rows
    # (A's 10 rows k = i at 10000 i: 9 pairs of B and C for i = 0, 14 for each other i).
    assert out.splitlines().count("PLAN True") == 2, out
    assert "FALLBACK 135 1" in out.splitlines(), out
    # Without the check, a broadcast input says so, and how to take the shuffled plan.
    assert errors[1].startswith("ERROR WJoinRuntimeException WJOIN_BROADCAST_MEMORY_EXCEEDED 53200 "), errors[1]
    assert "[WJOIN_BROADCAST_MEMORY_EXCEEDED] the broadcast input B " in errors[1], errors[1]
    assert "spark.wjoin.broadcastBytes=-1" in errors[1], errors[1]
    assert "OutOfMemoryError" not in out + done.stderr
    assert "AFTER 1000" in out.splitlines(), out
    assert "SAME EXECUTORS True 2" in out.splitlines(), out  # the driver's block manager and the executor's


LOCAL_CHILD = textwrap.dedent('''
    import os, sys
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession, functions as F
    import wjoin
    builder = (SparkSession.builder.config("spark.driver.memory", "512m").config("spark.memory.fraction", "0.15")
               .config("spark.sql.shuffle.partitions", "2").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    builder = builder.remote("local[2]") if sys.argv[1] == "connect" else builder.master("local[2]")
    spark = wjoin.configure(builder).getOrCreate()

    def inp(name, seed):
        return spark.range(100000).select((F.lit(1700000000) + F.col("id") / 100.0).cast("timestamp").alias("ts"),
                                          (F.rand(seed) * 1e7).alias("x")).alias(name)
    band = (F.abs(F.col("A.x") - F.col("B.x")) < 0.5) & (F.abs(F.col("B.x") - F.col("C.x")) < 0.5)
    try:
        inp("A", 1).wjoin(inp("B", 2), inp("C", 3), on=band, time="ts", window="1000 seconds").count()
    except wjoin.WJoinRuntimeException as e:
        assert isinstance(e, RuntimeError) and str(e).startswith("[WJOIN_WINDOW_MEMORY_EXCEEDED] the windows of "), str(e)
        assert "SQLSTATE" not in str(e) and "JVM stacktrace" not in str(e), str(e)
        print("CAUGHT", e.getCondition(), e.getSqlState(), sorted(e.getMessageParameters()),
              e.getMessageParameters()["input"] in "ABC")
        print("SPREAD", e.getMessageParameters()["spread"])
    # Keyed (no two inputs share a key value, so nothing joins; a 200-byte payload fills the
    # windows): the message advises more partitions, not a key.
    try:
        keyed = [inp(n, s).withColumn("k", F.floor(F.col("x")) % 1000 + 1000 * s).withColumn("p", F.lit("p" * 200))
                 for n, s in (("A", 1), ("B", 2), ("C", 3))]
        print("COUNT", keyed[0].wjoin(*keyed[1:], on="k", time="ts", window="1000 seconds").count())
    except wjoin.WJoinRuntimeException as e:
        print("SPREAD", e.getMessageParameters()["spread"])
    print("AFTER", spark.range(1000).count())
''')


@pytest.mark.parametrize("client", [pytest.param("classic", marks=pytest.mark.core), "connect"])
def test_a_failed_jobs_memory_error_is_a_wjoin_runtime_exception_on_every_client(tmp_path, client):
    """In a local session (the driver's JVM runs the tasks: the JVM's error is the W-join's own, not
    Spark's job failure) and on Connect (the server's condition and parameters): the same
    wjoin.WJoinRuntimeException, a RuntimeError, with the condition, SQLSTATE and parameters."""
    if client == "connect":
        pytest.importorskip("grpc")
        if int(pyspark.__version__.split(".")[0]) < 4:
            pytest.skip("PySpark 3.5 has no Connect server of its own for a local remote (a package to download)")
    child = tmp_path / "child.py"
    child.write_text(LOCAL_CHILD)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH=os.pathsep.join(sys.path))
    if client == "connect":
        env["SPARK_TESTING"] = "1"  # PySpark then starts the local server on a free port, not on 15002
    done = subprocess.run([sys.executable, str(child), client], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    lines = done.stdout.splitlines()
    assert "CAUGHT WJOIN_WINDOW_MEMORY_EXCEEDED 53200 ['asked', 'bound', 'held', 'input', 'rows', 'spread', 'window'] True" in lines, \
        done.stdout[-3000:] + done.stderr[-5000:]
    spread = [line for line in lines if line.startswith("SPREAD ")]
    assert len(spread) == 2, done.stdout[-3000:] + done.stderr[-5000:]
    assert spread[0].startswith("SPREAD an equality key shared by all inputs, spark.sql.shuffle.partitions"), spread
    assert spread[1].startswith("SPREAD more spark.sql.shuffle.partitions; a key's rows all go to one partition"), spread
    assert "AFTER 1000" in lines, done.stdout
