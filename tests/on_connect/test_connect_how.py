"""tests/test_how.py (left outer, left semi, left anti) through a Spark Connect session (see conftest.reuse)."""
import test_how

from .conftest import reuse

# The sweep of every window form against brute force and the streaming example are the server's
# engine (run on classic); here every how, algorithm and window reaches the server and comes back.
CLASSIC_ONLY = reuse(test_how, globals(), leave_out=("test_every_form_equals_brute_force", "test_never_completed_example"))
