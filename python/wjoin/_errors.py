"""W-join errors in Python: the JVM's ``WJOIN_`` conditions as one exception type.

Every misuse the JVM finds is a ``wjoin.errors.WJoinAnalysisException`` there: an
AnalysisException with a ``WJOIN_`` condition, message parameters and an SQLSTATE, declared once
in the jar's ``wjoin/error/error-conditions.json``. PySpark hands it over as its own
``AnalysisException`` (classic sessions through py4j, Connect sessions from the server's error
details); :func:`converted` makes it a :class:`WJoinAnalysisException`, which is both that
``AnalysisException`` (``getCondition()``, ``getSqlState()``, ``getMessageParameters()``) and a
``ValueError``, so code written against earlier releases (``except ValueError``) keeps working.
What Spark's own analyzer finds while the W-join is built (say, a type mismatch in a ``Column``
condition) becomes the same type with Spark's condition.
The few misuses found before the JVM is reached (no inputs, inputs of two sessions) take their
message from the same catalogue, read from the bundled jar. A job that the JVM's
``wjoin.errors.WJoinRuntimeException`` failed (windows that do not fit in a task's memory) raises
:class:`WJoinRuntimeException`, with the same condition, parameters and SQLSTATE, where a classic
session would raise py4j's ``Py4JJavaError`` and a Connect session an ``UnknownException``.
"""
from __future__ import annotations

import functools
import inspect
import json
import re
import zipfile
from functools import lru_cache
from typing import Dict, Optional

from pyspark.errors import AnalysisException, SparkRuntimeException
from pyspark.errors import StreamingQueryException as _StreamingQueryException
from pyspark.errors.exceptions.base import PySparkException

from ._optional import connect_module

# PySpark 4 takes an exception's condition and parameters with its message (camelCase); PySpark 3.5
# takes either a message or a condition, and names the condition getErrorClass().
_PYSPARK_4 = "errorClass" in inspect.signature(PySparkException.__init__).parameters


def condition_of(error: Exception) -> Optional[str]:
    """The condition of a PySpark error (``getCondition()``, ``getErrorClass()`` on PySpark 3.5), or None."""
    get = getattr(error, "getCondition", None) or getattr(error, "getErrorClass", None)
    try:
        return get() if callable(get) else None
    except Exception:  # a captured exception whose JVM side is gone
        return None


# `[CONDITION] message SQLSTATE: xxxxx`, and where Spark placed the error in a statement `; line 2 pos 9`.
_DECORATED = re.compile(r"^\[([A-Z0-9_.]+)\] (.*?)(?: SQLSTATE: ([0-9A-Z]{5}))?(; line \d+ pos \d+)?\s*$", re.DOTALL)


def _undecorated(match: re.Match) -> str:
    """The message of a ``_DECORATED`` match, with its place in the statement if it has one."""
    return match.group(2) + (match.group(4) or "")


class _ConditionError:
    """What both W-join exceptions carry: a condition, its message parameters and an SQLSTATE,
    held in Python (a captured JVM error's own would ask the JVM, which may be gone)."""

    def __init__(self, message: str, condition: str, parameters: Optional[Dict[str, str]], sql_state: Optional[str]):
        if _PYSPARK_4:
            PySparkException.__init__(self, message=message, errorClass=condition, messageParameters=parameters or {})
        else:
            PySparkException.__init__(self, message=message)
            self.error_class, self.message_parameters = condition, parameters or {}
        self._condition = condition
        self._sql_state = sql_state

    def getCondition(self) -> str:
        return self._condition

    def getSqlState(self) -> Optional[str]:
        return self._sql_state


class WJoinAnalysisException(_ConditionError, AnalysisException, ValueError):
    """A misuse of the W-join, raised before any Spark job runs.

    ``getCondition()`` is its ``WJOIN_`` condition (or Spark's own), ``getSqlState()`` its SQLSTATE and
    ``getMessageParameters()`` the values in its message; ``str()`` is ``[CONDITION] message``.
    """


class WJoinRuntimeException(_ConditionError, SparkRuntimeException, RuntimeError):
    """A running W-join that cannot go on (``WJOIN_WINDOW_MEMORY_EXCEEDED``: its windows do not fit
    in a task's memory; ``WJOIN_BROADCAST_MEMORY_EXCEEDED``): the JVM's
    ``wjoin.errors.WJoinRuntimeException`` that failed the task, with the same ``getCondition()``,
    ``getSqlState()`` and ``getMessageParameters()``, on classic sessions and on Connect.
    """


def converted(error: Exception) -> Optional[WJoinAnalysisException]:
    """``error``, an AnalysisException raised while a W-join is built (a ``WJOIN_`` condition, or
    Spark's own for what its analyzer finds in the inputs' expressions), as a
    :class:`WJoinAnalysisException`; None when it carries no condition and its text is no W-join error's."""
    condition = condition_of(error)
    raw = getattr(error, "_desc", None) or getattr(error, "_message", None) or str(error)
    if not condition:
        return from_text(raw)
    match = _DECORATED.match(raw.strip())
    message = _undecorated(match) if match else raw.split("\n\nJVM stacktrace:")[0]
    return WJoinAnalysisException(message, condition, dict(error.getMessageParameters() or {}), error.getSqlState())


