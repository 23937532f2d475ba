"""tests/test_limits.py (resource limits) through a Spark Connect session (see conftest.reuse)."""
import pytest
import test_limits

import wjoin

from .conftest import reuse

# A streaming sweep of shedding is the server's engine (tested on classic); its refusal of the
# ordered mode is the error path a Connect client meets. A Connect client sends the seed as a
# protobuf int64, so a seed beyond 64 bits fails in the client (a ValueError naming the field).
CLASSIC_ONLY = reuse(test_limits, globals(), leave_out=("test_streaming_limits_shed_a_sub_bag_the_same_for_the_same_seed",
                                                        "test_seed_beyond_64_bits_fails_in_the_jvm_before_any_job"))


def test_seed_beyond_64_bits_fails_in_the_client(spark, three):
    with pytest.raises(ValueError, match="seed: .* cannot be sent"):
        wjoin.wjoin(three, on="k", time="ts", window=4, limits={"state_rows": 5}, seed=2**64).columns
