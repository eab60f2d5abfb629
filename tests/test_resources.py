"""Process-level checks of the C++ boundary: no memory growth across repeated calls, and calls from
several Python threads at once agree with sequential calls."""

import threading

import numpy as np
import pytest

from hardening_helpers import rss_growth
from paperkernels import _core


@pytest.mark.test_hooks
@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_growth_across_repeated_calls():
    def call():
        _core.common.random_uniform(1, 2, 100_000)  # 800 kB returned and dropped each time
        _core.testing.parallel_stream_sums(1, 16, 10, 2)
        with pytest.raises(ValueError):  # the error path must not leak
            _core.testing.random_bernoulli_counts(0, 2.0, 1, 1, 1)

    assert rss_growth(call, 2000) < 8 * 2**20


@pytest.mark.test_hooks
def test_concurrent_python_threads_match_sequential():
    expected = [_core.testing.parallel_stream_sums(s, 16, 20_000, 2) for s in range(4)]
    got = [None] * 4

    def work(s):
        got[s] = _core.testing.parallel_stream_sums(s, 16, 20_000, 2)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in range(4):
        assert np.array_equal(got[s], expected[s])
