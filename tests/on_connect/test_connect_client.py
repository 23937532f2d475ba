"""What only a Connect client has: the plan the server's plugin builds (EXPLAIN), Python UDFs and
band predicates built under the Connect session, the message itself, and version checks."""
import pytest
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

import wjoin
from wjoin import _api, _connect
from helpers import rows_of

A = [(1, 10, 5), (1, 20, 7), (2, 12, 9), (1, 31, 2)]
B = [(1, 12, 6), (1, 17, 1), (2, 13, 9), (1, 30, 3)]
C = [(1, 11, 4), (1, 16, 8), (2, 14, 9), (1, 29, 5)]


@pytest.fixture(scope="module")
def abc(spark):
    return [spark.createDataFrame(rows, "k int, ts bigint, v int").alias(n) for rows, n in zip((A, B, C), "ABC")]


def test_explain_shows_the_window_join_operator(abc):
    a, b, c = abc
    text = a.wjoin(b, c, on="k", time="ts", window=5)._explain_string(extended=True)
    assert "WindowJoin hw, inputs=[A, B, C]" in text, text
    assert "windows=WINDOW = 5" in text, text


def test_band_predicate_without_key_equals_spark_join(abc):
    a, b, c = abc
    band = (F.abs(F.col("A.v") - F.col("B.v")) <= 2) & (F.col("B.v") < F.col("C.v"))
    ours = wjoin.wjoin([a, b, c], on=band, time="ts", windows="WINDOW(A,B) = 6 AND DWINDOW(B,C) = [-2, 8]")
    within = lambda x, y, lo, hi: (F.col(f"{y}.ts") - F.col(f"{x}.ts")).between(lo, hi)  # noqa: E731
    spark_join = (a.join(b, within("A", "B", -6, 6) & (F.abs(F.col("A.v") - F.col("B.v")) <= 2))
                  .join(c, within("B", "C", -2, 8) & (F.col("B.v") < F.col("C.v")) & within("A", "C", -8, 14)))
    expected = rows_of(spark_join)
    assert expected, "no combination: the test could not fail"
    assert rows_of(ours) == expected


def test_python_udf_in_the_condition(abc):
    a, b, _ = abc
    less = F.udf(lambda x, y: x < y, BooleanType(), useArrow=False)
    joined = wjoin.wjoin([a, b], on=["k", less(F.col("A.v"), F.col("B.v"))], time="ts", window=5)
    # key 1 within 5: (10,12) v 5<6 yes; (20,17) v 7<1 no; (31,30) v 2<3 yes
    assert rows_of(joined.select("A.v", "B.v")) == [(2, 3), (5, 6)]


def test_the_message_carries_every_argument(spark, abc):
    a, b, _ = abc
    dfs, arguments = _api._arguments({"X": a, "Y": b}, ["k", F.col("X.v") < F.col("Y.v")], {"X": "ts", "Y": "ts"},
                                     None, ["WINDOW(X,Y) = 5"], "mw", "gca", False, {"X": "ttree"}, "auto",
                                     "left_semi", output_names="prefixed")
    message = _connect.WJoinPlan([df._plan for df in dfs], arguments).message(spark.client)
    assert len(message.inputs) == 2 and message.HasField("condition")
    assert list(message.names.values) == ["X", "Y"] and list(message.on) == ["k"]
    assert [(c.input, c.column) for c in message.time_by_input.columns] == [("X", "ts"), ("Y", "ts")]
    assert not message.HasField("window") and list(message.windows.values) == ["WINDOW(X,Y) = 5"]
    assert (message.algorithm, message.window_strategy, message.access_paths, message.expiration_interval) == \
        ("mw", "gca", "X:ttree", "auto")
    assert message.client_version == wjoin.__version__ and message.how == "left_semi"
    assert message.output_names == "prefixed"


def test_a_client_of_another_version_is_refused_by_the_server(abc, monkeypatch):
    a, b, _ = abc
    monkeypatch.setattr(_connect, "__version__", "0.0.1")
    with pytest.raises(ValueError, match=rf"client's spark-wjoin is 0\.0\.1 but the server's jar is "
                                         rf"{wjoin.__version__.replace('.', '[.]')}"):
        wjoin.wjoin([a, b], on="k", time="ts", window=5)


def test_a_session_of_another_spark_release_is_refused(spark, abc, monkeypatch):
    a, b, _ = abc
    monkeypatch.setattr(_api, "spark_builds", {"3.4": "3.4.4"})
    monkeypatch.setattr(_api, "_checked_sessions", set())
    with pytest.raises(wjoin.WJoinAnalysisException, match=r"runs on Spark 3\.4, but this is Spark 4\.") as e:
        wjoin.wjoin([a, b], on="k", time="ts", window=5)
    assert e.value.getCondition() == "WJOIN_UNSUPPORTED_SPARK_VERSION" and e.value.getSqlState() == "0A000"


def test_columns_of_the_input_dataframes_in_the_condition(abc):
    a, b, _ = abc
    joined = wjoin.wjoin([a, b], on=[a["k"] == b["k"], a["v"] < b["v"]], time="ts", window=5)
    assert rows_of(joined.select("A.v", "B.v")) == [(2, 3), (5, 6)]
