"""DuckDB and Polars as peers of the workload matrix (bench_matrix.py): the same query on the same
data, outside Spark. Benchmark dependencies only (benchmarks/requirements.txt).

Data: each cell's cached Spark inputs are collected once to Arrow (`DataFrame.toArrow()`),
outside every timed region. DuckDB reads those Arrow tables in this process; Polars runs in a
worker process of its own (`--polars-worker`, POLARS_MAX_THREADS=2) that loads them from
uncompressed Arrow IPC files into memory before any timing, so that a run over the cap can be
stopped by killing the worker (Polars has no interrupt).

The query (a `Spec`): inputs A, B, C, ... joined in a chain, each new input with
  - every pair's window |ts_i - ts_j| <= w, for every earlier input (what the W-join's
    `window=` means; inclusive, microseconds), written as `abs(ts_i - ts_j) <= w`;
  - the key equality `X.k = A.k` (keyed kinds);
  - the band between neighbours in range form, `X.x BETWEEN P.x - d AND P.x + d` (long: d = 2000;
    double: the same range widened by 1e-9 plus Spark's exact `abs(P.x - X.x) <= 2.0`, so
    rounding cannot change a count; timestamp: `X.y BETWEEN P.y - 2 s AND P.y + 2 s`);
  - for the `udf` kind, A.v < B.v evaluated natively by both peers (Spark's plans run it as a
    Python UDF: the peers do not pay that round trip).
Both engines plan the rest themselves (the cell records each one's join operators, `<peer>_plan`).
The range form of the band and the abs form of the window are the fastest we found: with the
window as a range too, both engines' IEJoin takes the time range, far less selective than the
band, and was about 15x slower on 3 x 20k rows of the double band (DuckDB 5.9 s against 0.35 s,
Polars 4.5 s against 0.30 s). With a key, both choose a hash join on it with the window and band
as residual predicates, which is quadratic within a key: slow on the keys 1 / 3 cells. Polars
folds a key filter written after a band `join_where` back into the same hash join, and turning
predicate pushdown off makes cross joins, so no better natural formulation was found; the plan
shown in each line says which join ran.

Output: every column the Spark plans write (keyed: k, then ts, x, v of every input; keyless: ts,
k, x, v of every input) materialized in memory: DuckDB `con.sql(q).to_arrow_table()`, Polars
`LazyFrame.collect()`. The timed region is that call; its row count is compared to the W-join's.
"""
from __future__ import annotations

import datetime as dt
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from statistics import median

DOUBLE_BAND, LONG_BAND, TIME_BAND_S = 2.0, 2000, 2


@dataclass(frozen=True)
class Spec:
    n: int
    window_us: int
    keyed: bool
    band: str | None = None     # "long", "double", "timestamp" or None
    udf: bool = False


def _names(n):
    return [chr(ord("A") + i) for i in range(n)]


def _per_input(spec: Spec):
    return ("ts", "x", "v") if spec.keyed else ("ts", "k", "x", "v")


# ---------------------------------------------------------------- DuckDB

def duckdb_sql(spec: Spec) -> str:
    names = _names(spec.n)
    cols = (["A.k AS k"] if spec.keyed else []) + [f"{n}.{c} AS {n}_{c}" for n in names for c in _per_input(spec)]
    sql = f"SELECT {', '.join(cols)} FROM A"
    for i in range(1, spec.n):
        me, prev = names[i], names[i - 1]
        conds = [f"{me}.k = A.k"] if spec.keyed else []
        if spec.band == "long":
            conds.append(f"{me}.x BETWEEN {prev}.x - {LONG_BAND} AND {prev}.x + {LONG_BAND}")
        elif spec.band == "double":
            conds += [f"{me}.x BETWEEN {prev}.x - {DOUBLE_BAND + 1e-9!r} AND {prev}.x + {DOUBLE_BAND + 1e-9!r}",
                      f"abs({prev}.x - {me}.x) <= {DOUBLE_BAND!r}"]
        elif spec.band == "timestamp":
            conds.append(f"{me}.y BETWEEN {prev}.y - INTERVAL {TIME_BAND_S} SECOND "
                         f"AND {prev}.y + INTERVAL {TIME_BAND_S} SECOND")
        if spec.udf and i == 1:
            conds.append("A.v < B.v")
        conds += [f"abs(epoch_us({me}.ts) - epoch_us({o}.ts)) <= {spec.window_us}" for o in names[:i]]
        sql += f" JOIN {me} ON " + " AND ".join(conds)
    return sql


