"""Hardening of paperkernels.toptwo: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import platform
import re
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    interrupted_quickly,
    poisoned,
    rss_growth,
    run_in_threads,
)
from paperkernels import toptwo as T

MODULE = "toptwo"


bad = hostile_checks(MODULE)


@st.composite
def bandits(draw):
    """Bernoulli means with a unique best arm and a gap large enough for short episodes."""
    K = draw(st.integers(2, 6))
    rest = draw(st.lists(st.floats(0.0, 0.6), min_size=K - 1, max_size=K - 1))
    best = draw(st.floats(0.75, 1.0))
    mu = np.array(rest + [best])
    return mu[np.random.default_rng(draw(st.integers(0, 100))).permutation(K)]


# ---- valid inputs: finite, shaped, invariant ---------------------------------------------------


@SOME
@given(
    mu=bandits(),
    delta=st.floats(1e-4, 0.5),
    seed=st.integers(0, 2**64 - 1),
    rule=st.sampled_from(["random", "tracking"]),
    challenger=st.sampled_from(["TCI", "TC"]),
    threshold=st.sampled_from(["gk16", "union", "kk21"]),
)
def test_episode_invariants(mu, delta, seed, rule, challenger, threshold):
    ep = T.identify(mu, delta, seed=seed, rule=rule, challenger=challenger, threshold=threshold)
    K = len(mu)
    assert 0 <= ep.recommendation < K and not ep.hit_max_steps
    assert ep.N.shape == (K,) and ep.N.min() >= 1 and ep.N.sum() == ep.tau
    assert np.all(ep.S >= 0) and np.all(ep.S <= ep.N)  # Bernoulli rewards are 0 or 1


@FEW
@given(mu=bandits(), seed=st.integers(0, 2**64 - 1))
def test_run_many_threads_layouts_and_run_zero(mu, seed):
    ref = T.run_many(mu, 0.05, n_runs=9, seed=seed, n_threads=1)
    for threads in (2, 7):
        other = T.run_many(mu, 0.05, n_runs=9, seed=seed, n_threads=threads)
        np.testing.assert_array_equal(other.tau, ref.tau)
        np.testing.assert_array_equal(other.N, ref.N)
    strided = np.repeat(mu, 2)[::2]
    np.testing.assert_array_equal(T.run_many(strided, 0.05, n_runs=9, seed=seed, n_threads=2).tau, ref.tau)
    assert T.identify(mu, 0.05, seed=seed).tau == ref.tau[0]


@SOME
@given(mu=bandits(), beta=st.floats(0.05, 0.95))
def test_characteristic_time_invariants(mu, beta):
    ct = T.characteristic_time(mu, beta)
    assert np.isfinite(ct.T) and ct.T > 0
    assert abs(ct.weights.sum() - 1) < 1e-9 and ct.weights.min() >= 0
    assert abs(ct.weights[ct.best] - beta) < 1e-9 and ct.best == int(np.argmax(mu))
    free = T.characteristic_time(mu)  # the optimal beta gives the smallest T*
    assert free.T <= ct.T * (1 + 1e-9)


def test_subnormal_means():
    # regression: a subnormal mean overflowed q / p inside kl, giving T* = 0.0027 instead of 1.44 and
    # weights summing to 0.5 (beta given), or no bracket for the optimal beta
    for tiny in (5e-324, 1e-310):
        for beta in (0.5, None):
            ct = T.characteristic_time([tiny, 1.0], beta)
            ref = T.characteristic_time([0.0, 1.0], beta)
            assert ct.T == pytest.approx(ref.T, rel=1e-12) and ct.weights.sum() == pytest.approx(1.0)


@SOME
@given(p=st.floats(0, 1), q=st.floats(0, 1))
def test_kl_nonnegative(p, q):
    kl = T.kl_bernoulli(p, q)
    assert kl >= 0 and (kl == 0) == (p == q) or (kl >= 0 and np.isinf(kl))


# ---- hostile inputs ----------------------------------------------------------------------------

MU = np.array([0.6, 0.4, 0.3])


@FEW
@given(d=st.data())
def test_poisoned_arrays_refused(d):
    bad("mu", T.identify, d.draw(poisoned(MU)), seed=0)
    bad("mu", T.run_many, d.draw(poisoned(MU)), n_runs=2, seed=0)
    bad("mu", T.characteristic_time, d.draw(poisoned(MU)))
    nan_threshold = np.full(200, 5.0)
    nan_threshold[d.draw(st.integers(0, 199))] = np.nan  # +inf is a valid "never stop at t"
    bad("threshold", T.identify, MU, threshold=nan_threshold, seed=0)
    bad("p", T.kl_bernoulli, d.draw(poisoned(np.full(3, 0.5))), 0.5)


@pytest.mark.parametrize("value", BAD_ARRAYS + [[0.5], [0.5, 0.5], [0.5, 1.5], [[0.5, 0.4]]], ids=repr)
def test_bad_arrays_refused(value):
    bad("mu", T.identify, value, seed=0)
    bad("mu", T.run_many, value, n_runs=2, seed=0)
    bad("mu", T.characteristic_time, value)


@pytest.mark.parametrize("value", BAD_COUNTS + [0], ids=repr)
def test_bad_counts_refused(value):
    bad("n_runs", T.run_many, MU, n_runs=value, seed=0)
    bad("K", T.TopTwo, value) if value is not None else None
    if value is not None:
        bad("max_steps", T.identify, MU, max_steps=value, seed=0)
    bad("min_pulls", T.identify, MU, min_pulls=value, seed=0) if value is not None else None
    if value not in (None, -1):
        bad("n_threads", T.run_many, MU, n_runs=2, n_threads=value, seed=0)
    if value not in (0, [3]):  # 0 is an arm; a list of arms is paired with a list of rewards
        bad("arm", T.TopTwo(3, seed=0).update, value, 1.0)


@pytest.mark.parametrize("value", BAD_REALS + [0.0, 1.0, -0.5], ids=repr)
def test_bad_reals_refused(value):
    bad("delta", T.identify, MU, value, seed=0)
    bad("beta", T.identify, MU, beta=value, seed=0)
    bad("beta", T.characteristic_time, MU, value) if value is not None else None
    if value not in (1.0,):
        bad("sigma", T.identify, MU, arms="gaussian", sigma=value, seed=0) if value is not None else None
    if value not in (0.0, 1.0, [0.5]):  # a list of rewards is paired with a list of arms
        bad("reward", T.TopTwo(3, seed=0).update, 0, value)


def test_wrong_options_refused():
    bad("challenger", T.identify, MU, challenger="EB", seed=0)
    bad("rule", T.identify, MU, rule="greedy", seed=0)
    bad("arms", T.identify, MU, arms="poisson", seed=0)
    bad("tie_break", T.identify, MU, tie_break="last", seed=0)
    bad("threshold", T.identify, MU, threshold="bonferroni", seed=0)
    bad("max_steps", T.identify, MU, threshold=lambda t, d: np.log(1 / d) + 0 * t, seed=0)
    bad("seed", T.identify, MU, seed=-1)
    bad("seed", T.identify, MU, seed="x")
    bad("first_run", T.run_many, MU, n_runs=2, first_run=-1, seed=0)
    bad("t", T.stopping_threshold, 0, 0.1, 3)
    bad("n_i", T.transportation_cost, 0.5, -1, 0.4, 1)
    sampler = T.TopTwo(3, seed=0)
    bad("reward", sampler.update, sampler.select(), 0.5)  # Bernoulli rewards are 0 or 1


# ---- resource limits ---------------------------------------------------------------------------


def test_exploding_batches_refused_up_front():
    assert "first_run=" in str(bad("n_runs", T.run_many, MU, n_runs=10**12, seed=0))
    bad("max_steps", T.identify, MU, min_pulls=10**15, seed=0)


# ---- threads, Ctrl-C, memory -------------------------------------------------------------------


def test_concurrent_calls_match_sequential():
    mu = [0.5, 0.42, 0.4, 0.3]

    def work(seed):
        return T.run_many(mu, 0.01, n_runs=40, seed=seed, n_threads=2).tau

    expected = [work(s) for s in range(4)]
    for got, want in zip(run_in_threads(work, list(range(4))), expected, strict=False):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_long_batch_interruptible(threads):
    mu = [0.5, 0.499]  # millions of steps per run
    interrupted_quickly(lambda: T.run_many(mu, 1e-3, n_runs=400, seed=0, n_threads=threads))


def test_long_episode_interruptible():
    interrupted_quickly(lambda: T.identify([0.5, 0.4999], 1e-6, seed=0, max_steps=10**12))


@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_memory_growth():
    def call():
        T.run_many([0.7, 0.5, 0.4], 0.05, n_runs=20, seed=1, n_threads=2)
        T.identify([0.7, 0.5], 0.05, seed=2, record=True)
        sampler = T.TopTwo(3, seed=0)
        for _ in range(10):
            sampler.update(sampler.select(), 1.0)
        with pytest.raises(ValueError):  # the error path must not leak
            T.identify([0.5, 0.5])

    assert rss_growth(call, 300) < 8 * 2**20


# ---- Ctrl-C from another process, atomic updates, sizes refused up front, pickling -------------

import copy  # noqa: E402
import pickle  # noqa: E402

import paperkernels  # noqa: E402
from sigint_helpers import assert_interrupts  # noqa: E402


def test_characteristic_time_of_many_arms_stops_on_sigint():
    assert_interrupts(
        "import numpy as np\nfrom paperkernels import toptwo as T\nmu = np.linspace(0.0, 0.9, 9000)",
        "T.characteristic_time(mu)",
    )


def test_long_batch_update_stops_on_sigint_and_records_nothing():
    setup = """
