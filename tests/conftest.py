"""Shared fixtures: one local SparkSession with the W-join extension for the whole run."""
import os

import pytest
from hypothesis import HealthCheck, settings

os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"

from pyspark.sql import SparkSession  # noqa: E402

import wjoin  # noqa: E402

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
    session = wjoin.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
