"""Misuse fails in wjoin.wjoin() itself, before any Spark job, with a TypeError (a Python type)
or a W-join error whose message names the culprit (input, column, term or option): a
``wjoin.WJoinAnalysisException``, which is PySpark's ``AnalysisException`` with a ``WJOIN_``
condition and an SQLSTATE, and a ``ValueError``."""
import datetime as dt
import re

import pytest
from pyspark.sql import functions as F

import wjoin
from helpers import job_counter
from misuse import a, b, c, fails, ta, tb  # noqa: F401 (fixtures)

# The error table: every misuse's condition and message, on every supported Spark (bin/test).
pytestmark = pytest.mark.core


def test_job_counter_sees_jobs(spark, a):
    """The no-job assertion can fail: a job started inside the block is seen."""
    with job_counter(spark) as jobs:
        a.count()
        assert len(jobs()) >= 1


# ---------------------------------------------------------------------------------------
# inputs


def test_one_input(spark, a):
    fails(spark, ValueError, r"at least 2 inputs, got 1", lambda: wjoin.wjoin([a], time="ts", window=5))


def test_one_input_by_method(spark, a):
    fails(spark, ValueError, r"at least 2 inputs, got 1", lambda: a.wjoin(time="ts", window=5))


def test_one_input_in_a_dict(spark, a):
    fails(spark, ValueError, r"at least 2 inputs, got 1", lambda: wjoin.wjoin({"A": a}, time="ts", window=5))


def test_no_inputs(spark):
    fails(spark, (TypeError, ValueError), r"inputs", lambda: wjoin.wjoin([], time="ts", window=5))


def test_non_dataframe_input(spark, a):
    fails(spark, TypeError, r"item 1 is a str, not a DataFrame", lambda: wjoin.wjoin([a, "b"], time="ts", window=5))


def test_non_dataframe_first_input(spark, a):
    fails(spark, TypeError, r"item 0 is a int, not a DataFrame", lambda: wjoin.wjoin([7, a], time="ts", window=5))


def test_non_dataframe_in_dict(spark, a):
    fails(spark, TypeError, r"input 'B' is a dict, not a DataFrame",
          lambda: wjoin.wjoin({"A": a, "B": {}}, time="ts", window=5))


def test_non_dataframe_method_argument(spark, a):
    fails(spark, TypeError, r"item 1 is a list, not a DataFrame", lambda: a.wjoin([a], time="ts", window=5))


def test_duplicate_aliases(spark, a, b):
    fails(spark, ValueError, r"unique.*\bX\b.*twice",
          lambda: wjoin.wjoin([a.alias("X"), b.alias("X")], time="ts", window=5))


def test_alias_clashing_with_a_position_name(spark, a, b):
    # b is named A by its position; a is aliased A.
    fails(spark, ValueError, r"unique.*\bA\b.*twice", lambda: wjoin.wjoin([b, a.alias("A")], time="ts", window=5))


def test_names_differing_only_in_case(spark, a, b):
    fails(spark, ValueError, r"unique", lambda: wjoin.wjoin({"left": a, "LEFT": b}, time="ts", window=5))


def test_non_string_dict_key(spark, a, b):
    fails(spark, TypeError, r"input names.*got 1", lambda: wjoin.wjoin({1: a, "B": b}, time="ts", window=5))


# ---------------------------------------------------------------------------------------
# time columns


def test_unknown_time_column(spark, a, b):
    fails(spark, ValueError, r"'nope' is not a column of input A", lambda: wjoin.wjoin([a, b], time="nope", window=5))


def test_unknown_time_column_of_second_input(spark, a, b):
    fails(spark, ValueError, r"'d' is not a column of input B",
          lambda: wjoin.wjoin([a, b], time=["ts", "d"], window=5))


def test_string_time_column(spark, a, b):
    fails(spark, ValueError, r"time column 's' of input A has type string",
          lambda: wjoin.wjoin([a, b], time="s", window=5))


def test_double_time_column(spark, a, b):
    fails(spark, ValueError, r"time column 'd' of input A has type double",
          lambda: wjoin.wjoin([a, b], time=["d", "ts"], window=5))


def test_mixed_time_kinds(spark, a, tb):
    fails(spark, ValueError, r"mix kinds.*integral.*timestamp",
          lambda: wjoin.wjoin([a, tb], time=["ts", "at"], window=5))


