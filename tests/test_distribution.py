"""The distribution a user installs: bin/package's wheel goes into a fresh virtual environment
beside the running pyspark and runs a W-join there, on classic PySpark and through a Spark
Connect server started with bin/package's plain jar of that Spark minor; a session that gets
the jar by its Maven coordinates from bin/package's Maven repository runs one too.
"""
import json
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

import wjoin
from connect_server import ConnectServer
from environments import ROOT, clean_env, fresh_environment

# Runs in the fresh environment: argv[1] is the Connect server's URL.
SCRIPT = textwrap.dedent('''
    import sys
    import wjoin
    from pyspark.sql import SparkSession
    print("file", wjoin.__file__)
    print("versions", wjoin.__version__, wjoin.jar_path())

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


def run_client(command: list, server: ConnectServer, **kwargs) -> subprocess.CompletedProcess:
    """A client process of the server; one that does not end in 5 minutes fails the test with what
    it printed and the server's log."""
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    except subprocess.TimeoutExpired as e:
        printed = [(x.decode(errors="replace") if isinstance(x, bytes) else x or "")[-3000:] for x in (e.stdout, e.stderr)]
        pytest.fail("the client did not end in 5 minutes; it printed:\n{}\n{}\nthe server's log ends:\n{}".format(
            *printed, server.tail()))


# (1,10)-(1,12) within 5; (1,20)-(1,24) within 5; key 2: 11 and 30 are 19 apart
EXPECTED = "[(1, 10, 12), (1, 20, 24)]"


def test_the_wheel_installs_and_runs_in_a_fresh_environment(tmp_path, distribution):
    import pyspark
    minor = ".".join(pyspark.__version__.split(".")[:2])
    python = fresh_environment(tmp_path / "venv", sys.executable, distribution["wheel"])
    with ConnectServer(jar=distribution["jars"][minor]) as server:
        run = run_client([python, "-c", SCRIPT, server.url], server, env=clean_env(), cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert lines["file"].startswith(str(tmp_path / "venv")), lines["file"]
    assert lines["versions"].split(" ")[0] == wjoin.__version__
    assert os.path.basename(lines["versions"].split(" ")[1]) == \
        f"spark-wjoin_{minor}_{wjoin.scala_builds[minor]}-{wjoin.__version__}.jar"
    assert lines["classic"] == EXPECTED and lines["connect"] == EXPECTED, run.stdout
    assert "FutureWarning" not in run.stderr and "UserWarning" not in run.stderr, run.stderr[-3000:]


# Runs in a new process (this one has the classic session of the other tests): argv[1] is the URL.
# A misuse is a wjoin.WJoinAnalysisException with the classic condition, SQLSTATE and values
# (PySpark 3.5's Connect client keeps only the error's text).
CONNECT_SCRIPT = SCRIPT[:SCRIPT.index("classic = ")] + textwrap.dedent('''
    import json
    remote = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
    try:
        one = remote.createDataFrame([(1, 10)], "k int, ts bigint")
        one.wjoin(one, on="nope", time="ts", window=5)
    except ValueError as e:
        print("misuse", json.dumps([type(e).__name__, e.getCondition(), e.getSqlState(), e.getMessageParameters()]))
    one.createOrReplaceTempView("one")
    try:
        remote.sql("SELECT * FROM one A, one B WINDOW(A,X) = 5")
    except ValueError as e:
        print("sql_misuse", json.dumps([e.getCondition(), e.getSqlState(), e.getMessageParameters(), str(e)]))
    print("connect", run(remote))
''')


@pytest.mark.core
@pytest.mark.older_minor
def test_a_connect_client_runs_a_wjoin_on_this_spark(tmp_path, distribution):
    """A Connect round trip on the running pyspark's Spark, its server with that minor's jar. The
    older minors' core sets run it; on the newest, the fresh-environment test above does the same
    and more, and tests/test_spark_versions.py installs the wheel on every older minor."""
    import pyspark
    minor = ".".join(pyspark.__version__.split(".")[:2])
    env = clean_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))  # the wjoin of this run
    with ConnectServer(jar=distribution["jars"][minor]) as server:
        run = run_client([sys.executable, "-c", CONNECT_SCRIPT, server.url], server, env=env, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.splitlines()[-1] == "connect " + EXPECTED, run.stdout
    misuse = json.loads(next(line for line in run.stdout.splitlines() if line.startswith("misuse "))[len("misuse "):])
    assert misuse == ["WJoinAnalysisException", "WJOIN_UNKNOWN_COLUMN", "42703",
                      {"what": "join", "column": "nope", "input": "A", "columns": "k, ts"}], run.stdout
    sql_misuse = json.loads(next(line for line in run.stdout.splitlines()
                                 if line.startswith("sql_misuse "))[len("sql_misuse "):])
    assert sql_misuse == ["WJOIN_UNKNOWN_INPUT_IN_WINDOW", "42703", {"term": "WINDOW(A,X) = 5", "name": "X", "inputs": "A, B"},
                          "[WJOIN_UNKNOWN_INPUT_IN_WINDOW] window term 'WINDOW(A,X) = 5' names input 'X', but the inputs "
                          "are A, B; line 1 pos 36"], run.stdout


def test_the_wheel_carries_a_jar_for_every_supported_spark_and_needs_any_of_them(distribution):
    with zipfile.ZipFile(distribution["wheel"]) as wheel:
        names = wheel.namelist()
        metadata = next(wheel.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    for minor in wjoin.spark_builds:
        assert f"wjoin/jars/spark-wjoin_{minor}_{wjoin.scala_builds[minor]}-{wjoin.__version__}.jar" in names
        assert os.path.exists(distribution["jars"][minor])
    assert "Requires-Dist: pyspark<4.4,>=3.5" in metadata
    assert "Requires-Dist: pandas<3,>=2.2; extra == \"connect\"" in metadata


# Runs with the running Python: argv[1] is the Maven repository, argv[2] a fresh Ivy folder.
MAVEN_SCRIPT = textwrap.dedent('''
    import json, sys
    import wjoin
    from pyspark.sql import SparkSession
    builder = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
               .config("spark.jars.repositories", "file://" + sys.argv[1]).config("spark.jars.ivy", sys.argv[2]))
    spark = wjoin.configure(builder, packages=True).getOrCreate()
    a = spark.createDataFrame([(1, 10), (1, 20), (2, 11)], "k int, ts bigint")
    b = spark.createDataFrame([(1, 12), (2, 30), (1, 24)], "k int, ts bigint")
    rows = sorted(tuple(r) for r in a.wjoin(b, on="k", time="ts", window=5).collect())
    print(json.dumps({"rows": str(rows), "jars": spark.conf.get("spark.jars", ""),
                      "packages": spark.conf.get("spark.jars.packages")}))
