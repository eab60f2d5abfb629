"""Process-level checks of the C++ boundary: no memory growth across repeated calls, and calls from
several Python threads at once agree with sequential calls."""

import os
import threading

import numpy as np
import pytest

from paperkernels import _core


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def rss_growth(call, repeats: int) -> int:
    """Resident-memory growth over ``repeats`` calls, after a warm-up that fills allocator caches."""
    for _ in range(max(5, repeats // 10)):
        call()
    before = resident_bytes()
    for _ in range(repeats):
        call()
    return resident_bytes() - before


needs_proc = pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc (Linux)")


@needs_proc
@pytest.mark.skipif(os.environ.get("PAPERKERNELS_SANITIZED") == "1", reason="ASan quarantines freed memory")
def test_no_growth_across_repeated_calls():
    def call():
        _core.random_uniform(1, 2, 100_000)  # 800 kB returned and dropped each time
        _core.parallel_stream_sums(1, 16, 10, 2)
        try:
            _core.random_bernoulli_counts(0, 2.0, 1, 1, 1)
        except ValueError:
            pass

    assert rss_growth(call, 2000) < 8 * 2**20


def test_concurrent_python_threads_match_sequential():
    expected = [_core.parallel_stream_sums(s, 16, 20_000, 2) for s in range(4)]
    got = [None] * 4

    def work(s):
        got[s] = _core.parallel_stream_sums(s, 16, 20_000, 2)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in range(4):
        assert np.array_equal(got[s], expected[s])
