"""tests/test_access_paths.py through a Spark Connect session (see conftest.reuse)."""
import test_access_paths

from .conftest import reuse

# Every forced pair of paths is a sweep of the engine (tested on classic); here the spellings
# of access_paths reach the server.
CLASSIC_ONLY = reuse(test_access_paths, globals(), leave_out=(
    "test_every_forced_path_on_each_side_equals_the_definition", "test_streaming_with_indexed_windows_equals_batch"))
