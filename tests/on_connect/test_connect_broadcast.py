"""tests/test_broadcast.py (the broadcast plan) through a Spark Connect session (see conftest.reuse)."""
import test_broadcast

from .conftest import reuse

CLASSIC_ONLY = reuse(test_broadcast, globals())
