"""tests/test_broadcast.py (the broadcast plan) through a Spark Connect session (see conftest.reuse)."""
import test_broadcast

from .conftest import reuse

# The plan test reads the executed plan through the JVM (its helper, not its own source, does).
CLASSIC_ONLY = reuse(test_broadcast, globals(), leave_out=("test_the_plan_streams_the_largest_input_without_a_shuffle",))
