"""A Connect server decodes the W-join message of any client that reaches it: a malformed or
hostile ``WJoinRelation`` fails that request alone, with a ``WJOIN_`` error (condition and
SQLSTATE), and the server keeps answering every session. The messages here are written by
hand, not by ``wjoin._connect`` (whose messages are always well formed), and a hypothesis fuzz
sends random values of every field of proto/wjoin_connect.proto."""
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.connect import proto as spark_proto
from pyspark.sql.connect.dataframe import DataFrame as ConnectDataFrame
from pyspark.sql.connect.plan import LogicalPlan

import wjoin
from helpers import rows_of
from wjoin.proto import wjoin_connect_pb2 as P

A = [(1, 10, 5), (1, 20, 7), (2, 12, 9), (1, 31, 2)]
B = [(1, 12, 6), (1, 17, 1), (2, 13, 9), (1, 30, 3)]
C = [(1, 11, 4), (1, 16, 8), (2, 14, 9), (1, 29, 5)]
# A-B pairs of equal k within 5 (A.v, B.v): (10,12) (20,17) (31,30) (12,13)
PAIRS = [(2, 3), (5, 6), (7, 1), (9, 9)]
TYPE_URL = "type.googleapis.com/wjoin.connect.WJoinRelation"
# Spark's own analysis errors a W-join's arguments can cause, as on classic PySpark (a condition
# that is not a boolean, a column that is not there): anything else fails the fuzz.
SPARK_ANALYSIS = ("DATATYPE_MISMATCH.", "UNRESOLVED_COLUMN.")


class RawPlan(LogicalPlan):
    """A relation extension holding `content`: a WJoinRelation, or raw bytes as its value."""

    def __init__(self, content) -> None:
        super().__init__(None)
        self._content = content

    def plan(self, session) -> spark_proto.Relation:
        relation = self._create_proto_relation()
        if isinstance(self._content, bytes):
            relation.extension.type_url = TYPE_URL
            relation.extension.value = self._content
        else:
            relation.extension.Pack(self._content)
        return relation


def analyzed(spark, content):
    """None when the server analyzes the message, else the error it answered with."""
    try:
        ConnectDataFrame(RawPlan(content), spark).schema
        return None
    except Exception as e:  # noqa: BLE001 - the error is what the test looks at
        return e


def condition_of(error) -> str:
    get = getattr(error, "getCondition", None)
    return (get() if get else None) or f"no condition: {type(error).__name__}: {error}"


def refused(spark, content, condition: str):
    error = analyzed(spark, content)
    assert error is not None, f"expected {condition}, the server accepted the message"
    assert condition_of(error) == condition, str(error)[:600]
    return error


def message(**fields) -> P.WJoinRelation:
    return P.WJoinRelation(client_version=wjoin.__version__, **fields)


@pytest.fixture(scope="module")
def abc(spark):
    return [spark.createDataFrame(rows, "k int, ts bigint, v int").alias(n) for rows, n in zip((A, B, C), "ABC")]


