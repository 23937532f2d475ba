"""A session that cannot run a W-join says so at the call, before any job, with the one line
that fixes it: no jar in the JVM (WJOIN_JAR_NOT_LOADED), the jar but no extension
(WJOIN_EXTENSION_NOT_SET, then ``wjoin.register(spark)`` makes the DataFrame API work and give
the extension's answer), ``configure`` on a builder whose ``getOrCreate()`` returns such a
running session (a warning), SQL's window clause on a session without the extension
(WJOIN_SQL_NEEDS_EXTENSION), and a Spark Connect server without the plugin
(WJOIN_CONNECT_PLUGIN_MISSING). Each classic case needs its own JVM: a short script in a
subprocess.
"""
import json
import os
import subprocess
import sys
import textwrap

import pytest
from pyspark.sql import SparkSession

import wjoin
from connect_server import ConnectServer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Defines a, b, c and the W-join `joined`: a filter above it and a projection, so the optimizer
# rules register adds (filter push-down, output pruning) have work to do.
QUERY = textwrap.dedent('''
    a = spark.createDataFrame([(1, 10, "a1"), (1, 20, "a2"), (2, 11, "a3"), (2, 16, "a4")], "k int, ts bigint, v string")
    b = spark.createDataFrame([(1, 12, "b1"), (2, 30, "b2"), (1, 24, "b3"), (2, 14, "b4")], "k int, ts bigint, v string")
    c = spark.createDataFrame([(1, 15, "c1"), (1, 22, "c2"), (2, 12, "c3"), (2, 17, "c4")], "k int, ts bigint, v string")
    joined = a.wjoin(b, c, on="k", time="ts", window=6).where("A.v != 'a1'").select("k", "A.v", "C.v")
''')

# Runs in a new Python process: argv[1] is "jar" (the session gets the jar, not the extension) or
# "none" (neither). Prints one JSON object of what it saw.
SCRIPT = textwrap.dedent('''
    import json, sys, warnings
    from pyspark.sql import SparkSession
    import wjoin

    builder = SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false") \\
        .config("spark.sql.shuffle.partitions", "2")
    if sys.argv[1] == "jar":
        builder = builder.config("spark.jars", wjoin.jar_path())
    spark = builder.getOrCreate()
    tracker = spark.sparkContext.statusTracker()

    def failure(call):
        """(condition, message) of what call() raised, or None."""
        try:
            call()
        except Exception as e:
            return [e.getCondition() if hasattr(e, "getCondition") else type(e).__name__, str(e)]

    seen = {}
    exec(QUERY.split("joined =")[0])
    seen["call"] = failure(lambda: a.wjoin(b, on="k", time="ts", window=6))
    seen["jobs"] = len(tracker.getJobIdsForGroup())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = wjoin.configure(SparkSession.builder).getOrCreate()
    seen["same_session"] = again is spark
    seen["warnings"] = [str(w.message) for w in caught]
    seen["register"] = failure(lambda: wjoin.register(spark) and wjoin.register(spark))
    # SQL's window clause needs the extension's parser: the error names the setting; other parse
    # errors and Spark's named windows stay Spark's.
    a.createOrReplaceTempView("a_events")
    seen["sql"] = failure(lambda: spark.sql("SELECT * FROM a_events A, a_events B WINDOW(A,B) = 5 USING TIME ts"))
    seen["sql_other"] = failure(lambda: spark.sql("SELEC k FROM a_events"))
    seen["named_window"] = spark.sql("SELECT k, count(*) OVER w AS n FROM a_events WINDOW w AS (PARTITION BY k)").count()
    if sys.argv[1] == "jar":
        # What the extension's analyzer rule checks, checked without it.
        seen["hw_without_key"] = failure(lambda: a.wjoin(b, time="ts", window=6, algorithm="hw"))
        exec(QUERY)
        seen["rows"] = sorted(map(list, joined.collect()))
        seen["plan"] = joined._jdf.queryExecution().executedPlan().toString()
    print("SEEN " + json.dumps(seen))
''').replace("QUERY", repr(QUERY))


def seen_in_new_process(argument: str, script: str = SCRIPT):
    """What ``script`` printed after "SEEN ", run with ``argument`` in a new Python process."""
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), SPARK_LOCAL_IP="127.0.0.1")
    env.pop("SPARK_REMOTE", None)
    env.pop("SPARK_CONNECT_MODE_ENABLED", None)
    run = subprocess.run([sys.executable, "-c", script, argument], capture_output=True, text=True, env=env,
                         timeout=300)
    lines = [line for line in run.stdout.splitlines() if line.startswith("SEEN ")]
    assert run.returncode == 0 and lines, run.stdout + run.stderr
    return json.loads(lines[0][len("SEEN "):])


def test_without_the_jar_the_call_says_to_restart_with_configure():
    seen = seen_in_new_process("none")
    condition, message = seen["call"]
    assert condition == "WJOIN_JAR_NOT_LOADED", seen
    # The child's wjoin is this checkout's (PYTHONPATH), which may not be the one this run imported.
    assert "wjoin.configure(SparkSession.builder)" in message and os.path.basename(wjoin.jar_path()) in message
    assert wjoin.maven_coordinates() in message and "JavaPackage" not in message
    assert seen["jobs"] == 0
    # configure cannot help a running session: it says so (Spark's builder returns that session).
    assert seen["same_session"]
    warning, = seen["warnings"]
    assert "already running" in warning and "restart the Python process" in warning
    assert seen["register"][0] == "WJOIN_JAR_NOT_LOADED"
    condition, message = seen["sql"]
    assert condition == "WJOIN_SQL_NEEDS_EXTENSION" and "spark.sql.extensions=wjoin.WJoinExtensions" in message
    assert "clause 'WINDOW(A,B) = ...'" in message and "wjoin.configure(SparkSession.builder)" in message, message
    assert seen["sql_other"][0] == "PARSE_SYNTAX_ERROR" and seen["named_window"] == 4


