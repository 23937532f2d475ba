"""The workload matrix's report (bench_matrix.py --plot / --table): the heat map of the best
peer's time / the W-join's time per cell, and the cells as the Markdown table of
docs/benchmarks.md."""
from __future__ import annotations

import json

from matrix_cells import KINDS, cells


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
        if r.get(f"{name}_s") is None:   # not run (--no-builtin) or failed
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


def plot_sizes(sources: list[str], target: str):
    """Time against rows per input, one panel per kind, from size-sweep files (`--rows`): the
    W-join of each sweep file (labelled by the file's name when there are several) and the peers
    of the last one. A file without sweep cells (a full matrix run) gives every line its kind's
    base cell as the smallest size. A time stopped at the cap (>=) is drawn as a hollow marker."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    runs = {f: [json.loads(s) for s in open(f) if s.strip() and '"wjoin_s"' in s] for f in sources}
    sweeps = [f for f, rs in runs.items() if any(", " in r["variation"] and "rows" in r["variation"] for r in rs)]
    bases = [r for f, rs in runs.items() if f not in sweeps for r in rs if r["variation"] == "base"]
    kinds = [k for k in KINDS if any(r["kind"] == k for f in sweeps for r in runs[f])]
    fig, axes = plt.subplots(1, len(kinds), figsize=(4.2 * len(kinds), 3.6), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        def points(rs, field):
            chosen = [r for r in bases + rs if r["kind"] == kind and r["variation"].startswith("base")
                      and r.get(field) is not None]
            return sorted((r["rows"], r[field], bool(r.get(field.replace("_s", "_capped")))) for r in chosen)
        for f in sweeps:
            pts = points(runs[f], "wjoin_s")
            name = f.rsplit("/", 1)[-1].removesuffix(".jsonl")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label="wjoin" + (f" ({name})" if len(sweeps) > 1 else ""))
        for peer in ("duckdb", "polars"):
            pts = points(runs[sweeps[-1]], f"{peer}_s")
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], "s--", label=peer)
            capped = [p for p in pts if p[2]]
            if capped:
                ax.plot([p[0] for p in capped], [p[1] for p in capped], "s", markersize=11, mfc="white",
                        color=line.get_color(), label=f"{peer}: stopped at the cap (>=)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{kind} band, 3 inputs", fontsize=9)
        ax.set_xlabel("rows per input")
        ax.set_ylabel("seconds (median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(target, dpi=110)
