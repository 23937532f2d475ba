"""The W-join node's SQL metrics grow while its tasks run (live_metrics_probe.py, a child process
with the Spark UI on: the shared session has it off). The execution and its status come from the
REST API, the running values from the execution's page (the REST API has a running execution's
metrics only once it ends)."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def test_output_rows_and_comparisons_grow_in_the_spark_ui_before_the_job_ends():
    done = subprocess.run([sys.executable, os.path.join(HERE, "live_metrics_probe.py")], capture_output=True,
                          text=True, timeout=600)
    line = next((x for x in done.stdout.splitlines() if x.startswith("RESULT ")), None)
    assert line is not None, done.stdout[-2000:] + done.stderr[-4000:]
    result = json.loads(line[len("RESULT "):])
    final_rows, final_comparisons = result["final"]
    live = [(rows, comparisons) for _, rows, comparisons in result["samples"] if rows]
    assert final_rows > 0
    # Two samples of the running execution with different, non-zero counts below the final ones.
    assert len({rows for rows, _ in live}) >= 2, result
    assert all(0 < rows <= final_rows and 0 < comparisons <= final_comparisons for rows, comparisons in live), result