def test_mixed_timestamp_and_timestamp_ntz(spark, ta):
    ntz = spark.createDataFrame([(1, dt.datetime(2024, 1, 1))], "k int, at timestamp_ntz")
    fails(spark, ValueError, r"mix kinds.*timestamp.*timestamp_ntz",
          lambda: wjoin.wjoin([ta, ntz], window="1 second"))


def test_default_time_needs_a_timestamp_column(spark, a, b):
    fails(spark, ValueError, r"WJOIN_NO_TIME_COLUMN.*input A has no timestamp column.*time=", lambda: wjoin.wjoin([a, b], window=5))


def test_default_time_with_two_timestamp_columns(spark, ta, tb):
    two = ta.withColumn("other", F.col("at"))
    fails(spark, ValueError, r"input B has 2 timestamp columns \(at, other\)",
          lambda: wjoin.wjoin([tb, two], window="1 second"))


def test_time_dict_with_unknown_input(spark, a, b):
    fails(spark, ValueError, r"unknown input.*\bZ\b", lambda: wjoin.wjoin([a, b], time={"A": "ts", "Z": "ts"}, window=5))


def test_time_dict_missing_an_input(spark, a, b):
    fails(spark, ValueError, r"no time column for input.*\bB\b", lambda: wjoin.wjoin([a, b], time={"A": "ts"}, window=5))


def test_time_list_of_wrong_length(spark, a, b, c):
    fails(spark, ValueError, r"2 columns for 3 inputs", lambda: wjoin.wjoin([a, b, c], time=["ts", "ts"], window=5))


def test_time_of_wrong_type(spark, a, b):
    fails(spark, TypeError, r"time:.*got 3", lambda: wjoin.wjoin([a, b], time=3, window=5))


# ---------------------------------------------------------------------------------------
# on


def test_unknown_join_column(spark, a, b):
    fails(spark, ValueError, r"join column 'nope' is not a column of input A",
          lambda: wjoin.wjoin([a, b], on="nope", time="ts", window=5))


def test_join_column_missing_in_one_input(spark, a, b):
    fails(spark, ValueError, r"join column 'd' is not a column of input B",
          lambda: wjoin.wjoin([a, b], on=["k", "d"], time="ts", window=5))


def test_join_condition_with_unknown_column(spark, a, b):
    fails(spark, ValueError, r"`?B`?\.`?nope`?", lambda: wjoin.wjoin(
        [a, b], on=F.col("A.k") == F.col("B.nope"), time="ts", window=5))


def test_on_of_wrong_type(spark, a, b):
    fails(spark, TypeError, r"on:.*got int", lambda: wjoin.wjoin([a, b], on=5, time="ts", window=5))


# ---------------------------------------------------------------------------------------
# windows


def test_missing_window(spark, a, b):
    fails(spark, ValueError, r"give the window", lambda: wjoin.wjoin([a, b], time="ts"))


def test_unknown_input_in_window_term(spark, a, b):
    fails(spark, ValueError, r"WINDOW\(A,Z\).*names input 'Z'.*inputs are A, B",
          lambda: wjoin.wjoin([a, b], time="ts", windows="WINDOW(A,Z) = 5"))


def test_unknown_input_in_dwindow_term_with_dict_names(spark, a, b):
    fails(spark, ValueError, r"names input 'B'.*inputs are left, right",
          lambda: wjoin.wjoin({"left": a, "right": b}, time="ts", windows="DWINDOW(left,B) = 5"))


def test_unknown_input_in_windows_dict(spark, a, b):
    fails(spark, ValueError, r"names input 'Q'", lambda: wjoin.wjoin([a, b], time="ts", windows={("Q", "B"): 5}))


def test_unknown_input_in_directed(spark, a, b):
    fails(spark, ValueError, r"names input 'Q'",
          lambda: wjoin.wjoin([a, b], time="ts", windows=[wjoin.directed("A", "Q", 5)]))


def test_window_term_relating_an_input_to_itself(spark, a, b):
    fails(spark, ValueError, r"relates input 'A' to itself",
          lambda: wjoin.wjoin([a, b], time="ts", windows="WINDOW(A,A) = 5"))


def test_unparsable_window_term(spark, a, b):
    fails(spark, ValueError, r"cannot parse window term 'WINDOW\(A,B\) 5'",
          lambda: wjoin.wjoin([a, b], time="ts", windows="WINDOW(A,B) 5"))


