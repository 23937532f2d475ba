"""The workload matrix's report (bench_matrix.py --plot / --table): the heat map of the best
peer's time / the W-join's time per cell, and the cells as the Markdown table of
docs/benchmarks.md."""
from __future__ import annotations

import json

from bench_matrix import KINDS, cells


def plot(source: str, target: str):
    """The heat map of the best peer's time / the W-join's time per cell (older files, measured
    before the peers: the built-in join is the only peer)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    rows = [json.loads(s) for s in open(source) if s.strip() and '"ratio"' in s]
    kinds = [k for k in KINDS if any(r["kind"] == k for r in rows)]
    order = list(dict.fromkeys(c.variation for c in cells()))   # the matrix's column order
    variations = sorted(dict.fromkeys(r["variation"] for r in rows), key=lambda v: (v not in order, order.index(v) if v in order else 0))
    grid = np.full((len(kinds), len(variations)), np.nan)
    labels = {}
    for r in rows:
        i, j = kinds.index(r["kind"]), variations.index(r["variation"])
        grid[i, j] = r.get("best_ratio", r["ratio"])
        at_least = ">=" if r.get("best_capped", r.get("builtin_capped", False)) else ""
        labels[i, j] = f"{at_least}{grid[i, j]:.2g}x\n{r.get('best_peer', 'builtin')}"
    fig, ax = plt.subplots(figsize=(max(8.0, 1.15 * len(variations) + 2.5), 0.75 * len(kinds) + 2.2))
    norm = matplotlib.colors.TwoSlopeNorm(vmin=-1, vcenter=0, vmax=2)   # parity (1x) is the neutral yellow
    image = ax.imshow(np.log10(grid), cmap="RdYlGn", norm=norm, aspect="auto")
    for (i, j), text in labels.items():
        dark = not -0.6 < np.log10(grid[i, j]) < 1.4
        ax.text(j, i, text, ha="center", va="center", fontsize=7.5, linespacing=1.1, color="white" if dark else "black")
    ax.set_xticks(range(len(variations)), variations, rotation=35, ha="right")
    ax.set_yticks(range(len(kinds)), kinds)
    peers = "builtin: Spark's join, duckdb, polars" if any("best_peer" in r for r in rows) else "Spark's built-in join only"
    ax.set_title(f"fastest peer's time / wjoin time, and which peer ({peers})\n"
                 "green: wjoin faster; red: slower; >=: every peer stopped at the cap, a lower bound", fontsize=9)
    fig.colorbar(image, ax=ax, label="log10 ratio")
    fig.tight_layout()
    fig.savefig(target, dpi=110)


def table(source: str):
    """The cells of a JSON-lines file as a Markdown table (docs/benchmarks.md): times, the floor, the
    peers (>= a lower bound: stopped at the cap), best peer / wjoin (below 1x: a peer was faster)."""
    def t(r, name):
        if f"{name}_s" not in r:
            return "-"
        earlier = " (earlier run)" if name == "builtin" and r.get("builtin_earlier_run") else ""
        return f"{'>= ' if r.get(f'{name}_capped') else ''}{r[f'{name}_s']:.2f} s{earlier}"
    print("| cell | results | wjoin | floor | Spark built-in | DuckDB | Polars | best peer / wjoin |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in (json.loads(s) for s in open(source) if s.strip() and '"ratio"' in s):
        ratio = f"{'>= ' if r['best_capped'] else ''}{r['best_ratio']:.2f}x ({r['best_peer']})"
        print(f"| {r['name']} | {r['wjoin_results']:,} | {r['wjoin_s']:.2f} s | "
              f"{r['floor_s']:.2f} s | {t(r, 'builtin')} | {t(r, 'duckdb')} | {t(r, 'polars')} | "
              + (f"**{ratio}**" if r["best_ratio"] < 1 else ratio) + " |")
