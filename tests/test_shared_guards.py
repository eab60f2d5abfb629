"""Guards every module shares: masked and unconvertible arrays, the public size limits, thread
creation failures and Ctrl-C from another process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import paperkernels
from paperkernels._limits import check_result_bytes
from paperkernels._validation import as_array, plain_array
from sigint_helpers import assert_interrupts

SANITIZED = bool(os.environ.get("PAPERKERNELS_SANITIZED"))


class RaisingArray:
    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("no data here")


def test_masked_arrays_are_refused_not_unmasked():
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    with pytest.raises(TypeError, match=r"^mu: .*masked array"):
        as_array(masked, "mu")
    with pytest.raises(TypeError, match=r"^X: .*masked array"):
        plain_array(masked, "X")


def test_raising_array_interface_names_the_argument():
    with pytest.raises(TypeError, match=r"^X: .*RuntimeError: no data here"):
        as_array(RaisingArray(), "X")
    with pytest.raises(TypeError, match=r"^X: "):
        plain_array(RaisingArray(), "X", dtype=np.float64)


def test_limits_are_public_and_restored_by_override():
    limits = paperkernels.limits
    default = limits.max_result_bytes
    assert default == 4 * 2**30
    with pytest.raises(ValueError, match=r"^n_runs: .*paperkernels.limits.max_result_bytes"):
        check_result_bytes(default + 1, "n_runs", "the results", "run fewer")
    check_result_bytes(default, "n_runs", "the results", "run fewer")
    with limits.override(max_result_bytes=10):
        assert limits.max_result_bytes == 10
        with pytest.raises(ValueError, match="above the limit"):
            check_result_bytes(11, "x", "the results", "run fewer")
    assert limits.max_result_bytes == default
    with pytest.raises(TypeError, match="max_result_bytes"):
        limits.max_result_bytes = "big"
    with pytest.raises(ValueError, match="max_result_bytes"):
        limits.max_result_bytes = -1
    with pytest.raises(AttributeError, match="no limit"):
        limits.max_bytes = 1
    with pytest.raises(TypeError, match="unknown limit"):
        with limits.override(max_bytes=1):
            pass
    assert limits.max_result_bytes == default


@pytest.mark.skipif(SANITIZED, reason="AddressSanitizer reserves more address space than the limit")
def test_thread_creation_failure_runs_on_fewer_threads():
    # 4096 thread stacks of 8 MiB do not fit in 8 GB of address space: some threads cannot start.
    code = textwrap.dedent(
        """
        import resource, numpy as np
        from paperkernels import toptwo
        ref = toptwo.run_many([0.5, 0.4, 0.3], 0.1, n_runs=4096, seed=3, n_threads=1)
        resource.setrlimit(resource.RLIMIT_AS, (8 * 10**9, 8 * 10**9))
        out = toptwo.run_many([0.5, 0.4, 0.3], 0.1, n_runs=4096, seed=3, n_threads=4096)
        assert np.array_equal(out.tau, ref.tau) and np.array_equal(out.N, ref.N)
        print("same")
        """
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "same"


@pytest.mark.test_hooks
def test_real_sigint_stops_the_parallel_for():
    delay = assert_interrupts(
        "from paperkernels import _core",
        "_core.testing.parallel_busy_wait(64, 1.0, 2)",
    )
    assert delay >= 0


def test_optional_import_names_the_extra(monkeypatch):
    import sys

    from paperkernels._optional import optional_import

    assert optional_import("math", "anything").sqrt(4.0) == 2.0
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)  # import raises ImportError
    with pytest.raises(ImportError, match=r"plot_regret needs matplotlib: pip install 'paperkernels\[plot\]'"):
        optional_import("matplotlib.pyplot", "plot_regret")
    monkeypatch.setitem(sys.modules, "no_such_module_xyz", None)
    with pytest.raises(ImportError, match=r"demo needs no_such_module_xyz: pip install no_such_module_xyz$"):
        optional_import("no_such_module_xyz", "demo")


def test_as_bool_refuses_integers_and_strings():
    import numpy as np

    from paperkernels._validation import as_bool

    assert as_bool(True, "flag") is True and as_bool(np.bool_(False), "flag") is False
    for value in (1, 0, "yes", None, np.array([True])):
        with pytest.raises(TypeError, match="flag: expected a bool"):
            as_bool(value, "flag")


def test_enum_values_that_name_no_option_are_refused_by_every_core():
    # pybind11 builds an enum member from any integer; the bindings refuse one that names no option.
    from paperkernels import _core

    checks = [
        ("threshold", lambda: _core.toptwo.threshold(_core.toptwo.ThresholdKind(9), 0.1, 3, np.array([1]))),
        ("arms", lambda: _core.toptwo.characteristic_time(np.array([0.5, 0.4]), 0.5, _core.toptwo.Arms(5), 1.0)),
        ("purpose", lambda: _core.shapes.CartesianBasis(4, 8, 8, 1, _core.shapes.BasisPurpose(5), 1e9, 1)),
        ("state", lambda: _core.cascade.state_space(_core.cascade.StateKind(7), 3, 2, 100)),
    ]
    for name, call in checks:
        with pytest.raises(ValueError, match=f"{name}: expected a member of the enum, got the value"):
            call()
