"""tests/test_api.py through a Spark Connect session (see conftest.reuse)."""
import test_api

from .conftest import reuse

CLASSIC_ONLY = reuse(test_api, globals())