def test_interval_needs_dwindow(spark, a, b):
    fails(spark, ValueError, r"interval.*needs DWINDOW",
          lambda: wjoin.wjoin([a, b], time="ts", windows="WINDOW(A,B) = [1, 3]"))


@pytest.mark.parametrize("window", [-5, "-5", "INTERVAL -5"])
def test_negative_integral_window(spark, a, b, window):
    fails(spark, ValueError, r"negative|>= 0", lambda: wjoin.wjoin([a, b], time="ts", window=window))


def test_negative_timedelta_window(spark, ta, tb):
    fails(spark, ValueError, r"window: a window cannot be negative",
          lambda: wjoin.wjoin([ta, tb], window=dt.timedelta(seconds=-1)))


def test_negative_timestamp_window_string(spark, ta, tb):
    fails(spark, ValueError, r"negative", lambda: wjoin.wjoin([ta, tb], window="-2 seconds"))


def test_negative_window_term(spark, a, b):
    fails(spark, ValueError, r"WINDOW\(A,B\) = -5.*negative",
          lambda: wjoin.wjoin([a, b], time="ts", windows="WINDOW(A,B) = -5"))


def test_negative_interval_is_fine_but_lower_end_above_upper_end_is_not(spark, a, b):
    wjoin.wjoin([a, b], time="ts", windows="DWINDOW(A,B) = [-3, -1]")  # B 1 to 3 before A: accepted
    fails(spark, ValueError, r"DWINDOW\(A,B\) = \[-1, -3\].*lower end -1 exceeds the upper end -3",
          lambda: wjoin.wjoin([a, b], time="ts", windows="DWINDOW(A,B) = [-1, -3]"))
    fails(spark, ValueError, r"DWINDOW\(A,B\) = -3.*negative",
          lambda: wjoin.wjoin([a, b], time="ts", windows="DWINDOW(A,B) = -3"))


def test_dwindow_lower_end_above_upper_end(spark, a, b):
    fails(spark, ValueError, r"DWINDOW\(A,B\) = \[6, 5\].*lower end 6 exceeds the upper end 5",
          lambda: wjoin.wjoin([a, b], time="ts", windows="DWINDOW(A,B) = [6, 5]"))


def test_dict_interval_lower_end_above_upper_end(spark, a, b):
    fails(spark, ValueError, r"DWINDOW\(A,B\) = \[6, 5\].*lower end 6 exceeds the upper end 5",
          lambda: wjoin.wjoin([a, b], time="ts", windows={("A", "B"): (6, 5)}))


def test_directed_lower_end_above_upper_end(spark, ta, tb):
    fails(spark, ValueError, r"DWINDOW\(A,B\) = \[61 seconds, 1 minute\].*exceeds",
          lambda: wjoin.wjoin([ta, tb], windows=[wjoin.directed("A", "B", "1 minute", "61 seconds")]))


def test_contradictory_directed_windows(spark, a, b):
    message = fails(spark, ValueError, r"contradict", lambda: wjoin.wjoin(
        [a, b], time="ts", windows="DWINDOW(A,B)=[5,6] AND DWINDOW(B,A)=[0,2]"))
    # It names the terms on the cycle.
    assert "DWINDOW(A,B)=[5,6]" in message and "DWINDOW(B,A)=[0,2]" in message


def test_contradiction_through_three_inputs(spark, a, b, c):
    # C is 6..8 after A through B, but WINDOW(A,C) = 5.
    message = fails(spark, ValueError, r"contradict", lambda: wjoin.wjoin(
        [a, b, c], time="ts", windows="DWINDOW(A,B)=[3,4] AND DWINDOW(B,C)=[3,4] AND WINDOW(A,C)=5"))
    for term in ("DWINDOW(A,B)=[3,4]", "DWINDOW(B,C)=[3,4]", "WINDOW(A,C)=5"):
        assert term in message


def test_disconnected_constraints(spark, a, b, c):
    message = fails(spark, ValueError, r"no window bound",
                    lambda: wjoin.wjoin([a, b, c], time="ts", windows="WINDOW(A,B) = 5"))
    assert re.search(r"\bC\b", message), message


