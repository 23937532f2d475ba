"""tests/test_api_conditions.py through a Spark Connect session (see conftest.reuse)."""
import test_api_conditions

from .conftest import reuse

CLASSIC_ONLY = reuse(test_api_conditions, globals())
