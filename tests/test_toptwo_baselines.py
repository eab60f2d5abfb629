"""The fixed-confidence baselines of paperkernels.toptwo (uniform sampling and the top-two family's
other leaders and challengers) against the plain-Python reference episode on the same random
streams (tests/toptwo_reference.py): tau, the recommendation, N, S and every pulled arm identical."""

import copy
import pickle

import numpy as np
import pytest

import toptwo_reference as ref
from paperkernels import _core
from paperkernels import toptwo as tt

SEEDS = [0, 1, 2, 7, 2**63 + 5]

CASES = {
    "bernoulli": dict(mu=[0.7, 0.5, 0.45, 0.3], delta=0.1),
    "bernoulli-tracking": dict(mu=[0.8, 0.6, 0.5], delta=0.05, rule="tracking", beta=0.6),
    "bernoulli-forced": dict(mu=[0.75, 0.6, 0.55], delta=0.1, forced_exploration=True, min_pulls=2),
    "bernoulli-close": dict(mu=[0.5, 0.49, 0.1], delta=0.2, max_steps=400),  # many exact ties, cut at max_steps
    "gaussian": dict(mu=[1.0, 0.5, 0.2], delta=0.05, arms="gaussian", sigma=0.8),
    "gaussian-tracking": dict(mu=[0.4, 0.0, -0.3, -0.5], delta=0.1, arms="gaussian", rule="tracking"),
}

SAMPLERS = ["uniform", "EB-TC", "TTTS", "T3C", "TTUCB"]


def _replay_pickled_midway(ep, s, half):
    """Feed ``s`` the recorded episode ``ep``, pickling it after ``half`` pulls; every selection must
    equal the recorded arm. Returns the restored sampler after the last pull."""
    for i, (arm, reward) in enumerate(zip(ep.arms, ep.rewards, strict=False)):
        if i == half:
            s = pickle.loads(pickle.dumps(s))
        assert not s.should_stop()
        assert s.select() == arm
        s.update(arm, reward)
    return s


def _check(sampler, case, seeds=SEEDS, **extra):
    kwargs = dict(CASES[case], **extra)
    mu, delta = kwargs.pop("mu"), kwargs.pop("delta")
    for seed in seeds:
        rec, tau, N, S, hit, pulled = ref.episode(mu, delta, seed=seed, sampler=sampler, **kwargs)
        got = tt.identify(mu, delta, seed=seed, record=True, sampler=sampler, **kwargs)
        assert (got.recommendation, got.tau, got.hit_max_steps) == (rec, tau, hit), (sampler, case, seed)
        assert got.N.tolist() == N and got.S.tolist() == S
        assert got.arms.tolist() == pulled


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("sampler", SAMPLERS)
def test_sampler_matches_reference_episode(sampler, case):
    _check(sampler, case)


def test_ttucb_exploration_constant_and_challenger_override():
    _check("TTUCB", "bernoulli", seeds=[3, 4], ucb_alpha=0.3)
    _check("TTUCB", "gaussian", seeds=[3, 4], ucb_alpha=4.0, challenger="TCI")
    _check("T3C", "bernoulli", seeds=[3, 4], challenger="TCI")


def test_ttts_resampling_is_capped():
    # Two arms far apart at a tiny delta: the posterior of the worse arm rarely wins, so the cap is
    # reached and the TC challenger taken; the reference does the same.
    _check("TTTS", "gaussian", seeds=[1], delta=1e-12, mu=[3.0, 0.0, -0.1], sigma=0.3)


