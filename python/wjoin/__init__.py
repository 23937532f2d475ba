"""spark-wjoin: the multi-way sliding-window join (W-join) as a native Spark operator.

    import wjoin
    spark = wjoin.configure(SparkSession.builder.master("local[*]")).getOrCreate()
    joined = a.wjoin(b, c, on="obj_id", time="ts", window="2 minutes")

A session that is already running without the extension but has the jar (a managed cluster
that takes only ``--jars``): ``wjoin.register(spark)`` enables the DataFrame API on it.

The same calls work on DataFrames of a Spark Connect session whose server runs with
``wjoin.server_settings()`` (the jar, the extension and the Connect plugin).
"""
from pyspark.sql import DataFrame as _DataFrame

from ._api import (ACCESS_PATHS, ALGORITHMS, CONNECT_PLUGIN, EXTENSION, HOWS, OUTPUT_NAMES, WINDOW_STRATEGIES,
                   artifact_name, configure, jar_path, maven_coordinates, server_settings, wjoin)
from ._errors import WJoinAnalysisException, WJoinRuntimeException
from ._errors import install_conversion as _install_error_conversion
from ._optional import connect_module as _connect_module
from ._session import register
from ._sql import install as _install_sql_guard
from ._version import __version__, maven_group, scala_builds, spark_builds
from ._windows import Directed, StreamRange, StreamRows, directed, range_window, rows_window

__all__ = ["ACCESS_PATHS", "ALGORITHMS", "CONNECT_PLUGIN", "EXTENSION", "HOWS", "OUTPUT_NAMES", "WINDOW_STRATEGIES",
           "Directed", "StreamRange", "StreamRows", "WJoinAnalysisException", "WJoinRuntimeException", "__version__", "artifact_name", "configure", "directed",
           "jar_path", "maven_coordinates", "maven_group", "range_window", "register", "rows_window", "server_settings",
           "scala_builds", "spark_builds", "wjoin"]


def _dataframe_wjoin(self, *others, **options):
    """``a.wjoin(b, c, on=..., time=..., window=...)``: the W-join of this DataFrame and ``others``."""
    return wjoin([self, *others], **options)


_DataFrame.wjoin = _dataframe_wjoin
# PySpark 3.5's Connect DataFrame is a class of its own (PySpark 4's derives from the one above).
_connect_dataframe = _connect_module("pyspark.sql.connect.dataframe")
if _connect_dataframe is not None and not issubclass(_connect_dataframe.DataFrame, _DataFrame):
    _connect_dataframe.DataFrame.wjoin = _dataframe_wjoin
# SQL's window clause on a session without the extension: an error that names the setting.
_install_sql_guard()
# A WJOIN_ error wherever PySpark raises it (a write, a stream's start): wjoin.WJoinAnalysisException;
# a failed job's (windows that do not fit in memory): wjoin.WJoinRuntimeException.
_install_error_conversion()
