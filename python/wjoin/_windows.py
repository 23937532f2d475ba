"""Window lengths and terms as the JVM's text. Only Python values are converted here
(``datetime.timedelta`` and numbers to lengths, dicts and helper objects to terms in the papers'
syntax ``WINDOW(A,B) = 5 minutes AND DWINDOW(B,C) = [30 seconds, 2 minutes]``); the JVM parses
and checks every term, length, unit and input name.
"""
from __future__ import annotations

import datetime as _dt
import numbers
import re
from dataclasses import dataclass

# Largest unit first: a timedelta becomes the fewest digits ("180 seconds", "250999 microseconds").
_UNITS = (("days", 86400 * 10**6), ("hours", 3600 * 10**6), ("minutes", 60 * 10**6), ("seconds", 10**6),
          ("milliseconds", 1000), ("microseconds", 1))


def length_text(value, what: str) -> str:
    """A window length (str, ``datetime.timedelta`` or number) as the JVM's text."""
    if isinstance(value, str):
        return value
    if isinstance(value, _dt.timedelta):
        micros = value // _dt.timedelta(microseconds=1)
        unit, size = next((u, s) for u, s in _UNITS if micros % s == 0)
        return f"{micros // size} {unit}"
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        try:
            return str(int(value)) if value == int(value) else str(value)
        except (OverflowError, ValueError):  # inf, nan
            return str(value)
    shown = repr(value) if value is None or isinstance(value, bool) else type(value).__name__
    raise TypeError(f"{what}: a window length is a string, datetime.timedelta or number, got {shown}")


def name_text(name: str) -> str:
    """An input name as a term writes it: as is when it is letters, digits and '_', else between
    backquotes (a backquote doubled), so every name can appear in a term and none is read as the
    terms' grammar (the JVM's ``WindowTermParser.nameText``)."""
    return name if re.fullmatch(r"\w+", name) else "`" + name.replace("`", "``") + "`"


@dataclass(frozen=True)
class Directed:
    """``DWINDOW(a,b)``: the row of ``b`` follows the row of ``a`` by ``low`` to ``high``."""

    a: str
    b: str
    high: object
    low: object = 0

    def text(self) -> str:
        what = f"directed({self.a!r}, {self.b!r})"
        high = length_text(self.high, what)
        if self.low is None or (not isinstance(self.low, str) and not self.low):  # 0, timedelta(0)
            return f"DWINDOW({name_text(self.a)},{name_text(self.b)}) = {high}"
        return f"DWINDOW({name_text(self.a)},{name_text(self.b)}) = [{length_text(self.low, what)}, {high}]"


@dataclass(frozen=True)
class StreamRange:
    """``RANGE(b)``: b's row is in b's sliding window at the newest member's time."""

    b: str
    length: object

    def text(self) -> str:
        return f"RANGE({name_text(self.b)}) = {length_text(self.length, f'range_window({self.b!r})')}"


@dataclass(frozen=True)
class StreamRows:
    """``ROWS(b)``: b's row is among the last ``count`` rows of b at the newest member's time."""

    b: str
    count: int

    def text(self) -> str:
        return f"ROWS({name_text(self.b)}) = {self.count}"


def _require_names(maker: str, *names) -> None:
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"{maker}() takes input names as strings, got {name!r}")


def directed(a: str, b: str, high, low=0) -> Directed:
    """A directed window: ``low <= ts_b - ts_a <= high`` (b follows a)."""
    _require_names("directed", a, b)
    return Directed(a, b, high, low)


def range_window(b: str, length) -> StreamRange:
    """A per-stream time-based window: ``max(ts) - ts_b <= length`` (Golab & Özsu)."""
    _require_names("range_window", b)
    return StreamRange(b, length)


def rows_window(b: str, count: int) -> StreamRows:
    """A per-stream count-based window: b's row is among b's last ``count`` rows (Golab & Özsu Sec. 3.6)."""
    _require_names("rows_window", b)
    if isinstance(count, bool) or not isinstance(count, numbers.Integral):
        raise TypeError(f"rows_window({b!r}, ...) takes a whole number of rows, got {count!r}")
    return StreamRows(b, int(count))


def _pair_text(pair, value) -> str:
    if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(p, str) for p in pair)):
        raise TypeError(f"windows: dict keys are pairs of input names such as ('A', 'B'), got {pair!r}")
    if not isinstance(value, tuple):
        return f"WINDOW({name_text(pair[0])},{name_text(pair[1])}) = {length_text(value, f'window {pair!r}')}"
    if len(value) != 2:
        raise ValueError(f"windows: {pair!r} -> {value!r}: an interval is (low, high)")
    return Directed(pair[0], pair[1], value[1], value[0]).text()


def terms_text(windows) -> list[str]:
    """``windows=`` (str, dict of pairs, helper object or list of these) as a list of terms."""
    if isinstance(windows, (str, Directed, StreamRange, StreamRows)):
        windows = [windows]
    if isinstance(windows, dict):
        return [_pair_text(pair, value) for pair, value in windows.items()]
    if not isinstance(windows, (list, tuple)):
        raise TypeError(f"windows: expected a string, dict or list of window terms, got {type(windows).__name__}")
    terms = []
    for term in windows:
        if not isinstance(term, (str, Directed, StreamRange, StreamRows)):
            raise TypeError(f"windows: list items are strings, wjoin.directed(...), wjoin.range_window(...) or "
                            f"wjoin.rows_window(...), got {type(term).__name__}")
        terms.append(term if isinstance(term, str) else term.text())
    return terms
