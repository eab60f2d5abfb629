"""The shared core: PRNG streams, the deterministic parallel-for, errors, seeds, validation, CLI."""

import _thread
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import paperkernels
from paperkernels import _core
from paperkernels._seed import as_seed
from paperkernels._validation import as_array, as_choice, as_float, as_int, as_n_threads, available_cores
from xoshiro_reference import Xoshiro256, splitmix64


def reference_xoshiro(seed, stream, n):
    rng = Xoshiro256(seed, stream)
    return [rng.next() for _ in range(n)]


def test_splitmix_matches_published_vector():
    # SplitMix64 seeded with 1234567: first outputs from Vigna's reference implementation.
    gen = splitmix64(1234567)
    assert [next(gen) for _ in range(3)] == [6457827717110365317, 3203168211198807973, 9817491932198370423]


@pytest.mark.parametrize("seed,stream", [(0, 0), (1, 0), (0, 1), (2**64 - 1, 12345), (42, 2**63)])
def test_xoshiro_matches_python_reference(seed, stream):
    got = _core.common.random_uint64(seed, stream, 64)
    assert got.dtype == np.uint64
    assert [int(v) for v in got] == reference_xoshiro(seed, stream, 64)


def test_uniform_matches_python_reference():
    rng = Xoshiro256(2**40 + 3, 9)
    assert _core.common.random_uniform(2**40 + 3, 9, 100).tolist() == [rng.uniform() for _ in range(100)]


def test_streams_reproducible_and_distinct():
    a = _core.common.random_uint64(7, 3, 1000)
    assert np.array_equal(a, _core.common.random_uint64(7, 3, 1000))
    others = [
        _core.common.random_uint64(7, 4, 1000),
        _core.common.random_uint64(8, 3, 1000),
        _core.common.random_uint64(3, 7, 1000),
    ]
    for b in others:
        assert np.count_nonzero(a == b) == 0


