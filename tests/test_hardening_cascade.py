"""Hardening of paperkernels.cascade: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import pickle
from fractions import Fraction

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


def test_optimistic_table_counts_against_the_size_limit():
    model = C.reference_environment(seed=0).model
    learner = C.TopicCascadeUCB(3, model.n_topics)
    learner.optimistic_table(model.X, model.topics)  # the learner's planner, under the default limit
    n_states = len(C.StateSpace(model.n_topics, 3, "set"))
    with paperkernels.limits.override(max_result_bytes=model.n_items * n_states * 8 - 1):
        assert "the optimistic table of" in str(bad("X", learner.optimistic_table, model.X, model.topics))
    with paperkernels.limits.override(max_result_bytes=model.n_items * n_states * 8):
        assert learner.optimistic_table(model.X, model.topics).shape == (model.n_items, n_states)


@pytest.mark.parametrize("probs", [[np.nan, 0.5], [np.inf], [1.5, 0.5], [-0.1], ["a"], None, {0.5: 1}, [[0.5]], "0.5"])
def test_cascade_value_refuses_what_is_not_probabilities(probs):
    bad("probs", C.cascade_value, probs)


def test_cascade_value_takes_real_numbers_of_any_type():
    assert C.cascade_value([Fraction(1, 3), Fraction(1, 7)]) == pytest.approx(1 - (2 / 3) * (6 / 7), abs=1e-16)
    assert C.cascade_value(x for x in (np.float32(0.5), 0.25)) == 0.625
    bad("probs", C.cascade_value, [10**400])


def test_refused_select_leaves_the_saved_state():
    # topic_dp needs K distinct topics with items: two topics and K = 3 are refused in C++, after
    # the optimistic lists (which count their work into the saved state) were computed.
    rng = np.random.default_rng(0)
    X, topics = rng.uniform(0, 1, (6, 2)), np.array([0, 0, 0, 1, 1, 1])
    learner = C.TopicCascadeUCB(3, 2, planner="topic_dp")
    learner.update([0, 3, 1], 1, X=X, topics=topics)
    before = pickle.dumps(learner)
    bad("K", learner.select, X, topics)
    assert pickle.dumps(learner) == before


@pytest.mark.parametrize("header", ["title,genres,year,year", "title,genres,year, year", "title,genres, ,year"])
def test_catalogue_with_a_repeated_or_blank_column_is_refused(header, tmp_path):
    path = tmp_path / "catalogue.csv"
    path.write_text(f"{header}\nA,Drama,1,2\nB,Comedy,2,3\n", encoding="utf-8")
    bad("path", C.read_catalogue, path)


def test_catalogue_column_names_without_surrounding_spaces(tmp_path):
    path = tmp_path / "catalogue.csv"
    path.write_text("title , genres,year\nA,Drama,1\nB,Comedy,2\n", encoding="utf-8")
    catalogue = C.read_catalogue(path)
    assert catalogue.feature_names == ("year",) and catalogue.features.tolist() == [[1.0], [2.0]]


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


# ---- learners keep the items of select; ridge accuracy; overflow; files; indices ------------------


@pytest.mark.parametrize("kind", ["lin_ucb", "topic_ucb"])
def test_update_learns_the_items_as_selected(kind):
    def make():
        return C.CascadeLinUCB(3, 3, beta=1.0) if kind == "lin_ucb" else C.TopicCascadeUCB(3, 3, beta=1.0)

    want = make()
    want.update(want.select(X0, TOPICS0), 2)
    learner = make()
    X, topics = X0.copy(), TOPICS0.copy()  # the caller's buffers, reused once select returns
    shown = learner.select(X, topics)
    X *= 100.0
    topics[:] = 0
    learner.update(shown, 2)
    np.testing.assert_array_equal(learner.theta, want.theta)
    if kind == "topic_ucb":
        np.testing.assert_array_equal(learner.gram_inverse, want.gram_inverse)


@pytest.mark.parametrize("learner", [C.CascadeLinUCB, C.TopicCascadeUCB])
def test_lam_below_the_accurate_range_refused(learner):
    assert "lam >= 1e-06" in str(bad("lam", learner, lam=1e-20))
    bad("lam", learner, lam=9e-7)
    assert learner(lam=1e-6).lam == 1e-6


def test_smallest_lam_keeps_the_ridge_solution():
    import cascade_reference as ref

    env = C.reference_environment(seed=0)
    model, rng = env.model, np.random.default_rng(0)
    learner, reference = C.CascadeLinUCB(env.K, model.n_topics, lam=1e-6), ref.ReferenceLinUCB(env.K, 3, lam=1e-6)
    for _ in range(300):
        shown = learner.select(model.X, model.topics)
        first = env.clicks(rng.random(model.n_items), shown)
        learner.update(shown, first)
        reference.update(model.X, model.topics, shown.tolist(), first)
    assert np.max(np.abs(learner.theta - np.linalg.solve(reference.V, reference.b))) < 1e-7


@pytest.mark.parametrize("link", ["logistic", "linear"])
def test_overflowing_scores_refused(link):
    X = np.array([[1e308, 1e308], [1.0, 0.0], [0.5, 0.5]])
    theta = np.r_[10.0, -10.0, np.zeros(4)]
    with np.errstate(all="raise"):  # no overflow warning either
        message = str(bad("X", C.TopicCascadeModel, X, [0, 1, 0], theta, link=link))
        assert message.startswith("X, theta: values too large") and "overflow float64" in message
        bad("theta", C.TopicCascadeModel, X[1:], [0, 1], np.r_[1.0, 1.0, 1e308, 1e308, 0.0, 0.0], link=link)
        bad("theta", C.TopicCascadeModel, X[1:], [0, 1], np.r_[1.0, 1.0, 1.5e307, 0.0, 0.0, 0.0], state="count")
    # large but representable scores are kept, and plan as usual
    model = C.TopicCascadeModel(X[1:] * 1e300, [0, 1], np.r_[1e7, -1e7, 1e307, 0.0, 0.0, 0.0], link=link)
    table = model.click_table(2)
    assert np.all(np.isfinite(table))
    for method in ("exact", "topic_dp", "greedy"):
        best = C.plan(model, 2, method)
        assert sorted(best.cascade.tolist()) == [0, 1] and np.isfinite(best.value)


def _catalogue(tmp_path, text):
    path = tmp_path / "items.csv"
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def test_catalogue_rows_checked(tmp_path):
    short = _catalogue(tmp_path, "title,genres,year\nA,Drama\nB,Comedy,2.0\n")
    message = str(bad("path", C.read_catalogue, short))
    assert "line 2" in message and short in message and "2 fields, expected 3" in message
    long = _catalogue(tmp_path, "# comment\ntitle,genres,year\nA,Drama,1.0\n\nB,Comedy,2.0,9\n")
    assert "line 5" in str(bad("path", C.read_catalogue, long))
    for value, line in (("nan", 3), ("inf", 4), ("-inf", 4)):
        rows = f"title,genres,year,votes\nA,Drama,1.0,2\nB,Comedy,2.0,{value if line == 3 else 1}\n"
        rows += f"C,Drama,3.0,{value if line == 4 else 1}\n"
        message = str(bad("feature_columns", C.read_catalogue, _catalogue(tmp_path, rows)))
        assert "'votes'" in message and f"line {line}" in message and repr(value) in message


def test_catalogue_with_byte_order_mark(tmp_path):
    catalogue = C.read_catalogue(_catalogue(tmp_path, "\ufefftitle,genres,year\nA,Drama|Comedy,1.0\nB,Comedy,2.0\n"))
    assert catalogue.titles == ("A", "B") and catalogue.feature_names == ("year",)
    assert catalogue.features.tolist() == [[1.0], [2.0]]


def test_clicks_checks_uniforms_and_cascade():
    bad("uniforms", ENV.clicks, [0.1] * 3, [4, 2, 0])
    bad("uniforms", ENV.clicks, [0.1] * 3, [0, 1, 2])
    bad("uniforms", ENV.clicks, np.full((2, 6), 0.1), [0, 1, 2])
    bad("uniforms", ENV.clicks, [np.nan] * 6, [0, 1, 2])
    bad("uniforms", ENV.clicks, [1.0] * 6, [0, 1, 2])
    bad("uniforms", ENV.clicks, [-0.1] + [0.5] * 5, [0, 1, 2])
    bad("uniforms", ENV.clicks, ["a"] * 6, [0, 1, 2])
    bad("cascade", ENV.clicks, [0.1] * 6, [True, False, True])
    bad("cascade", ENV.clicks, [0.1] * 6, [0, 0, 1])
    bad("cascade", ENV.clicks, [0.1] * 6, [[0, 1, 2]])
    u = [0.9, 0.9, 0.3, 0.9, 0.9, 0.9]
    assert ENV.clicks(u, [0, 2, 4]) == 1 and ENV.clicks(u, [4, 0, 1]) is None
    assert ENV.clicks([0.1] * 6, [2]) == 0


def test_index_arrays_refuse_booleans_and_report_unsigned_values():
    wrapped = TOPICS0.astype(np.uint64)
    wrapped[2] = 2**63
    for message in (
        str(bad("topics", C.TopicCascadeModel, X0, wrapped, THETA0)),
        str(bad("topics", C.TopicCascadeModel, X0, wrapped, THETA0, n_topics=3)),
        str(bad("topics", C.ClickTable, np.full((6, 7), 0.3), wrapped, 3)),
        str(bad("topics", C.TopicCascadeUCB(3, 3).select, X0, wrapped)),
        str(bad("cascade", MODEL.value, np.array([2**63, 1, 0], dtype=np.uint64))),
        str(bad("items", MODEL.click_prob, np.array([2**63], dtype=np.uint64), [0, 0, 0])),
        str(bad("items", MODEL.state_after, np.array([2**64 - 1], dtype=np.uint64))),
    ):
        assert str(2**63) in message or str(2**64 - 1) in message, message
        assert "-92233" not in message
    table = C.ClickTable([[0.5, 0.3, 0.5], [0.45, 0.45, 0.25]], [0, 1], 2)
    for call, name, value in (
        (table.value, "cascade", [True, False]),
        (MODEL.value, "cascade", np.array([True, False, True])),
        (lambda i: MODEL.click_prob(i, [0, 0, 0]), "items", True),
        (MODEL.state_after, "items", [True]),
        (lambda t: C.TopicCascadeModel(X0[:2], t, THETA0[:6]), "topics", [True, False]),
        (lambda t: C.ClickTable([[0.5, 0.3, 0.5], [0.45, 0.45, 0.25]], t, 2), "topics", [False, True]),
        (lambda t: C.TopicCascadeUCB(3, 3).select(X0, t), "topics", TOPICS0 > 0),
    ):
        with pytest.raises(TypeError, match=f"^{name}: expected integer indices, got booleans"):
            call(value)
    learner = C.CascadeUCB1(3, 3)
    learner.select(X0, TOPICS0)
    with pytest.raises(TypeError, match="^cascade: expected integer indices"):
        learner.update([True, False, True], 0)
    assert learner.rounds == 0


def test_table_environment_checks_names_and_norms():
    table, features = [[1, 0], [0, 1]], [[1.0, 0.0], [0.0, 1.0]]
    bad("item_names", C.environment_from_table, table, features, 2, item_names=["a"])
    bad("item_names", C.environment_from_table, table, features, 2, item_names="ab")
    bad("item_names", C.environment_from_table, table, features, 2, item_names=["a", 3])
    bad("topic_names", C.environment_from_table, table, features, 2, topic_names=["x", "y", "z"])
    bad("topic_names", C.environment_from_table, table, features, 2, topic_names="xy")
    env = C.environment_from_table(table, features, 2, item_names=("a", "b"), topic_names=np.array(["x", "y"]))
    assert env.item_names == ("a", "b") and env.topic_names == ("x", "y")
    assert all(type(name) is str for name in env.topic_names)
    with np.errstate(all="raise"):
        assert "overflow" in str(bad("features", C.environment_from_table, table, [[1.7e308, 1.7e308], [0, 1]], 2))
        # rows whose squares alone overflow (or underflow) still normalise to unit length
        env = C.environment_from_table(table, [[1e300, 1e300], [0.0, 1e-200]], 2)
    np.testing.assert_allclose(env.model.X, [[2**-0.5, 2**-0.5], [0.0, 1.0]], rtol=1e-15)


@pytest.mark.parametrize("after", [0.3, 0.6])  # it takes 0.85-1.4 s on a Zen 5 core
def test_million_state_space_stops_on_sigint(after):
    # 2^20 states: the tables are reserved up front (growing the state index rehashed a million
    # entries in one step) and filled row by row, so no step holds Ctrl-C for long.
    from sigint_helpers import assert_interrupts

    assert_interrupts("import paperkernels.cascade as pc", "pc.StateSpace(21, 11, 'set')", after=after)


def test_planner_workspace_refused_above_the_limit():
    model = C.TopicCascadeModel(np.ones((21, 1)), np.arange(21), np.r_[0.1, np.zeros(441)])
    with pytest.raises(ValueError, match=r"^K: the planner's ranked lists of 1048576 states x 21 topics"):
        C.plan(model, 11, "greedy")
    with paperkernels.limits.override(max_result_bytes=2**20):
        with pytest.raises(ValueError, match="^K: the planner's ranked lists"):
            C.TopicCascadeUCB(6, 21, beta=1.0).select(np.ones((21, 1)), np.arange(21))
    assert C.plan(model, 4, "greedy").cascade.shape == (4,)
