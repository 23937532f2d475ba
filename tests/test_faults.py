"""Faults a streaming W-join must survive with its output exactly once, on both state store
providers (HDFS-backed, Spark's default, and RocksDB):

* an executor JVM killed while it runs a task of the join, on a multi-process cluster
  (`local-cluster[2,1,1024]` in a child process, fault_probe.py): the task dies before its state
  store commits, the executor's kept engines and its shuffle output with it;
* a restart from the checkpoint at every batch boundary of a short stream (local mode): eager
  and ordered plans, inner and left W-joins (a left W-join emits unmatched anchor rows when it
  evicts them, so a restart must neither repeat nor lose them).

Every output is compared, as a multiset of id combinations, with the W-join by its definition
(helpers.wjoin_reference) and with an uninterrupted run or the batch W-join of all rows. The
sinks are foreachBatch functions keyed by batch id, so a batch delivered twice would show.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import fault_probe as probe
from helpers import bag, wjoin_reference

PROBE = os.path.abspath(probe.__file__)


def reference(rounds: int, how: str = "inner") -> list[tuple]:
    return wjoin_reference(probe.all_rows(rounds), probe.WINDOW_SECONDS, how)


# ---------------------------------------------------------------------------------------
# Executor loss on a multi-process cluster

@pytest.fixture(scope="module")
def cluster_run(tmp_path_factory):
    """fault_probe.py's result: one child process, one cluster, one run per provider."""
    work = tmp_path_factory.mktemp("executor-loss")
    probe.write_rounds(str(work / "in"), 0, probe.CLUSTER_ROUNDS, flush=True)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, PROBE, str(work)], capture_output=True, text=True, timeout=600, env=env)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-5000:]
    return json.loads(lines[-1][len("RESULT "):])


@pytest.mark.parametrize("provider", [p for p, _ in probe.CLUSTER_RUNS])
def test_executor_killed_mid_batch_every_combination_exactly_once(cluster_run, provider):
    run = cluster_run["runs"][provider]
    kill, killed = run["kill"], run["killedTask"]
    # The kill happened, in the join's stage of the chosen batch, to a task that was running then:
    # Spark recorded that task as failed by the loss of its executor.
    assert "task" in kill, f"no join task killed in micro-batch {probe.KILL_BATCH}: {kill}"
    assert killed["status"] == "FAILED" and "ExecutorLostFailure" in killed["error"], killed
    # A new executor took the dead one's place (two alive at the end, the killed ones not among them).
    killed_ids = {r["kill"].get("executor") for r in cluster_run["runs"].values()}
    assert len(cluster_run["executorsAtEnd"]) == 2 and not killed_ids & set(cluster_run["executorsAtEnd"])
    # Every batch reached the sink once, the killed one too, and the query went on after it.
    deliveries = dict(run["deliveries"])
    assert set(deliveries.values()) == {1} and max(deliveries) > probe.KILL_BATCH, deliveries
    assert run["operator"] == "windowJoin"
    expected = reference(probe.CLUSTER_ROUNDS)
    assert len(expected) > 100
    assert bag(map(tuple, cluster_run["batch"])) == expected
    assert bag(map(tuple, run["rows"])) == expected


# ---------------------------------------------------------------------------------------
# A restart at every batch boundary

RESTART_ROUNDS = 2
# One ordered plan on the HDFS-backed store and one eager plan on RocksDB, both left W-joins (their
# combinations are an inner W-join's, plus the anchors decided across the boundary; the cluster
# test above runs the inner ones). Every older Spark minor's RocksDB store gets its failure and
# restart in tests/test_spark_versions.py.
SCENARIOS = [("hdfs", "mw", "left"), ("rocksdb", "hw", "left")]


def start(spark, root: str, checkpoint: str, algorithm: str, how: str, deliveries: list):
    """Starts the W-join over every unread file of `root` (trigger availableNow) from `checkpoint`;
    the sink appends (batch id, rows) to `deliveries` for every batch it gets."""
    def sink(batch, batch_id):
        deliveries.append((batch_id, [tuple(r) for r in batch.collect()]))
    return (probe.joined(probe.inputs(spark, root), algorithm, how).writeStream.foreachBatch(sink)
            .option("checkpointLocation", checkpoint).trigger(availableNow=True).start())


def run_together(queries: list) -> None:
    """Waits for queries running side by side (independent: their waits for Spark overlap)."""
    try:
        for query in queries:
            query.awaitTermination()
    finally:
        for query in queries:
            query.stop()


def output(deliveries: list) -> list[tuple]:
    ids = [batch_id for batch_id, _ in deliveries]
    assert len(ids) == len(set(ids)), f"a micro-batch reached the sink twice: {ids}"
    return bag(r for _, rows in deliveries for r in rows if all(x is None or x >= 0 for x in r))


@pytest.fixture
def state_provider(spark, request):
    """The provider of the parameter, and 2 state partitions, for queries started in the test."""
    provider = request.param
    old = {k: spark.conf.get(k, None) for k in (probe.PROVIDER_KEY, "spark.sql.shuffle.partitions")}
    spark.conf.set(probe.PROVIDER_KEY, probe.PROVIDERS[provider])
    spark.conf.set("spark.sql.shuffle.partitions", "2")
    yield provider
    for k, v in old.items():
        if v is None:
            spark.conf.unset(k)
        else:
            spark.conf.set(k, v)


@pytest.mark.parametrize("state_provider, algorithm, how", SCENARIOS, indirect=["state_provider"])
def test_restart_at_every_batch_boundary_gives_the_uninterrupted_output(spark, tmp_path, state_provider,
                                                                         algorithm, how):
    # Split 0: every file in one run. Split k > 0: the files of rounds 0..k-1 (k = RESTART_ROUNDS:
    # all but the flush file), stop, then a restart from the same checkpoint with the rest. The
    # splits' queries run side by side.
    splits = range(RESTART_ROUNDS + 1)
    roots = [str(tmp_path / f"in-{k}") for k in splits]
    checkpoints = [str(tmp_path / f"checkpoint-{k}") for k in splits]
    outputs: list[list] = [[] for _ in splits]

    def run(ks):
        run_together([start(spark, roots[k], checkpoints[k], algorithm, how, outputs[k]) for k in ks])

    for k in splits:
        probe.write_rounds(roots[k], 0, k or RESTART_ROUNDS, flush=k == 0)
    run(splits)
    before = [len(o) for o in outputs]
    for k in splits[1:]:
        probe.write_rounds(roots[k], k, RESTART_ROUNDS, flush=True)
    run(splits[1:])
    expected = reference(RESTART_ROUNDS, how)
    assert len(expected) > 50 and (how != "left" or any(r[1] is None for r in expected))
    assert output(outputs[0]) == expected
    for k in splits[1:]:
        assert before[k] > 0 and len(outputs[k]) > before[k], (k, [b for b, _ in outputs[k]])
        assert output(outputs[k]) == expected, f"restart before round {k}"
