"""Shared test plumbing: markers that skip by build or environment, the thread-count fixture and the
per-module counts of the hardening tests."""

import os

import pytest

from paperkernels import _core

# Set by tests/sanitize.sh: the suite runs against an AddressSanitizer build.
SANITIZED = os.environ.get("PAPERKERNELS_SANITIZED") == "1"
# _core.testing (fault injection) exists in developer and sanitizer builds, not in an installed package.
HAS_TEST_HOOKS = hasattr(_core, "testing")
HAS_PROC = os.path.exists("/proc/self/statm")

_SKIPS = {
    "memory_growth": (SANITIZED, "ASan quarantines freed memory: growth is not measurable"),
    "needs_proc": (not HAS_PROC, "needs /proc (Linux) to read the resident set size"),
    "test_hooks": (not HAS_TEST_HOOKS, "needs _core.testing (built with PAPERKERNELS_TEST_HOOKS=ON)"),
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker, (skip, reason) in _SKIPS.items():
            if skip and item.get_closest_marker(marker):
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_sessionfinish(session, exitstatus):
    # PAPERKERNELS_HOSTILE_COUNTS=<file>: append how many hostile inputs each module's tests tried.
    from hardening_helpers import write_counts

    write_counts()


@pytest.fixture(params=[1, 2, 7], ids=lambda n: f"threads{n}")
def n_threads(request):
    return request.param
