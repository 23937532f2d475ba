"""tests/test_errors.py through a Spark Connect session (see conftest.reuse)."""
import test_errors

from .conftest import reuse

CLASSIC_ONLY = reuse(test_errors, globals())
