"""Hardening of paperkernels.toptwo: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from paperkernels import toptwo as T

from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    interrupted_quickly,
    poisoned,
    run_in_threads,
)
from test_resources import needs_proc, rss_growth

MODULE = "toptwo"


_hostile_counts, bad = hostile_checks(MODULE)


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
@given(mu=bandits(), delta=st.floats(1e-4, 0.5), seed=st.integers(0, 2**64 - 1),
       rule=st.sampled_from(["random", "tracking"]), challenger=st.sampled_from(["TCI", "TC"]),
       threshold=st.sampled_from(["gk16", "union", "kk21"]))
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
    for got, want in zip(run_in_threads(work, list(range(4))), expected):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_long_batch_interruptible(threads):
    mu = [0.5, 0.499]  # millions of steps per run
    interrupted_quickly(lambda: T.run_many(mu, 1e-3, n_runs=400, seed=0, n_threads=threads))


def test_long_episode_interruptible():
    interrupted_quickly(lambda: T.identify([0.5, 0.4999], 1e-6, seed=0, max_steps=10**12))


@needs_proc
@pytest.mark.skipif(os.environ.get("PAPERKERNELS_SANITIZED") == "1", reason="ASan quarantines freed memory")
def test_no_memory_growth():
    def call():
        T.run_many([0.7, 0.5, 0.4], 0.05, n_runs=20, seed=1, n_threads=2)
        T.identify([0.7, 0.5], 0.05, seed=2, record=True)
        sampler = T.TopTwo(3, seed=0)
        for _ in range(10):
            sampler.update(sampler.select(), 1.0)
        try:
            T.identify([0.5, 0.5])
        except ValueError:
            pass

    assert rss_growth(call, 300) < 8 * 2**20
