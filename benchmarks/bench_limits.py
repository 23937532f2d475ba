"""Kang et al. Sec. 5.2, Figs. 5-7 on the engine: the output of each resource
allocation strategy (and of allocation="auto") under the paper's rates, windows, selectivity
and budgets, drawn next to the unit-time model's prediction.

    .venv/bin/python benchmarks/bench_limits.py            # runs the sbt bench main, draws docs/img/limits_fig{5,6,7}.png
    .venv/bin/python benchmarks/bench_limits.py --csv /tmp/limits.csv   # draw from an earlier run

The counts are deterministic (seeded arrivals and shedding): see
benchmarks/jvm/src/main/scala/wjoin/bench/ResourceLimitsBenchmark.scala for the settings.
"""
from __future__ import annotations

import argparse
import csv
import os
import subprocess
import tempfile
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TITLES = {
    "fig5": "Fig. 5: CPU-limited (λa=800, λb=200, A=100, B=200 rows, σ=0.01, μ=100/s)",
    "fig6": "Fig. 6: memory-limited (λa=10, λb=50, M=1000, σ=0.005)",
    "fig7": "Fig. 7: both limited (λa=20, λb=30, μ=10/s, M=100, σ=0.01)",
}


def run_benchmark(path: str, seed: int) -> None:
    subprocess.run([os.path.join(ROOT, "bin", "sbt"),
                    f"bench/runMain wjoin.bench.ResourceLimitsBenchmark --out {path} --seed {seed}"],
                   cwd=ROOT, check=True, stdin=subprocess.DEVNULL)


def read(path: str):
    series = defaultdict(lambda: defaultdict(list))
    summary = defaultdict(dict)
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["kind"] == "series":
                series[row["figure"]][row["strategy"]].append(int(row["outputs"]))
            else:
                summary[row["figure"]][row["strategy"]] = {k: float(row[k]) for k in
                                                           ("rate", "model", "shed_rows", "shed_probes", "peak_state")}
    return series, summary


def draw(figure: str, series: dict, summary: dict, out_dir: str) -> str:
    # Imported here so that --help and the benchmark run need no plotting library
    # (pip install -r benchmarks/requirements.txt for the plots).
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.6), gridspec_kw={"width_ratios": [1.3, 1]})
    for strategy, counts in series.items():
        if strategy == "auto":
            continue
        total, cumulative = 0, []
        for c in counts:
            total += c
            cumulative.append(total)
        left.plot(range(len(cumulative)), cumulative, label=strategy)
    left.set_xlabel("event time (s)")
    left.set_ylabel("output tuples (cumulative)")
    left.legend(fontsize=8)
    names = list(summary)
    x = range(len(names))
    right.bar([i - 0.2 for i in x], [summary[n]["rate"] for n in names], width=0.4, label="engine")
    right.bar([i + 0.2 for i in x], [summary[n]["model"] for n in names], width=0.4, label="unit-time model")
    right.set_xticks(list(x))
    right.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    right.set_ylabel("output tuples per second (after warm-up)")
    right.legend(fontsize=8)
    fig.suptitle(TITLES[figure], fontsize=10)
    fig.tight_layout()
    path = os.path.join(out_dir, f"limits_{figure}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--csv", help="draw from this CSV instead of running the benchmark")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", default=os.path.join(ROOT, "docs", "img"))
    args = p.parse_args()
    path = args.csv
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="wjoin-limits-"), "limits.csv")
        run_benchmark(path, args.seed)
    series, summary = read(path)
    os.makedirs(args.out, exist_ok=True)
    for figure in sorted(summary):
        drawn = draw(figure, series[figure], summary[figure], args.out)
        equal = summary[figure]["Equal"]["rate"]
        print(f"{figure}: {os.path.relpath(drawn, ROOT)}")
        for strategy, s in summary[figure].items():
            print(f"  {strategy:<20} {s['rate']:8.2f}/s  model {s['model']:8.2f}/s  x equal {s['rate'] / equal:5.2f}  "
                  f"peak state {int(s['peak_state'])}")


if __name__ == "__main__":
    main()
