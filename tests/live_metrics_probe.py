"""The W-join node's SQL metrics seen live: a script for a child process (its own SparkContext,
with the Spark UI on, which the shared test session has off); test_metrics.py runs it and checks
what it prints.

    python live_metrics_probe.py

A keyed batch W-join of a few seconds runs in a thread while the main thread reads, every 0.2 s,
Spark's REST API (`/api/v1/applications/<id>/sql?details=true`: the execution, its status and,
once it has ended, its metrics) and the SQL tab's page of the execution (`/SQL/execution/?id=N`,
whose plan graph carries each node's metrics with their live values: the REST API gives a running
execution's metrics as nothing, Spark fills them in only when the execution ends). Executors
send their tasks' accumulator updates with each heartbeat (`spark.executor.heartbeatInterval`,
set to 300 ms here), and the node publishes its counts as its tasks go, so the samples taken
while the execution is RUNNING show the node's output rows and comparisons growing before the
job ends.

The probe prints one JSON line `RESULT {...}`: the samples taken while the execution was running
(seconds since the start, output rows, comparisons) and the final values.
"""
from __future__ import annotations

import html
import json
import os
import re
import sys
import threading
import time
import urllib.request

os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from pyspark.sql import SparkSession  # noqa: E402

import wjoin  # noqa: E402

ROWS = 200_000


def number(text: str) -> int:
    """A sum metric's value ("1,234,567") as an int."""
    return int(re.match(r"[0-9,]+", text).group(0).replace(",", ""))


def wjoin_node(execution: dict) -> dict | None:
    return next((n for n in execution.get("nodes", []) if n["nodeName"] == "WindowJoin"), None)


def metric(node: dict, name: str) -> int | None:
    found = [m["value"] for m in node.get("metrics", []) if m["name"] == name]
    return number(found[0]) if found else None


def live(page: str, name: str) -> int | None:
    """A metric of the WindowJoin node on an execution's page: the plan graph's metadata holds one
    JSON object per node, `{"name":"WindowJoin","desc":...,"metrics":[{"name":...,"value":"1,234"}]}`,
    with the values Spark has so far."""
    text = html.unescape(page)
    at = text.find('{"name":"WindowJoin"')
    if at < 0:
        return None
    node, _ = json.JSONDecoder().raw_decode(text, at)
    return metric(node, name)


def get(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode()
    except OSError:  # a busy machine: the UI did not answer in time, ask again
        return None


def main() -> None:
    builder = (SparkSession.builder.master("local[2]").appName("wjoin-live-metrics")
               .config("spark.ui.enabled", "true").config("spark.ui.port", "0")
               .config("spark.executor.heartbeatInterval", "300ms")
               # Heartbeats sent before the driver's listener bus starts (the end of a slow start)
               # are refused; at this interval Spark's default of 60 failures could end the executor.
               .config("spark.executor.heartbeat.maxFailures", "100000")
               .config("spark.sql.shuffle.partitions", "2").config("spark.sql.adaptive.enabled", "false")
               # The WindowJoin node of one task (inputs computed by spark.range would be broadcast).
               .config("spark.wjoin.broadcastBytes", "-1"))
    spark = wjoin.configure(builder).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    ui = spark.sparkContext.uiWebUrl
    url = f"{ui}/api/v1/applications/{spark.sparkContext.applicationId}/sql?details=true"
    a, b = [spark.range(ROWS).selectExpr("id % 8 as k", "timestamp_seconds(id) as ts").alias(n) for n in "AB"]
    joined = a.wjoin(b, on="k", time="ts", window="200 seconds")
    done = threading.Event()

    def run() -> None:
        try:
            joined.write.format("noop").mode("overwrite").save()
        finally:
            done.set()

    started = time.monotonic()
    threading.Thread(target=run, daemon=True).start()
    samples = []
    final = None
    while True:
        finished = done.is_set()
        answer = get(url)
        for e in json.loads(answer) if answer else []:
            node = wjoin_node(e)
            if node is None:
                continue
            if e["status"] == "RUNNING" and not finished:
                page = get(f"{ui}/SQL/execution/?id={e['id']}") or ""
                samples.append((round(time.monotonic() - started, 2), live(page, "number of output rows"),
                                live(page, "time-stamp comparisons")))
            elif e["status"] == "COMPLETED" and finished:
                final = (metric(node, "number of output rows"), metric(node, "time-stamp comparisons"))
        if finished and final is not None:
            break
        if time.monotonic() - started > 150:
            break
        time.sleep(0.2)
    print("RESULT " + json.dumps({"samples": samples, "final": final}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
