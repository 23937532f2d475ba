#!/usr/bin/env bash
# Creates (or reuses) the separate PyFlink virtualenv that benchmarks/bench_flink.py runs its
# Flink job in: .tools/flink-venv (gitignored), with benchmarks/flink-requirements.txt.
# PyFlink pins its own pandas/numpy, which conflict with the project's .venv, so it lives apart.
#   benchmarks/flink_env.sh            # create if missing, print the venv's python
#   benchmarks/flink_env.sh --force    # recreate
# Needs python3 (3.9-3.12) and Java 17 on PATH; set PYTHON to choose the interpreter.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${FLINK_VENV:-$root/.tools/flink-venv}"
req="$root/benchmarks/flink-requirements.txt"
py="${PYTHON:-python3}"
if [[ "${1:-}" == "--force" ]]; then rm -rf "$venv"; fi
stamp="$venv/.requirements"
if [[ -x "$venv/bin/python" && -f "$stamp" ]] && cmp -s "$req" "$stamp"; then
  echo "$venv/bin/python"
  exit 0
fi
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv" >&2
"$venv/bin/python" -m pip install --quiet --upgrade pip >&2
"$venv/bin/python" -m pip install --quiet -r "$req" >&2
"$venv/bin/python" -c "import pyflink, pyflink.table; print('pyflink', pyflink.__file__)" >&2
cp "$req" "$stamp"
echo "$venv/bin/python"