def test_disconnected_constraints_with_dict_names(spark, a, b, c):
    message = fails(spark, ValueError, r"no window bound", lambda: wjoin.wjoin(
        {"p": a, "q": b, "lonely": c}, time="ts", windows={("p", "q"): 5}))
    assert "lonely" in message, message


def test_empty_input_name_is_the_same_error_from_a_dict_and_an_alias(spark, a, b):
    for inputs in ({"": a, "B": b}, [a.alias(""), b]):
        fails(spark, ValueError, r"WJOIN_EMPTY_INPUT_NAME", lambda: wjoin.wjoin(inputs, time="ts", window=5))


def test_python_udf_over_two_inputs_in_a_left_join_says_so(spark, a, b):
    from pyspark.sql.types import BooleanType
    less = F.udf(lambda x, y: x < y, BooleanType(), useArrow=False)
    message = fails(spark, ValueError, r"WJOIN_PYTHON_UDF_IN_ANCHORED_JOIN.*calls a Python UDF over several inputs",
                    lambda: wjoin.wjoin([a, b], on=["k", F.col("A.ts") > 0, less(F.col("A.ts"), F.col("B.ts"))],
                                        time="ts", window=5, how="left"))
    assert "A.ts" in message and "B.ts" in message and "> 0" not in message, message


def test_empty_windows(spark, a, b):
    fails(spark, ValueError, r"empty", lambda: wjoin.wjoin([a, b], time="ts", windows=""))
    fails(spark, ValueError, r"empty", lambda: wjoin.wjoin([a, b], time="ts", windows={}))
    fails(spark, ValueError, r"empty", lambda: wjoin.wjoin([a, b], time="ts", windows=[]))


def test_windows_of_wrong_type(spark, a, b):
    fails(spark, TypeError, r"windows:.*got int", lambda: wjoin.wjoin([a, b], time="ts", windows=5))


def test_window_of_wrong_type(spark, a, b):
    fails(spark, TypeError, r"window:.*got True", lambda: wjoin.wjoin([a, b], time="ts", window=True))
    fails(spark, TypeError, r"window:.*got list", lambda: wjoin.wjoin([a, b], time="ts", window=[5]))


def test_fractional_integral_window(spark, a, b):
    fails(spark, ValueError, r"whole number.*2\.5", lambda: wjoin.wjoin([a, b], time="ts", window=2.5))


# ---------------------------------------------------------------------------------------
# an error known only by its text (PySpark 3.5's Connect client keeps no condition)


def test_every_condition_is_read_back_from_its_text():
    """Each condition of the catalogue, its message filled with distinct values and decorated as
    Spark prints it, gives back its condition, SQLSTATE and values: the same values where text
    separates the placeholders, else values that fill the message to the same text."""
    from wjoin._errors import _catalogue, from_text

    def filled(template, values):
        for name, value in values.items():
            template = template.replace(f"<{name}>", value)
        return template
    for condition, declared in _catalogue().items():
        template = "\n".join(declared["message"])
        values = {name: f"value {i} of {name}" for i, name in enumerate(dict.fromkeys(re.findall(r"<(\w+)>", template)))}
        text = f"[{condition}] {filled(template, values)} SQLSTATE: {declared['sqlState']}"
        got = from_text(text + "\n\nJVM stacktrace:\norg.apache.spark.sql.AnalysisException: ...")
        assert isinstance(got, wjoin.WJoinAnalysisException) and isinstance(got, ValueError), condition
        assert (got.getCondition(), got.getSqlState()) == (condition, declared["sqlState"])
        parameters = dict(got.getMessageParameters())
        assert set(parameters) == set(values) and filled(template, parameters) == filled(template, values), condition
        if not re.search(r">\s?<", template):  # no two placeholders side by side
            assert parameters == values, condition


def test_a_spark_error_text_is_not_read_as_a_wjoin_error():
    from wjoin._errors import from_text
    got = from_text("[WJOIN_UNKNOWN_COLUMN] join column 'nope' is not a column of input A (its columns: k, ts) SQLSTATE: 42703")
    assert dict(got.getMessageParameters()) == {"what": "join", "column": "nope", "input": "A", "columns": "k, ts"}
    assert from_text("[UNRESOLVED_COLUMN.WITH_SUGGESTION] A column ... SQLSTATE: 42703") is None
    assert from_text("WJOIN_UNKNOWN_COLUMN without brackets") is None
