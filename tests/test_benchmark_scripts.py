"""Every benchmark script starts: its command line parses (`--help`), so the commands in
docs/benchmarks.md are not broken by a change to a script's options."""
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
    done = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, timeout=120,
                          cwd=os.path.join(ROOT, "benchmarks"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout
