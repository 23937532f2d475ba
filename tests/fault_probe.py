"""Executor loss in the middle of a streaming W-join, on Spark's `local-cluster` master (a
standalone master and two worker JVMs, one executor process each), as a script for a child
process (one SparkContext per process); test_faults.py runs it and checks what it prints.

    python fault_probe.py WORKDIR

WORKDIR/in holds the input files (`write_rounds`: one JSON file per input and round, read one
per micro-batch). For each state store provider the probe runs the W-join of `joined` from its
own checkpoint to the end of the files (trigger availableNow) into a foreachBatch sink that
writes one file per micro-batch, named by its batch id and rewritten if the batch runs again,
so the files read back are the query's output exactly once or not at all.

In micro-batch `KILL_BATCH` the sink's job sleeps at the first output row of one partition of
the join's stage (a projection in the same stage: the join's store commits only after its last
row is consumed): the partition of key `special(KILL_BATCH - 1)`, whose output in that batch
needs rows of the batch before from the state (see `rows`). A thread of the driver kills, with
SIGKILL, the executor JVM running that task once it has run for `KILL_AFTER_MS`: the task dies
before its state store commits, the executor's kept engines and loaded stores with it, and its
shuffle files. The query must go on (Spark retries the task and re-runs the lost map output; a
new executor replaces the dead one) and give every combination once.

The probe prints what it saw as one JSON line `RESULT {...}`: per provider the rows written,
the deliveries per batch id, the kill (executor, PID, partition, the task's stage and attempt)
and the killed task's recorded end, the run's seconds; then the batch W-join of all rows and the
executors alive at the end.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import sys
import threading
import time

NAMES = ("A", "B", "C")
SCHEMA = "k int, ts timestamp, id int"
WINDOW_SECONDS = 3
DELAY = "2 seconds"
# Round r has times in [STEP r, STEP r + SPREAD]: combinations span two rounds (so a batch needs
# the state of the ones before it), and no row is late: the watermark after round r - 1 is at most
# STEP (r - 1) + SPREAD - 2 < STEP r.
STEP, SPREAD = 4, 5
FLUSH_SECONDS = 100_000
FILE_TIMES = 1_700_000_000
PROVIDERS = {
    "hdfs": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
}
PROVIDER_KEY = "spark.sql.streaming.stateStore.providerClass"
# The cluster run: eager on one provider, ordered on the other (test_faults.py's restarts swap them).
CLUSTER_RUNS = (("hdfs", "hw"), ("rocksdb", "mw"))
CLUSTER_ROUNDS = 3
KILL_BATCH = 1
SLEEP_MS, KILL_AFTER_MS = 2000, 300
EXECUTOR_CLASS = "org.apache.spark.executor.CoarseGrainedExecutorBackend"


def rows(round_: int, input_: int, size: int = 6, keys: int = 3) -> list[tuple]:
    """Round `round_` of input `input_`: (key, seconds, id) rows, ids unique over all inputs.

    `size` random rows on keys 0..keys-1, then rows on keys of their own, so that every batch
    boundary matters (with STEP 4, SPREAD 5 and DELAY 2 seconds):
    * the pin (key 200 + r, time 4r + 5 in every input): the watermark after round r is 4r + 3;
    * the witness (key `special(r)`: B at 4r, C at 4r + 1, A at 4r + 2): one combination,
      complete in round r (the eager mode emits it then) and emitted by that watermark in the
      ordered mode, while its anchor A is decided only at 4r + 5: a restart after round r must
      keep A's matched mark (how="left"), or A comes out unmatched as well;
    * the span (key `special(r)`: A at 4r + 5 in round r, B at 4r + 6 and C at 4r + 7 in round
      r + 1): a combination across the boundary, emitted by the eager mode in the batch of round
      r + 1 from A in the state. (No row of the witness is within 3 seconds of the span's.)
    """
    rng = random.Random(f"{round_}-{input_}")
    t = STEP * round_
    ident = 10_000 * input_ + 100 * round_
    out = [(rng.randrange(keys), t + rng.randrange(SPREAD + 1), ident + i) for i in range(size)]
    out += [(200 + round_, t + SPREAD, ident + 91), (special(round_), t + (2, 0, 1)[input_], ident + 90)]
    if input_ == 0:
        out.append((special(round_), t + SPREAD, ident + 92))
    elif round_ > 0:
        out.append((special(round_ - 1), t + input_ + 1, ident + 92))
    return out


def special(round_: int) -> int:
    """The key of round `round_`'s witness and of the span from it to the next round."""
    return 100 + round_


def flush_rows(input_: int) -> list[tuple]:
    """One row far in the future on a key no other row has: it moves the watermark past all data,
    so every combination (ordered mode) and every anchor decision (how="left") comes out."""
    return [(-1, FLUSH_SECONDS, -1 - input_)]


def write_file(root: str, input_: int, number: int, rows_: list[tuple]) -> None:
    """One JSON file of input `input_` (written aside, then renamed: the source never sees half a file)."""
    folder = os.path.join(root, NAMES[input_])
    os.makedirs(folder, exist_ok=True)
    start = dt.datetime(2024, 1, 1)
    hidden = os.path.join(folder, f".f{number:03d}.json")
    with open(hidden, "w") as f:
        for k, seconds, ident in rows_:
            f.write(json.dumps({"k": k, "ts": (start + dt.timedelta(seconds=seconds)).isoformat(), "id": ident}) + "\n")
    # The source reads a folder's files oldest first: modification times in file order (files
    # written within one millisecond would otherwise come in any order).
    os.utime(hidden, (FILE_TIMES + number, FILE_TIMES + number))
    os.rename(hidden, os.path.join(folder, f"f{number:03d}.json"))


def write_rounds(root: str, first: int, last: int, flush: bool) -> None:
    """Rounds first..last-1 (file number = round), then the flush rows as file number `last` if `flush`."""
    for round_ in range(first, last):
        for i in range(len(NAMES)):
            write_file(root, i, round_, rows(round_, i))
    if flush:
        for i in range(len(NAMES)):
            write_file(root, i, last, flush_rows(i))


def all_rows(rounds: int) -> list[list[tuple]]:
    """Every real (not flush) row of `rounds` rounds, per input."""
    return [[r for round_ in range(rounds) for r in rows(round_, i)] for i in range(len(NAMES))]


def inputs(spark, root: str, streaming: bool = True):
    reader = spark.readStream.option("maxFilesPerTrigger", 1) if streaming else spark.read
    frames = [reader.schema(SCHEMA).json(os.path.join(root, n)) for n in NAMES]
    return [(f.withWatermark("ts", DELAY) if streaming else f).alias(n) for f, n in zip(frames, NAMES)]


def joined(frames, algorithm: str = "auto", how: str = "inner"):
    from pyspark.sql import functions as F
    out = frames[0].wjoin(*frames[1:], on="k", time="ts", window=f"{WINDOW_SECONDS} seconds",
                          algorithm=algorithm, how=how)
    return out.select(*[F.col(f"{n}.id").alias(n.lower()) for n in NAMES])


def real(rows_) -> list[list]:
    """The rows without the flush rows' combinations (those have negative ids)."""
    return sorted([list(r) for r in rows_ if all(x is None or x >= 0 for x in r)], key=repr)


# ---------------------------------------------------------------------------------------
# The child process

def executor_pids(app_id: str) -> dict[str, int]:
    """Executor id -> PID of this application's executor JVMs (their command lines name both)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = [a.decode(errors="replace") for a in f.read().split(b"\0")]
        except OSError:
            continue
        if EXECUTOR_CLASS in args and "--app-id" in args and args[args.index("--app-id") + 1] == app_id:
            found[args[args.index("--executor-id") + 1]] = int(entry)
    return found


def kill_a_running_task(spark, kill: dict, done: threading.Event, partition: int) -> None:
    """Kills (SIGKILL) the executor JVM of the join's task of `partition` once it has run for
    KILL_AFTER_MS; records what it killed in `kill` (or what went wrong, as `kill["error"]`)."""
    try:
        find_and_kill(spark, kill, done, partition)
    except Exception as e:  # noqa: BLE001  (reported to the test, which fails on it)
        kill["error"] = repr(e)


def find_and_kill(spark, kill: dict, done: threading.Event, partition: int) -> None:
    sc = spark.sparkContext
    store = sc._jsc.sc().statusStore()
    tracker = sc.statusTracker()
    while not done.is_set():
        now = time.time() * 1000
        # The join runs in the sink's job's result stage, the job's last; the stages before it read
        # the files and write the shuffle.
        joins = {max(info.stageIds) for info in map(tracker.getJobInfo, tracker.getActiveJobsIds()) if info}
        stages = store.activeStages()
        for i in range(stages.size()):
            stage = stages.apply(i)
            if stage.stageId() not in joins:
                continue
            tasks = store.taskList(stage.stageId(), stage.attemptId(), 1000)
            for j in range(tasks.size()):
                task = tasks.apply(j)
                pid = executor_pids(sc.applicationId).get(task.executorId())
                if (task.partitionId() == partition and task.status() == "RUNNING" and pid is not None
                        and now - task.launchTime().getTime() >= KILL_AFTER_MS):
                    os.kill(pid, signal.SIGKILL)
                    kill.update(executor=task.executorId(), pid=pid, partition=partition, stage=stage.stageId(),
                                stageAttempt=stage.attemptId(), task=task.taskId(),
                                runningMs=int(now - task.launchTime().getTime()))
                    return
        done.wait(0.05)


def task_end(spark, kill: dict) -> dict:
    """How the status store recorded the killed task's end."""
    store = spark.sparkContext._jsc.sc().statusStore()
    tasks = store.taskList(kill["stage"], kill["stageAttempt"], 1000)
    for j in range(tasks.size()):
        task = tasks.apply(j)
        if task.taskId() == kill["task"]:
            error = task.errorMessage()
            return {"status": task.status(), "error": error.get() if error.isDefined() else ""}
    return {}


def run_with_kill(spark, work: str, provider: str, algorithm: str) -> dict:
    out = os.path.join(work, f"out-{provider}")
    os.makedirs(out, exist_ok=True)
    deliveries: dict[int, int] = {}
    kill: dict = {}

    def sink(batch, batch_id):
        deliveries[batch_id] = deliveries.get(batch_id, 0) + 1
        if batch_id == KILL_BATCH and not kill:
            # The join's partition of a key (Spark's hash partitioning, as its exchange), and that
            # partition's first row (partition p's ids start at p << 33).
            partition = spark.sql(f"SELECT pmod(hash(CAST({special(KILL_BATCH - 1)} AS INT)), "
                                  f"{spark.conf.get('spark.sql.shuffle.partitions')})").first()[0]
            first_row = f"monotonically_increasing_id() = {partition << 33}"
            paused = batch.selectExpr(*[n.lower() for n in NAMES], f"CASE WHEN {first_row} THEN "
                                      f"reflect('java.lang.Thread', 'sleep', CAST({SLEEP_MS} AS BIGINT)) END")
            done = threading.Event()
            killer = threading.Thread(target=kill_a_running_task, args=(spark, kill, done, partition))
            killer.start()
            try:
                got = [list(r)[:len(NAMES)] for r in paused.collect()]
            finally:
                done.set()
                killer.join()
        else:
            got = [list(r) for r in batch.collect()]
        path = os.path.join(out, f"batch-{batch_id:05d}.json")
        with open(path + ".tmp", "w") as f:
            json.dump(got, f)
        os.replace(path + ".tmp", path)

    spark.conf.set(PROVIDER_KEY, PROVIDERS[provider])
    started = time.time()
    query = (joined(inputs(spark, os.path.join(work, "in")), algorithm).writeStream.foreachBatch(sink)
             .option("checkpointLocation", os.path.join(work, f"checkpoint-{provider}"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    seconds = time.time() - started
    written = [r for name in sorted(os.listdir(out)) for r in json.load(open(os.path.join(out, name)))]
    return {"rows": real(written), "deliveries": sorted(deliveries.items()), "kill": kill,
            "killedTask": task_end(spark, kill) if "task" in kill else {},
            "operator": query.lastProgress["stateOperators"][0]["operatorName"], "seconds": round(seconds, 1)}


def main(work: str) -> None:
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession
    import wjoin
    # Short-lived JVMs, tiny data, and a cold executor replacing each killed one: the C1 compiler
    # alone and the serial collector take about half the CPU time of the defaults here.
    jvm = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
    spark = wjoin.configure(SparkSession.builder.master("local-cluster[2,1,1024]")
                            .config("spark.driver.extraJavaOptions", jvm)
                            .config("spark.executor.extraJavaOptions", jvm)
                            .config("spark.sql.shuffle.partitions", "2")
                            .config("spark.ui.enabled", "false")
                            .config("spark.ui.showConsoleProgress", "false")).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    result = {"runs": {}}
    for provider, algorithm in CLUSTER_RUNS:
        result["runs"][provider] = run_with_kill(spark, work, provider, algorithm)
    result["batch"] = real(r for r in joined(inputs(spark, os.path.join(work, "in"), streaming=False)).collect())
    result["executorsAtEnd"] = sorted(executor_pids(spark.sparkContext.applicationId))
    spark.stop()
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1])
