"""paperkernels.toptwo against independent references: the worked numbers of Jourdan et al. (2022), a plain-Python
episode on the same random streams (tests/toptwo_reference.py), closed forms, brute force and
high-precision root finding."""

import _thread
import math
import signal
import subprocess
import sys
import threading
import time

import mpmath
import numpy as np
import pytest
from scipy.special import rel_entr

import toptwo_reference as ref
from paperkernels import toptwo as tt

PUBLISHED_MU = [0.5, 0.45, 0.43, 0.4]


def kl_scipy(p, q):
    return rel_entr(p, q) + rel_entr(1 - p, 1 - q)


def feed_counts(sampler, N, S):
    for a, (n, s) in enumerate(zip(N, S, strict=False)):
        sampler.update([a] * n, [1] * s + [0] * (n - s))


# ------------------------------------------------------------------------------------------
# A deterministic one-step vector worked by hand


class TestOneStep:
    N = [10, 8, 6, 4]
    S = [6, 4, 2, 1]

    def state(self, **kwargs):
        sampler = tt.TopTwo(4, delta=0.1, seed=0, **kwargs)
        feed_counts(sampler, self.N, self.S)
        return sampler.state()

    def test_costs_challenger_and_statistic(self):
        st = self.state()
        assert st.t == 28 and st.initialised and st.leader == 0
        np.testing.assert_allclose(st.W[1:], [0.090014, 0.541153, 0.724603], atol=5e-7)
        np.testing.assert_allclose(st.W[1:] + np.log(self.N[1:]), [2.169456, 2.332913, 2.110898], atol=5e-7)
        assert st.challenger == 3
        assert st.Z == pytest.approx(0.090014, abs=5e-7) and st.Z == st.W[1]
        assert st.threshold == pytest.approx(3.768662, abs=5e-7)
        assert st.should_stop is False

    def test_tc_picks_the_smallest_cost(self):
        assert self.state(challenger="TC").challenger == 1

    def test_thresholds(self):
        assert tt.stopping_threshold(28, 0.1, 4) == pytest.approx(3.768662, abs=5e-7)
        assert tt.stopping_threshold(28, 0.1, 4, "union") == pytest.approx(7.426549, abs=5e-7)
        assert self.state(threshold="union").threshold == pytest.approx(7.426549, abs=5e-7)
        x = math.log(3 / 0.1) / 2
        kk21 = 2 * (x + 4 * math.log(1 + x + math.sqrt(2 * x))) + 6 * math.log(1 + math.log(14))
        assert tt.stopping_threshold(28, 0.1, 4, "kk21") == pytest.approx(kk21, rel=1e-14)

    @pytest.mark.parametrize("kind", ["gk16", "union", "kk21"])
    def test_thresholds_bit_equal_to_the_reference_formulas(self, kind):
        t = np.unique(np.geomspace(2, 10**9, 300).astype(np.int64))
        got = tt.stopping_threshold(t, 0.01, 7, kind)
        assert got.tolist() == [ref.threshold_value(kind, int(x), 0.01, 7) for x in t]
        assert np.all(np.diff(got) >= 0)

    def test_helpers_broadcast_and_return_scalars(self):
        assert isinstance(tt.kl_bernoulli(0.3, 0.2), float)
        assert tt.kl_bernoulli([[0.1], [0.2]], [0.3, 0.4, 0.5]).shape == (2, 3)
        assert isinstance(tt.transportation_cost(0.6, 10, 0.4, 8), float)
        assert tt.transportation_cost(0.4, 10, 0.6, 8) == 0.0
        assert tt.transportation_cost([0.6, 0.7], 10, 0.4, [[8], [9], [10]]).shape == (3, 2)

    def test_log_free_form_equals_kl_form(self):
        # The kernel's G form against N_B kl(mu_B, m) + N_j kl(mu_j, m) evaluated with scipy.
        st = self.state()
        N, S = np.array(self.N, float), np.array(self.S, float)
        mu = S / N
        m = (S[0] + S[1:]) / (N[0] + N[1:])
        expected = N[0] * kl_scipy(mu[0], m) + N[1:] * kl_scipy(mu[1:], m)
        np.testing.assert_allclose(st.W[1:], expected, rtol=1e-12)
        np.testing.assert_allclose(tt.transportation_cost(mu[0], N[0], mu[1:], N[1:]), expected, rtol=1e-13)

    def test_gaussian_costs(self):
        sampler = tt.TopTwo(3, arms="gaussian", sigma=2.0, seed=0)
        sampler.update([0, 0, 1, 2, 2, 2], [1.0, 2.0, 0.5, -1.0, 0.0, 4.0])
        st = sampler.state()
        means = np.array([1.5, 0.5, 1.0])
        expected = (means[0] - means[1:]) ** 2 / (2 * 4.0 * (1 / 2 + 1 / np.array([1, 3])))
        assert st.leader == 0
        np.testing.assert_allclose(st.W[1:], expected, rtol=1e-15)
        np.testing.assert_allclose(
            tt.transportation_cost(1.5, 2, means[1:], [1, 3], arms="gaussian", sigma=2.0), expected
        )

    def test_cost_zero_unless_strictly_better(self):
        sampler = tt.TopTwo(3, seed=0, tie_break="first")
        feed_counts(sampler, [4, 2, 6], [2, 1, 1])  # arms 0 and 1 tie at 1/2
        st = sampler.state()
        assert st.leader == 0 and st.W[1] == 0.0 and st.Z == 0.0 and st.W[2] > 0


# ------------------------------------------------------------------------------------------
# Decision-for-decision agreement with the plain-Python reference episode

REFERENCE_CASES = {
    "published": dict(mu=PUBLISHED_MU, delta=0.01),
    "random": dict(mu=[0.7, 0.5, 0.45, 0.3], delta=0.05),
    "tracking": dict(mu=[0.7, 0.5, 0.45, 0.3], delta=0.05, rule="tracking"),
    "tc-beta": dict(mu=[0.6, 0.5, 0.3], delta=0.1, challenger="TC", beta=0.3),
    "ties-first": dict(mu=[0.3, 0.2, 0.2], delta=0.2, tie_break="first", rule="tracking"),
    "endpoints": dict(mu=[1.0, 0.9, 0.0, 0.9], delta=0.01),
    "forced": dict(mu=[0.6, 0.4, 0.35, 0.2, 0.1], delta=0.1, forced_exploration=True),
    "forced-tracking": dict(mu=[0.6, 0.4, 0.35, 0.2, 0.1], delta=0.1, forced_exploration=True, rule="tracking"),
    "min-pulls": dict(mu=[0.6, 0.45, 0.4], delta=0.1, min_pulls=3, beta=0.7),
    "union": dict(mu=[0.8, 0.6, 0.5], delta=0.1, threshold="union"),
    "kk21": dict(mu=[0.8, 0.6, 0.5], delta=0.1, threshold="kk21", rule="tracking"),
    "two-arms": dict(mu=[0.55, 0.35], delta=0.01),
    "max-steps": dict(mu=[0.52, 0.5, 0.48], delta=0.001, max_steps=300),
    "gaussian": dict(mu=[1.0, 0.6, 0.5, 0.0], delta=0.05, arms="gaussian", sigma=1.0),
    "gaussian-tracking": dict(mu=[0.3, 0.0, -0.2], delta=0.1, arms="gaussian", sigma=0.5, rule="tracking"),
}


@pytest.mark.parametrize("case", sorted(REFERENCE_CASES))
def test_identify_matches_reference_episode(case):
    kwargs = dict(REFERENCE_CASES[case])
    mu, delta = kwargs.pop("mu"), kwargs.pop("delta")
    for seed in [0, 1, 2, 3, 5, 8, 13, 21, 2**63 + 7, 2**64 - 1]:
        rec, tau, N, S, hit, pulled = ref.episode(mu, delta, seed=seed, **kwargs)
        got = tt.identify(mu, delta, seed=seed, record=True, **kwargs)
        assert (got.recommendation, got.tau, got.hit_max_steps) == (rec, tau, hit), seed
        assert got.N.tolist() == N and got.S.tolist() == S
        assert got.arms.tolist() == pulled


def test_identify_matches_reference_with_array_and_callable_thresholds():
    mu, delta, max_steps = [0.7, 0.55, 0.5], 0.05, 5000
    t = np.arange(max_steps + 1)
    # A non-monotone threshold, so nothing can rely on monotonicity.
    values = np.log(1 + np.maximum(t, 1)) + 0.5 * np.sin(t)
    for seed in range(6):
        expected = ref.episode(mu, delta, threshold="array", threshold_values=values, max_steps=max_steps, seed=seed)
        got = tt.identify(mu, delta, threshold=values, seed=seed)
        fn = tt.identify(
            mu,
            delta,
            threshold=lambda t, d: np.log(1 + np.maximum(t, 1)) + 0.5 * np.sin(t),
            max_steps=max_steps,
            seed=seed,
        )
        for e in (got, fn):
            assert (e.recommendation, e.tau, e.N.tolist()) == expected[:3]


def test_array_threshold_equal_to_named_gives_the_same_episode():
    t = np.arange(1, 100_001)
    values = np.concatenate([[0.0], tt.stopping_threshold(t, 0.01, 4)])
    for seed in range(5):
        a = tt.identify(PUBLISHED_MU, 0.01, seed=seed, max_steps=100_000)
        b = tt.identify(PUBLISHED_MU, 0.01, threshold=values, seed=seed)
        assert (a.tau, a.recommendation, a.N.tolist()) == (b.tau, b.recommendation, b.N.tolist())


def test_ties_are_drawn_from_the_decision_stream():
    # Small counts tie often: the random tie-break (below() on the decision stream) must agree
    # with the reference, and must matter, i.e. differ from "first" on some seeds.
    mu = [0.6, 0.5, 0.4]
    random_ties = [tt.identify(mu, 0.3, seed=s, record=True).arms.tolist() for s in range(30)]
    assert random_ties == [ref.episode(mu, 0.3, seed=s)[5] for s in range(30)]
    first_ties = [tt.identify(mu, 0.3, seed=s, record=True, tie_break="first").arms.tolist() for s in range(30)]
    assert first_ties == [ref.episode(mu, 0.3, seed=s, tie_break="first")[5] for s in range(30)]
    assert sum(a != b for a, b in zip(random_ties, first_ties, strict=False)) >= 10


# ------------------------------------------------------------------------------------------
# run_many and the incremental sampler


def test_run_many_run_zero_is_identify_and_runs_are_reference_episodes():
    mu = [0.7, 0.5, 0.45, 0.3]
    runs = tt.run_many(mu, 0.05, 8, seed=99, n_threads=2)
    first = tt.identify(mu, 0.05, seed=99)
    assert runs.tau[0] == first.tau and runs.N[0].tolist() == first.N.tolist()
    for r in range(8):
        rec, tau, N, S, hit, _ = ref.episode(mu, 0.05, seed=99, run=r)
        assert (runs.recommendation[r], runs.tau[r], runs.N[r].tolist(), runs.S[r].tolist()) == (rec, tau, N, S)
    assert len(set(runs.tau.tolist())) > 1


@pytest.mark.parametrize("arms", ["bernoulli", "gaussian"])
def test_run_many_identical_for_1_2_5_threads(arms):
    mu = [0.6, 0.5, 0.45, 0.4, 0.3]
    results = [tt.run_many(mu, 0.05, 101, arms=arms, seed=7, n_threads=n) for n in (1, 2, 5)]
    for other in results[1:]:
        for name in ("tau", "recommendation", "N", "S", "hit_max_steps"):
            assert np.array_equal(getattr(results[0], name), getattr(other, name)), name


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(),
        dict(rule="tracking"),
        dict(forced_exploration=True, challenger="TC"),
        dict(arms="gaussian", sigma=0.3, rule="tracking"),
        dict(min_pulls=2, tie_break="first", threshold="kk21"),
    ],
    ids=["random", "tracking", "forced-tc", "gaussian", "min-pulls-kk21"],
)
def test_incremental_sampler_reproduces_identify(kwargs):
    mu, delta = [0.65, 0.5, 0.45, 0.35], 0.05
    for seed in range(8):
        episode = tt.identify(mu, delta, seed=seed, record=True, **kwargs)
        sampler = tt.TopTwo(4, delta=delta, seed=seed, **kwargs)
        for arm, reward in zip(episode.arms, episode.rewards, strict=False):
            assert not sampler.should_stop()
            assert sampler.select() == arm
            assert sampler.select() == arm  # cached: no second draw
            sampler.update(int(arm), reward)
        assert sampler.should_stop()
        assert sampler.recommendation == episode.recommendation
        assert sampler.t == episode.tau and sampler.N.tolist() == episode.N.tolist()
        np.testing.assert_array_equal(sampler.S, episode.S)


def test_incremental_batches_and_callable_threshold():
    calls = []

    def c(t, delta):
        calls.append(len(t))
        return np.log((1 + np.log(np.maximum(t, 1))) / delta)

    mu, delta = [0.7, 0.5, 0.45], 0.05
    episode = tt.identify(mu, delta, seed=4, record=True)
    sampler = tt.TopTwo(3, delta=delta, threshold=c, seed=4)
    for arm, reward in zip(episode.arms, episode.rewards, strict=False):
        assert sampler.select() == arm
        sampler.update(int(arm), reward)
        sampler.should_stop()
    assert sampler.should_stop() and sampler.t == episode.tau
    assert sum(calls) >= episode.tau and len(calls) <= 2 + math.log2(episode.tau)
    batch = tt.TopTwo(3, delta=delta, seed=4)
    batch.update(episode.arms, episode.rewards)
    assert batch.N.tolist() == episode.N.tolist() and batch.should_stop()


def test_incremental_array_threshold_too_short():
    sampler = tt.TopTwo(2, threshold=np.full(5, 100.0), seed=0)
    sampler.update([0, 1, 0, 1, 0], [1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"threshold: the array has 5 entries .* t = 5"):
        sampler.should_stop()


def test_incremental_state_before_initialisation():
    sampler = tt.TopTwo(3, min_pulls=2, seed=0)
    assert sampler.recommendation is None and not sampler.should_stop()
    assert [sampler.select() for _ in range(2)] == [0, 0]
    for arm, x in [(0, 1), (1, 0), (2, 1)]:
        assert sampler.select() == arm
        sampler.update(arm, x)
    st = sampler.state()
    assert not st.initialised and st.leader is None and st.W is None
    assert sampler.recommendation == 0  # lowest-indexed empirical best during the round robin
    assert sampler.select() == 0


# ------------------------------------------------------------------------------------------
# Characteristic times


def test_characteristic_time_spec_values():
    T, w = tt.characteristic_time(PUBLISHED_MU, beta=0.5)
    assert T == pytest.approx(1019.37157, abs=5e-6)
    np.testing.assert_allclose(w, [0.5, 0.321540, 0.124524, 0.053936], atol=5e-7)
    opt = tt.characteristic_time(PUBLISHED_MU)
    assert opt.T == pytest.approx(989.79214, abs=5e-6)
    assert opt.beta == pytest.approx(0.416524, abs=5e-7) and opt.weights[0] == opt.beta
    two = tt.characteristic_time([0.6, 0.4])
    assert two.T == pytest.approx(49.6634962, abs=5e-8) and two.beta == pytest.approx(0.5, abs=1e-12)
    assert two.T == pytest.approx(1 / kl_scipy(0.6, 0.5), rel=1e-13)


def _check_certificate(mu, result, arms="bernoulli", sigma=1.0):
    # At the optimum every C_a(w) equals 1/T and the weights sum to 1.
    mu, w, b = np.asarray(mu, float), result.weights, result.best
    others = [a for a in range(len(mu)) if a != b]
    C = tt.transportation_cost(mu[b], w[b], mu[others], w[others], arms=arms, sigma=sigma)
    np.testing.assert_allclose(C, 1 / result.T, rtol=1e-12)
    assert w.sum() == pytest.approx(1.0, abs=1e-13)


@pytest.mark.parametrize("seed", range(6))
def test_two_arm_closed_forms(seed):
    rng = np.random.default_rng(seed)
    m1, m2 = np.sort(rng.uniform(0.02, 0.98, 2))[::-1]
    beta = rng.uniform(0.05, 0.95)
    m = beta * m1 + (1 - beta) * m2
    expected = 1 / (beta * kl_scipy(m1, m) + (1 - beta) * kl_scipy(m2, m))
    got = tt.characteristic_time([m2, m1], beta=beta)
    assert got.T == pytest.approx(expected, rel=1e-11) and got.best == 1
    np.testing.assert_allclose(got.weights, [1 - beta, beta], rtol=1e-12)

    # T* = 1 / kl(m1, z) at the Chernoff point z where kl(m1, z) = kl(m2, z):
    # (m1 - m2) log(z / (1 - z)) = H(m1) - H(m2) with H(p) = p log p + (1-p) log(1-p).
    def H(p):
        return p * math.log(p) + (1 - p) * math.log(1 - p)

    z = 1 / (1 + math.exp((H(m2) - H(m1)) / (m1 - m2)))
    best = tt.characteristic_time([m2, m1])
    assert best.T == pytest.approx(1 / kl_scipy(m1, z), rel=1e-11)
    assert best.beta == pytest.approx((z - m2) / (m1 - m2), rel=1e-8)
    # Gaussian arms: T*_beta = 2 sigma^2 (1/beta + 1/(1-beta)) / gap^2 and T* = 8 sigma^2 / gap^2.
    gauss = tt.characteristic_time([m1, m2], beta=beta, arms="gaussian", sigma=1.7)
    assert gauss.T == pytest.approx(2 * 1.7**2 * (1 / beta + 1 / (1 - beta)) / (m1 - m2) ** 2, rel=1e-12)
    gauss_opt = tt.characteristic_time([m1, m2], arms="gaussian", sigma=1.7)
    assert gauss_opt.T == pytest.approx(8 * 1.7**2 / (m1 - m2) ** 2, rel=1e-12)
    assert gauss_opt.beta == pytest.approx(0.5, abs=1e-9)


def _grid_inverse_T(mu, beta, arms, sigma, points=2001, rounds=4):
    """max over w_1 + w_2 = 1 - beta of min(C_1, C_2) for K = 3, by repeatedly zoomed grids."""
    mu = np.asarray(mu, float)
    b = int(np.argmax(mu))
    o1, o2 = [a for a in range(3) if a != b]

    def C(w_b, mu_a, w_a):
        if arms == "gaussian":
            return (mu[b] - mu_a) ** 2 / (2 * sigma**2 * (1 / w_b + 1 / w_a))
        m = (w_b * mu[b] + w_a * mu_a) / (w_b + w_a)
        return w_b * kl_scipy(mu[b], m) + w_a * kl_scipy(mu_a, m)

    beta = np.atleast_1d(beta)[:, None]
    lo, hi = np.zeros_like(beta), 1 - beta
    for _ in range(rounds):
        w1 = lo + (hi - lo) * np.linspace(0, 1, points)[None, :]
        w1 = np.clip(w1, 1e-300, None)
        w2 = np.clip(1 - beta - w1, 1e-300, None)
        value = np.minimum(C(beta, mu[o1], w1), C(beta, mu[o2], w2))
        k = np.argmax(value, axis=1)
        step = (hi - lo)[:, 0] / (points - 1)
        centre = w1[np.arange(len(k)), k]
        lo = np.maximum(centre - 2 * step, 0)[:, None]
        hi = np.minimum(centre + 2 * step, (1 - beta)[:, 0])[:, None]
    return value[np.arange(len(k)), k]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("arms", ["bernoulli", "gaussian"])
def test_characteristic_time_against_brute_force_grid(seed, arms):
    rng = np.random.default_rng(100 + seed)
    mu = rng.uniform(0.05, 0.95, 3)
    beta = rng.uniform(0.1, 0.9)
    got = tt.characteristic_time(mu, beta=beta, arms=arms, sigma=0.8)
    assert got.T == pytest.approx(1 / _grid_inverse_T(mu, beta, arms, 0.8)[0], rel=1e-8)
    _check_certificate(mu, got, arms, 0.8)
    # T*: brute force over a zoomed grid of beta as well.
    lo, hi = 0.01, 0.99
    for _ in range(4):
        betas = np.linspace(lo, hi, 41)
        inv = _grid_inverse_T(mu, betas, arms, 0.8, points=801)
        k = int(np.argmax(inv))
        step = betas[1] - betas[0]
        lo, hi = max(betas[k] - 2 * step, 1e-6), min(betas[k] + 2 * step, 1 - 1e-6)
    best = tt.characteristic_time(mu, arms=arms, sigma=0.8)
    assert best.T == pytest.approx(1 / inv[k], rel=1e-7)
    assert best.T <= 1 / inv[k] * (1 + 1e-12)
    _check_certificate(mu, best, arms, 0.8)


def _mp_root(f, lo, hi, tol):
    """Root of an increasing f on [lo, hi]: Illinois false position, with a bisection every third
    step unless the bracket has halved meanwhile."""
    flo, fhi = f(lo), f(hi)
    assert flo < 0 < fhi
    side, width = 0, hi - lo
    for iteration in range(1000):
        if iteration % 3 == 2 and hi - lo > width / 2:
            c = (lo + hi) / 2
        else:
            c = (lo * fhi - hi * flo) / (fhi - flo)
        if iteration % 3 == 2:
            width = hi - lo
        fc = f(c)
        if fc == 0:
            return c
        if fc < 0:
            lo, flo = c, fc
            fhi = fhi / 2 if side == -1 else fhi
            side = -1
        else:
            hi, fhi = c, fc
            flo = flo / 2 if side == 1 else flo
            side = 1
        if hi - lo <= tol * max(abs(lo), abs(hi)):
            return (lo + hi) / 2
    raise AssertionError("no convergence")


def _mp_kl(p, q):
    """The plain Bernoulli kl formula in the current mpmath precision, with 0 log 0 = 0."""
    out = mpmath.mpf(0)
    if p > 0:
        out += p * mpmath.log(p / q)
    if p < 1:
        out += (1 - p) * mpmath.log((1 - p) / (1 - q))
    return out


def _mp_inverse_T(mu, beta, dps=40):
    """1 / T*_beta by nested root finding in 40-digit arithmetic, with the plain kl formula."""
    with mpmath.workdps(dps):
        mu = [mpmath.mpf(float(x)) for x in mu]
        beta = mpmath.mpf(float(beta))
        b = max(range(len(mu)), key=lambda a: mu[a])
        top = mu[b]
        tol = mpmath.mpf(10) ** (-dps + 8)

        def g(x, m_a):
            m = (top + x * m_a) / (1 + x)
            return _mp_kl(top, m) + x * _mp_kl(m_a, m)

        def weight(m_a, y):
            return beta * mpmath.exp(
                _mp_root(lambda u: g(mpmath.exp(u), m_a) - y, mpmath.mpf(-60), mpmath.mpf(60), tol)
            )

        caps = [beta * (_mp_kl(top, m) if m > 0 else mpmath.inf) for a, m in enumerate(mu) if a != b]
        hi = min(caps)
        # Every kl(mu*, mu_a) infinite (arms at 0): a v where C_a = v needs w_a / beta near
        # exp(v / mu*), inside the reference's bracket for v = 10 mu*.
        hi = hi if hi != mpmath.inf else 10 * top

        def excess(v):
            return sum(weight(m, v / beta) for a, m in enumerate(mu) if a != b) - (1 - beta)

        return _mp_root(excess, hi * mpmath.mpf("1e-6"), hi * (1 - mpmath.mpf("1e-12")), tol)


@pytest.mark.parametrize(
    "mu,beta",
    [
        (PUBLISHED_MU, 0.5),
        ([0.999, 0.998, 0.5], 0.5),  # tiny gap near the upper endpoint
        ([0.02, 0.01, 0.001], 0.3),  # near the lower endpoint
        ([0.9, 0.1, 0.0], 0.5),  # an arm at 0: infinite kl(mu*, mu_a)
        ([1.0, 0.7, 0.2], 0.6),  # best arm at 1
        ([0.5, 0.45, 0.4], 0.001),  # beta near 0
        ([0.5, 0.45, 0.4], 0.999),  # beta near 1
        ([0.001, 0.0], 0.5),  # a small best mean against 0: weights exponential in 1 / T
        ([0.002, 0.0, 0.0, 0.0], 0.5),
        ([0.0005, 0.0, 0.0003], 0.2),
    ],
)
def test_characteristic_time_relative_error_far_below_1e_9(mu, beta):
    got = tt.characteristic_time(mu, beta=beta)
    exact = 1 / _mp_inverse_T(mu, beta)
    assert abs(got.T - float(exact)) <= 1e-12 * float(exact)


def _mp_two_arm_T(top, other, beta):
    """T*_beta of two Bernoulli arms in closed form: the weight of the other arm is 1 - beta."""
    with mpmath.workdps(60):
        b, top, other = mpmath.mpf(beta), mpmath.mpf(top), mpmath.mpf(other)
        m = b * top + (1 - b) * other

        return 1 / (b * _mp_kl(top, m) + (1 - b) * _mp_kl(other, m))


@pytest.mark.parametrize("top", [1e-3, 5e-4, 1e-7, 1e-10, 1e-30])
def test_characteristic_time_of_a_small_mean_against_zero(top):
    # kl(mu*, 0) is infinite and C_a grows only like mu* log(w_a): the solver once crept along
    # the exponential and stopped at a wrong T with weights summing to 2 or 1e54.
    for beta in (0.5, 0.2, 0.9):
        for mu in ([top, 0.0], [0.0, top]):
            got = tt.characteristic_time(mu, beta=beta)
            exact = float(_mp_two_arm_T(top, 0.0, beta))
            assert abs(got.T - exact) <= 1e-12 * exact and abs(sum(got.weights) - 1) <= 1e-12
    # The optimal beta tends to 1/e and T* to e / mu* as mu* -> 0.
    best = tt.characteristic_time([top, 0.0])
    assert abs(sum(best.weights) - 1) <= 1e-12
    at_best = float(_mp_two_arm_T(top, 0.0, best.beta))
    assert abs(best.T - at_best) <= 1e-12 * at_best
    for shift in (-1e-3, 1e-3):
        assert float(_mp_two_arm_T(top, 0.0, best.beta + shift)) > best.T
    if top <= 1e-7:
        assert abs(best.beta - 1 / math.e) < 1e-5 and abs(best.T * top / math.e - 1) < 1e-5


@pytest.mark.parametrize("top", [1e-147, 1e-148, 3e-148, 1e-250, 1e-300, 2.3e-308])
def test_characteristic_time_of_a_tiny_mean_against_zero(top):
    # T* = e / mu_1 and beta* = 1 / e to first order in mu_1 (the value 1 / T* far below 1, where
    # the solve must first bracket it).
    best = tt.characteristic_time([top, 0.0])
    assert best.T == pytest.approx(math.e / top, rel=1e-14) and best.beta == pytest.approx(1 / math.e, rel=1e-14)
    if top < 1e-300:
        return  # three arms: T = 4.3 / mu_1 is beyond float64
    assert tt.characteristic_time([0.0, top, 0.0]).T == pytest.approx(
        tt.characteristic_time([0.0, 1e-100, 0.0]).T * 1e-100 / top, rel=1e-13
    )


@pytest.mark.parametrize(
    "mu,kwargs",
    [
        ([0.0, 5e-324], dict(beta=0.5)),
        ([0.0, 5e-324], {}),
        ([0.0, 0.0, 1e-308], {}),  # T = 4.3e308
        ([0.0, 1e-308], dict(beta=0.5)),
        ([1e-200, 0.0], dict(arms="gaussian")),
        ([1e-200, 0.0], dict(arms="gaussian", beta=0.5)),
    ],
)
def test_characteristic_time_beyond_the_doubles_is_refused(mu, kwargs):
    with pytest.raises(ValueError, match="^mu: the characteristic time"):
        tt.characteristic_time(mu, **kwargs)


def test_optimal_beta_is_a_minimum_in_high_precision():
    best = tt.characteristic_time(PUBLISHED_MU)
    at_best = float(1 / _mp_inverse_T(PUBLISHED_MU, best.beta))
    assert abs(best.T - at_best) <= 1e-10 * at_best
    for shift in (-1e-3, 1e-3):
        assert float(1 / _mp_inverse_T(PUBLISHED_MU, best.beta + shift)) > best.T * (1 + 1e-9)


def test_kl_bernoulli_against_scipy_and_mpmath():
    rng = np.random.default_rng(0)
    p, q = rng.uniform(0, 1, 1000), rng.uniform(0, 1, 1000)
    np.testing.assert_allclose(tt.kl_bernoulli(p, q), kl_scipy(p, q), rtol=1e-12)
    assert tt.kl_bernoulli(0.0, 0.3) == pytest.approx(-math.log(0.7), rel=1e-15)
    assert tt.kl_bernoulli(1.0, 0.3) == pytest.approx(-math.log(0.3), rel=1e-15)
    assert tt.kl_bernoulli(0.0, 0.0) == 0.0 and tt.kl_bernoulli(1.0, 1.0) == 0.0
    assert tt.kl_bernoulli(0.3, 0.0) == math.inf and tt.kl_bernoulli(0.3, 1.0) == math.inf
    # Near p = q the naive formula loses every digit; the kernel's stays accurate.
    with mpmath.workdps(50):
        for p0, q0 in [(0.3, 0.3 + 1e-9), (0.7, 0.7 - 3e-12), (1e-5, 1.1e-5)]:
            P, Q = mpmath.mpf(p0), mpmath.mpf(q0)
            exact = P * mpmath.log(P / Q) + (1 - P) * mpmath.log((1 - P) / (1 - Q))
            assert tt.kl_bernoulli(p0, q0) == pytest.approx(float(exact), rel=1e-12)


# ------------------------------------------------------------------------------------------
# Statistical behaviour (a published instance)


def test_mean_stopping_time_matches_the_published_figure():
    # Published: mean tau about 6700-6750 with standard deviation about 3100 (beta = 1/2, gk16, delta = 0.01).
    runs = {}
    for name, kwargs in [
        ("random", {}),
        ("tracking", dict(rule="tracking")),
        ("forced", dict(forced_exploration=True)),
    ]:
        r = tt.run_many(PUBLISHED_MU, 0.01, 3000, seed=2024, **kwargs)
        runs[name] = r
        assert 6700 - 4 * r.se_tau <= r.mean_tau <= 6750 + 4 * r.se_tau, (name, r.mean_tau, r.se_tau)
        assert 2700 < r.tau.std() < 3500
        assert r.error_rate <= 0.01 and not r.hit_max_steps.any()
    base = runs["random"]
    for name in ("tracking", "forced"):
        other = runs[name]
        assert abs(other.mean_tau - base.mean_tau) <= 4 * math.hypot(other.se_tau, base.se_tau), name
    # Stopping time against the asymptotic T*_{1/2} log(1/delta) (lower-order terms make it larger).
    T = tt.characteristic_time(PUBLISHED_MU, beta=0.5).T
    assert T * math.log(100) < base.mean_tau < 1.6 * T * math.log(100)


def test_gaussian_and_union_threshold_statistics():
    mu = [1.0, 0.7, 0.6, 0.2]
    r = tt.run_many(mu, 0.05, 2000, arms="gaussian", sigma=1.0, threshold="union", seed=3)
    assert r.error_rate <= 0.05
    lower = tt.characteristic_time(mu, beta=0.5, arms="gaussian").T * math.log(1 / 0.05)
    assert lower < r.mean_tau


def test_max_steps_guard():
    r = tt.run_many([0.5, 0.4999], 0.01, 4, max_steps=1000, seed=0)
    assert r.hit_max_steps.all() and (r.tau == 1000).all() and (r.N.sum(axis=1) == 1000).all()
    e = tt.identify([0.5, 0.4999], 0.01, max_steps=1000, seed=0)
    assert e.hit_max_steps and e.tau == 1000 and e.recommendation in (0, 1)


# ------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(mu=[0.5, 1.2]), ValueError, r"mu: expected values in \[0.0, 1.0\]"),
        (dict(mu=[0.5, -0.1]), ValueError, r"mu: expected values in"),
        (dict(mu=[0.5, np.nan]), ValueError, "mu: expected finite values"),
        (dict(mu=[0.5, 0.5, 0.2]), ValueError, "mu: expected a unique best arm"),
        (dict(mu=[0.5]), ValueError, "mu: expected at least 2 arms"),
        (dict(mu=[[0.5, 0.2]]), ValueError, "mu: expected a 1-d array"),
        (dict(mu=[]), ValueError, "mu: expected a 1-d array|mu: expected a non-empty"),
        (dict(delta=0.0), ValueError, r"delta: expected a number in \(0, 1\)"),
        (dict(delta=1.0), ValueError, r"delta: expected a number in \(0, 1\)"),
        (dict(delta=np.nan), ValueError, "delta: expected a finite number"),
        (dict(beta=1.0), ValueError, r"beta: expected a number in \(0, 1\)"),
        (dict(beta=0.0), ValueError, r"beta: expected a number in \(0, 1\)"),
        (dict(challenger="TTS"), ValueError, "challenger: expected one of 'TCI', 'TC'"),
        (dict(rule="rand"), ValueError, "rule: expected one of 'random', 'tracking'"),
        (dict(arms="poisson"), ValueError, "arms: expected one of"),
        (dict(sigma=0.0), ValueError, "sigma: expected a number in"),
        (dict(threshold="lil"), ValueError, "threshold: expected one of 'gk16', 'union', 'kk21'"),
        (
            dict(threshold=np.ones(50), max_steps=100),
            ValueError,
            r"threshold: expected an array of max_steps \+ 1 = 101",
        ),
        (dict(threshold=[1.0, np.nan, 2.0] * 10), ValueError, "threshold: expected no NaN"),
        (dict(threshold=np.ones(2)), ValueError, "threshold: expected an array of at least"),
        (dict(threshold=lambda t, d: np.ones(3), max_steps=100), ValueError, "threshold: the callable must map"),
        (dict(threshold=lambda t, d: np.ones_like(t, float)), ValueError, "max_steps: a callable threshold needs"),
        (dict(max_steps=1), ValueError, r"max_steps: expected an integer in \[2, 4611686018427387904\]"),
        (dict(max_steps=2**70), ValueError, r"max_steps: expected an integer in \[2, "),
        (dict(min_pulls=0), ValueError, r"min_pulls: expected an integer in \[1, "),
        (dict(seed=-1), ValueError, "seed: expected an integer in"),
        (dict(seed=1.5), TypeError, "seed: expected None"),
        (dict(forced_exploration="yes"), TypeError, "forced_exploration: expected a bool"),
        (dict(tie_break="last"), ValueError, "tie_break: expected one of"),
    ],
)
def test_bad_input(kwargs, exc, match):
    args = dict(mu=[0.5, 0.4], delta=0.1, seed=0)
    args.update(kwargs)
    mu, delta = args.pop("mu"), args.pop("delta")
    with pytest.raises(exc, match=match):
        tt.identify(mu, delta, **args)
    with pytest.raises(exc, match=match):
        tt.run_many(mu, delta, 2, **args)


def test_bad_input_elsewhere():
    with pytest.raises(ValueError, match="n_runs: expected an integer in"):
        tt.run_many([0.5, 0.4], 0.1, 0)
    with pytest.raises(ValueError, match="n_threads: expected a positive integer"):
        tt.run_many([0.5, 0.4], 0.1, 2, n_threads=0)
    with pytest.raises(ValueError, match="K: expected an integer in"):
        tt.TopTwo(1)
    with pytest.raises(ValueError, match=r"delta: expected a number in \(0, 1\)"):
        tt.TopTwo(3, delta=2.0)
    sampler = tt.TopTwo(3, seed=0)
    with pytest.raises(ValueError, match=r"arm: expected an integer in \[0, 2\]"):
        sampler.update(3, 1)
    with pytest.raises(ValueError, match="reward: Bernoulli arms expect rewards 0 or 1"):
        sampler.update(0, 0.5)
    with pytest.raises(ValueError, match="reward: Bernoulli arms expect rewards 0 or 1"):
        sampler.update([0, 1], [1, 2])
    assert sampler.t == 0  # a bad batch changes nothing
    with pytest.raises(ValueError, match="arm, reward: expected the same number"):
        sampler.update([0, 1], [1])
    gaussian = tt.TopTwo(2, arms="gaussian", seed=0)
    with pytest.raises(ValueError, match="reward: expected a finite number"):
        gaussian.update(0, float("nan"))
    with pytest.raises(ValueError, match="mu: expected a unique best arm"):
        tt.characteristic_time([0.3, 0.3])
    with pytest.raises(ValueError, match=r"beta: expected a number in \(0, 1\)"):
        tt.characteristic_time([0.3, 0.2], beta=1.5)
    with pytest.raises(ValueError, match=r"p: expected values in \[0.0, 1.0\]"):
        tt.kl_bernoulli(1.5, 0.5)
    with pytest.raises(ValueError, match="n_j: expected positive counts"):
        tt.transportation_cost(0.5, 1, 0.4, 0)
    with pytest.raises(ValueError, match="p, q: shapes"):
        tt.kl_bernoulli([0.1, 0.2], [0.1, 0.2, 0.3])


def test_gaussian_means_may_be_any_real():
    e = tt.identify([5.0, -3.0, 4.0], 0.01, arms="gaussian", sigma=2.0, seed=0)
    assert e.recommendation == 0 and not e.hit_max_steps


# ------------------------------------------------------------------------------------------
# Interruption and the demo


def test_run_many_can_be_interrupted():
    # A process started in the background inherits SIGINT ignored, and interrupt_main then does nothing.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    start = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            tt.run_many([0.5, 0.49999], 1e-9, 4, n_threads=2, seed=0)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert time.perf_counter() - start < 5.0
    timer.join()


def test_demo_runs():
    out = subprocess.run(
        [sys.executable, "-m", "paperkernels", "demo", "toptwo"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "T*_beta" in out.stdout and "mean tau" in out.stdout
