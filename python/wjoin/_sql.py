"""``spark.sql`` and the W-join: its misuse errors, and the window clause on a session without the extension.

The clause (``WINDOW(A,B) = 5``, ``DWINDOW(...)``, ``USING TIME ts``) exists only in the
extension's parser, which Spark builds when the session starts: a session without it stops in
Spark's own parser, ``PARSE_SYNTAX_ERROR at or near ...``, a riddle for a W-join query. After
``import wjoin``, ``spark.sql`` (classic and Spark Connect) turns exactly that case into
WJOIN_SQL_NEEDS_EXTENSION, which names the setting: a parse error, of a query with the clause, on a
session whose ``spark.sql.extensions`` lacks the W-join's. Every other outcome is Spark's own, and
the original error stays attached as the cause. A W-join misuse that ``spark.sql`` finds (a
``WJOIN_`` condition: an unknown input in a window term, a negative window, no key for ``hw``, ...)
becomes ``wjoin.WJoinAnalysisException``, as it does from ``DataFrame.wjoin``, so it is also a
``ValueError``.
"""
from __future__ import annotations

import functools
import re

from pyspark.errors import AnalysisException

from ._errors import WJoinAnalysisException, as_wjoin_error, condition_of, error
from ._optional import connect_module
from ._session import EXTENSION, _extension_set

# The clause's openings, as the extension's grammar reads them: `WINDOW(A,B) =`, `WINDOW =`,
# `DWINDOW(A,B) =`, `USING TIME` (Spark's named windows read `WINDOW w AS (...)`, which none
# of these matches).
_CLAUSE = re.compile(r"\bD?WINDOW\s*(?:\([^()]*\)\s*)?=|\bUSING\s+TIME\b", re.IGNORECASE)


def _clause_of(query) -> str | None:
    """The W-join clause's opening in ``query`` (say ``WINDOW(A,B) = ...``), or None."""
    found = _CLAUSE.search(query) if isinstance(query, str) else None
    return " ".join(found.group(0).split()) + " ..." if found else None


def _is_parse_error(error: Exception) -> bool:
    return (condition_of(error) or "").startswith("PARSE_SYNTAX_ERROR")


def _wjoin_error(e: AnalysisException):
    """``e`` as a WJoinAnalysisException when it is a W-join misuse (a ``WJOIN_`` condition), else None."""
    wjoin_error = as_wjoin_error(e)
    return wjoin_error if isinstance(wjoin_error, WJoinAnalysisException) else None


def _session_has_extension(spark) -> bool:
    try:
        return _extension_set(spark.conf)
    except Exception:  # a session that cannot answer: leave Spark's error as it is
        return True


def _guard(cls) -> None:
    """Wraps ``cls.sql`` once (a module may be imported again)."""
    original = cls.sql
    if getattr(original, "_wjoin_guard", False):
        return

    @functools.wraps(original)
    def sql(self, sqlQuery, *args, **kwargs):
        try:
            return original(self, sqlQuery, *args, **kwargs)
        except AnalysisException as e:
            wjoin_error = _wjoin_error(e)
            if wjoin_error is not None:
                raise wjoin_error from None
            clause = _clause_of(sqlQuery)
            if clause is None or not _is_parse_error(e) or _session_has_extension(self):
                raise
            raise error("WJOIN_SQL_NEEDS_EXTENSION", clause=clause, extension=EXTENSION) from e

    sql._wjoin_guard = True
    cls.sql = sql


def install() -> None:
    """Guards ``SparkSession.sql`` of classic PySpark and, where installed, of Spark Connect."""
    from pyspark.sql import SparkSession
    _guard(SparkSession)
    connect_session = connect_module("pyspark.sql.connect.session")
    if connect_session is not None:
        _guard(connect_session.SparkSession)
