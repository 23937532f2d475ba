"""One wheel on every supported Spark, and checkpoints that survive a Spark upgrade.

For each older supported Spark minor, a fresh environment with that minor's pyspark (from bin/setup's
environments) and bin/package's wheel runs tests/version_probe.py: the README's example, then a
streaming W-join on RocksDB state over rounds of input files, with a failure injected into one
micro-batch (the query restarts from its checkpoint). Then the newest Spark, in a fresh
environment of its own, restarts the same checkpoint with more input: an upgrade from the oldest
minor and from the newest-but-one. (The newest runs the same script in the second step.) Every run
must give the brute-force W-join's rows, exactly once. The upgraded minors' probes run with the
newest Spark's tests; any other older minor's runs in that minor's core set.
"""
from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import subprocess

import pytest

import wjoin
from environments import ROOT, clean_env, environment_python, fresh_environment

PROBE = os.path.join(ROOT, "tests", "version_probe.py")
MINORS = sorted(wjoin.spark_builds, key=lambda m: [int(x) for x in m.split(".")])
NEWEST = MINORS[-1]
ROUNDS = 4
# The newest restarts the checkpoints of the oldest and of the newest-but-one minor (the upgrades
# that span the most Spark changes and the most common one); every older minor runs its own.
UPGRADED = {MINORS[0], MINORS[-2]}
# Where each minor's probe runs: an upgraded minor's with the newest Spark's tests, another's in
# its own core set (bin/test runs each older minor's core set in its own environment, on the
# other core), so the work is not done twice.
import pyspark  # noqa: E402

RUNNING = ".".join(pyspark.__version__.split(".")[:2])
PROBED = sorted(UPGRADED) if RUNNING == NEWEST else [m for m in [RUNNING] if m not in UPGRADED]


def probe_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("version_probe", PROBE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def brute_force(rounds: int) -> list[list[int]]:
    """Every (A.id, B.id, C.id) of one key whose times are pairwise within the window."""
    probe = probe_module()
    rows = {n: [r for i in range(rounds) for r in probe.rows(i, n)] for n in probe.NAMES}
    window = dt.timedelta(seconds=probe.WINDOW_SECONDS)
    out = []
    for combo in itertools.product(*(rows[n] for n in probe.NAMES)):
        if len({k for k, _, _ in combo}) == 1 and all(
                abs(x[1] - y[1]) <= window for x, y in itertools.combinations(combo, 2)):
            out.append([ident for _, _, ident in combo])
    return sorted(out)


@pytest.fixture(scope="module")
def environments(tmp_path_factory, distribution):
    """Minor -> the Python of a fresh environment with that minor's pyspark and the wheel (made on first use)."""
    made = {}

    def get(minor):
        if minor not in made:
            venv = tmp_path_factory.mktemp(f"spark-{minor}") / "venv"
            made[minor] = fresh_environment(venv, environment_python(minor), distribution["wheel"])
        return made[minor]
    return get


def probe(python: str, work, *args) -> dict:
    run = subprocess.run([python, PROBE, str(work), *args], capture_output=True, text=True, env=clean_env(),
                         cwd=str(work), timeout=600)
    assert run.returncode == 0, run.stderr[-4000:]
    line = [ln for ln in run.stdout.splitlines() if ln.startswith("RESULT ")][-1]
    return json.loads(line[len("RESULT "):])


def older_spark_runs_the_wheel_and_its_checkpoint_restarts_on_the_newest(minor, environments, tmp_path):
    first = probe(environments(minor), tmp_path, "--example", "--rounds", "0", "2", "--fail-at", "1", "--output")
    assert first["spark"].startswith(minor + ".")
    assert [os.path.basename(j) for j in first["jars"]] == [
        f"spark-wjoin_{minor}_{wjoin.scala_builds[minor]}-{wjoin.__version__}.jar"]
    assert first["example"] == [[1, 10, 12], [1, 20, 24]]
    # Every combination of the first rounds' rows is out once their last row arrived.
    assert first["streamed"] == first["batch"] == brute_force(2)
    if minor not in UPGRADED:
        return
    # The same checkpoint, more input, the newest Spark: an upgrade.
    second = probe(environments(NEWEST), tmp_path, "--example", "--rounds", "2", str(ROUNDS), "--output")
    assert second["spark"].startswith(NEWEST + ".") and second["example"] == first["example"]
    expected = brute_force(ROUNDS)
    assert len(expected) > 20
    assert second["batch"] == expected
    assert second["streamed"] == expected  # no combination lost or repeated across the failure, restart and upgrade


if PROBED:  # none in the core sets of the upgraded minors: the newest's tests run theirs
    test_every_older_spark_runs_the_wheel_and_its_checkpoint_restarts_on_the_newest = pytest.mark.core(
        pytest.mark.parametrize("minor", PROBED)(older_spark_runs_the_wheel_and_its_checkpoint_restarts_on_the_newest))
