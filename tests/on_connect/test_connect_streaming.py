"""tests/test_streaming.py through a Spark Connect session (see conftest.reuse)."""
import test_streaming

from .conftest import reuse

CLASSIC_ONLY = reuse(test_streaming, globals())
