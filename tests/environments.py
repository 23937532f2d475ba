"""Fresh Python environments for the distribution tests, offline: a new virtual environment
sees the packages of an existing one (pyspark of some release and its Connect client) through a
.pth file over links to them, never a copy of wjoin, and pip installs bin/package's wheel with
--no-index (so the wheel's own requirement on pyspark must be met by what is there).

    python = fresh_environment(tmp_path / "venv", base_python, wheel)
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def long_lived_jvm_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` for a JVM that serves a whole suite (the session's, the Connect tests' server).
    bin/test gives the JVMs tests start JDK_JAVA_OPTIONS without the JIT's optimizing tier (most run
    small inputs for seconds); for the full suite, whose property tests run the engine's loops for
    minutes, it also sets WJOIN_SUITE_JVM_OPTIONS, the options such a JVM runs with instead. A
    core set's short run does not set it, and keeps the short options."""
    env = dict(env)
    if "WJOIN_SUITE_JVM_OPTIONS" in env:
        options = env["WJOIN_SUITE_JVM_OPTIONS"].strip()
        if options:
            env["JDK_JAVA_OPTIONS"] = options
        else:
            env.pop("JDK_JAVA_OPTIONS", None)
    return env


def local_checkpoint_settings() -> dict[str, str]:
    """Settings of the suites' long-lived sessions (classic and Connect) for checkpoints on the
    local disk: Spark's FileSystem-based checkpoint file manager, which renames with one call,
    where the default one starts readlink/chmod processes on every state commit without Hadoop's
    native library (the user guide's "Small micro-batches on a local disk"; about 14% of the
    streaming tests' time). As the Scala suites' session does; the tests that start their own
    Spark (faults, restarts across versions, the docs' examples, clusters) keep the default."""
    import pyspark
    minor = tuple(int(x) for x in pyspark.__version__.split(".")[:2])
    package = "org.apache.spark.sql.execution.streaming" + (".checkpointing" if minor >= (4, 1) else "")
    return {"spark.sql.streaming.checkpointFileManagerClass": f"{package}.FileSystemBasedCheckpointFileManager"}


def environment_python(minor: str) -> str:
    """The Python of bin/setup's environment with the pyspark release of Spark `minor`."""
    import wjoin
    newest = max(wjoin.spark_builds, key=lambda m: [int(x) for x in m.split(".")])
    venv = os.path.join(ROOT, ".venv" if minor == newest else os.path.join(".tools", f"spark-{minor}"))
    python = os.path.join(venv, "bin", "python")
    assert os.path.exists(python), f"{python} is missing: run bin/setup (it makes one environment per Spark minor)"
    return python


def site_packages(python: str) -> list[str]:
    """The site-packages folders of the environment of `python`."""
    code = "import json, site, sys; print(json.dumps(site.getsitepackages() + [p for p in sys.path if p.endswith('site-packages')]))"
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True, env=clean_env()).stdout
    return list(dict.fromkeys(json.loads(out)))


def link_dependencies(folders: list[str], target: str) -> None:
    """Links every installed distribution of `folders` except wjoin's into `target` (for the .pth file)."""
    os.makedirs(target)
    for folder in folders:
        for name in os.listdir(folder):
            lowered = name.lower()
            if (lowered.startswith(("wjoin", "spark_wjoin", "__pycache__", "pip", "_distutils_hack"))
                    or lowered.endswith(".pth") or os.path.exists(os.path.join(target, name))):
                continue
            os.symlink(os.path.join(folder, name), os.path.join(target, name))


def fresh_environment(venv, base_python: str, wheel: str) -> str:
    """A new virtual environment at `venv` with the packages of `base_python`'s and the wheel; its Python."""
    venv = str(venv)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    python = os.path.join(venv, "bin", "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    link_dependencies(site_packages(base_python), venv + "-deps")
    with open(os.path.join(purelib, "installed-dependencies.pth"), "w") as f:
        f.write(venv + "-deps\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", wheel],
                   check=True, env=clean_env())
    return python


def clean_env(**extra) -> dict:
    """The environment for a child Python: no Spark or PYTHONPATH settings of this run."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env.update({"SPARK_LOCAL_IP": "127.0.0.1", "PYTHONPATH": "", **extra})
    return env
