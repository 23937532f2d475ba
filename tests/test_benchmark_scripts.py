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


def test_matrix_table_shows_a_sweep_cell_without_the_builtin_join(tmp_path):
    """`bench_matrix.py --rows ... --no-builtin` records no built-in time: the table shows "-" there."""
    import json
    common = dict(kind="double", n=3, rows=200000, wjoin_results=10, wjoin_s=1.0, floor_s=0.1, best_capped=False)
    cells = [dict(common, name="double:base, 200,000 rows", variation="base, 200,000 rows", builtin_s=None,
                  ratio=None, duckdb_s=12.0, duckdb_capped=False, best_peer="duckdb", best_ratio=12.0),
             dict(common, name="double:base", variation="base", rows=20000, builtin_s=50.0, builtin_capped=True,
                  ratio=50.0, best_peer="builtin", best_ratio=50.0)]
    source = tmp_path / "cells.jsonl"
    source.write_text("".join(json.dumps(c) + "\n" for c in cells))
    done = subprocess.run([sys.executable, "bench_matrix.py", "--table", str(source)], capture_output=True, text=True,
                          timeout=120, cwd=os.path.join(ROOT, "benchmarks"))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "| double:base, 200,000 rows | 10 | 1.00 s | 0.10 s | - | 12.00 s | - | 12.00x (duckdb) |" in done.stdout
    assert "| double:base | 10 | 1.00 s | 0.10 s | >= 50.00 s | - | - | 50.00x (builtin) |" in done.stdout
