"""The distribution a user installs: bin/package's wheel goes into a fresh virtual environment
beside pyspark 4.3.0 and runs a W-join there, on classic PySpark and through a Spark Connect
server started with bin/package's plain jar.

Offline: the fresh environment sees the packages bin/setup installed (pyspark and its Connect
client) through a .pth file over links to them, never the development copy of wjoin, and pip
installs the wheel with --no-index (so the wheel's own requirement, pyspark==4.3.0, must be met
by what is there).
"""
import glob
import os
import site
import subprocess
import sys
import textwrap

import pytest

import wjoin
from connect_server import ConnectServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Runs in the fresh environment: argv[1] is the Connect server's URL.
SCRIPT = textwrap.dedent('''
    import sys
    import wjoin
    from pyspark.sql import SparkSession
    print("file", wjoin.__file__)
    print("versions", wjoin.__version__, wjoin.spark_version)

    def run(spark):
        a = spark.createDataFrame([(1, 10), (1, 20), (2, 11)], "k int, ts bigint")
        b = spark.createDataFrame([(1, 12), (2, 30), (1, 24)], "k int, ts bigint")
        return sorted(tuple(r) for r in a.wjoin(b, on="k", time="ts", window=5).collect())

    classic = wjoin.configure(SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false"))
    spark = classic.getOrCreate()
    print("classic", run(spark))
    spark.stop()
    print("connect", run(SparkSession.builder.remote(sys.argv[1]).getOrCreate()))
''')


def link_dependencies(target: str) -> None:
    """Links every installed distribution except wjoin's into `target` (for the .pth file)."""
    os.makedirs(target)
    folders = site.getsitepackages() + [p for p in sys.path if p.endswith("site-packages")]  # also .pth ones
    for folder in dict.fromkeys(folders):
        for name in os.listdir(folder):
            lowered = name.lower()
            if (lowered.startswith(("wjoin", "spark_wjoin", "__pycache__", "pip", "_distutils_hack"))
                    or lowered.endswith(".pth") or os.path.exists(os.path.join(target, name))):
                continue
            os.symlink(os.path.join(folder, name), os.path.join(target, name))


def test_the_wheel_installs_and_runs_in_a_fresh_environment(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([os.path.join(ROOT, "bin", "package"), str(dist)], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    wheel, = glob.glob(str(dist / f"spark_wjoin-{wjoin.__version__}-py3-none-any.whl"))
    jar, = glob.glob(str(dist / f"spark-wjoin_2.13-{wjoin.__version__}.jar"))

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    link_dependencies(str(tmp_path / "deps"))
    with open(os.path.join(purelib, "installed-dependencies.pth"), "w") as f:
        f.write(str(tmp_path / "deps") + "\n")
    subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", wheel],
                   check=True)

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPARK_", "PYSPARK_"))}
    env.update(SPARK_LOCAL_IP="127.0.0.1", PYTHONPATH="")
    with ConnectServer(jar=jar) as server:
        run = subprocess.run([python, "-c", SCRIPT, server.url], capture_output=True, text=True, env=env,
                             cwd=str(tmp_path), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert lines["file"].startswith(purelib), lines["file"]
    assert lines["versions"] == f"{wjoin.__version__} {wjoin.spark_version}"
    # (1,10)-(1,12) within 5; (1,20)-(1,24) within 5; key 2: 11 and 30 are 19 apart
    expected = "[(1, 10, 12), (1, 20, 24)]"
    assert lines["classic"] == expected and lines["connect"] == expected, run.stdout


def test_a_connect_server_gets_its_settings_from_server_settings(tmp_path):
    settings = wjoin.server_settings("/opt/spark-wjoin.jar")
    assert settings == {"spark.jars": "/opt/spark-wjoin.jar", "spark.sql.extensions": "wjoin.WJoinExtensions",
                        "spark.connect.extensions.relation.classes": "wjoin.connect.WJoinRelationPlugin"}


@pytest.mark.parametrize("extra", [{}, {"spark.sql.extensions": "other.Ext",
                                        "spark.connect.extensions.relation.classes": "other.Plugin"}])
def test_configure_adds_the_jar_the_extension_and_the_plugin(extra):
    from pyspark.sql import SparkSession
    builder = SparkSession.builder
    for key, value in extra.items():
        builder = builder.config(key, value)
    options = wjoin.configure(builder)._options
    assert wjoin.jar_path() in options["spark.jars"].split(",")
    assert options["spark.sql.extensions"].split(",")[-1] == "wjoin.WJoinExtensions"
    assert options["spark.connect.extensions.relation.classes"].split(",")[-1] == wjoin.CONNECT_PLUGIN
    for key, value in extra.items():
        assert options[key].split(",")[0] == value
