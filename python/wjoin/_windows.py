"""Window lengths and window terms: parsed and checked in Python before the JVM sees them.

The papers' syntax (``WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [30 seconds, 2 minutes]``)
and the structured forms (dicts of pairs, :func:`directed`) both become the papers' syntax
text that the JVM facade parses again into its difference-bound matrix.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import numbers
import re
from dataclasses import dataclass

# The largest window (as in the JVM): sums of a few windows still fit in a 64-bit integer.
MAX_LENGTH = (2**63 - 1) // 8

_MICROS = {
    "microsecond": 1, "microseconds": 1, "us": 1,
    "millisecond": 1000, "milliseconds": 1000, "ms": 1000,
    "second": 10**6, "seconds": 10**6, "sec": 10**6, "secs": 10**6, "s": 10**6,
    "minute": 60 * 10**6, "minutes": 60 * 10**6, "min": 60 * 10**6, "mins": 60 * 10**6,
    "hour": 3600 * 10**6, "hours": 3600 * 10**6, "h": 3600 * 10**6,
    "day": 86400 * 10**6, "days": 86400 * 10**6, "d": 86400 * 10**6,
    "week": 7 * 86400 * 10**6, "weeks": 7 * 86400 * 10**6,
}


@dataclass(frozen=True)
class Directed:
    """``DWINDOW(a,b)``: row of ``b`` follows the row of ``a`` by ``low`` to ``high``."""

    a: str
    b: str
    high: object
    low: object = 0

    def text(self, integral: bool) -> str:
        hi = length_text(self.high, integral, f"directed({self.a!r}, {self.b!r})")
        if self.low in (0, None) or (isinstance(self.low, _dt.timedelta) and not self.low):
            return f"DWINDOW({self.a},{self.b}) = {hi}"
        lo = length_text(self.low, integral, f"directed({self.a!r}, {self.b!r})")
        if parse_length(lo, integral, "low") > parse_length(hi, integral, "high"):
            raise ValueError(f"directed({self.a!r}, {self.b!r}): the low end {self.low!r} exceeds the high end "
                             f"{self.high!r}")
        return f"DWINDOW({self.a},{self.b}) = [{lo}, {hi}]"


@dataclass(frozen=True)
class StreamRange:
    """``RANGE(b)``: b's row is in b's sliding window at the newest member's time."""

    b: str
    length: object
    maker = "range_window"  # the function that builds it, for error messages

    def text(self, integral: bool) -> str:
        return f"RANGE({self.b}) = {length_text(self.length, integral, f'range_window({self.b!r})')}"


@dataclass(frozen=True)
class StreamRows:
    """``ROWS(b)``: b's row is among the last ``count`` rows of b at the newest member's time."""

    b: str
    count: int
    maker = "rows_window"  # the function that builds it, for error messages

    def text(self, integral: bool) -> str:
        return f"ROWS({self.b}) = {self.count}"


def rows_window(b: str, count: int) -> StreamRows:
    """A per-stream count-based window: b's row is among b's last ``count`` rows (Golab & Özsu)."""
    if not isinstance(b, str):
        raise TypeError(f"rows_window() takes an input name as a string, got {b!r}")
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"rows_window({b!r}, ...) takes a whole number of rows, got {count!r}")
    if count < 1:
        raise ValueError(f"rows_window({b!r}, {count}): a ROWS window holds at least 1 row")
    return StreamRows(b, int(count))


def range_window(b: str, length) -> StreamRange:
    """A per-stream time-based window: ``max(ts) - ts_b <= length`` (Golab & Özsu)."""
    if not isinstance(b, str):
        raise TypeError(f"range_window() takes an input name as a string, got {b!r}")
    return StreamRange(b, length)


def directed(a: str, b: str, high, low=0) -> Directed:
    """A directed window: ``low <= ts_b - ts_a <= high`` (b follows a)."""
    for name in (a, b):
        if not isinstance(name, str):
            raise TypeError(f"directed() takes input names as strings, got {name!r}")
    return Directed(a, b, high, low)


