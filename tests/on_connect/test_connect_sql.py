"""tests/test_sql.py through a Spark Connect session (see conftest.reuse)."""
import test_sql

from .conftest import reuse

CLASSIC_ONLY = reuse(test_sql, globals())