def test_eb_tc_is_the_tc_challenger():
    mu = [0.7, 0.5, 0.45]
    a = tt.run_many(mu, 0.05, 20, sampler="EB-TC", seed=3)
    b = tt.run_many(mu, 0.05, 20, challenger="TC", seed=3)
    np.testing.assert_array_equal(a.tau, b.tau)
    np.testing.assert_array_equal(a.N, b.N)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_run_many_rows_are_episodes_for_any_thread_count(sampler):
    mu = [0.7, 0.55, 0.5]
    one = tt.run_many(mu, 0.1, 6, sampler=sampler, seed=9, n_threads=1)
    two = tt.run_many(mu, 0.1, 6, sampler=sampler, seed=9, n_threads=2)
    np.testing.assert_array_equal(one.tau, two.tau)
    np.testing.assert_array_equal(one.N, two.N)
    for r in (0, 5):
        rec, tau, N, _, _, _ = ref.episode(mu, 0.1, seed=9, run=r, sampler=sampler)
        assert (one.recommendation[r], one.tau[r], one.N[r].tolist()) == (rec, tau, N)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_incremental_class_reproduces_identify(sampler):
    mu = [0.7, 0.5, 0.45, 0.3]
    ep = tt.identify(mu, 0.1, seed=4, record=True, sampler=sampler)
    s = tt.TopTwo(4, delta=0.1, seed=4, sampler=sampler)
    for arm, reward in zip(ep.arms, ep.rewards, strict=False):
        assert not s.should_stop()
        assert s.select() == arm
        s.update(arm, reward)
    assert s.should_stop() and s.recommendation == ep.recommendation
    # and it pickles mid-way with its cached decision
    s2 = tt.TopTwo(4, delta=0.1, seed=4, sampler=sampler)
    for arm, reward in zip(ep.arms[:20], ep.rewards[:20], strict=False):
        s2.select()
        s2.update(arm, reward)
    s2.select()
    restored = pickle.loads(pickle.dumps(s2))
    assert copy.copy(restored).select() == s2.select() == restored.select()


def test_sampler_option_is_named_and_checked():
    with pytest.raises(ValueError, match="sampler"):
        tt.identify([0.6, 0.4], sampler="LUCB9")
    with pytest.raises(ValueError, match="ucb_alpha"):
        tt.identify([0.6, 0.4], sampler="TTUCB", ucb_alpha=0.0)
    with pytest.raises(ValueError, match="challenger"):
        tt.TopTwo(3, challenger="XX")
    assert "TTTS" in repr(tt.TopTwo(3, sampler="TTTS"))


def test_uniform_sampling_is_round_robin_and_slowest():
    ep = tt.identify([0.7, 0.5, 0.4], 0.05, sampler="uniform", seed=1, record=True)
    assert ep.arms[:9].tolist() == [0, 1, 2] * 3
    assert ep.N.max() - ep.N.min() <= 1
    # On an instance with one close and several far arms, uniform sampling needs clearly more pulls
    # than the top-two rules (mean tau over 200 runs, 5 standard errors apart).
    mu = [0.6, 0.5, 0.2, 0.2, 0.1, 0.1]
    uniform = tt.run_many(mu, 0.01, 200, sampler="uniform", seed=2)
    for sampler in ("EB-TCI", "T3C", "TTUCB"):
        other = tt.run_many(mu, 0.01, 200, sampler=sampler, seed=2)
        gap = uniform.mean_tau - other.mean_tau
        assert gap > 5 * np.hypot(uniform.se_tau, other.se_tau), sampler


# ---- Track-and-Stop ------------------------------------------------------------------------------

TAS_CASES = ["bernoulli", "bernoulli-tracking", "gaussian", "gaussian-tracking"]


@pytest.mark.parametrize("case", TAS_CASES)
@pytest.mark.parametrize("sampler", ["TaS-C", "TaS-D"])
def test_track_and_stop_matches_reference_episode(sampler, case):
    _check(sampler, case, seeds=[0, 1, 2])


@pytest.mark.parametrize("sampler", ["TaS-C", "TaS-D"])
def test_track_and_stop_weights_every_k_steps(sampler):
    _check(sampler, "bernoulli", seeds=[3, 4], weights_every=7)
    a = tt.identify([0.7, 0.5, 0.45, 0.3], 0.1, sampler=sampler, seed=3, weights_every=7)
    b = tt.identify([0.7, 0.5, 0.45, 0.3], 0.1, sampler=sampler, seed=3)
    assert (a.tau, a.N.tolist()) != (b.tau, b.N.tolist())


