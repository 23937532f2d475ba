"""tests/test_streaming.py through a Spark Connect session (see conftest.reuse)."""
import test_streaming

from .conftest import reuse

# Left out: the server-side sweeps (interval bounds, engines kept between micro-batches), whose
# code is the classic session's; Connect keeps streaming, restart, late rows, SQL and settings.
CLASSIC_ONLY = reuse(test_streaming, globals(), leave_out=(
    "test_negative_interval_bounds_equal_spark_interval_join",
    "test_engines_kept_between_micro_batches_read_no_state_back"))
