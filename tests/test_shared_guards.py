"""Guards every module shares: masked and unconvertible arrays, the public size limits, thread
creation failures and Ctrl-C from another process."""

from __future__ import annotations

import copy
import os
import pickle
import subprocess
import sys
import textwrap
import threading

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


class _BlockInThread:
    """A thread that runs ``with paperkernels.limits.override(max_result_bytes=value)`` and stays in
    the block until told to leave, so that the test decides the interleaving."""

    def __init__(self, value):
        self.value = value
        self.entered = threading.Event()
        self.leave = threading.Event()
        self.errors = []
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        assert self.entered.wait(10), "the thread did not enter its block"

    def _run(self):
        try:
            with paperkernels.limits.override(max_result_bytes=self.value) as limits:
                self.seen = limits.max_result_bytes
                self.entered.set()
                assert self.leave.wait(10), "never told to leave"
        except BaseException as error:  # reported by exit()
            self.errors.append(error)
            self.entered.set()

    def exit(self):
        self.leave.set()
        self.thread.join(10)
        assert not self.thread.is_alive() and self.errors == []


@pytest.fixture
def fresh_limits():
    paperkernels.limits.reset()
    yield paperkernels.limits
    paperkernels.limits.reset()


def test_overlapping_override_blocks_in_two_threads_end_in_either_order(fresh_limits):
    limits = fresh_limits
    default = limits.max_result_bytes
    for first_to_leave in ("A", "B"):
        blocks = {}
        try:
            blocks["A"] = _BlockInThread(2**20)
            assert blocks["A"].seen == 2**20 and limits.max_result_bytes == 2**20
            blocks["B"] = _BlockInThread(2**30)
            assert blocks["B"].seen == 2**30 and limits.max_result_bytes == 2**30
            blocks.pop(first_to_leave).exit()
            (still_running,) = blocks.values()
            # The value in force is that of the most recently entered block still running.
            assert limits.max_result_bytes == still_running.value, first_to_leave
            blocks.popitem()[1].exit()
            assert limits.max_result_bytes == default, first_to_leave
        finally:
            for block in blocks.values():
                block.leave.set()
                block.thread.join(10)


def test_assignment_during_another_threads_block_is_kept(fresh_limits):
    limits = fresh_limits
    block = _BlockInThread(2**20)
    try:
        limits.max_result_bytes = 2**25  # the base value: the running block stays in force
        assert limits.max_result_bytes == 2**20
        with pytest.raises(ValueError, match="above the limit"):
            check_result_bytes(2**20 + 1, "x", "the results", "run fewer")
    finally:
        block.exit()
    assert limits.max_result_bytes == 2**25
    assert repr(limits) == f"paperkernels.limits(max_result_bytes={2**25})"


def test_nested_override_blocks_keep_assignments_and_reset_made_inside(fresh_limits):
    limits = fresh_limits
    default = limits.max_result_bytes
    with limits.override(max_result_bytes=2**20):
        with limits.override(max_result_bytes=2**30) as inner:
            assert inner is limits and limits.max_result_bytes == 2**30
            limits.max_result_bytes = 2**25
            assert limits.max_result_bytes == 2**30
        assert limits.max_result_bytes == 2**20
        with pytest.raises(RuntimeError, match="inside"):
            with limits.override(max_result_bytes=7):
                assert limits.max_result_bytes == 7
                raise RuntimeError("inside")
        assert limits.max_result_bytes == 2**20
    assert limits.max_result_bytes == 2**25
    with limits.override(max_result_bytes=2**20):
        limits.reset()  # restores the base value; the running block stays in force
        assert limits.max_result_bytes == 2**20
    assert limits.max_result_bytes == default


def test_override_blocks_leaving_out_of_order_in_one_thread(fresh_limits):
    limits = fresh_limits
    default = limits.max_result_bytes
    outer = limits.override(max_result_bytes=2**20)
    inner = limits.override(max_result_bytes=2**30)
    outer.__enter__()
    inner.__enter__()
    outer.__exit__(None, None, None)
    assert limits.max_result_bytes == 2**30
    inner.__exit__(None, None, None)
    assert limits.max_result_bytes == default


def test_limits_cannot_be_deleted(fresh_limits):
    limits = fresh_limits
    for name in ("max_result_bytes", "_lock", "max_bytes"):
        with pytest.raises(AttributeError, match=r"limits cannot be deleted \(use paperkernels.limits.reset\(\)"):
            delattr(limits, name)
    assert limits.max_result_bytes == 4 * 2**30
    check_result_bytes(4 * 2**30, "n_runs", "the results", "run fewer")
    with limits.override(max_result_bytes=10):
        assert limits.max_result_bytes == 10
    assert limits.max_result_bytes == 4 * 2**30


def test_limits_pickle_and_copy_as_the_one_process_wide_object(fresh_limits):
    limits = fresh_limits
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(limits, protocol=protocol)) is limits
    assert b"paperkernels" in pickle.dumps(limits, protocol=0)
    assert copy.copy(limits) is limits
    assert copy.deepcopy(limits) is limits
    holder = copy.deepcopy({"limits": limits, "sizes": [1, 2]})
    assert holder["limits"] is limits
    with limits.override(max_result_bytes=2**20):
        assert pickle.loads(pickle.dumps(limits)) is limits and limits.max_result_bytes == 2**20
    assert limits.max_result_bytes == 4 * 2**30
