"""One real Spark Connect server for the tests of this package (tests/connect_server.py), and
``spark`` as a Connect session to it: every test here, including the classic modules' tests
reused by :func:`reuse`, runs through the Connect client and the server's W-join plugin."""
import inspect
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from connect_server import ConnectServer  # noqa: E402

# What a test can only do on classic PySpark: reach the JVM or the SparkContext (also through
# fixtures), or call a Python UDF its module built for the classic session at import.
CLASSIC_ONLY = ("_jdf", "_jvm", "_jc", "sparkContext", "executed_plan", "one_partition", "_less(")


def reuse(module, namespace: dict, leave_out: tuple = ()) -> list[str]:
    """Copies ``module``'s fixtures and its tests that use only the public DataFrame API (and
    pytest marks) into ``namespace`` (a test module's globals), so pytest runs them here too,
    on a Connect session; returns the names of the tests left out: classic-only ones and the
    hypothesis property tests (the same server code as classic, which runs them; left out to
    keep the suite's time), and ``leave_out``."""
    left_out = list(leave_out)
    for name, value in vars(module).items():
        if name in leave_out:
            continue
        if name.startswith("test_") and callable(value):
            source = inspect.getsource(value)
            if any(token in source for token in CLASSIC_ONLY) or hasattr(value, "hypothesis"):
                left_out.append(name)
                continue
        namespace.setdefault(name, value)
    return left_out


@pytest.fixture(scope="package")
def connect_server():
    with ConnectServer(long_lived=True) as server:
        yield server


@pytest.fixture(scope="package")
def spark(connect_server):
    """A Connect session; PySpark's functions build Connect Columns while it is open (the
    environment variable pyspark sets for that is removed again for the classic tests)."""
    from pyspark.sql import SparkSession
    session = SparkSession.builder.remote(connect_server.url).getOrCreate()
    yield session
    session.stop()
    os.environ.pop("SPARK_CONNECT_MODE_ENABLED", None)
