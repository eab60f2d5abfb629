"""Shared pieces of the hardening tests: hostile values, an error check that counts what it tried, and
the Ctrl-C harness, the resident-memory probe. Set PAPERKERNELS_HOSTILE_COUNTS=<file> to append the per-module counts to a file."""

from __future__ import annotations

import _thread
import collections
import os
import signal
import threading
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

HOSTILE_TRIED: collections.Counter[str] = collections.Counter()

# Small example counts: the whole hardening suite must stay within about a minute on 2 cores.
FEW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOME = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def expect_error(module: str, name: str, call, *args, **kwargs) -> Exception:
    """``call(*args, **kwargs)`` must raise ValueError or TypeError whose message names ``name``."""
    HOSTILE_TRIED[module] += 1
    with pytest.raises((ValueError, TypeError)) as info:
        call(*args, **kwargs)
    assert name in str(info.value), f"message does not name {name!r}: {info.value}"
    return info.value


def write_counts() -> None:
    path = os.environ.get("PAPERKERNELS_HOSTILE_COUNTS")
    if path:
        with open(path, "a") as f:
            for module, count in sorted(HOSTILE_TRIED.items()):
                f.write(f"{module} {count}\n")


def hostile_checks(module: str):
    """``bad(name, call, ...)``: :func:`expect_error` counted for ``module`` (the counts are written
    at the end of the test run, see ``conftest.py``)."""

    def bad(name, call, *args, **kwargs):
        return expect_error(module, name, call, *args, **kwargs)

    return bad


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


# Values no numeric array argument accepts.
BAD_ARRAYS = [
    None,
    "abc",
    np.array(["a", "b"]),
    np.array([object(), 1.0], dtype=object),
    np.array([1 + 2j, 3.0]),
    np.array([]),
]
if hasattr(np.dtypes, "StringDType"):  # numpy >= 2: variable-width strings (dtype kind "T")
    BAD_ARRAYS.append(np.array(["1.5", "2"], dtype=np.dtypes.StringDType()))

# Values no integer count accepts.
BAD_COUNTS = [None, "3", 2.5, float("nan"), -1, 10**30, True, [3], 1 + 0j]

# Values no finite real parameter accepts.
BAD_REALS = [None, "0.5", float("nan"), float("inf"), -float("inf"), [0.5], 1 + 2j]


@st.composite
def poisoned(draw, base: np.ndarray):
    """``base`` with one entry replaced by NaN or +-inf."""
    out = np.array(base, dtype=np.float64, copy=True)
    flat = out.reshape(-1)
    flat[draw(st.integers(0, flat.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
    return out


def non_contiguous_copies(a: np.ndarray):
    """The same values as a Fortran-ordered array and as a strided view."""
    fortran = np.asfortranarray(a)
    wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
    wide[..., ::2] = a
    strided = wide[..., ::2]
    return fortran, strided


def interrupted_quickly(call, after: float = 0.3, within: float = 5.0) -> float:
    """Run ``call`` with Ctrl-C sent after ``after`` seconds; it must raise KeyboardInterrupt within
    ``within`` seconds. Returns the time it took."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(after, _thread.interrupt_main)
    start = time.perf_counter()
    returned = False
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call()
            returned = True
            time.sleep(within)  # absorbs the pending Ctrl-C; the assertion below then fails
        elapsed = time.perf_counter() - start
    finally:
        timer.cancel()
        timer.join()
        signal.signal(signal.SIGINT, previous)
    assert not returned, "the call finished before Ctrl-C arrived: give it more work"
    assert elapsed < within, f"Ctrl-C took {elapsed:.2f} s to stop the call"
    return elapsed


def run_in_threads(fn, inputs):
    """``fn`` on each input, each in its own Python thread, started together."""
    results = [None] * len(inputs)
    errors = []
    barrier = threading.Barrier(len(inputs))

    def work(i):
        try:
            barrier.wait()
            results[i] = fn(inputs[i])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


def misaligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` whose data starts at an odd address, as arrays unpickled from out-of-band
    buffers can (the C++ core must never read such data in place)."""
    a = np.ascontiguousarray(a)
    raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
    out = raw[1:].view(a.dtype).reshape(a.shape)
    out[...] = a
    assert not out.flags.aligned
    return out
