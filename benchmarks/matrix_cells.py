"""The cells of the workload matrix (bench_matrix.py): each cell's workload, its inputs, and
the Spark plans it times (the W-join, Spark's own chained joins, the no-join floor)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import reduce

from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType

from peers import Spec

KINDS = ("key", "long", "double", "timestamp", "udf", "key+long", "key+double", "key+timestamp")
BANDS = {"long": "abs({a}.x - {b}.x) <= 2000", "double": "abs({a}.x - {b}.x) <= 2.0",
         "timestamp": "{b}.y BETWEEN {a}.y - INTERVAL 2 SECONDS AND {a}.y + INTERVAL 2 SECONDS"}
SLOW_BUILTIN_S = 30.0
_less = F.udf(lambda x, y: x < y, BooleanType(), useArrow=False)


@dataclass(frozen=True)
class Cell:
    kind: str
    variation: str
    n: int = 3
    rows: int = 50_000          # rows of the fastest input
    keys: int = 500
    rates: tuple = (1, 1, 1)    # relative rates; the fastest input has `rate` rows/s
    rate: float = 1000.0
    window: float = 1.0         # seconds

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.variation}"

    @property
    def keyed(self) -> bool:
        return self.kind in ("key", "udf") or self.kind.startswith("key+")

    @property
    def band(self):
        """The band's attribute type (long, double, timestamp), or None."""
        return self.kind.split("+")[-1] if self.kind.split("+")[-1] in BANDS else None

    def spec(self) -> Spec:
        return Spec(self.n, int(self.window * 1e6), self.keyed, self.band, self.kind == "udf")

    def rows_of(self, i: int) -> int:
        return max(1, int(self.rows * self.rates[i] / max(self.rates)))

    def expected_results(self) -> float:
        """A rough size of the output, to keep cells finite: per row of the fastest input, the
        matching rows of each other input (window x rate, / keys or band selectivity)."""
        per = 1.0
        for i in range(1, self.n):
            in_window = 2 * self.window * self.rate * self.rates[i] / max(self.rates)
            if self.keyed:
                in_window /= self.keys
            if self.band:
                in_window *= 4.0 / 1000     # every band: 2 x 2 / 1000, 2 x 2000 / 1e6, 2 x 2 s / 1000 s
            per *= max(in_window, 1e-9)
        return self.rows * per


def cells() -> list[Cell]:
    out = []
    for kind in KINDS:
        keyed, few = kind in ("key", "udf"), kind.startswith("key+")   # few: key of 1-20 values + band
        base = Cell(kind, "base", rows=150_000 if kind == "key" else 50_000 if keyed else 20_000,
                    rate=1000.0 if keyed else 400.0, keys=10 if few else 500)
        variations = [base,
                      replace(base, variation="keys 10") if keyed else None,
                      replace(base, variation="keys 100k", keys=100_000) if keyed else None,
                      *([replace(base, variation=f"keys {k}", keys=k) for k in (1, 3, 20)] if few else []),
                      replace(base, variation="rates 1:10:100", rates=(1, 10, 100)),
                      replace(base, variation="window 10 ms", window=0.01),
                      # 60 s at a lower density (more keys, or a slower rate without a key)
                      replace(base, variation="window 60 s", window=60.0,
                              **({"keys": 100_000} if keyed else {"rate": 10.0})),
                      replace(base, variation="N=2", n=2, rates=(1, 1)),
                      replace(base, variation="N=5", n=5, rates=(1,) * 5),
                      replace(base, variation="size 10k", rows=10_000),
                      replace(base, variation="size large", rows=2_000_000 if keyed else 60_000)]
        for c in variations:
            if c is None:
                continue
            if c.variation == "keys 10":
                c = replace(c, keys=10)
            if c.n != len(c.rates):
                c = replace(c, rates=(c.rates + (c.rates[-1],) * c.n)[:c.n])
            if c.variation == "size large" and keyed:
                c = replace(c, keys=100_000)
            out.append(narrowed(c))
    return out


