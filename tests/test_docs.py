"""The user guide is true: its runnable examples run as written and print what it says, and the
documented arguments, choices and units are the ones the API and the JVM accept."""
import inspect
import pathlib
import re

import pytest

import wjoin

GUIDE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "user-guide.md"
TEXT = GUIDE.read_text()


def runnable_blocks():
    blocks = re.findall(r"```python\n(.*?)```", TEXT, re.S)
    return [b for b in blocks if b.startswith("from pyspark.sql import functions as F")]


def argument_rows():
    """The rows of the guide's argument table ("The call"): name -> what it accepts."""
    call = TEXT.split("## The call", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| (.*) \|$", call, re.M))


def test_user_guide_examples_run(spark, capsys):
    blocks = runnable_blocks()
    assert len(blocks) >= 5, "the user guide lost its runnable examples"
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), {"spark": spark, "wjoin": wjoin})
    out = capsys.readouterr().out
    # The first example's a.wjoin(b, c, on="k", ...).show(3): the key once, then t and v of each
    # input, as "Output columns" says; and three rows of it.
    header = re.search(r"^\|\s*k\|\s*t\|\s*v\|\s*t\|\s*v\|\s*t\|\s*v\|$", out, re.M)
    assert header, out
    rows = out[header.end():].split("only showing top 3 rows")[0]
    assert len(re.findall(r"^\|\s*\d+\|", rows, re.M)) == 3, out


def test_documented_arguments_are_the_api():
    params = list(inspect.signature(wjoin.wjoin).parameters)
    assert list(argument_rows()) == params


@pytest.mark.parametrize("argument, constant", [
    ("algorithm", wjoin.ALGORITHMS), ("window_strategy", wjoin.WINDOW_STRATEGIES),
    ("access_paths", wjoin.ACCESS_PATHS), ("how", wjoin.HOWS)])
def test_documented_choices_are_the_jvms(spark, argument, constant):
    accepts = argument_rows()[argument]
    quoted = re.findall(r'`"(\w+)"`', accepts) if argument != "access_paths" else re.findall(r"`([\w+]+)`", accepts)
    jvm = tuple(spark._jvm.wjoin.WJoin.choices(argument))
    assert tuple(dict.fromkeys(quoted)) == jvm == constant


def test_documented_units_parse(spark):
    line = re.search(r"^Units: (.*?)\.\s*Months", TEXT, re.M | re.S).group(1)
    units = []
    for unit in re.findall(r"`([a-z]+(?:\(s\))?)`", line):
        units += [unit[:-3], unit[:-3] + "s"] if unit.endswith("(s)") else [unit]
    assert len(units) >= 20, line
    durations = spark._jvm.wjoin.core.Durations
    for unit in units:
        assert durations.parse(f"2 {unit}", False, "unit") > 0, unit
