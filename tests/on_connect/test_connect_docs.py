"""The user guide's Spark Connect example runs as written against the test server."""
import re

from test_docs import TEXT


def test_the_connect_example_runs(connect_server, spark, capsys):
    block, = [b for b in re.findall(r"```python\n(.*?)```", TEXT, re.S) if b.startswith("# Spark Connect client")]
    assert 'remote("sc://localhost:15002")' in block
    exec(compile(block.replace("sc://localhost:15002", connect_server.url), "user-guide.md", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out == ["[(1, 10, 12), (1, 20, 24)]", "[(10, 12), (20, 24)]"], out