def narrowed(c: Cell) -> Cell:
    """`c` with its window halved until the output stays below 20M rows, 5M through the Python
    UDF (the cell's line says the window used)."""
    while c.expected_results() > (5e6 if c.kind == "udf" else 2e7) and c.window > 1e-4:
        c = replace(c, window=c.window / 2)
    return c


def scaled(c: Cell, rows: int) -> Cell:
    """`c` with `rows` rows in its fastest input (`--rows`): the same rates, so a longer span of
    event time and as many results per row (narrowed as every cell)."""
    return narrowed(replace(c, variation=f"{c.variation}, {rows:,} rows", rows=rows))


def inputs(spark, cell: Cell) -> list:
    """Cached inputs generated in Spark (no driver-side lists): ts at `rate x share` rows/s with
    uniform jitter, key uniform over `keys`, x / y the band attributes, v a payload."""
    long_x = cell.band == "long"
    dfs = []
    for i in range(cell.n):
        rate = cell.rate * cell.rates[i] / max(cell.rates)
        seed = 7 * i + 1
        df = (spark.range(cell.rows_of(i)).select(
            F.timestamp_micros(((F.col("id") + F.rand(seed)) / rate * 1e6).cast("long")).alias("ts"),
            (F.rand(seed + 1) * cell.keys).cast("int").alias("k"),
            (F.rand(seed + 2) * (1e6 if long_x else 1000.0)).cast("long" if long_x else "double").alias("x"),
            F.timestamp_micros((F.rand(seed + 3) * 1e9).cast("long")).alias("y"),
            F.rand(seed + 4).alias("v"))
            .repartition(2).cache())
        df.count()
        dfs.append(df)
    return dfs


def _names(n):
    return [chr(ord("A") + i) for i in range(n)]


def _columns(cell: Cell, key):
    """Every output column; with the key in `on` it appears once, as DataFrame.join does."""
    per_input = ("ts", "x", "v") if cell.keyed else ("ts", "k", "x", "v")
    key = [key] if cell.keyed else []
    return key + [F.col(f"{n}.{c}") for n in _names(cell.n) for c in per_input]


def ours(dfs, cell: Cell):
    names = _names(cell.n)
    on = ["k"] if cell.keyed else []
    if cell.band:
        on += [F.expr(BANDS[cell.band].format(a=a, b=b)) for a, b in zip(names, names[1:])]
    if cell.kind == "udf":
        on.append(_less(F.col("A.v"), F.col("B.v")))
    joined = dfs[0].wjoin(*dfs[1:], on=on, time="ts", window=f"{int(cell.window * 1e6)} microseconds")
    return joined.select(_columns(cell, F.col("k")))


def builtin(dfs, cell: Cell):
    """Spark's own chained inner joins: every pairwise BETWEEN on ts, the key / bands / UDF."""
    names = _names(cell.n)
    aliased = [df.alias(n) for df, n in zip(dfs, names)]
    w = F.expr(f"INTERVAL {int(cell.window * 1e6)} MICROSECONDS")
    joined = aliased[0]
    for i in range(1, cell.n):
        me, prev = names[i], names[i - 1]
        conds = [F.col(f"{me}.ts").between(F.col(f"{o}.ts") - w, F.col(f"{o}.ts") + w) for o in names[:i]]
        if cell.keyed:
            conds.append(F.col(f"{names[0]}.k") == F.col(f"{me}.k"))
        if cell.band:
            conds.append(F.expr(BANDS[cell.band].format(a=prev, b=me)))
        if cell.kind == "udf" and i == 1:
            conds.append(_less(F.col("A.v"), F.col("B.v")))
        joined = joined.join(aliased[i], reduce(lambda a, b: a & b, conds), "inner")
    return joined.select(_columns(cell, F.col("A.k")))


def floor(dfs, cell: Cell):
    """The floor: the same cached inputs through the same plumbing (a Spark job reading them all,
    every column written to the noop sink) with no join: what no Spark plan of the cell undercuts."""
    return reduce(lambda a, b: a.unionByName(b), dfs)


def noop(df):
    df.write.format("noop").mode("overwrite").save()
