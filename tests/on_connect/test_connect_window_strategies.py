"""tests/test_window_strategies.py through a Spark Connect session (see conftest.reuse)."""
import test_window_strategies

from .conftest import reuse

CLASSIC_ONLY = reuse(test_window_strategies, globals())
