"""paperkernels.toptwo with many arms, where the leader comes from a tournament tree and the
challenger and the GLR statistic from a bounded cost index: the same decisions as the plain scans,
checked against the plain-Python reference episode and against a brute-force evaluation of every
cost at every step (many arms with equal counts, hence exactly equal costs, and tied leaders)."""

import math
import pickle

import numpy as np
import pytest

import toptwo_reference as ref
from paperkernels import toptwo as tt

MANY = 260  # above the number of arms from which the trees are used


def grid_means(K, seed, arms="bernoulli"):
    """Means on a coarse grid (many equal means, so many arms share their counts), unique best."""
    rng = np.random.default_rng(seed)
    mu = rng.integers(0, 7, K) / 10.0
    mu[rng.integers(K)] = 0.85
    return [float(m) if arms == "bernoulli" else float(2.0 * m) for m in mu]


@pytest.mark.parametrize(
    "kwargs",
    [dict(), dict(arms="gaussian", sigma=0.5), dict(challenger="TC", tie_break="first", rule="tracking")],
    ids=["bernoulli", "gaussian", "tc-first-tracking"],
)
def test_many_arms_match_reference_episode(kwargs):
    mu = grid_means(MANY, 1, kwargs.get("arms", "bernoulli"))
    rec, tau, N, S, hit, pulled = ref.episode(mu, 0.05, max_steps=MANY + 700, seed=4, **kwargs)
    got = tt.identify(mu, 0.05, max_steps=MANY + 700, seed=4, record=True, **kwargs)
    assert (got.recommendation, got.tau, got.hit_max_steps) == (rec, tau, hit)
    assert got.N.tolist() == N and got.arms.tolist() == pulled


def _brute_force(st, arms, penalise):
    """Leader check, Z and the challenger from the state's costs W (each computed on its own)."""
    N, S, W, B = st.N, st.S, st.W, st.leader
    if arms == "bernoulli":
        Ni, Si = [int(n) for n in N], [int(s) for s in S]
        assert all(Si[B] * Ni[j] >= Si[j] * Ni[B] for j in range(len(Ni)))  # B is a maximiser
    else:
        means = S / N
        assert means[B] == means.max()
    others = [j for j in range(len(N)) if j != B]
    Z = min(float(W[j]) for j in others)
    pen = {j: float(W[j]) + math.log(int(N[j])) if penalise else float(W[j]) for j in others}
    return Z, min(others, key=lambda j: (pen[j], j))


@pytest.mark.parametrize(
    "arms, challenger, tie_break, top, K, steps",
    [
        ("bernoulli", "TCI", "random", [0.6, 0.6], 300, 5000),
        ("bernoulli", "TC", "first", [0.6], 300, 5000),
        ("gaussian", "TCI", "random", [0.6], 300, 5000),
        ("bernoulli", "TCI", "random", [0.6, 0.6], 2100, 3600),  # more than 64 blocks of arms
    ],
)
def test_many_arms_index_equals_brute_force_at_every_step(arms, challenger, tie_break, top, K, steps):
    # Long runs of the incremental sampler on its own decisions, with rewards drawn here; at every
    # step the tree-based leader, Z and challenger are compared with a scan over the costs W.
    rng = np.random.default_rng(11)
    mu = np.concatenate([top, rng.integers(0, 6, K - len(top)) / 10.0])
    s = tt.TopTwo(K, delta=1e-12, seed=3, arms=arms, sigma=0.5, challenger=challenger, tie_break=tie_break)
    leaders = set()
    for _ in range(steps):
        arm = s.select()
        st = s.state()
        if st.initialised:
            Z, challenger_ = _brute_force(st, arms, challenger == "TCI")
            assert st.Z == Z and st.challenger == challenger_, st.t
            leaders.add(st.leader)
        x = float(rng.random() < mu[arm]) if arms == "bernoulli" else float(mu[arm] + 0.5 * rng.standard_normal())
        s.update(arm, x)
    assert s.t == steps and not s.should_stop()
    if len(top) > 1:
        assert len(leaders) > 1  # the leader changed, so the index was rebuilt


def _n_log_n(n):
    return 0.0 if n == 0 else n * math.log(n)


@pytest.mark.parametrize("K", [3, MANY])
def test_costs_past_the_tables_equal_the_definition_bit_for_bit(K):
    """Past 2^18 pulls the n log n tables stop and the sampler keeps each arm's logs itself (a pull
    recomputes only the logs of the counts that grew): the costs must still be exactly
    W(B, j) = max(0, G(S_B + S_j, N_B + N_j) - G(S_B, N_B) - G(S_j, N_j)) with G(s, n) =
    n log n - s log s - (n - s) log(n - s), each product formed as n times log n, and a restored
    copy (which recomputes every log) must agree."""
    rng = np.random.default_rng(K)
    heavy = np.arange(300_000) % 2  # arms 0 and 1 past 2^17 pulls each, the total past 2^18
    light = np.tile(np.arange(K), 30)
    arms = np.concatenate([light, heavy, light])
    means = np.concatenate([[0.7, 0.65], np.linspace(0.5, 0.2, K - 2)])
    rewards = (rng.random(arms.size) < means[arms]).astype(float)
    s = tt.TopTwo(K, seed=1)
    for part in np.array_split(np.arange(arms.size), 7):  # several batches, and single updates
        s.update(arms[part], rewards[part])
        s.update(int(arms[part[0]]), 1.0)
        s.update(int(arms[part[1]]), 0.0)
    st = s.state()
    N = [int(n) for n in st.N]
    S = [int(x) for x in st.S]
    assert st.t > 2**18 and max(N) > 2**17

    def G(s_, n_):
        return (_n_log_n(n_) - _n_log_n(s_)) - _n_log_n(n_ - s_)

    B = st.leader
    for j in range(K):
        if j == B:
            continue
        if S[j] * N[B] == S[B] * N[j]:
            expected = 0.0
        else:
            w = (G(S[B] + S[j], N[B] + N[j]) - G(S[B], N[B])) - G(S[j], N[j])
            expected = max(w, 0.0)
        assert st.W[j] == expected, j
    assert st.Z == min(st.W[j] for j in range(K) if j != B)
    restored = pickle.loads(pickle.dumps(s)).state()
    assert np.array_equal(restored.W, st.W) and restored.Z == st.Z and restored.challenger == st.challenger
