"""The user guide's runnable examples run as written."""
import pathlib
import re

import wjoin

GUIDE = pathlib.Path(__file__).resolve().parent.parent / "docs" / "user-guide.md"


def runnable_blocks():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    return [b for b in blocks if b.startswith("from pyspark.sql import functions as F")]


def test_user_guide_examples_run(spark, capsys):
    blocks = runnable_blocks()
    assert blocks, "the user guide lost its runnable example"
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), {"spark": spark, "wjoin": wjoin})
    assert "k" in capsys.readouterr().out  # the .show() printed a table
