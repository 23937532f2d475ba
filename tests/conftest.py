"""Shared fixtures: one local SparkSession with the W-join extension for the whole run."""
import os

import pytest
from hypothesis import HealthCheck, settings

os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"

from pyspark.sql import SparkSession  # noqa: E402

import wjoin  # noqa: E402
from environments import local_checkpoint_settings, long_lived_jvm_env  # noqa: E402

# Every example runs Spark jobs: few examples, no per-example deadline.
settings.register_profile(
    "wjoin", max_examples=25, deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile("wjoin")


@pytest.fixture(scope="session")
def spark():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    builder = (SparkSession.builder.master("local[2]")
               .config("spark.sql.shuffle.partitions", "5")
               .config("spark.ui.enabled", "false"))
    for key, value in local_checkpoint_settings().items():
        builder = builder.config(key, value)
    # The JVM pyspark starts now inherits this process's environment: its JVM options for a
    # whole suite's JVM, only while it starts.
    def set_options(value):
        if value is None:
            os.environ.pop("JDK_JAVA_OPTIONS", None)
        else:
            os.environ["JDK_JAVA_OPTIONS"] = value
    started_with = os.environ.get("JDK_JAVA_OPTIONS")
    set_options(long_lived_jvm_env(dict(os.environ)).get("JDK_JAVA_OPTIONS"))
    try:
        session = wjoin.configure(builder).getOrCreate()
    finally:
        set_options(started_with)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def pytest_configure(config):
    config.addinivalue_line("markers", "core: the fixed core set bin/test also runs on every older Spark minor")
    config.addinivalue_line("markers", "older_minor: a core test that a fuller test covers on the newest Spark "
                                       "(bin/test runs it on the older minors only)")


@pytest.fixture(scope="session")
def distribution(tmp_path_factory):
    """bin/package's output (the wheel, one jar per Spark minor, the Maven repository), built once
    per run; WJOIN_DIST names one built before (bin/test builds it once for every Spark minor)."""
    import glob
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    folder = os.environ.get("WJOIN_DIST")
    # bin/test builds it beside the first tests: WJOIN_DIST_EXIT names the file its exit code lands in.
    done = os.environ.get("WJOIN_DIST_EXIT")
    if folder and done:
        import time
        waited = time.monotonic()
        while not os.path.exists(done):
            if time.monotonic() - waited > 1800:
                pytest.fail(f"bin/package has not built {folder} after 30 minutes")
            time.sleep(1)
        with open(done) as f:
            code = f.read().strip()
        if code != "0":
            pytest.fail(f"bin/package failed (exit {code}); its log: {os.path.dirname(done)}/package.log")
    if not folder:
        folder = str(tmp_path_factory.mktemp("dist"))
        subprocess.run([os.path.join(root, "bin", "package"), folder], check=True, cwd=root, stdout=subprocess.DEVNULL)
    wheel, = glob.glob(os.path.join(folder, f"spark_wjoin-{wjoin.__version__}-py3-none-any.whl"))
    jars = {m: os.path.join(folder, f"spark-wjoin_{m}_{wjoin.scala_builds[m]}-{wjoin.__version__}.jar") for m in wjoin.spark_builds}
    return {"folder": folder, "wheel": wheel, "jars": jars, "maven": os.path.join(folder, "maven")}