def test_uniform_chi_square():
    u = _core.common.random_uniform(2024, 5, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    counts = np.bincount((u * 100).astype(int), minlength=100)
    expected = len(u) / 100
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    # 99 degrees of freedom: the 99.99% quantile is about 157.
    assert chi2 < 157.0


def test_streams_uncorrelated():
    # Neighbouring streams of one seed: correlation of their uniforms is O(1/sqrt(n)).
    u = np.stack([_core.common.random_uniform(99, r, 50_000) for r in range(8)])
    corr = np.corrcoef(u)
    off_diagonal = corr[~np.eye(8, dtype=bool)]
    assert np.max(np.abs(off_diagonal)) < 5 / np.sqrt(50_000)


@pytest.mark.test_hooks
@pytest.mark.parametrize("p", [0.0, 0.3, 0.5, 0.999, 1.0])
def test_bernoulli_by_integer_threshold(p):
    n_streams, n_draws = 20, 20_000
    counts = _core.testing.random_bernoulli_counts(11, p, n_streams, n_draws, 2)
    total = counts.sum()
    n = n_streams * n_draws
    if p in (0.0, 1.0):
        assert total == p * n
    else:
        assert abs(total - p * n) < 5 * np.sqrt(n * p * (1 - p))


@pytest.mark.test_hooks
def test_parallel_for_independent_of_thread_count(n_threads):
    reference = _core.testing.parallel_stream_sums(5, 37, 1000, 1)
    got = _core.testing.parallel_stream_sums(5, 37, 1000, n_threads)
    assert np.array_equal(got, reference)
    # Task r uses stream r: task 3 equals a single-task run seeded for stream 3 only via its sums.
    assert reference[0] != reference[1]


@pytest.mark.test_hooks
def test_normals_have_unit_variance():
    sums = _core.testing.parallel_stream_sums(1, 4000, 100, 2)
    # Each sum is N(0, 100): standardised, mean 0 and variance 1 within sampling error.
    z = sums / 10.0
    assert abs(z.mean()) < 5 / np.sqrt(len(z))
    assert abs(z.var() - 1.0) < 0.15


@pytest.mark.test_hooks
def test_cpp_invalid_argument_becomes_value_error():
    with pytest.raises(ValueError, match=r"p: expected a probability in \[0, 1\]"):
        _core.testing.random_bernoulli_counts(0, 1.5, 1, 1, 1)


@pytest.mark.test_hooks
def test_lowest_failing_task_reported(n_threads):
    with pytest.raises(ValueError, match="task 5 failed"):
        _core.testing.parallel_fail_at(40, 5, n_threads)


@pytest.fixture
def sigint_raises():
    # A process started in the background inherits SIGINT ignored; install Python's handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.test_hooks
@pytest.mark.parametrize("threads", [1, 2])
def test_interrupt_raises_keyboard_interrupt(sigint_raises, threads):
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    start = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        _core.testing.parallel_busy_wait(4, 30.0, threads)
    assert time.perf_counter() - start < 5.0
    timer.join()


@pytest.mark.test_hooks
def test_gil_released_during_parallel_work():
    results = {}

    def work(key):
        results[key] = _core.testing.parallel_stream_sums(3, 8, 200_000, 1)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(np.array_equal(results[k], results[0]) for k in range(3))


class TestSeed:
    def test_int(self):
        assert as_seed(5) == 5
        assert as_seed(np.uint64(2**64 - 1)) == 2**64 - 1

    def test_generator_is_reproducible(self):
        assert as_seed(np.random.default_rng(3)) == as_seed(np.random.default_rng(3))
        assert as_seed(np.random.default_rng(3)) != as_seed(np.random.default_rng(4))

    def test_none_gives_fresh_entropy(self):
        assert as_seed(None) != as_seed(None)

    @pytest.mark.parametrize("bad", [1.5, "3", True, [1], np.random.RandomState(0)])
    def test_rejects_other_types(self, bad):
        with pytest.raises(TypeError, match="seed: expected None, a non-negative int or a numpy.random.Generator"):
            as_seed(bad)

    @pytest.mark.parametrize("bad", [-1, 2**64])
    def test_rejects_out_of_range(self, bad):
        with pytest.raises(ValueError, match=r"seed: expected an integer in \[0, 2\*\*64\)"):
            as_seed(bad)


class TestValidation:
    def test_as_array_shape_and_contiguity(self):
        fortran = np.asfortranarray(np.arange(6.0).reshape(2, 3))
        out = as_array(fortran, "x", shape=(2, None))
        assert out.flags.c_contiguous and np.array_equal(out, fortran)
        with pytest.raises(ValueError, match=r"x: expected shape \(3, \*\), got \(2, 3\)"):
            as_array(fortran, "x", shape=(3, None))

    def test_as_array_rejects_nan_and_empty(self):
        with pytest.raises(ValueError, match="mu: expected finite values"):
            as_array([0.1, np.nan], "mu")
        with pytest.raises(ValueError, match="mu: expected a non-empty array"):
            as_array([], "mu")

    def test_as_array_bounds_and_dtypes(self):
        with pytest.raises(ValueError, match=r"p: expected values in \[0.0, 1.0\]"):
            as_array([0.2, 1.2], "p", low=0.0, high=1.0)
        with pytest.raises(TypeError, match="k: expected integers, got non-integral"):
            as_array([1.5], "k", dtype=np.int64)
        with pytest.raises(TypeError, match="x: expected numbers"):
            as_array(["a"], "x")
        with pytest.raises(TypeError, match="x: expected real numbers"):
            as_array([1j], "x")

    def test_scalars(self):
        assert as_int(np.int32(3), "k", low=1) == 3
        with pytest.raises(TypeError, match="k: expected an integer"):
            as_int(3.0, "k")
        with pytest.raises(ValueError, match=r"k: expected an integer in \[1, 5\]"):
            as_int(6, "k", low=1, high=5)
        with pytest.raises(ValueError, match=r"delta: expected a number in \(0, 1\)"):
            as_float(1.0, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
        with pytest.raises(ValueError, match="beta: expected a finite number"):
            as_float(float("nan"), "beta")
        with pytest.raises(ValueError, match="rule: expected one of 'random', 'tracking'"):
            as_choice("rand", "rule", ["random", "tracking"])

    def test_n_threads(self):
        assert as_n_threads(None) == available_cores()
        assert as_n_threads(-1) == available_cores()
        assert as_n_threads(3) == 3
        with pytest.raises(ValueError, match="n_threads: expected a positive integer"):
            as_n_threads(0)
        with pytest.raises(TypeError, match="n_jobs: expected an integer"):
            as_n_threads(1.5, "n_jobs")


def test_version_and_import_time():
    assert paperkernels.__version__
    # The build reads the version from _version.py too, dev and local parts included.
    assert paperkernels._core.__version__ == paperkernels.__version__
    code = "import time; t = time.perf_counter(); import paperkernels; print(time.perf_counter() - t)"
    elapsed = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    # An ASan+UBSan build (tests/sanitize.sh) loads and instruments far more code at import.
    assert elapsed < (3.0 if os.environ.get("PAPERKERNELS_SANITIZED") == "1" else 0.3)


def test_cli_version_and_demo():
    out = subprocess.run(
        [sys.executable, "-m", "paperkernels", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"paperkernels {paperkernels.__version__}"
    bad = subprocess.run([sys.executable, "-m", "paperkernels", "demo", "nosuch"], capture_output=True, text=True)
    assert bad.returncode == 2 and "unknown module" in bad.stderr