def from_text(raw: str, kind: type = None, parameters: Optional[Dict[str, str]] = None):
    """The W-join error whose text is ``raw`` (``[WJOIN_...] message SQLSTATE: ...``), for a client
    that keeps only the text (PySpark 3.5's Connect client drops the condition and parameters):
    the condition from the prefix, the parameters (unless given) read back through the
    catalogue's message, the SQLSTATE from the suffix or the catalogue. ``kind``: the exception
    class (:class:`WJoinAnalysisException` by default). None for any other text."""
    match = _DECORATED.match(raw.split("\n\nJVM stacktrace:")[0].strip())
    if not match or not match.group(1).startswith("WJOIN_"):
        return None
    condition = match.group(1)
    declared = _catalogue().get(condition, {})
    if parameters is None:
        parameters = _parameters("\n".join(declared.get("message", [])), match.group(2))
    return (kind or WJoinAnalysisException)(_undecorated(match), condition, parameters,
                                            match.group(3) or declared.get("sqlState"))


def _parameters(template: str, message: str) -> Dict[str, str]:
    """The values of ``template``'s ``<name>`` placeholders in ``message`` ({} if it is not that message).
    Where only a space separates two placeholders, a value with a space in it may split elsewhere."""
    pattern, seen = "", set()
    for i, part in enumerate(re.split(r"<(\w+)>", template)):
        if i % 2 == 0:
            pattern += re.escape(part)
        else:
            pattern += f"(?P={part})" if part in seen else f"(?P<{part}>.*?)"
            seen.add(part)
    match = re.fullmatch(pattern, message, re.DOTALL) if template else None
    return match.groupdict() if match else {}


@lru_cache(maxsize=1)
def _catalogue() -> dict:
    import glob
    import os
    # Every bundled jar has the same catalogue; any one will do (even on an unsupported Spark).
    jar = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "jars", "spark-wjoin_*.jar")))[-1]
    with zipfile.ZipFile(jar) as jar:
        return json.loads(jar.read("wjoin/error/error-conditions.json"))


def error(condition: str, **parameters) -> WJoinAnalysisException:
    """The error of ``condition`` from the jar's catalogue, for misuse found before the JVM is reached."""
    declared = _catalogue()[condition]
    message = "\n".join(declared["message"])
    values = {k: str(v) for k, v in parameters.items()}
    for key, value in values.items():
        message = message.replace(f"<{key}>", value)
    return WJoinAnalysisException(message, condition, values, declared["sqlState"])


def as_wjoin_error(error):
    """``error`` as a :class:`WJoinAnalysisException` when it is a W-join misuse PySpark converted
    as its own AnalysisException (a ``WJOIN_`` condition, or its text where the client drops it),
    else ``error`` as it is."""
    if not isinstance(error, AnalysisException) or isinstance(error, WJoinAnalysisException):
        return error
    condition = condition_of(error)
    if condition and not condition.startswith("WJOIN_"):
        return error
    try:
        return converted(error) or error
    except Exception:  # a captured exception whose JVM side is gone: PySpark's as it is
        return error


def _wrap_conversion(module, name: str) -> None:
    """Wraps ``module.name``, a PySpark function that turns a JVM or server error into a Python one."""
    original = getattr(module, name, None)
    if original is None or getattr(original, "_wjoin_conversion", False):
        return

    @functools.wraps(original)
    def convert(*args, **kwargs):
        result = as_wjoin_error(original(*args, **kwargs))
        if isinstance(result, (_ConditionError, AnalysisException, _StreamingQueryException)):
            return result
        try:
            return _runtime_error(args[0] if args else None, result) or result
        except Exception:  # a captured exception whose JVM side is gone: PySpark's as it is
            return result

    convert._wjoin_conversion = True
    setattr(module, name, convert)


_RUNTIME_CLASS = "wjoin.errors.WJoinRuntimeException"


def _runtime_error(raised, result) -> Optional[WJoinRuntimeException]:
    """The :class:`WJoinRuntimeException` behind a failed job, or None. ``result`` is what PySpark
    made of it: on Connect it carries the server's condition and the text
    ``(wjoin.errors.WJoinRuntimeException) [WJOIN_...] ...`` (PySpark 3.5's client the text only);
    on a classic session it is an ``UnknownException`` and ``raised`` is the JVM's exception, the
    W-join's own or, on a cluster, Spark's job failure caused by it."""
    text = str(getattr(result, "_message", None) or "")
    if text.startswith(f"({_RUNTIME_CLASS}) "):
        parameters = dict(result.getMessageParameters() or {}) if condition_of(result) else None
        return from_text(text[len(_RUNTIME_CLASS) + 3:], WJoinRuntimeException, parameters)
    throwable = raised if hasattr(raised, "getCause") else None
    for _ in range(16):  # the chain of causes, as far as Spark's own wrapping goes
        if throwable is None:
            return None
        if throwable.getClass().getName() == _RUNTIME_CLASS:  # its message is `[CONDITION] text SQLSTATE: xxxxx`
            return from_text(throwable.getMessage(), WJoinRuntimeException, dict(throwable.getMessageParameters()))
        throwable = throwable.getCause()
    return None


def install_conversion() -> None:
    """Every ``WJOIN_`` error PySpark raises becomes a :class:`WJoinAnalysisException` (so also a
    ``ValueError``), wherever Spark finds it: at the W-join call, in ``spark.sql``, or only when
    the result is written (``WJOIN_DUPLICATE_OUTPUT_COLUMNS`` of a file sink); a job the W-join's
    runtime error failed raises :class:`WJoinRuntimeException` (so also a ``RuntimeError``). Wraps PySpark's
    conversion of JVM errors (classic) and of the server's errors (Connect, where its client is
    installed); the names are looked up when called, so the wrapper is what PySpark uses."""
    from pyspark.errors.exceptions import captured
    _wrap_conversion(captured, "convert_exception")
    core = connect_module("pyspark.sql.connect.client.core")
    if core is not None:
        _wrap_conversion(core, "convert_exception")
