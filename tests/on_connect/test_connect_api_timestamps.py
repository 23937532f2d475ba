"""tests/test_api_timestamps.py through a Spark Connect session (see conftest.reuse)."""
import test_api_timestamps

from .conftest import reuse

CLASSIC_ONLY = reuse(test_api_timestamps, globals())
