"""tests/test_limits.py (resource limits) through a Spark Connect session (see conftest.reuse)."""
import test_limits

from .conftest import reuse

CLASSIC_ONLY = reuse(test_limits, globals())