''')


@pytest.mark.core
def test_a_session_configured_by_maven_coordinates_runs_a_wjoin(tmp_path, distribution):
    env = clean_env(PYTHONPATH=os.environ.get("PYTHONPATH", ""))  # the wjoin of this run
    run = subprocess.run([sys.executable, "-c", MAVEN_SCRIPT, distribution["maven"], str(tmp_path / "ivy")],
                         capture_output=True, text=True, env=env, cwd=str(tmp_path), timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["rows"] == EXPECTED
    assert result["packages"] == wjoin.maven_coordinates()
    # The jar came from the repository through Ivy, not from the package's folder.
    assert f"{wjoin.maven_group}_{wjoin.artifact_name()}-{wjoin.__version__}.jar" in result["jars"], result
    assert os.path.dirname(wjoin.jar_path()) not in result["jars"], result


def test_the_maven_repository_has_a_pom_with_spark_provided_for_every_minor(distribution):
    import runpy
    maven_only = runpy.run_path(os.path.join(ROOT, "python", "wjoin", "_version.py"))["maven_only_builds"]
    builds = [(m, s) for m, s in wjoin.scala_builds.items()] + list(maven_only.items())
    for minor, scala in builds:
        release = wjoin.spark_builds[minor]
        artifact = f"spark-wjoin_{minor}_{scala}"
        folder = os.path.join(distribution["maven"], *wjoin.maven_group.split("."), artifact, wjoin.__version__)
        assert os.path.exists(os.path.join(folder, f"{artifact}-{wjoin.__version__}.jar"))
        pom = open(os.path.join(folder, f"{artifact}-{wjoin.__version__}.pom")).read()
        dependencies = pom[pom.index("<dependencies>"):pom.index("</dependencies>")]
        assert f"<artifactId>spark-sql_{scala}</artifactId>" in dependencies and f"<version>{release}</version>" in dependencies
        assert dependencies.count("<scope>provided</scope>") == dependencies.count("<dependency>") == 3, dependencies


def test_a_connect_server_gets_its_settings_from_server_settings():
    settings = wjoin.server_settings("/opt/spark-wjoin.jar")
    assert settings == {"spark.jars": "/opt/spark-wjoin.jar", "spark.sql.extensions": "wjoin.WJoinExtensions",
                        "spark.connect.extensions.relation.classes": "wjoin.connect.WJoinRelationPlugin"}
    assert wjoin.server_settings(spark_version="4.1.2")["spark.jars"] == wjoin.jar_path("4.1.0")
    assert wjoin.jar_path("4.1.2").endswith(f"spark-wjoin_4.1_2.13-{wjoin.__version__}.jar")
    assert wjoin.jar_path("3.5.1").endswith(f"spark-wjoin_3.5_2.12-{wjoin.__version__}.jar")  # pyspark 3.5's Scala
    by_maven = wjoin.server_settings(spark_version="4.2.0", packages=True)
    assert by_maven["spark.jars.packages"] == f"io.github.sparkwjoin:spark-wjoin_4.2_2.13:{wjoin.__version__}"
    assert "spark.jars" not in by_maven


def test_an_unsupported_spark_is_named_with_the_supported_ones():
    with pytest.raises(wjoin.WJoinAnalysisException) as e:
        wjoin.jar_path("3.4.1")
    assert e.value.getCondition() == "WJOIN_UNSUPPORTED_SPARK_VERSION" and e.value.getSqlState() == "0A000"
    assert f"runs on Spark {', '.join(wjoin.spark_builds)}, but this is Spark 3.4.1" in str(e.value)


@pytest.mark.parametrize("extra", [{}, {"spark.sql.extensions": "other.Ext",
                                        "spark.connect.extensions.relation.classes": "other.Plugin"}])
@pytest.mark.parametrize("packages", [False, True])
def test_configure_adds_the_jar_the_extension_and_the_plugin(extra, packages):
    from pyspark.sql import SparkSession
    builder = SparkSession.builder
    for key, value in extra.items():
        builder = builder.config(key, value)
    options = wjoin.configure(builder, packages=packages)._options
    if packages:
        assert options["spark.jars.packages"].split(",")[-1] == wjoin.maven_coordinates()
    else:
        assert wjoin.jar_path() in options["spark.jars"].split(",")
    assert options["spark.sql.extensions"].split(",")[-1] == "wjoin.WJoinExtensions"
    assert options["spark.connect.extensions.relation.classes"].split(",")[-1] == wjoin.CONNECT_PLUGIN
    for key, value in extra.items():
        assert options[key].split(",")[0] == value
