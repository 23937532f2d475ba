"""The docs are true: every ```python block of README.md and docs/*.md runs as written (the user
guide's first example prints what it says), and the documented arguments, choices and units are
the ones the API and the JVM accept.

How the blocks run: the blocks of one file run in order in one namespace (like a notebook),
with ``spark`` (the shared session, which has the extension), ``wjoin`` and ``builder`` (a fresh
``SparkSession.builder``) defined. Every block is compiled; two first lines mark a block that is
compiled but not run here:

- ``# Spark Connect client``: needs a Connect server; tests/on_connect/test_connect_docs.py runs
  it against the test server.
- ``# sketch: ...``: its names stand for the reader's DataFrames or arguments (the comment says
  which), so it shows a call's shape, not a program.

A block that is not Python at all (a signature with ``...``, a grammar) is tagged ``text``.
"""
import ast
import inspect
import pathlib
import re

import pytest
from pyspark.sql import SparkSession

import wjoin

ROOT = pathlib.Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "user-guide.md"
TEXT = GUIDE.read_text()
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NOT_RUN_HERE = ("# Spark Connect client", "# sketch:")


def python_blocks(path: pathlib.Path) -> list[tuple[int, str]]:
    """(line of the block's first line, its text) of every ```python block of ``path``."""
    text = path.read_text()
    return [(text[:m.start(1)].count("\n") + 1, m.group(1)) for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def argument_rows():
    """The rows of the guide's argument table ("The call"): name -> what it accepts."""
    call = TEXT.split("## The call", 1)[1].split("\n## ", 1)[0]
    return dict(re.findall(r"^\| `(\w+)` \| (.*) \|$", call, re.M))


def printed_as_commented(block: str) -> list[str]:
    """What the block's top-level ``print(...)  # comment`` lines say they print: the comments
    that are literal output (not ``...`` or ``<placeholders>``)."""
    return [m.group(1) for m in re.finditer(r"^print\(.*\)  # (.*)$", block, re.M)
            if "..." not in m.group(1) and "<" not in m.group(1)]


@pytest.mark.parametrize("path", [p for p in DOCS if python_blocks(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_python_blocks_run(spark, capsys, path):
    namespace = {"spark": spark, "wjoin": wjoin, "builder": SparkSession.builder}
    ran, out = 0, ""
    for line, block in python_blocks(path):
        # Padded so that a traceback names the block's line in the file.
        code = compile("\n" * (line - 1) + block, str(path), "exec")
        if not block.startswith(NOT_RUN_HERE):
            exec(code, namespace)
            ran += 1
            printed = capsys.readouterr().out
            out += printed
            for expected in printed_as_commented(block):
                assert expected in printed.splitlines(), f"{path}, block at line {line}: {expected!r} not in\n{printed}"
    assert ran > 0, f"{path} has no block that runs"
    if path == GUIDE:
        assert ran >= 15, "the user guide lost its runnable examples"
        # The first example's a.wjoin(b, c, on="k", ...).show(3): the key once, then t and v of each
        # input, as "Output columns" says; and three rows of it.
        header = re.search(r"^\|\s*k\|\s*t\|\s*v\|\s*t\|\s*v\|\s*t\|\s*v\|$", out, re.M)
        assert header, out
        rows = out[header.end():].split("only showing top 3 rows")[0]
        assert len(re.findall(r"^\|\s*\d+\|", rows, re.M)) == 3, out
        # Streaming: the journeys written to parquet with output_names="prefixed", read back.
        journeys = re.search(r"^\|\s*k\|\s*A_ts\|\s*B_ts\|\s*C_ts\|\n\+[-+]+\+\n(.*?)\n\+", out, re.M | re.S)
        assert journeys, out
        assert journeys.group(1).split("\n") == ["|  1|2024-01-01 00:00:00|2024-01-01 00:00:40|2024-01-01 00:01:40|"], out


def test_documented_signature_is_the_api():
    """The signature under "The call" (a text block) names the parameters and defaults of wjoin.wjoin."""
    call = TEXT.split("## The call", 1)[1]
    shown = re.search(r"^```text\n(wjoin\.wjoin\(.*?\)) -> DataFrame$", call, re.S | re.M).group(1)
    args = ast.parse(shown.replace("wjoin.wjoin(", "def wjoin(", 1) + ": pass").body[0].args
    defaults = [None] * len(args.args) + args.kw_defaults
    documented = [(a.arg, d and ast.literal_eval(d)) for a, d in zip(args.args + args.kwonlyargs, defaults)]
    actual = [(n, None if p.default is inspect.Parameter.empty else p.default)
              for n, p in inspect.signature(wjoin.wjoin).parameters.items()]
    assert documented == actual


def test_documented_arguments_are_the_api():
    params = list(inspect.signature(wjoin.wjoin).parameters)
    assert list(argument_rows()) == params


@pytest.mark.parametrize("argument, constant", [
    ("algorithm", wjoin.ALGORITHMS), ("window_strategy", wjoin.WINDOW_STRATEGIES),
    ("access_paths", wjoin.ACCESS_PATHS), ("how", wjoin.HOWS), ("output_names", wjoin.OUTPUT_NAMES)])
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