class DuckDBPeer:
    """DuckDB in this process (threads = 2), over the cell's Arrow tables."""

    def __init__(self, spec: Spec, tables):
        import duckdb
        self.version = duckdb.__version__
        self.con = duckdb.connect()
        self.con.execute("SET threads = 2")
        for name, table in zip(_names(spec.n), tables):
            self.con.register(name, table)
        self.sql = duckdb_sql(spec)
        plan = self.con.sql("EXPLAIN " + self.sql).fetchall()[0][1]
        ops = ("HASH_JOIN", "IE_JOIN", "PIECEWISE_MERGE_JOIN", "NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "CROSS_PRODUCT")
        self.plan = "+".join(o.lower() for o in ops if o in plan.upper().replace(" ", "_"))

    def run(self, cap: float):
        """(seconds, rows), or (None, None) when interrupted after `cap` seconds."""
        import duckdb
        timer = threading.Timer(cap, self.con.interrupt)
        timer.start()
        started = time.perf_counter()
        try:
            rows = self.con.sql(self.sql).to_arrow_table().num_rows
            return time.perf_counter() - started, rows
        except duckdb.InterruptException:
            return None, None
        finally:
            timer.cancel()

    def close(self):
        self.con.close()


# ---------------------------------------------------------------- Polars

def polars_query(spec: Spec, frames):
    """frames: LazyFrames whose columns carry their input's suffix (ts_A, k_A, ...)."""
    import polars as pl
    c = pl.col
    names = _names(spec.n)
    w = pl.lit(dt.timedelta(microseconds=spec.window_us))
    q = frames[0]
    for i in range(1, spec.n):
        me, prev = names[i], names[i - 1]
        preds = [c(f"k_{me}") == c("k_A")] if spec.keyed else []
        if spec.band in ("long", "double"):
            d = LONG_BAND if spec.band == "long" else DOUBLE_BAND + 1e-9
            preds += [c(f"x_{me}") >= c(f"x_{prev}") - d, c(f"x_{me}") <= c(f"x_{prev}") + d]
            if spec.band == "double":
                preds.append((c(f"x_{prev}") - c(f"x_{me}")).abs() <= DOUBLE_BAND)
        elif spec.band == "timestamp":
            d = pl.lit(dt.timedelta(seconds=TIME_BAND_S))
            preds += [c(f"y_{me}") >= c(f"y_{prev}") - d, c(f"y_{me}") <= c(f"y_{prev}") + d]
        if spec.udf and i == 1:
            preds.append(c("v_A") < c("v_B"))
        preds += [(c(f"ts_{me}") - c(f"ts_{o}")).abs() <= w for o in names[:i]]
        q = q.join_where(frames[i], *preds)
    out = ([c("k_A").alias("k")] if spec.keyed else []) + [c(f"{col}_{n}").alias(f"{n}_{col}")
                                                           for n in names for col in _per_input(spec)]
    return q.select(out)


def _polars_plan(q) -> str:
    plan = q.explain()
    kinds = [("IEJOIN", "iejoin"), ("CROSS JOIN", "cross"), ("INNER JOIN", "hash"), ("RANGE JOIN", "range")]
    return "+".join(name for token, name in kinds if token in plan)


def _worker():
    """--polars-worker: one JSON request a line on stdin, one JSON answer a line on stdout."""
    import polars as pl
    import pyarrow.feather as feather
    query = None
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "load":
            spec = Spec(**req["spec"])
            frames = [pl.from_arrow(feather.read_table(p, memory_map=False)).rename(lambda col, n=n: f"{col}_{n}").lazy()
                      for p, n in zip(req["paths"], _names(spec.n))]
            query = polars_query(spec, frames)
            answer = {"plan": _polars_plan(query), "version": pl.__version__}
        else:
            started = time.perf_counter()
            rows = query.collect().height
            answer = {"s": time.perf_counter() - started, "rows": rows}
        print(json.dumps(answer), flush=True)


class PolarsPeer:
    """Polars in a worker process over the cell's inputs; a run over its cap kills the worker
    (the cell then records the cap as a lower bound)."""

    def __init__(self, spec: Spec, tables):
        import pyarrow.feather as feather
        self.dir = tempfile.TemporaryDirectory(prefix="wjoin-matrix-polars-")
        paths = []
        for name, table in zip(_names(spec.n), tables):
            paths.append(os.path.join(self.dir.name, f"{name}.arrow"))
            feather.write_feather(table, paths[-1], compression="uncompressed")
        env = dict(os.environ, POLARS_MAX_THREADS="2")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--polars-worker"], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        loaded = self._ask({"op": "load", "spec": asdict(spec), "paths": paths}, 300.0)
        self.plan, self.version = loaded["plan"], loaded["version"]

    def _ask(self, request, timeout):
        if self.proc is None:
            return None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.close()
            return None
        answer = self.proc.stdout.readline()
        if not answer:
            self.close()
            raise RuntimeError("the Polars worker died (its error is above)")
        return json.loads(answer)

    def run(self, cap: float):
        """(seconds, rows), or (None, None) when the run was killed after `cap` seconds."""
        answer = self._ask({"op": "run"}, cap)
        return (None, None) if answer is None else (answer["s"], answer["rows"])

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        self.dir.cleanup()


class Peers:
    """Both peers on one cell. Each is started and warmed up (its warm-up run is its count)
    under `cap`: one stopped there records the cap as a lower bound and is not run again; one
    whose warm-up took `slow_s` or more is timed once. A peer that fails says why in the cell
    (`<peer>_error`), and the others go on."""

    def __init__(self, spec: Spec, tables, cap: float, slow_s: float):
        self.peers, self.extra = {}, {}
        for name, make in (("duckdb", DuckDBPeer), ("polars", PolarsPeer)):
            try:
                peer = make(spec, tables)
                warm, rows = peer.run(cap)
            except Exception as e:
                self.extra[f"{name}_error"] = f"{type(e).__name__}: {e}"[:300]
                continue
            self.peers[name] = dict(peer=peer, slow=warm is None or warm >= slow_s, finished=warm is not None,
                                    runs=[], cap=cap)
            self.extra.update({f"{name}_results": rows, f"{name}_plan": peer.plan, f"{name}_version": peer.version})

    def run(self, i: int, cap: float):
        """The i-th timed run of each peer (a run stopped at `cap` counts as `cap`)."""
        for name, p in self.peers.items():
            if p["finished"] and (not p["slow"] or i == 0):
                try:
                    t, _ = p["peer"].run(cap)
                    p["runs"].append(t if t is not None else cap)
                except Exception as e:
                    self.extra[f"{name}_error"], p["finished"] = f"{type(e).__name__}: {e}"[:300], False

    def finish(self, wjoin_count: int, on_mismatch):
        """Closes the peers: ({peer: (median or cap, capped)}, the cell's peer fields)."""
        times = {}
        for name, p in self.peers.items():
            p["peer"].close()
            times[name] = (median(p["runs"]) if p["runs"] else p["cap"], not p["runs"])
            rows = self.extra[f"{name}_results"]
            self.extra.update({f"{name}_s": times[name][0], f"{name}_capped": times[name][1], f"runs_{name}": p["runs"],
                               f"{name}_agrees": None if rows is None else rows == wjoin_count})
            if rows is not None and rows != wjoin_count:
                on_mismatch(rows, name)
        return times, self.extra


if __name__ == "__main__" and sys.argv[1:] == ["--polars-worker"]:
    _worker()