def parse_length(text: str, integral: bool, what: str) -> int:
    """The length in the time column's unit (microseconds for timestamps); ValueError if bad."""
    tokens = text.replace("'", " ").replace('"', " ").split()
    if tokens and tokens[0].lower() == "interval":
        tokens = tokens[1:]
    if not tokens:
        raise ValueError(f"{what}: the window length {text!r} is empty")
    if tokens[0].startswith("-"):
        raise ValueError(f"{what}: a window cannot be negative, got {text!r}")
    if integral:
        if len(tokens) != 1 or not re.fullmatch(r"\d+", tokens[0]):
            raise ValueError(f"{what}: the time column is integral, so give a whole number in its unit, got {text!r}")
        if int(tokens[0]) > MAX_LENGTH:
            raise ValueError(f"{what}: the window {text!r} is too large (at most {MAX_LENGTH})")
        return int(tokens[0])
    if len(tokens) % 2:
        raise ValueError(f"{what}: expected pairs of <number> <unit> such as '2 seconds', got {text!r}")
    total = 0
    for number, unit in zip(tokens[::2], tokens[1::2]):
        if unit.lower() not in _MICROS:
            raise ValueError(f"{what}: unknown unit {unit!r} in {text!r} (use microseconds .. weeks; months and "
                             "years have no fixed length)")
        try:
            value = decimal.Decimal(number)
        except decimal.InvalidOperation:
            raise ValueError(f"{what}: {number!r} in {text!r} is not a number") from None
        if not value.is_finite():
            raise ValueError(f"{what}: {number!r} in {text!r} is not a finite number")
        micros = value * _MICROS[unit.lower()]
        if micros != micros.to_integral_value():
            raise ValueError(f"{what}: {text!r} is not a whole number of microseconds")
        total += int(micros)
    if total > MAX_LENGTH:
        raise ValueError(f"{what}: the window {text!r} is too large")
    return total


def length_text(value, integral: bool, what: str) -> str:
    """A window length (str, timedelta or number) as text the JVM parses; checked here."""
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{what}: a window length is a string, datetime.timedelta or number, got {value!r}")
    if isinstance(value, _dt.timedelta):
        if integral:
            raise ValueError(f"{what}: the time column is integral, so give a plain number, not {value!r}")
        micros = (value.days * 86400 + value.seconds) * 10**6 + value.microseconds
        if micros < 0:
            raise ValueError(f"{what}: a window cannot be negative, got {value!r}")
        return f"{micros} microseconds"
    if isinstance(value, numbers.Number):
        if not integral:
            raise ValueError(f"{what}: the time columns are timestamps, so give a length with a unit such as "
                             f"'{value} seconds' or a datetime.timedelta, not the bare number {value!r}")
        if value < 0 or value != int(value):
            raise ValueError(f"{what}: an integral window must be a whole number >= 0, got {value!r}")
        if int(value) > MAX_LENGTH:
            raise ValueError(f"{what}: the window {value!r} is too large (at most {MAX_LENGTH})")
        return str(int(value))
    if isinstance(value, str):
        parse_length(value, integral, what)
        return value.strip()
    raise TypeError(f"{what}: a window length is a string, datetime.timedelta or number, got "
                    f"{type(value).__name__}")


_TERM = re.compile(r"^\s*(WINDOW|DWINDOW)\s*(?:\(\s*([^,()\s]+)\s*,\s*([^,()\s]+)\s*\))?\s*=\s*(.+?)\s*$",
                   re.IGNORECASE | re.DOTALL)
