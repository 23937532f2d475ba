"""Every benchmark script starts: its command line parses (`--help`), so the commands in
docs/benchmarks.md are not broken by a change to a script's options. The plotting library is
optional (benchmarks/requirements.txt, not the test environment), so it is hidden here: a
script that imports it before it is needed fails this test even where it is installed."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = sorted(glob.glob(os.path.join(ROOT, "benchmarks", "bench_*.py")))


def test_there_are_benchmark_scripts():
    assert len(SCRIPTS) >= 5


@pytest.mark.parametrize("script", SCRIPTS, ids=os.path.basename)
def test_command_line_parses(script):
    without_matplotlib = ("import runpy, sys; sys.modules['matplotlib'] = None; "
                          "sys.argv = [sys.argv[1], '--help']; runpy.run_path(sys.argv[0], run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", without_matplotlib, script], capture_output=True, text=True,
                          timeout=120, cwd=os.path.join(ROOT, "benchmarks"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