@pytest.mark.parametrize("sampler", ["TaS-C", "TaS-D"])
@pytest.mark.parametrize("arms, mu", [("gaussian", [1.0, 0.6, 0.4, 0.0]), ("bernoulli", [0.7, 0.5, 0.45, 0.3])])
def test_track_and_stop_proportions_converge_to_the_optimal_weights(sampler, arms, mu):
    # A threshold that never fires: the episode runs to max_steps and N / t tracks w*(mu).
    steps = 40_000
    ep = tt.identify(
        mu, 0.1, sampler=sampler, arms=arms, threshold=np.full(steps + 1, np.inf), seed=5, weights_every=20
    )
    assert ep.hit_max_steps and ep.tau == steps
    w = tt.characteristic_time(mu, arms=arms).weights
    np.testing.assert_allclose(ep.N / steps, w, atol=0.03)
    # and the empirical means are close enough that the allocation is not uniform
    assert np.abs(ep.N / steps - 1 / len(mu)).max() > 0.1


def test_track_and_stop_incremental_and_pickled():
    mu = [0.7, 0.5, 0.45, 0.3]
    for sampler in ("TaS-C", "TaS-D"):
        ep = tt.identify(mu, 0.1, seed=6, record=True, sampler=sampler, weights_every=3)
        s = tt.TopTwo(4, delta=0.1, seed=6, sampler=sampler, weights_every=3)
        s = _replay_pickled_midway(ep, s, ep.tau // 2)
        assert s.should_stop()


# ---- LUCB1 and lil'UCB, with their own stopping rules ---------------------------------------------

RACING_CASES = ["bernoulli", "bernoulli-close", "gaussian", "bernoulli-forced"]


@pytest.mark.parametrize("case", RACING_CASES)
@pytest.mark.parametrize("sampler", ["LUCB1", "lilUCB"])
def test_racing_samplers_match_reference_episode(sampler, case):
    _check(sampler, case, seeds=[0, 1, 2, 2**64 - 1])


def test_lil_ucb_constants_and_lucb_rounds():
    _check("lilUCB", "bernoulli", seeds=[5], lil_epsilon=0.0, lil_beta=0.5, lil_lambda=1 + 10 / 4)
    ep = tt.identify([0.7, 0.5, 0.45, 0.3], 0.1, sampler="LUCB1", seed=1, record=True)
    # after the initial round robin, rounds of two pulls: the leader then another arm
    rounds = ep.arms[4:].reshape(-1, 2) if (ep.tau - 4) % 2 == 0 else ep.arms[4:-1].reshape(-1, 2)
    assert np.all(rounds[:, 0] != rounds[:, 1])
    assert (ep.tau - 4) % 2 == 0  # LUCB1 stops at the start of a round


def test_lil_ucb_recommends_the_most_pulled_arm():
    ep = tt.identify([0.7, 0.5, 0.45, 0.3], 0.1, sampler="lilUCB", seed=2)
    i = int(np.argmax(ep.N))
    assert ep.recommendation == i and ep.N[i] >= 1 + 9.0 * (ep.tau - ep.N[i])


@pytest.mark.parametrize("sampler", ["LUCB1", "lilUCB"])
def test_racing_incremental_and_pickled(sampler):
    mu = [0.7, 0.5, 0.45, 0.3]
    ep = tt.identify(mu, 0.1, seed=6, record=True, sampler=sampler)
    s = tt.TopTwo(4, delta=0.1, seed=6, sampler=sampler)
    s = _replay_pickled_midway(ep, s, ep.tau // 2 + 1)  # mid-round for LUCB1
    assert s.should_stop() and s.recommendation == ep.recommendation


# ---- compare ---------------------------------------------------------------------------------------


def test_compare_table_equals_run_many_and_orders_samplers():
    mu = [0.6, 0.5, 0.2, 0.2, 0.1, 0.1]
    samplers = ["uniform", "EB-TCI", {"sampler": "TTUCB", "label": "TTUCB/2", "ucb_alpha": 2.0}, "LUCB1"]
    result = tt.compare(mu, 0.01, samplers=samplers, n_runs=60, seed=3)
    assert [r["label"] for r in result.rows] == ["uniform", "EB-TCI", "TTUCB/2", "LUCB1"]
    T_star = tt.characteristic_time(mu).T
    assert result.T_star == T_star
    for row in result.rows[2:3]:  # the row with its own options
        runs = tt.run_many(mu, 0.01, 60, seed=3, sampler=row["sampler"], ucb_alpha=2.0)
        np.testing.assert_array_equal(result.runs[row["label"]].tau, runs.tau)
        assert row["mean_tau"] == runs.mean_tau and row["se_tau"] == runs.se_tau
        assert row["error_rate"] == runs.error_rate
        assert row["ratio"] == pytest.approx(runs.mean_tau / (T_star * np.log(100)))
    by = {r["label"]: r for r in result.rows}
    # the ordering the literature reports: LUCB1 > uniform > top-two rules near T* log(1/delta)
    for slow, fast in (("LUCB1", "uniform"), ("uniform", "EB-TCI"), ("uniform", "TTUCB/2")):
        assert by[slow]["mean_tau"] - by[fast]["mean_tau"] > 4 * np.hypot(by[slow]["se_tau"], by[fast]["se_tau"])
    assert 0.7 < by["EB-TCI"]["ratio"] < 3.0
    assert "EB-TCI" in str(result)


def test_compare_checks_its_arguments():
    with pytest.raises(TypeError, match="samplers"):
        tt.compare([0.6, 0.4], samplers="uniform")
    with pytest.raises(ValueError, match="samplers"):
        tt.compare([0.6, 0.4], samplers=["nope"])
    with pytest.raises(ValueError, match="label"):
        tt.compare([0.6, 0.4], samplers=["uniform", "uniform"])


def test_plot_comparison_draws_one_box_per_sampler():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = tt.compare([0.7, 0.5, 0.4], 0.1, samplers=["uniform", "EB-TCI"], n_runs=10, seed=1)
    ax = tt.plot_comparison(result)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["uniform", "EB-TCI"]
    plt.close("all")


# ---- exponential-gap elimination -------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, seeds",
    [
        (dict(mu=[0.9, 0.3, 0.2], delta=0.1), [0, 1]),
        (dict(mu=[2.0, 0.0], delta=0.2, arms="gaussian", sigma=0.5, min_pulls=2), [3]),
        (dict(mu=[0.6, 0.55, 0.2, 0.1], delta=0.1, max_steps=300_000), [4]),  # cut inside a phase
    ],
)
def test_exponential_gap_elimination_matches_reference(kwargs, seeds):
    kwargs = dict(kwargs)
    mu, delta = kwargs.pop("mu"), kwargs.pop("delta")
    for seed in seeds:
        rec, tau, N, S, hit, pulled = ref.ege_episode(mu, delta, seed=seed, **kwargs)
        got = tt.identify(mu, delta, seed=seed, sampler="EGE", record=True, **kwargs)
        assert (got.recommendation, got.tau, got.hit_max_steps) == (rec, tau, hit)
        assert got.N.tolist() == N and got.S.tolist() == S
        np.testing.assert_array_equal(got.arms, pulled)


def test_exponential_gap_elimination_incremental_and_pickled():
    mu = [1.0, 0.0, -0.2]
    ep = tt.identify(mu, 0.2, seed=2, sampler="EGE", record=True, arms="gaussian", sigma=0.3)
    s = tt.TopTwo(3, delta=0.2, seed=2, sampler="EGE", arms="gaussian", sigma=0.3)
    arms, rewards = ep.arms, ep.rewards
    cut = 3 + 1000  # inside the first round's main phase
    for i in range(cut):
        assert s.select() == arms[i]
        s.update(int(arms[i]), float(rewards[i]))
    s = copy.deepcopy(pickle.loads(pickle.dumps(s)))
    for i in range(cut, len(arms)):
        if i % 997 == 0:
            assert not s.should_stop()
        assert s.select() == arms[i]
        s.update(int(arms[i]), float(rewards[i]))
    assert s.should_stop() and s.recommendation == ep.recommendation


# ---- Frank-Wolfe sampling --------------------------------------------------------------------------


def test_matrix_game_solver_against_linear_programming():
    linprog = pytest.importorskip("scipy.optimize").linprog
    rng = np.random.default_rng(0)
    for trial in range(60):
        K, J = int(rng.integers(1, 7)), int(rng.integers(1, 6))
        M = rng.normal(size=(K, J))
        if trial % 3 == 0:
            M = np.round(M)  # degenerate games with ties
        z = _core.toptwo.matrix_game(M)
        assert z.shape == (K,) and np.all(z >= 0) and abs(z.sum() - 1) < 1e-12
        # max v s.t. M^T z >= v, sum z = 1, z >= 0
        res = linprog(
            np.r_[np.zeros(K), -1.0],
            A_ub=np.c_[-M.T, np.ones(J)],
            b_ub=np.zeros(J),
            A_eq=np.r_[np.ones(K), 0.0][None, :],
            b_eq=[1.0],
            bounds=[(0, None)] * K + [(None, None)],
        )
        assert (M.T @ z).min() == pytest.approx(-res.fun, abs=1e-9)


@pytest.mark.parametrize("case", ["bernoulli", "gaussian", "gaussian-tracking", "bernoulli-forced"])
def test_frank_wolfe_sampling_matches_reference_episode(case):
    _check("FWS", case, seeds=[0, 1, 2])


def test_frank_wolfe_sampling_proportions_approach_the_optimal_weights():
    mu = [1.0, 0.6, 0.4, 0.0]
    steps = 20_000
    ep = tt.identify(mu, 0.1, sampler="FWS", arms="gaussian", threshold=np.full(steps + 1, np.inf), seed=5)
    w = tt.characteristic_time(mu, arms="gaussian").weights
    np.testing.assert_allclose(ep.N / steps, w, atol=0.04)


def test_frank_wolfe_sampling_incremental_and_pickled():
    mu = [0.7, 0.5, 0.45, 0.3]
    ep = tt.identify(mu, 0.1, seed=6, record=True, sampler="FWS")
    s = tt.TopTwo(4, delta=0.1, seed=6, sampler="FWS")
    s = _replay_pickled_midway(ep, s, ep.tau // 2)
    assert s.should_stop()


def test_frank_wolfe_sampling_limits_the_number_of_arms():
    mu = np.linspace(0.0, 0.9, tt.FWS_MAX_ARMS + 1)
    with pytest.raises(ValueError, match="FWS_MAX_ARMS"):
        tt.identify(mu, sampler="FWS")
    with pytest.raises(ValueError, match="FWS_MAX_ARMS"):
        tt.TopTwo(tt.FWS_MAX_ARMS + 1, sampler="FWS")


def test_grid_helper_passes_the_sampler_option():
    pkd = pytest.importorskip("paperkernels.distributed")
    pytest.importorskip("dask")
    mu = [0.7, 0.5, 0.45]
    cells = pkd.run_grid([mu], [0.1], 9, sampler="T3C", seed=4, chunk_size=4)
    local = tt.run_many(mu, 0.1, 9, sampler="T3C", seed=4)
    np.testing.assert_array_equal(cells[0].result.tau, local.tau)
    np.testing.assert_array_equal(cells[0].result.N, local.N)


@pytest.mark.parametrize("sampler", sorted(tt.SAMPLERS))
def test_every_sampler_keeps_the_episode_invariants(sampler):
    rng = np.random.default_rng(sum(map(ord, sampler)))
    for _ in range(3):
        K = int(rng.integers(2, 6))
        mu = np.sort(rng.uniform(0.0, 0.6, K))
        mu[-1] = rng.uniform(0.8, 1.0)
        mu = rng.permutation(mu)
        for arms in ("bernoulli", "gaussian"):
            ep = tt.identify(
                mu,
                0.2,
                sampler=sampler,
                arms=arms,
                seed=int(rng.integers(2**63)),
                max_steps=3_000_000,
                weights_every=10,
            )
            assert 0 <= ep.recommendation < K and ep.N.sum() == ep.tau and ep.N.min() >= 1
            if arms == "bernoulli":
                assert np.all((0 <= ep.S) & (ep.S <= ep.N))


def test_hostile_elimination_state_is_refused():
    s = tt.TopTwo(3, delta=0.2, seed=1, sampler="EGE", arms="gaussian")
    for i in range(10):
        s.update(s.select(), 0.1 * i)
    state = s.__getstate__()
    blob = state["core"]["elimination"]
    # round 1, main phase: active = list = [0, 1, 2]; empty the active set, or point past the list
    for edit in (lambda b: np.r_[b[:10], 0.0, b[14:]], lambda b: np.r_[b[:6], 7.0, b[7:]]):
        bad_state = copy.deepcopy(state)
        bad_state["core"]["elimination"] = edit(np.array(blob))
        other = tt.TopTwo.__new__(tt.TopTwo)
        with pytest.raises(ValueError, match="state"):
            other.__setstate__(bad_state)
    restored = pickle.loads(pickle.dumps(s))
    assert restored.select() == s.select()