import numpy as np
from paperkernels import toptwo as T
s = T.TopTwo(10, seed=0)
s.update([0, 1, 2], [1, 0, 1])
n = 6 * 10**7  # about 1 s on an idle machine
arms = np.arange(n) % 10
rewards = (np.arange(n) % 3 == 0).astype(float)
"""
    call = """
try:
    s.update(arms, rewards)
finally:
    assert s.t == 3 and s.N.tolist() == [1, 1, 1] + [0] * 7 and s.S.tolist()[:3] == [1.0, 0.0, 1.0]
"""
    assert_interrupts(setup, call, after=0.2)


def test_stopping_threshold_of_many_times_stops_on_sigint():
    assert_interrupts(
        "import numpy as np\nfrom paperkernels import toptwo as T\nt = np.arange(1, 6 * 10**7)",
        "T.stopping_threshold(t, 0.1, 3, 'kk21')",
        after=0.25,  # it takes 0.7-1.7 s
    )


def test_characteristic_time_limits_the_number_of_arms():
    mu = np.linspace(0.0, 0.9, T.CHARACTERISTIC_MAX_ARMS + 1)
    with pytest.raises(ValueError, match="max_arms"):
        T.characteristic_time(mu)
    assert T.characteristic_time(mu[:50], max_arms=50).best == 49
    with pytest.raises(ValueError, match="max_arms"):
        T.characteristic_time(mu[:50], max_arms=49)


def _snapshot(s):
    st = s.state()
    return (st.t, st.N.tolist(), st.S.tolist(), st.L.tolist(), st.M.tolist(), st.leader, st.challenger, st.should_stop)


@pytest.mark.parametrize("batch", [False, True])
def test_refused_gaussian_update_changes_nothing(batch):
    s = T.TopTwo(3, arms="gaussian", seed=4)
    for i in range(6):
        s.update(s.select(), 0.25 * i)
    s.update(0, 1e308)
    before = _snapshot(s)
    with pytest.raises(ValueError, match="reward"):
        if batch:
            s.update([1, 2, 0], [0.5, 0.5, 1e308])  # the last entry overflows arm 0's sum
        else:
            s.update(0, 1e308)
    assert _snapshot(s) == before
    assert s.state().challenger != s.state().leader
    with pytest.raises(ValueError, match="reward"):
        s.update([1, 1], [1e308, 1e308])  # the running sum of arm 1 overflows
    assert _snapshot(s) == before


def test_update_batch_is_applied_in_full_or_not_at_all():
    s = T.TopTwo(3, seed=1)
    s.update([0, 1, 2], [1, 0, 0])
    before = _snapshot(s)
    for arms, rewards in (([0, 1, 5], [1, 1, 1]), ([0, 1, 2], [1, 0.5, 1]), ([0, 1], [1, np.nan])):
        with pytest.raises(ValueError):
            s.update(arms, rewards)
        assert _snapshot(s) == before


@pytest.mark.parametrize(
    "call",
    [
        lambda: T.identify([1.0, 0.0], arms="gaussian", sigma=1e200),
        lambda: T.identify([1.0, 0.0], arms="gaussian", sigma=1e-160),
        lambda: T.run_many([1.0, 0.0], arms="gaussian", sigma=1e200, n_runs=2),
        lambda: T.characteristic_time([1.0, 0.0], arms="gaussian", sigma=1e200),
        lambda: T.TopTwo(2, arms="gaussian", sigma=1e200),
        lambda: T.transportation_cost(1.0, 1, 0.0, 1, arms="gaussian", sigma=1e200),
    ],
)
def test_sigma_whose_square_overflows_is_refused(call):
    with pytest.raises(ValueError, match="sigma"):
        call()


def test_characteristic_time_refuses_gaps_that_overflow():
    with pytest.raises(ValueError, match="mu, sigma"):
        T.characteristic_time([1e300, -1e300], arms="gaussian")


def test_callable_threshold_memory_refused_before_calling_it():
    calls = []

    def c(t, delta):
        calls.append(len(t))
        return np.log(1 + np.log(np.maximum(t, 1))) + np.log(1 / delta)

    with pytest.raises(ValueError, match="max_steps.*max_result_bytes"):
        T.identify([0.6, 0.4], threshold=c, max_steps=10**9)
    assert calls == []
    with paperkernels.limits.override(max_result_bytes=16 * 1000):
        with pytest.raises(ValueError, match="max_steps"):
            T.identify([0.6, 0.4], threshold=c, max_steps=1000)
        assert T.identify([0.6, 0.4], threshold=c, max_steps=900, seed=1).tau > 0


def test_record_memory_refused_up_front():
    with pytest.raises(ValueError, match="record.*max_result_bytes"):
        T.identify([0.6, 0.4], record=True, max_steps=10**9)
    with paperkernels.limits.override(max_result_bytes=16 * 10**4):
        with pytest.raises(ValueError, match="record"):
            T.identify([0.6, 0.4], record=True, max_steps=10**4 + 1)
        ep = T.identify([0.6, 0.4], 0.1, record=True, max_steps=10**4, seed=2)
        assert len(ep.arms) == ep.tau
    assert T.identify([0.6, 0.4], 0.1, record=False, max_steps=10**9, seed=2).tau == ep.tau


def test_run_many_results_use_the_shared_limit():
    assert not hasattr(T, "MAX_RESULT_BYTES")
    with paperkernels.limits.override(max_result_bytes=1000):
        with pytest.raises(ValueError, match="n_runs.*max_result_bytes"):
            T.run_many([0.6, 0.4], n_runs=100)
        assert T.run_many([0.6, 0.4], 0.1, n_runs=10, seed=0).n_runs == 10


class _RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array here")


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: T.TopTwo(K=2**31), ValueError, "K"),
        (lambda: T.TopTwo(2).update(0, 2**1100), ValueError, "reward"),
        (lambda: T.TopTwo(2).update(_RaisingArray(), [1.0]), TypeError, "arm"),
        (lambda: T.TopTwo(2).update([0], _RaisingArray()), TypeError, "reward"),
        (lambda: T.TopTwo(2).update(np.ma.array([0, 1], mask=[1, 0]), [1, 1]), TypeError, "arm"),
        (lambda: T.TopTwo(2).update([0, 1], np.ma.array([1.0, 0.0], mask=[1, 0])), TypeError, "reward"),
        (lambda: T.identify(np.ma.array([0.9, 0.1], mask=[1, 0])), TypeError, "mu"),
        (lambda: T.run_many(np.ma.array([0.9, 0.1], mask=[1, 0]), n_runs=2), TypeError, "mu"),
        (lambda: T.identify([0.6, 0.4], threshold=np.ma.array(np.ones(50), mask=0)), TypeError, "threshold"),
        (lambda: T.identify([0.6, 0.4], record="no"), TypeError, "record"),
        (
            lambda: T.identify([0.6, 0.4], threshold=lambda t, d: np.full(t.shape, "5"), max_steps=50),
            TypeError,
            "threshold",
        ),
        (lambda: T.identify([0.6, 0.4], threshold=lambda t, d: t + 1j, max_steps=50), TypeError, "threshold"),
        (lambda: T.identify([0.6, 0.4], threshold=lambda t, d: ["a"] * len(t), max_steps=50), TypeError, "threshold"),
        (lambda: T.TopTwo(2, threshold=lambda t, d: t * 1j), TypeError, "threshold"),
    ],
)
def test_hostile_arguments_raise_named_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def _drive(s, n, salt):
    arms = []
    for i in range(n):
        a = s.select()
        arms.append(a)
        s.update(a, float((i * 7 + salt) % 3 == 0))
    return arms, s.should_stop(), s.N.tolist(), s.S.tolist(), s.state().L.tolist()


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(arms="bernoulli"),
        dict(arms="gaussian", rule="tracking"),
        dict(forced_exploration=True, challenger="TC"),
        dict(threshold=np.full(5000, 8.0)),
    ],
)
def test_sampler_pickles_and_copies_and_continues_identically(kwargs):
    s = T.TopTwo(4, seed=11, **kwargs)
    _drive(s, 37, 1)
    s.select()  # a cached decision (and its draw) must travel with the state
    copies = [pickle.loads(pickle.dumps(s)), copy.deepcopy(s), copy.copy(s)]
    expected = _drive(s, 300, 2)
    for other in copies:
        assert _drive(other, 300, 2) == expected


def test_sampler_copies_are_independent():
    s = T.TopTwo(3, seed=5)
    _drive(s, 10, 0)
    shallow, deep = copy.copy(s), copy.deepcopy(s)
    before = s.N.tolist()
    _drive(s, 50, 1)
    assert shallow.N.tolist() == before and deep.N.tolist() == before
    assert shallow._core is not s._core


def test_sampler_with_callable_threshold_deep_copies():
    s = T.TopTwo(3, seed=6, threshold=lambda t, d: np.log(2 + t) + 3)
    _drive(s, 20, 0)
    other = copy.deepcopy(s)
    assert _drive(other, 2000, 1) == _drive(s, 2000, 1)


def test_hostile_pickled_state_is_refused():
    s = T.TopTwo(3, seed=1)
    _drive(s, 12, 0)
    state = s.__getstate__()
    for field, value in (
        ("N", np.array([1, 2, 3])),
        ("S", np.array([99.0, 0.0, 0.0])),
        ("rng", [0, 0, 0, 0]),
        ("leader", 7),
        ("t", 3),
    ):
        bad_state = copy.deepcopy(state)
        bad_state["core"][field] = value
        other = T.TopTwo.__new__(T.TopTwo)
        with pytest.raises(ValueError, match="state"):
            other.__setstate__(bad_state)


def test_refused_state_leaves_the_sampler_as_it_was():
    s = T.TopTwo(3, delta=0.05, seed=1)
    _drive(s, 12, 0)
    before = pickle.dumps(s)
    for field, value in (
        ("rng", [2**64, 0, 0, 1]),
        ("rng", 5),
        ("round", ("a", 0, 0)),
        ("round", (0, False, 2**63)),
        ("weights_left", -1),
        ("leader", 2**40),
        ("t", 2**63),
    ):
        state = copy.deepcopy(s.__getstate__())
        state["options"]["beta"], state["options"]["delta"] = 0.9, 0.2
        state["core"][field] = value
        with pytest.raises((ValueError, TypeError), match="state"):
            s.__setstate__(state)
        assert pickle.dumps(s) == before  # options and core unchanged


def test_state_with_options_of_the_wrong_type_is_refused():
    s = T.TopTwo(3, seed=1)
    _drive(s, 12, 0)
    before = pickle.dumps(s)
    for options in (np.zeros(3), np.int64(2**62), None):
        state = copy.deepcopy(s.__getstate__())
        state["options"] = options
        with pytest.raises(TypeError, match="state: not the pickled state of a TopTwo sampler"):
            s.__setstate__(state)
    assert pickle.dumps(s) == before


def test_state_with_a_threshold_that_cannot_be_called_is_refused():
    s = T.TopTwo(3, seed=6, threshold=lambda t, d: np.log(2 + t) + 3)
    _drive(s, 20, 0)
    state = s.__getstate__()
    state["threshold_fn"] = 5
    twin = copy.deepcopy(s)
    with pytest.raises(TypeError, match="state threshold_fn: expected a callable"):
        s.__setstate__(state)
    assert _drive(s, 2000, 1) == _drive(twin, 2000, 1)  # the callable threshold still in use


def test_transportation_cost_of_counts_near_the_float64_limit():
    # W is homogeneous of degree 1 in the counts: counts whose sum overflows float64 keep the shares.
    for n_i, n_j in ((9e307, 9e307), (1.7e308, 1e307), (1e300, 1.7e308)):
        scale = max(n_i, n_j)
        expected = scale * T.transportation_cost(0.6, n_i / scale, 0.4, n_j / scale)
        assert T.transportation_cost(0.6, n_i, 0.4, n_j) == pytest.approx(expected, rel=1e-13)
    with pytest.raises(ValueError, match="transportation cost is beyond float64"):
        T.transportation_cost(0.999999, 1.7e308, 0.000001, 1.7e308)
    with pytest.raises(ValueError, match="transportation cost is beyond float64"):
        T.transportation_cost(1e200, 1, -1e200, 1, arms="gaussian")
    # A squared gap past float64 over tiny counts: gap^2 n / 4 = 2.5e9, finite.
    assert T.transportation_cost(1e155, 1e-300, 0.0, 1e-300, arms="gaussian") == pytest.approx(2.5e9, rel=1e-14)
    # The smaller count's share underflows float64: computed in long double where it is wider.
    if WIDE_LONG_DOUBLE:
        assert T.transportation_cost(1.0, 1e-300, 0.0, 1e300) == pytest.approx(_cost_reference(1.0, 1e-300, 0.0, 1e300))
    else:
        with pytest.raises(ValueError, match="n_i, n_j: counts too far apart for float64"):
            T.transportation_cost(1.0, 1e-300, 0.0, 1e300)
    # A denominator past float64 (sigma 1e150) or a subnormal square: computed in long double.
    assert T.transportation_cost(1.0, 1.0, 0.0, 1.0, arms="gaussian", sigma=1e150) == pytest.approx(2.5e-301, rel=1e-15)
    assert T.transportation_cost(1e154, 1e-300, 0.0, 1e-300, arms="gaussian") == pytest.approx(2.5e7, rel=1e-15)
    # Subnormal counts and Bernoulli means have lost digits: refused by name.
    with pytest.raises(ValueError, match="n_j: expected counts at least 2.225e-308"):
        T.transportation_cost(1.0, 1.0, 0.5, 5e-324)
    with pytest.raises(ValueError, match="mu_i: expected 0 or means at least 2.225e-308"):
        T.transportation_cost(5e-324, 1e300, 0.0, 1e300)
    assert T.transportation_cost(1e-300, 1e300, 0.0, 1e300) == pytest.approx(np.log(2), rel=1e-12)


WIDE_LONG_DOUBLE = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686") and sys.platform != "win32"
FLOAT64_MAX = float(np.finfo(np.float64).max)
FLOAT64_TINY = float(np.finfo(np.float64).tiny)


def _cost_reference(mu_i, n_i, mu_j, n_j, arms="bernoulli", sigma=1.0):
    """The transportation cost from the definition, in 800-digit arithmetic: enough for 1 - m and the
    cancelling kl terms of float64 inputs (down to 1e-324) to keep 100 digits."""
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(800):
        a, na, b, nb = (mpmath.mpf(v) for v in (mu_i, n_i, mu_j, n_j))
        if arms == "gaussian":
            return float((a - b) ** 2 / (2 * mpmath.mpf(sigma) ** 2 * (1 / na + 1 / nb)))
        m = (na * a + nb * b) / (na + nb)

        def kl(p):
            first = p * mpmath.log(p / m) if p > 0 else 0
            second = (1 - p) * mpmath.log((1 - p) / (1 - m)) if p < 1 else 0
            return first + second

        return float(na * kl(a) + nb * kl(b))


# Costs whose intermediates leave the normal float64 range: a subnormal gap (the cost came out 0.0),
# a subnormal pooled mean or 1 - m (errors up to 2e-3), a kl term lost or overflowing (refused as
# beyond float64), a gap beyond float64 whose cost is not.
EDGE_COSTS = [
    (1.0000000000000002e-300, 1e100, 1e-300, 1e100, "bernoulli", 1.0),
    (1.0000000000000002e-300, 1e200, 1e-300, 1e200, "bernoulli", 1.0),
    (0.7, 1e-15, 0.0, 1e308, "bernoulli", 1.0),
    (1.0, 1e308, 0.3, 1e-15, "bernoulli", 1.0),
    (FLOAT64_TINY, 3.0, 0.0, 9007199254740994.0, "bernoulli", 1.0),
    (1e-307, FLOAT64_MAX, 0.0, 1e300, "bernoulli", 1.0),
    (1.0, FLOAT64_MAX, 0.9999999999999999, 3.0, "bernoulli", 1.0),
    (0.5, 1e-15, 0.0, FLOAT64_MAX, "bernoulli", 1.0),
    (1e308, 1e-300, -1e308, 1e-300, "gaussian", 1e150),
    (FLOAT64_MAX, 1e-100, -FLOAT64_MAX, 1.0, "gaussian", 1e150),
]


@pytest.mark.skipif(not WIDE_LONG_DOUBLE, reason="needs an x86 long double (80-bit)")
@pytest.mark.parametrize("case", EDGE_COSTS)
def test_transportation_costs_whose_intermediates_leave_float64(case):
    *values, arms, sigma = case
    expected = _cost_reference(*values, arms=arms, sigma=sigma)
    assert FLOAT64_TINY <= expected < FLOAT64_MAX
    assert T.transportation_cost(*values, arms=arms, sigma=sigma) == pytest.approx(expected, rel=1e-14, abs=0)
    # Monotone in n_i across the switch to long double (the first case with its counts doubled).
    if case is EDGE_COSTS[0]:
        assert T.transportation_cost(values[0], 2e100, values[2], 1e100) > T.transportation_cost(*values)


def test_counts_beyond_uint64_are_real_numbers():
    # numpy holds such Python integers in object arrays; they are counts like any other.
    assert T.transportation_cost(0.6, 10**20, 0.4, 1) == pytest.approx(_cost_reference(0.6, 1e20, 0.4, 1.0), rel=1e-14)
    costs = T.transportation_cost(0.6, [10**20, Fraction(5, 2)], 0.4, 1, arms="gaussian")
    assert costs == pytest.approx([_cost_reference(0.6, n, 0.4, 1.0, "gaussian") for n in (1e20, 2.5)], rel=1e-14)
    with pytest.raises(ValueError, match="n_i: expected numbers that float64 can hold, got one beyond its range"):
        T.transportation_cost(0.6, 10**400, 0.4, 1)
    with pytest.raises(TypeError, match="n_i: expected numbers, got an array of dtype object"):
        T.transportation_cost(0.6, [None, 1], 0.4, 1)


def test_booleans_are_not_numbers_in_the_theory_functions():
    with pytest.raises(TypeError, match="p: expected real numbers, got booleans"):
        T.kl_bernoulli(True, 0.5)
    with pytest.raises(TypeError, match="n_i: expected real numbers, got booleans"):
        T.transportation_cost(0.6, True, 0.4, 1)
    with pytest.raises(TypeError, match="threshold: expected real numbers, got booleans"):
        T.identify([0.5, 0.4], 0.1, threshold=[True] * 10, max_steps=5)


def test_booleans_mixed_with_numbers_are_refused():
    # numpy reads [True, 0.5] as floats; every array of means, counts, thresholds or times refuses it.
    with pytest.raises(TypeError, match="p: expected real numbers, got booleans"):
        T.kl_bernoulli([True, 0.5], 0.25)
    with pytest.raises(TypeError, match="p: expected real numbers, got booleans"):
        T.kl_bernoulli([0.5, np.True_], 0.25)
    with pytest.raises(TypeError, match="n_i: expected real numbers, got booleans"):
        T.transportation_cost(0.9, [True, 2.0], 0.1, 1)
    with pytest.raises(TypeError, match="mu: expected real means, got booleans"):
        T.characteristic_time([0.9, True])
    with pytest.raises(TypeError, match="threshold: expected real numbers, got booleans"):
        T.identify([0.9, 0.1], seed=1, threshold=[True] + [3.0] * 300)
    for t in (True, [True, True], [[2, True]]):
        with pytest.raises(TypeError, match="t: expected integer times, got booleans"):
            T.stopping_threshold(t, 0.05, 3)
    # Array-likes that convert to booleans, and booleans inside array-likes of a list.
    with pytest.raises(TypeError, match="mu: expected real means, got booleans"):
        T.characteristic_time(memoryview(np.array([True, False])))
    with pytest.raises(TypeError, match="mu: expected real means, got booleans"):
        T.characteristic_time([_ArrayLike([True]), _ArrayLike([0.5])])
    with pytest.raises(TypeError, match="t: expected integer times, got booleans"):
        T.stopping_threshold(_ArrayLike(True), 0.05, 3)


def test_deeply_nested_lists_are_refused_by_name():
    nested = [0.5]
    for _ in range(3000):
        nested = [nested]
    looped = [0.5]
    looped.append(looped)
    for value in (nested, looped):
        with pytest.raises(TypeError, match="mu: expected an array-like of numbers"):
            T.characteristic_time(value)
    with pytest.raises(TypeError, match="t: expected an array-like of numbers"):
        T.stopping_threshold(nested, 0.05, 3)


class _ArrayLike:
    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values)


def test_numbers_that_float64_cannot_hold_are_refused():
    huge = np.array([np.longdouble("1e400")] * 10, dtype=object)  # float() makes it inf silently
    with pytest.raises(ValueError, match="threshold: expected numbers that float64 can hold"):
        T.run_many([0.9, 0.1], n_runs=2, seed=1, n_threads=1, threshold=huge)
    with pytest.raises(ValueError, match="mu_i: expected numbers that float64 can hold"):
        T.transportation_cost(Fraction(1, 10**400), 1, 0.0, 1)  # not 0
    with pytest.raises(ValueError, match="n_j: expected numbers that float64 can hold"):
        T.transportation_cost(0.6, 1, 0.4, 10**400)
    if np.finfo(np.longdouble).maxexp > np.finfo(np.float64).maxexp:  # an 80-bit long double
        with pytest.raises(ValueError, match="p: expected numbers that float64 can hold"):
            T.kl_bernoulli(np.longdouble("1e-4000"), 0.5)
        with pytest.raises(ValueError, match="threshold: expected numbers that float64 can hold"):
            T.identify([0.6, 0.4], threshold=np.array([np.longdouble("1e4000")] * 50), seed=1)


def test_times_beyond_int64_are_named_as_given():
    with pytest.raises(ValueError, match=r"got values in \[9223372036854775808, 9223372036854775808\]"):
        T.stopping_threshold(np.array([2**63], dtype=np.uint64), 0.1, 3)
    # Beyond uint64 numpy holds Python integers as objects: the same error, not a TypeError.
    message = f"t: expected values in [1, {2**63 - 1}], got values in [5, {2**70}]"
    with pytest.raises(ValueError, match=re.escape(message)):
        T.stopping_threshold([2**70, 5], 0.1, 3)
    in_range = T.stopping_threshold(np.array([2**62, 5], dtype=object), 0.1, 3)
    assert np.array_equal(in_range, T.stopping_threshold(np.array([2**62, 5]), 0.1, 3))
    # Integral values of other kinds are times too; every range error reads the same.
    assert np.array_equal(T.stopping_threshold([10, 5.0], 0.1, 3), T.stopping_threshold([10, 5], 0.1, 3))
    assert T.stopping_threshold(Fraction(5), 0.1, 3) == T.stopping_threshold(5, 0.1, 3)
    for t in (0, [0, 2**70], np.uint64(2**64 - 1)):
        with pytest.raises(ValueError, match=re.escape(f"t: expected values in [1, {2**63 - 1}]")):
            T.stopping_threshold(t, 0.1, 3)
    assert T.stopping_threshold(np.array([], dtype=object), 0.1, 3).shape == (0,)


@pytest.mark.parametrize("sampler", ["TaS-D", "TTTS"])
def test_slow_sampling_rules_stop_on_sigint(sampler):
    # Each step solves a characteristic time (TaS) or re-draws the posterior (TTTS): the episode must
    # still notice Ctrl-C within a fraction of a second.
    assert_interrupts(
        "from paperkernels import toptwo as T",
        f"T.identify([0.5, 0.499, 0.498, 0.497, 0.3, 0.2], 1e-9, sampler={sampler!r}, seed=1, max_steps=10**9)",
    )


_SHARED_SAMPLER_CHILD = """
import copy, threading
import numpy as np
from paperkernels import toptwo as T

