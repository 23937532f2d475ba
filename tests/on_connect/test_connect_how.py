"""tests/test_how.py (left outer, left semi, left anti) through a Spark Connect session (see conftest.reuse)."""
import test_how

from .conftest import reuse

CLASSIC_ONLY = reuse(test_how, globals())