def test_with_the_jar_register_enables_the_dataframe_api(spark):
    seen = seen_in_new_process("jar")
    condition, message = seen["call"]
    assert condition == "WJOIN_EXTENSION_NOT_SET", seen
    assert "wjoin.register(spark)" in message and "spark.sql.extensions=wjoin.WJoinExtensions" in message
    assert seen["jobs"] == 0
    assert seen["same_session"]
    warning, = seen["warnings"]
    assert "wjoin.register(spark)" in warning
    assert seen["register"] is None
    # register enables the DataFrame API only: SQL still names the setting
    assert seen["sql"][0] == "WJOIN_SQL_NEEDS_EXTENSION" and "wjoin.register(spark) enables only" in seen["sql"][1]
    assert seen["hw_without_key"][0] == "WJOIN_HW_NEEDS_KEY"
    # The same answer as on the shared session, which has the extension; the same operator too.
    namespace = {"spark": spark}
    exec(QUERY, namespace)
    expected = sorted(map(list, namespace["joined"].collect()))
    assert seen["rows"] == expected and len(expected) > 0
    assert "WindowJoin" in seen["plan"]


def test_configure_is_quiet_on_a_session_with_the_extension(spark, recwarn):
    assert wjoin.configure(SparkSession.builder).getOrCreate() is spark
    assert not [w for w in recwarn if "wjoin" in str(w.message)]
    assert wjoin.register(spark) is spark  # a no-op with the extension


# A Connect client cannot start in a process with a classic session (the shared one): a new process.
CONNECT_CLIENT = textwrap.dedent('''
    import json, sys
    from pyspark.sql import SparkSession
    import wjoin

    spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
    a = spark.createDataFrame([(1, 10)], "k int, ts bigint")
    seen = []
    try:
        a.wjoin(a.alias("B"), on="k", time="ts", window=5)
    except wjoin.WJoinAnalysisException as e:
        seen += [e.getCondition(), str(e), e.__cause__ is None and e.__suppress_context__]
    a.createOrReplaceTempView("a_events")
    try:
        spark.sql("SELECT * FROM a_events A, a_events B DWINDOW(A,B) = [0, 5] USING TIME ts").collect()
    except wjoin.WJoinAnalysisException as e:
        seen += [e.getCondition(), str(e)]
    print("SEEN " + json.dumps(seen))
''')


def test_a_connect_server_without_the_plugin_names_server_settings():
    with ConnectServer(with_wjoin=False) as server:
        seen = seen_in_new_process(server.url, CONNECT_CLIENT)
    condition, message, without_cause, sql_condition, sql_message = seen
    assert condition == "WJOIN_CONNECT_PLUGIN_MISSING", seen
    assert "wjoin.server_settings()" in message and wjoin.CONNECT_PLUGIN in message
    assert "JVM stacktrace" not in message and without_cause
    assert sql_condition == "WJOIN_SQL_NEEDS_EXTENSION" and "wjoin.server_settings()" in sql_message


# Runs in a new Python process: a builder of a local Connect server (PySpark starts it in the
# process, with the builder's settings), configured by wjoin.configure alone.
LOCAL_CONNECT = textwrap.dedent('''
    import json, warnings
    from pyspark.sql import SparkSession
    import wjoin

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        spark = wjoin.configure(SparkSession.builder.remote("local[1]")
                                .config("spark.ui.enabled", "false")).getOrCreate()
        a = spark.createDataFrame([(1, 10), (1, 20), (2, 11)], "k int, ts bigint")
        b = spark.createDataFrame([(1, 12), (2, 30)], "k int, ts bigint")
        rows = sorted(tuple(r) for r in a.wjoin(b, on="k", time="ts", window=5).collect())
    print("SEEN " + json.dumps([type(spark).__module__, rows, [str(w.message) for w in caught]]))
''')


def test_configure_sets_up_a_local_connect_server_started_by_the_builder():
    module, rows, warned = seen_in_new_process("", LOCAL_CONNECT)
    assert module.startswith("pyspark.sql.connect"), module
    assert [tuple(r) for r in rows] == [(1, 10, 12)]
    # PySpark warns of every static setting it set at the server's start (spark.ui.enabled here),
    # when it sets them again on the client's session: not of ours, which configure expects.
    ours = ("spark.jars ", "spark.sql.extensions", "spark.connect.extensions")
    assert not [w for w in warned if "wjoin" in w.lower() or any(k in w for k in ours)], warned


@pytest.mark.core
def test_a_python_command_imports_the_package_without_connects_dependencies():
    """``python -c 'import wjoin; print(wjoin.jar_path())'`` (how the guide starts a Connect
    server) where Connect's client dependencies are not installed (pandas hidden here): PySpark's
    check of them ends a ``-c`` process with exit code 0 when its Connect modules are imported, so
    the command printed nothing and the server started with ``--jars ''``."""
    command = ("import sys; sys.modules['pandas'] = None; import wjoin; "
               "print('JAR', wjoin.jar_path()); print('DF', hasattr(wjoin, 'wjoin'))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", command], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert f"JAR {wjoin.jar_path()}" in lines and "DF True" in lines, done.stdout + done.stderr
