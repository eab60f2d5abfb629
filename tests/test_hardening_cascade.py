"""Hardening of paperkernels.cascade: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paperkernels
from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    interrupted_quickly,
    misaligned,
    non_contiguous_copies,
    poisoned,
    rss_growth,
    run_in_threads,
)
from paperkernels import cascade as C

MODULE = "cascade"


bad = hostile_checks(MODULE)


@st.composite
def tables(draw):
    """A click table for random probabilities: L items, m topics, K positions ("set" states)."""
    m = draw(st.integers(1, 3))
    L = draw(st.integers(2, 7))
    K = draw(st.integers(1, min(L, 3)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    topics = rng.integers(0, m, size=L)
    n_states = len(C.StateSpace(m, K, "set"))
    P = rng.random((L, n_states)) * draw(st.floats(0.05, 1.0))
    return C.ClickTable(P, topics, K, n_topics=m), P, topics, K, m


# ---- valid inputs: finite, shaped, invariant ---------------------------------------------------


@SOME
@given(t=tables())
def test_planners_consistent(t):
    table, P, topics, K, m = t
    exact = C.plan(table, K, "exact")
    brute = C.plan(table, K, "brute")
    assert len(exact.cascade) == K and len(set(exact.cascade.tolist())) == K
    assert 0 <= exact.value <= 1
    assert exact.value == pytest.approx(brute.value, abs=1e-12)  # exact planning is exact
    assert exact.value == pytest.approx(table.value(exact.cascade), abs=1e-15)
    for method in ("greedy", "topic_dp"):
        try:
            other = C.plan(table, K, method)
        except ValueError:  # topic_dp needs K distinct topics
            continue
        assert other.value <= exact.value + 1e-12
    for variant in non_contiguous_copies(P):
        same = C.plan(C.ClickTable(variant, topics, K, n_topics=m), K, "exact")
        assert same.value == exact.value and np.array_equal(same.cascade, exact.cascade)


@FEW
@given(seed=st.integers(0, 2**32 - 1), T=st.integers(1, 60), n_seeds=st.integers(1, 3))
def test_simulation_invariants_and_thread_counts(seed, T, n_seeds):
    env = C.reference_environment(seed=seed % 7)
    learners = [C.TopicCascadeUCB(beta=1.0), C.CascadeUCB1(), C.RandomCascade()]
    ref = C.simulate(env, learners, T, n_seeds=n_seeds, seed=seed, n_threads=1)
    assert ref.regret.shape == (3, n_seeds, T) and np.all(np.isfinite(ref.regret))
    assert ref.regret.min() >= -1e-12  # the optimal cascade is optimal
    for threads in (2, 7):
        other = C.simulate(env, learners, T, n_seeds=n_seeds, seed=seed, n_threads=threads)
        np.testing.assert_array_equal(other.regret, ref.regret)


@FEW
@given(seed=st.integers(0, 2**32 - 1))
def test_model_layouts_agree(seed):
    rng = np.random.default_rng(seed)
    X = rng.random((8, 3))
    topics = rng.integers(0, 3, size=8)
    theta = rng.random(3 + 9) * 0.2
    ref = C.plan(C.TopicCascadeModel(X, topics, theta, n_topics=3), 3)
    for variant in non_contiguous_copies(X):
        got = C.plan(C.TopicCascadeModel(variant, topics, theta, n_topics=3), 3)
        assert got.value == ref.value and np.array_equal(got.cascade, ref.cascade)


def test_unpickled_misaligned_arrays_read_safely():
    # regression (UBSan, models unpickled on dask workers): X was read in place at odd addresses
    env = C.reference_environment(seed=3)
    want = C.simulate(env, [C.TopicCascadeUCB(beta=1.0)], 30, seed=1).regret
    model = env.model
    state = dict(model.__dict__, X=misaligned(model.X), theta=misaligned(model.theta))
    clone = C.TopicCascadeModel.__new__(C.TopicCascadeModel)
    clone.__setstate__(state)
    assert clone.X.flags.aligned and clone.theta.flags.aligned
    got = C.simulate(C.CascadeEnvironment(clone, env.K), [C.TopicCascadeUCB(beta=1.0)], 30, seed=1).regret
    np.testing.assert_array_equal(got, want)
    assert C.plan(clone, 3).value == C.plan(model, 3).value


# ---- hostile inputs ----------------------------------------------------------------------------

ENV = C.worked_example()
MODEL = ENV.model
X0, TOPICS0, THETA0 = np.asarray(MODEL.X), np.asarray(MODEL.topics), np.asarray(MODEL.theta)


@FEW
@given(d=st.data())
def test_poisoned_arrays_refused(d):
    bad("X", C.TopicCascadeModel, d.draw(poisoned(X0)), TOPICS0, THETA0)
    bad("theta", C.TopicCascadeModel, X0, TOPICS0, d.draw(poisoned(THETA0)))
    bad("probabilities", C.ClickTable, d.draw(poisoned(np.full((6, 8), 0.3))), TOPICS0, 2)
    bad("X", C.TopicCascadeUCB(K=3, n_topics=3).select, d.draw(poisoned(X0)), TOPICS0)


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=repr)
def test_bad_arrays_refused(value):
    bad("X", C.TopicCascadeModel, value, TOPICS0, THETA0)
    bad("topics", C.TopicCascadeModel, X0, value, THETA0)
    bad("theta", C.TopicCascadeModel, X0, TOPICS0, value)
    bad("probabilities", C.ClickTable, value, TOPICS0, 2)
    bad("cascade", MODEL.value, value)


@pytest.mark.parametrize("value", BAD_COUNTS + [0], ids=repr)
def test_bad_counts_refused(value):
    bad("K", C.plan, MODEL, value)
    bad("T", C.simulate, ENV, [C.CascadeUCB1()], value, seed=0)
    if value is not None:
        bad("n_seeds", C.simulate, ENV, [C.CascadeUCB1()], 5, n_seeds=value, seed=0)
    bad("K", C.StateSpace, 3, value)


@pytest.mark.parametrize("value", BAD_REALS + [-1.0], ids=repr)
def test_bad_reals_refused(value):
    if value is not None:  # beta=None is the theoretical width
        bad("beta", C.TopicCascadeUCB, beta=value)
    bad("lam", C.TopicCascadeUCB, lam=value)
    bad("max_orderings", C.plan, MODEL, 3, "brute", max_orderings=value)


def test_wrong_structures_refused():
    bad("topics", C.TopicCascadeModel, X0, [0, -1, 0, 1, 2, 0], THETA0)
    bad("topics", C.TopicCascadeModel, X0, TOPICS0[:3], THETA0)
    bad("theta", C.TopicCascadeModel, X0, TOPICS0, THETA0[:-1])
    bad("link", C.TopicCascadeModel, X0, TOPICS0, THETA0, link="probit")
    bad("features", C.TopicCascadeModel, X0, TOPICS0, THETA0, features="pairs")
    bad("state", C.TopicCascadeModel, X0, TOPICS0, THETA0, state="tree")
    bad("method", C.plan, MODEL, 2, "annealing")
    bad("K", C.plan, MODEL, 7)  # more positions than items
    bad("cascade", MODEL.value, [0, 0, 1])
    bad("cascade", MODEL.value, [0, 99, 1])
    bad("env", C.simulate, "env", [C.CascadeUCB1()], 5)
    bad("learners", C.simulate, ENV, [], 5)
    bad("learners[0]", C.simulate, ENV, ["ucb"], 5)
    bad("first_run", C.simulate, ENV, [C.CascadeUCB1()], 5, first_run=-1)
    learner = C.TopicCascadeUCB(K=3, n_topics=3, beta=1.0)
    shown = learner.select(MODEL.X, MODEL.topics)
    bad("first_click", learner.update, shown, first_click=7)
    bad("probabilities", C.ClickTable, np.full((6, 8), 1.5), TOPICS0, 2)


# ---- resource limits ---------------------------------------------------------------------------


def test_exploding_work_refused_up_front():
    assert "paperkernels.limits.max_result_bytes" in str(
        bad("T, n_seeds", C.simulate, ENV, [C.CascadeUCB1()], 10**12, seed=0)
    )
    bad("n_seeds", C.simulate, ENV, [C.CascadeUCB1()], 10, n_seeds=10**12, seed=0)
    big = C.reference_environment(seed=0, n_items=40, K=6)
    bad("max_orderings", C.plan, big.model, 6, "brute")  # 40!/34! orderings


def test_regret_limit_is_configurable():
    ENV.click_table, ENV.optimal  # noqa: B018 - computed (and cached) before the tiny limit
    with paperkernels.limits.override(max_result_bytes=8 * 2 * 10 - 1):
        bad("T, n_seeds", C.simulate, ENV, [C.CascadeUCB1()], 10, n_seeds=2, seed=0)
    with paperkernels.limits.override(max_result_bytes=8 * 2 * 10):
        assert C.simulate(ENV, [C.CascadeUCB1()], 10, n_seeds=2, seed=0).regret.shape == (1, 2, 10)
        # the recorded cascades (4 K + 1 bytes per round) count too, named by `record`
        bad("record", C.simulate, ENV, [C.CascadeUCB1()], 10, n_seeds=2, seed=0, record=True)


# ---- threads, Ctrl-C, memory -------------------------------------------------------------------


def test_concurrent_calls_match_sequential():
    env = C.reference_environment(seed=1)

    def work(seed):
        return C.simulate(
            env, [C.TopicCascadeUCB(beta=1.0), C.CascadeLinUCB(beta=1.0)], 300, n_seeds=2, seed=seed, n_threads=2
        ).regret

    expected = [work(s) for s in range(4)]
    for got, want in zip(run_in_threads(work, list(range(4))), expected, strict=False):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_long_simulation_interruptible(threads):
    env = C.reference_environment(seed=0)
    learners = [C.TopicCascadeUCB(beta=1.0)]
    interrupted_quickly(lambda: C.simulate(env, learners, 500_000, n_seeds=8, seed=0, n_threads=threads))


@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_memory_growth():
    env = C.reference_environment(seed=2)

    def call():
        C.simulate(env, [C.TopicCascadeUCB(beta=1.0), C.CascadeKLUCB()], 50, n_seeds=2, seed=3, n_threads=2)
        C.plan(env.model, 3)
        learner = C.TopicCascadeUCB(K=3, n_topics=4, beta=1.0)
        learner.update(learner.select(env.model.X, env.model.topics), first_click=None)

    assert rss_growth(call, 300) < 8 * 2**20