@pytest.fixture(scope="module")
def parts(spark, abc):
    """Serialized inputs and conditions, well formed and not, by name."""
    a, b, c = abc
    relation = {n: df._plan.plan(spark.client).SerializeToString() for n, df in zip("abc", abc)}
    stamped = spark.createDataFrame([(1, 10)], "k int, ts bigint").selectExpr("k", "timestamp_seconds(ts) AS ts")
    inner = spark_proto.Relation()
    inner.extension.Pack(message(inputs=[relation["a"], relation["b"]], on=["k"], time_column="ts", window="5"))
    return {
        "inputs": dict(relation, stamped=stamped._plan.plan(spark.client).SerializeToString(), empty=b"",
                       garbage=b"\x00\x07garbage", truncated=relation["b"][: len(relation["b"]) // 2],
                       nested=inner.SerializeToString()),
        "conditions": {"keys": (F.col("A.k") == F.col("B.k")).to_plan(spark.client).SerializeToString(),
                       "not_boolean": F.col("A.v").to_plan(spark.client).SerializeToString(),
                       "empty": b"", "garbage": b"\x00zz"}}


def test_missing_malformed_and_out_of_range_fields_fail_with_their_condition(spark, parts):
    ab = [parts["inputs"]["a"], parts["inputs"]["b"]]
    ok = dict(inputs=ab, on=["k"], time_column="ts", window="5")
    assert analyzed(spark, message(**ok)) is None
    cases = [
        (message(on=["k"], time_column="ts", window="5"), "WJOIN_TOO_FEW_INPUTS"),
        (message(inputs=ab, on=["k"], time_column="ts"), "WJOIN_MISSING_WINDOW"),
        (message(inputs=ab, on=["k"], window="5"), "WJOIN_NO_TIME_COLUMN"),  # no timestamp column
        (message(**dict(ok, inputs=[ab[0], b""])), "WJOIN_INVALID_CONNECT_MESSAGE"),
        (message(**dict(ok, inputs=[ab[0], parts["inputs"]["garbage"]])), "WJOIN_INVALID_CONNECT_MESSAGE"),
        (message(**dict(ok, inputs=[ab[0], parts["inputs"]["truncated"]])), "WJOIN_INVALID_CONNECT_MESSAGE"),
        (message(**ok, condition=b""), "WJOIN_INVALID_CONNECT_MESSAGE"),
        (message(**dict(ok, on=[]), condition=parts["conditions"]["not_boolean"]), "WJOIN_CONDITION_NOT_BOOLEAN"),
        (message(**ok, condition=b"\x00zz"), "WJOIN_INVALID_CONNECT_MESSAGE"),
        (b"\x00\x01\x02", "WJOIN_INVALID_CONNECT_MESSAGE"),
        (b"\x42\x01\xff", "WJOIN_INVALID_CONNECT_MESSAGE"),  # window: invalid UTF-8
        (message(**ok).SerializeToString() + b"\xb0\x01\x05", "WJOIN_INVALID_CONNECT_MESSAGE"),  # field 22
        (message(**dict(ok, window="-5")), "WJOIN_NEGATIVE_WINDOW"),
        (message(**dict(ok, window="1e999999999")), "WJOIN_WINDOW_TOO_LARGE"),
        (message(**ok, algorithm=""), "WJOIN_UNKNOWN_CHOICE"),
        (message(**ok, how="sideways"), "WJOIN_UNKNOWN_CHOICE"),
        (message(**ok, limits=P.NumberMap(values={"state_rows": float("nan")})), "WJOIN_INVALID_ARGUMENT"),
        (message(**ok, limits=P.NumberMap(values={"state_rows": 5}),
                 allocation_shares=P.NumberMap(values={"A": -1.0, "B": 1.0})), "WJOIN_INVALID_ARGUMENT"),
        (message(**ok, seed=-2 ** 63), "WJOIN_ARGUMENT_NEEDS_LIMITS"),
        (message(**dict(ok, time_column=None), time_by_input=P.InputColumns(columns=[
            P.InputColumn(input="A", column="ts"), P.InputColumn(input="A", column="ts")])), "WJOIN_INPUT_GIVEN_TWICE"),
        (P.WJoinRelation(client_version="0.0.1", **ok), "WJOIN_CLIENT_VERSION_MISMATCH"),
    ]
    for content, condition in cases:
        refused(spark, content, condition)


def test_thousands_of_inputs_are_refused_on_their_count(spark, abc, parts):
    # 3000 inputs of garbage: the count is refused before any input is read (reading one fails otherwise)
    many = refused(spark, message(inputs=[parts["inputs"]["garbage"]] * 3000, window="5"), "WJOIN_TOO_MANY_INPUTS")
    assert many.getSqlState() == "54000" and "at most 64 inputs, got 3000" in str(many)
    a = abc[0]
    with pytest.raises(wjoin.WJoinAnalysisException, match=r"at most 64 inputs, got 65") as e:
        wjoin.wjoin({f"S{i}": a for i in range(65)}, on="k", time="ts", window=5)
    assert e.value.getCondition() == "WJOIN_TOO_MANY_INPUTS"


def test_texts_and_lists_over_the_limits_are_refused_naming_the_limit(spark, abc, parts):
    a, b, _ = abc
    with pytest.raises(wjoin.WJoinAnalysisException, match=r"window has 1000000 characters, .* at most 4096 ") as e:
        a.wjoin(b, on="k", time="ts", window="9" * 1_000_000)
    assert e.value.getCondition() == "WJOIN_ARGUMENT_TOO_LONG" and e.value.getSqlState() == "54000"
    ab = [parts["inputs"]["a"], parts["inputs"]["b"]]
    terms = P.StringList(values=["WINDOW(A,B) = 5"] * 300)  # each short, 5,995 characters joined by AND
    too_long = refused(spark, message(inputs=ab, on=["k"], time_column="ts", windows=terms), "WJOIN_ARGUMENT_TOO_LONG")
    assert "windows (the terms joined by AND) has 5995 characters" in str(too_long)
    refused(spark, message(inputs=ab, on=["k"] * 1025, time_column="ts", window="5"), "WJOIN_ARGUMENT_TOO_LONG")
    # within the limit, the grammar's worst case is read at once (a pattern once backtracked for hours on it)
    blanks = P.StringList(values=[f"DWINDOW(A,B) = [1{' ' * 2000},{' ' * 2000}x]"])
    refused(spark, message(inputs=ab, on=["k"], time_column="ts", windows=blanks), "WJOIN_INVALID_LENGTH")


def test_names_that_collide_or_are_odd(spark, abc, parts):
    a, b, c = abc
    ab = [parts["inputs"]["a"], parts["inputs"]["b"]]
    for names, condition in [(["X", "x"], "WJOIN_DUPLICATE_INPUT_NAME"), (["", "B"], "WJOIN_EMPTY_INPUT_NAME"),
                             (["A"], "WJOIN_NAME_COUNT_MISMATCH")]:
        refused(spark, message(inputs=ab, names=P.StringList(values=names), on=["k"], time_column="ts", window="5"),
                condition)
    # a name equal to a column, with a dot, with non-ASCII letters: a W-join like any other
    joined = wjoin.wjoin({"k": a, "a.b": b, "é中": c}, on="k", time="ts",
                         windows="WINDOW(k,a.b) = 5 AND WINDOW(a.b,é中) = 5 AND WINDOW(k,é中) = 5")
    triples = sorted(((va, vb, vc) for ka, ta, va in A for kb, tb, vb in B for kc, tc, vc in C
                      if ka == kb == kc and max(ta, tb, tc) - min(ta, tb, tc) <= 5), key=repr)
    assert triples, "no combination: the test could not fail"
    assert rows_of(joined.toDF("k", "ta", "va", "tb", "vb", "tc", "vc").select("va", "vb", "vc")) == triples
    # a window term cannot name an input whose name has a blank: an error, not a wrong answer
    with pytest.raises(wjoin.WJoinAnalysisException) as e:
        wjoin.wjoin({"c d": a, "e": b}, on="k", time="ts", windows="WINDOW(c d,e) = 5")
    assert e.value.getCondition() == "WJOIN_WINDOW_TERM_SYNTAX"


def nested(spark, levels: int) -> P.WJoinRelation:
    """A W-join of a W-join of ... (`levels` W-joins), each joining the one inside with a new input."""
    def level_input(i):
        return spark.range(1).selectExpr("1 AS k", f"{10 + i} AS t{i}")._plan.plan(spark.client).SerializeToString()
    joined = message(inputs=[level_input(0), level_input(1)], on=["k"],
                     time_per_input=P.StringList(values=["t0", "t1"]), window="5")
    for i in range(2, levels + 1):
        relation = spark_proto.Relation()
        relation.extension.Pack(joined)
        joined = message(inputs=[relation.SerializeToString(), level_input(i)], on=["k"],
                         time_per_input=P.StringList(values=["t0", f"t{i}"]), window="5")
    return joined


def test_nested_wjoins_work_up_to_the_limit_and_are_refused_beyond(spark):
    a = spark.createDataFrame(A, "k int, ta bigint, va int")
    b = spark.createDataFrame(B, "k int, tb bigint, vb int")
    c = spark.createDataFrame(C, "k int, tc bigint, vc int")
    inner = wjoin.wjoin([a, b], on="k", time=["ta", "tb"], window=5)
    outer = wjoin.wjoin({"AB": inner, "C": c}, on="k", time={"AB": "ta", "C": "tc"}, window=3)
    expected = sorted(((ka, va, vb, vc) for ka, ta, va in A for kb, tb, vb in B for kc, tc, vc in C
                       if ka == kb == kc and abs(ta - tb) <= 5 and abs(ta - tc) <= 3), key=repr)
    assert expected, "no combination: the test could not fail"
    assert rows_of(outer.select("k", "va", "vb", "vc")) == expected
    schema = ConnectDataFrame(RawPlan(nested(spark, 16)), spark).schema
    assert schema.names == ["k"] + [f"t{i}" for i in range(17)]
    deep = refused(spark, nested(spark, 17), "WJOIN_NESTING_TOO_DEEP")
    assert "more than 16 W-joins" in str(deep)


TEXTS = st.one_of(
    st.sampled_from(["", " ", "A", "B", "k", "ts", "v", "nope", "5", "-5", "0", "5 seconds", "INTERVAL 5 MINUTES",
                     "1e999999999", "auto", "é中", "a.b", "x\ny", "9" * 5000]),
    st.text(max_size=20))
TERMS = st.one_of(st.sampled_from(["WINDOW(A,B) = 5", "DWINDOW(A,B) = [-2, 8]", "DWINDOW(A,B) = [5, 1]", "ROWS(B) = 3",
                                   "RANGE(A) = 4", "WINDOW = 5", "WINDOW(A,A) = 1", "WINDOW(A,Z) = 1", "ROWS(B) = 0"]),
                  TEXTS)
NUMBERS = st.floats(allow_nan=True, allow_infinity=True)
CHOICES = {"algorithm": ["auto", "nlw", "hw", "mw"], "window_strategy": ["auto", "exact", "gca", "lca"],
           "how": ["inner", "left", "left_semi", "left_anti"],
           "access_paths": ["auto", "A:hash", "B:ttree, A:scan", "Z:hash", "A:warp"],
           "expiration_interval": ["0", "auto", "5", "-1"]}


@st.composite
def often(draw, common, rare, one_in: int = 4):
    """`rare` one time in `one_in`, else `common` (shrinking towards `common`)."""
    return draw(rare if draw(st.integers(0, one_in - 1)) == one_in - 1 else common)


@st.composite
def fields(draw):
    """Random values of every field of a WJoinRelation: empty, huge, unicode, negative, missing;
    mostly near a valid W-join of A, B and C, so that most requests reach the later checks."""
    any_inputs = st.lists(st.sampled_from(["a", "b", "c", "stamped", "empty", "garbage", "truncated", "nested"]),
                          max_size=4)
    f = {"inputs": draw(often(st.lists(st.sampled_from("abc"), min_size=2, max_size=3, unique=True),
                              st.one_of(any_inputs, st.integers(65, 2000).map(lambda n: ["a"] * n)), one_in=8))}
    optional = lambda s: draw(often(st.none(), s))  # noqa: E731
    f["names"] = optional(often(st.lists(st.sampled_from(["A", "B", "C", "X", "x", "k", "é中", "a.b", ""]),
                                         min_size=2, max_size=3),
                                st.lists(TEXTS, max_size=4)))
    f["on"] = draw(often(st.just(["k"]), st.lists(TEXTS, max_size=3)))
    f["condition"] = optional(st.sampled_from(["keys", "not_boolean", "empty", "garbage"]))
    f["time"] = draw(often(st.just(("column", "ts")), st.one_of(
        st.none(), st.tuples(st.just("column"), TEXTS), st.tuples(st.just("per_input"), st.lists(TEXTS, max_size=4)),
        st.tuples(st.just("by_input"), st.lists(st.tuples(TEXTS, TEXTS), max_size=4)))))
    f["window"] = draw(often(st.sampled_from(["5", "2", "0"]), st.one_of(st.none(), TEXTS)))
    f["windows"] = optional(st.lists(TERMS, max_size=3))
    for name, values in CHOICES.items():
        f[name] = optional(often(st.sampled_from(values), TEXTS))
    f["bidirectional"] = draw(often(st.just(False), st.just(True)))
    f["limits"] = optional(st.dictionaries(often(st.sampled_from(["state_rows", "probe_rate"]), TEXTS),
                                           often(st.floats(0, 1e6), NUMBERS), max_size=2))
    f["allocation"] = optional(st.one_of(
        st.tuples(st.just("name"), often(st.sampled_from(["auto", "equal", "proportional"]), TEXTS)),
        st.tuples(st.just("shares"), st.dictionaries(often(st.sampled_from("ABC"), TEXTS), NUMBERS, max_size=3)),
        st.tuples(st.just("per_budget"), st.dictionaries(st.sampled_from(["state_rows", "probe_rate"]),
                                                         st.dictionaries(TEXTS, NUMBERS, max_size=2), max_size=2))))
    f["seed"] = optional(st.integers(-2 ** 63, 2 ** 63 - 1))
    f["client_version"] = draw(often(st.just(wjoin.__version__), st.sampled_from(["", "0.0.1"]), one_in=10))
    f["unknown_field"] = draw(often(st.just(False), st.just(True), one_in=10))
    return f


def build(f: dict, parts: dict):
    """The message of drawn fields `f` (bytes when an unknown field is appended)."""
    m = P.WJoinRelation(inputs=[parts["inputs"][i] for i in f["inputs"]], on=f["on"],
                        client_version=f["client_version"], bidirectional=f["bidirectional"])
    if f["names"] is not None:
        m.names.values.extend(f["names"])
    if f["condition"] is not None:
        m.condition = parts["conditions"][f["condition"]]
    kind, value = f["time"] or (None, None)
    if kind == "column":
        m.time_column = value
    elif kind == "per_input":
        m.time_per_input.values.extend(value)
    elif kind == "by_input":
        m.time_by_input.columns.extend(P.InputColumn(input=i, column=c) for i, c in value)
    if f["windows"] is not None:
        m.windows.values.extend(f["windows"])
    for name in ["window", "seed", *CHOICES]:
        if f[name] is not None:
            setattr(m, name, f[name])
    if f["limits"] is not None:
        m.limits.SetInParent()
        m.limits.values.update(f["limits"])
    kind, value = f["allocation"] or (None, None)
    if kind == "name":
        m.allocation_name = value
    elif kind == "shares":
        m.allocation_shares.values.update(value)
    elif kind == "per_budget":
        for budget, shares in value.items():
            m.allocation_per_budget.budgets[budget].values.update(shares)
    return m.SerializeToString() + b"\xb0\x01\x05" if f["unknown_field"] else m


def test_fuzz_every_field_fails_with_a_wjoin_error_or_works_and_the_server_stays_up(connect_server, spark, abc, parts):
    other = SparkSession.builder.remote(connect_server.url).create()  # another client's session
    try:
        @settings(max_examples=50, deadline=None)
        # one request in eight: random bytes as the whole message
        @given(f=fields(), raw=often(st.none(), st.binary(max_size=48), one_in=8))
        def one_request(f, raw):
            content = raw if raw is not None else build(f, parts)
            error = analyzed(spark, content)
            condition = "accepted" if error is None else condition_of(error)
            event(condition)
            assert condition == "accepted" or condition.startswith("WJOIN_") or (
                condition.startswith(SPARK_ANALYSIS) and raw is None and f["condition"] == "not_boolean"), \
                str(error)[:800]

        one_request()
        a, b, _ = abc
        assert rows_of(a.wjoin(b, on="k", time="ts", window=5).select("A.v", "B.v")) == PAIRS
        assert other.range(7).count() == 7
    finally:
        other.stop()
