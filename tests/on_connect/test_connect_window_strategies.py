"""tests/test_window_strategies.py through a Spark Connect session (see conftest.reuse)."""
import test_window_strategies

from .conftest import reuse

# Streaming through Connect is test_connect_streaming's; the strategies' streaming sweep is the
# server's engine (tested on classic).
CLASSIC_ONLY = reuse(test_window_strategies, globals(), leave_out=("test_streaming_equals_batch",))
