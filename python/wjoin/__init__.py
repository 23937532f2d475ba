"""spark-wjoin: the multi-way sliding-window join (W-join) as a native Spark operator.

    import wjoin
    spark = wjoin.configure(SparkSession.builder.master("local[*]")).getOrCreate()
    joined = a.wjoin(b, c, on="obj_id", time="ts", window="2 minutes")
"""
from pyspark.sql import DataFrame as _DataFrame

from ._api import ACCESS_PATHS, ALGORITHMS, HOWS, WINDOW_STRATEGIES, configure, jar_path, wjoin
from ._windows import Directed, StreamRange, StreamRows, directed, range_window, rows_window

__all__ = ["ACCESS_PATHS", "ALGORITHMS", "HOWS", "WINDOW_STRATEGIES", "Directed", "StreamRange", "StreamRows", "configure",
           "directed", "jar_path", "range_window", "rows_window", "wjoin"]
__version__ = "0.1.0"


def _dataframe_wjoin(self, *others, **options):
    """``a.wjoin(b, c, on=..., time=..., window=...)``: the W-join of this DataFrame and ``others``."""
    return wjoin([self, *others], **options)


_DataFrame.wjoin = _dataframe_wjoin