def mixed(s, seed, reads):
    rng = np.random.default_rng(seed)
    for k in range(1500):
        s.update(s.select(), int(rng.random() < 0.5))
        reads[k % len(reads)](s)

READS = [lambda s: s.N, lambda s: s.state(), lambda s: copy.copy(s), lambda s: s.update([0, 1], [1, 0]),
         lambda s: (s.should_stop(), s.recommendation, s.t)]
for round_ in range(8):
    s = T.TopTwo(5, delta=1e-6, seed=round_, threshold="union")
    threads = [threading.Thread(target=mixed, args=(s, i, READS[i % 5:] + READS[:i % 5])) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.t == 8 * (1500 + 2 * 300), s.t
print("done")
"""


def test_sampler_shared_by_eight_threads_never_deadlocks():
    # Calls that build numpy arrays under the sampler's lock, mixed with calls that wait for it,
    # once deadlocked with the GIL. In a child process, so that a deadlock fails instead of hanging.
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    done = subprocess.run(
        [sys.executable, "-c", _SHARED_SAMPLER_CHILD], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0 and done.stdout.split() == ["done"], done.stderr[-2000:]


def test_arguments_of_the_whole_call_are_named():
    bad("K", T.stopping_threshold, 10, 0.1, 2**31, kind="union")
    for key, value in (("seed", 3), ("n_threads", 2), ("arms", "gaussian")):
        with pytest.raises(ValueError, match=f"^samplers: '{key}' is an argument of the whole comparison"):
            T.compare([0.6, 0.4], 0.1, samplers=[{"sampler": "EB-TCI", key: value}], n_runs=1, seed=1)
    from paperkernels.distributed import run_grid

    for name, kwargs in (
        ("deltas", dict(deltas=0.1)),
        ("rules", dict(deltas=[0.1], rules="random")),
        ("thresholds", dict(deltas=[0.1], thresholds="union")),
    ):
        with pytest.raises(TypeError, match=f"^{name}: expected a sequence"):
            run_grid([[0.6, 0.4]], n_runs=2, seed=0, **kwargs)


def test_compare_passes_max_arms_to_the_characteristic_time():
    mu = np.concatenate([[0.9], np.linspace(0.0, 0.5, 40)])
    with pytest.raises(ValueError, match="max_arms"):
        T.compare(mu, 0.1, samplers=["uniform"], n_runs=1, seed=1, max_arms=20)
    result = T.compare(mu, 0.1, samplers=["uniform"], n_runs=1, seed=1, max_arms=41)
    assert result.T_star == T.characteristic_time(mu, max_arms=41).T


def test_round_robins_longer_than_any_episode_refused():
    # K * min_pulls past 2^62 wrapped around in the core's int64 and the call ran without end.
    for call in (
        lambda: T.identify([0.5, 0.4], 0.1, min_pulls=2**62, seed=0),
        lambda: T.run_many([0.5, 0.4, 0.3, 0.2], 0.1, n_runs=1, min_pulls=2**61, seed=0),
        lambda: T.TopTwo(2, min_pulls=2**62),
    ):
        with pytest.raises(ValueError, match="min_pulls: expected K \\* min_pulls <= 2\\^62"):
            call()
    # longer than the default max_steps: named, with the remedy
    with pytest.raises(ValueError, match="min_pulls: .* pass a larger max_steps"):
        T.identify([0.5, 0.4], 0.1, min_pulls=10**8)
    assert T.TopTwo(2, min_pulls=2**61).K == 2


def test_booleans_are_not_means_nor_arms():
    with pytest.raises(TypeError, match="mu: expected real means, got booleans"):
        T.identify([True, False], seed=0)
    with pytest.raises(TypeError, match="mu:"):
        T.characteristic_time(np.array([True, False]))
    sampler = T.TopTwo(2)
    for arms in ([0.0, 1.0], np.array([True, False])):
        with pytest.raises(TypeError, match="arm: expected integers"):
            sampler.update(arms, [1, 0])
    assert sampler.t == 0  # nothing recorded
    sampler.update(np.array([0, 1], dtype=np.uint8), [1, 0])
    sampler.update([], [])
    assert sampler.N.tolist() == [1, 1]


@pytest.mark.parametrize("duration", [np.timedelta64(3, "ns"), np.timedelta64(2), np.timedelta64(3, "s")])
def test_durations_refused_as_arms_and_rewards(duration):
    # numpy's timedelta64 is a numbers.Integral: it used to pass as an arm index or a reward
    sampler = T.TopTwo(3, seed=0)
    assert "timedelta64" in str(bad("arm", sampler.update, duration, 1.0))
    assert "timedelta64" in str(bad("reward", sampler.update, 0, duration))
    assert sampler.N.sum() == 0
