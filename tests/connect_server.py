"""A real Spark Connect server for the tests: started from the pyspark distribution's
``bin/spark-submit`` with the W-join jar, extension and Connect plugin, on a loopback port it
binds itself.

    with ConnectServer(jar) as server:
        spark = SparkSession.builder.remote(server.url).getOrCreate()
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time

import pyspark

import wjoin

from environments import local_checkpoint_settings, long_lived_jvm_env

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def connect_server_jars() -> list[str]:
    """The Connect server's own jar where pyspark has none (Spark 3.5: bin/setup fetched it, as
    ``--packages org.apache.spark:spark-connect_2.12:3.5.x`` does on a cluster); else none."""
    minor = ".".join(pyspark.__version__.split(".")[:2])
    if not minor.startswith("3."):
        return []
    folder = os.path.join(ROOT, ".tools", f"spark-{minor}", "connect")
    jars = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".jar")) if os.path.isdir(folder) else []
    if not jars:
        raise RuntimeError(f"no Spark Connect server jar in {folder}: run bin/setup")
    return jars


# The server's log line once it listens (Spark 3.5 to 4.3: SparkConnectServer logs it at INFO);
# the port follows the address's last ':' (3.5 writes an IPv6 address), the line is complete.
STARTED = re.compile(r"Spark Connect server started at: \S*:(\d+)\r?\n")


class ConnectServer:
    """One Connect server process (local[2]); its log is kept in a temporary file for failures."""

    def __init__(self, jar: str | None = None, startup_timeout: float = 180.0, with_wjoin: bool = True,
                 long_lived: bool = False) -> None:
        """``with_wjoin=False``: a plain server, without the jar, the extension and the plugin;
        ``long_lived``: it serves a whole suite (environments.long_lived_jvm_env)."""
        self.jar = jar or wjoin.jar_path()
        self.with_wjoin = with_wjoin
        self.long_lived = long_lived
        self.port: int | None = None
        self.timeout = startup_timeout
        self.process: subprocess.Popen | None = None
        self.log = tempfile.NamedTemporaryFile(prefix="wjoin-connect-", suffix=".log", delete=False)

    def command(self) -> list[str]:
        spark_home = os.path.dirname(pyspark.__file__)
        settings = wjoin.server_settings(self.jar) if self.with_wjoin else {}
        settings.pop("spark.jars", None)  # given as --jars
        confs = dict(settings, **{
            "spark.connect.grpc.binding.address": "127.0.0.1",
            # Port 0: the server binds a free port and logs it. A port picked here and passed on
            # could be taken by another process (a Spark session of the other test lane) before
            # the server binds it; Spark then binds the next port, and a client of the picked
            # one would talk to that other process.
            "spark.connect.grpc.binding.port": "0",
            "spark.sql.shuffle.partitions": "5",
            "spark.ui.enabled": "false",
            "spark.driver.memory": "2g"}, **(local_checkpoint_settings() if self.long_lived else {}))
        args = [os.path.join(spark_home, "bin", "spark-submit"), "--class", SERVER_CLASS, "--master", "local[2]"]
        jars = connect_server_jars() + ([self.jar] if self.with_wjoin else [])
        if jars:
            args += ["--jars", ",".join(jars)]
        for key, value in confs.items():
            args += ["--conf", f"{key}={value}"]
        return args + ["spark-internal"]

    def start(self) -> "ConnectServer":
        # Python UDFs and foreachBatch run in Python workers of the server: this interpreter.
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", SPARK_HOME=os.path.dirname(pyspark.__file__),
                   PYSPARK_PYTHON=sys.executable)
        env.pop("SPARK_REMOTE", None)
        env.pop("SPARK_CONNECT_MODE_ENABLED", None)
        if self.long_lived:
            env = long_lived_jvm_env(env)
        self.process = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the Connect server exited with {self.process.returncode}:\n{self.tail()}")
            with open(self.log.name, errors="replace") as f:
                started = STARTED.search(f.read())
            if started:
                self.port = int(started.group(1))
                return self
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"the Connect server did not report listening in {self.timeout}s:\n{self.tail()}")

    @property
    def url(self) -> str:
        if self.port is None:
            raise RuntimeError("the Connect server has not started")
        return f"sc://127.0.0.1:{self.port}"

    def tail(self, lines: int = 40) -> str:
        with open(self.log.name, errors="replace") as f:
            return "".join(f.readlines()[-lines:])

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def __enter__(self) -> "ConnectServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
