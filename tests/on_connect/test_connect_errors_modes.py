"""tests/test_errors_modes.py through a Spark Connect session (see conftest.reuse)."""
import test_errors_modes

from .conftest import reuse

CLASSIC_ONLY = reuse(test_errors_modes, globals())