_PER_STREAM = re.compile(r"^\s*(RANGE|ROWS)\s*\(\s*([^,()\s]+)\s*\)\s*=\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
_INTERVAL = re.compile(r"^\[\s*(.+?)\s*,\s*(.+?)\s*\]$", re.DOTALL)


def _split_and(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for token in re.split(r"(\s+|\[|\])", text):
        if token == "[":
            depth += 1
        elif token == "]":
            depth -= 1
        if depth == 0 and token.strip().lower() == "and":
            parts.append("".join(current))
            current = []
        else:
            current.append(token)
    parts.append("".join(current))
    return [p.strip() for p in parts]


def _name(name: str, names: list[str], term: str) -> str:
    if name in names:
        return name
    folded = [n for n in names if n.lower() == name.lower()]
    if len(folded) == 1:
        return folded[0]
    raise ValueError(f"window term {term!r} names input {name!r}, but the inputs are {', '.join(names)}")


def check_terms(text: str, names: list[str], integral: bool) -> str:
    """Checks a string in the papers' syntax; returns it unchanged."""
    if not text.strip():
        raise ValueError("windows: the window constraints are empty")
    for term in _split_and(text):
        per_stream = _PER_STREAM.match(term)
        if per_stream:
            kind, name, value = per_stream.groups()
            name = _name(name, names, term)
            if kind.upper() == "ROWS":
                count = re.sub(r"(?i)\s+rows?$", "", value.strip())
                if not re.fullmatch(r"\d{1,18}", count) or int(count) < 1:
                    raise ValueError(f"window term {term!r}: a ROWS window is a whole number of rows >= 1 such as "
                                     f"ROWS({name}) = 1000, got {value!r}")
            else:
                parse_length(value, integral, f"window term {term!r}")
            continue
        m = _TERM.match(term)
        if not m:
            raise ValueError(f"cannot parse window term {term!r}: expected WINDOW = <length>, WINDOW(A,B) = <length>, "
                             "DWINDOW(A,B) = <length>, DWINDOW(A,B) = [<low>, <high>], RANGE(A) = <length> or "
                             "ROWS(A) = <count>, joined with AND")
        kind, a, b, value = m.groups()
        directed_term = kind.upper() == "DWINDOW"
        if a is None and directed_term:
            raise ValueError(f"window term {term!r}: DWINDOW needs two inputs, e.g. DWINDOW(A,B) = 5 minutes")
        if a is not None:
            if _name(a, names, term) == _name(b, names, term):
                raise ValueError(f"window term {term!r} relates input {a!r} to itself; name two different inputs")
        interval = _INTERVAL.match(value)
        if interval:
            if not directed_term:
                raise ValueError(f"window term {term!r}: an interval [lo, hi] needs DWINDOW (B follows A by lo to hi)")
            lo = parse_length(interval.group(1), integral, f"window term {term!r}")
            hi = parse_length(interval.group(2), integral, f"window term {term!r}")
            if lo > hi:
                raise ValueError(f"window term {term!r}: the lower end {interval.group(1)} exceeds the upper end "
                                 f"{interval.group(2)}")
        else:
            parse_length(value, integral, f"window term {term!r}")
    return text


def terms_text(windows, names: list[str], integral: bool) -> str:
    """``windows=`` (str, dict of pairs, or list of strings / :class:`Directed`) as checked text."""
    if isinstance(windows, str):
        return check_terms(windows, names, integral)
    if isinstance(windows, (Directed, StreamRange, StreamRows)):
        windows = [windows]
    if isinstance(windows, dict):
        parts = []
        for pair, value in windows.items():
            if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
                raise TypeError(f"windows: dict keys are pairs of input names such as ('A', 'B'), got {pair!r}")
            a, b = (_name(p, names, f"WINDOW{pair}") for p in pair)
            if a == b:
                raise ValueError(f"windows: the pair {pair!r} relates an input to itself")
            if isinstance(value, tuple):
                if len(value) != 2:
                    raise ValueError(f"windows: {pair!r} -> {value!r}: an interval is (low, high)")
                parts.append(Directed(a, b, value[1], value[0]).text(integral))
            else:
                parts.append(f"WINDOW({a},{b}) = {length_text(value, integral, f'window {pair!r}')}")
        if not parts:
            raise ValueError("windows: the dict of window constraints is empty")
        return " AND ".join(parts)
    if isinstance(windows, (list, tuple)):
        parts = []
        for term in windows:
            if isinstance(term, Directed):
                _name(term.a, names, f"directed({term.a!r}, {term.b!r})")
                _name(term.b, names, f"directed({term.a!r}, {term.b!r})")
                parts.append(term.text(integral))
            elif isinstance(term, (StreamRange, StreamRows)):
                _name(term.b, names, f"{term.maker}({term.b!r})")
                parts.append(term.text(integral))
            elif isinstance(term, str):
                parts.append(check_terms(term, names, integral))
            else:
                raise TypeError(f"windows: list items are strings, wjoin.directed(...), wjoin.range_window(...) or "
                                f"wjoin.rows_window(...), got {type(term).__name__}")
        if not parts:
            raise ValueError("windows: the list of window constraints is empty")
        return " AND ".join(parts)
    raise TypeError(f"windows: expected a string, dict or list of window terms, got {type(windows).__name__}")
