"""tests/test_limits.py (resource limits) through a Spark Connect session (see conftest.reuse)."""
import test_limits

from .conftest import reuse

# A streaming sweep of shedding is the server's engine (tested on classic); its refusal of the
# ordered mode is the error path a Connect client meets.
CLASSIC_ONLY = reuse(test_limits, globals(), leave_out=("test_streaming_limits_shed_a_sub_bag_the_same_for_the_same_seed",))
