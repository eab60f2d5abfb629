"""paperkernels.cascade: learners shared by threads, refused updates that change nothing, pickled
objects that continue exactly, Ctrl-C in long calls, sizes refused before any work."""

import copy
import pickle
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

import paperkernels
from paperkernels import cascade as C
from sigint_helpers import assert_interrupts

ENV = C.reference_environment(seed=1)  # L = 12, m = 4, K = 3
X, TOPICS = np.asarray(ENV.model.X), np.asarray(ENV.model.topics)

LEARNERS = {
    "topic_linear": lambda: C.TopicCascadeUCB(3, 4, beta=1.0),
    "topic_logistic": lambda: C.TopicCascadeUCB(3, 4, beta=1.0, link="logistic"),
    "topic_greedy_count": lambda: C.TopicCascadeUCB(3, 4, state="count", planner="greedy"),
    "lin_ucb": lambda: C.CascadeLinUCB(3, 4, beta=1.0),
    "ucb1": lambda: C.CascadeUCB1(3, 4),
    "kl_ucb": lambda: C.CascadeKLUCB(3, 4),
    "random": lambda: C.RandomCascade(3, 4, seed=11),
}


def _state(learner):
    """Everything the learner exposes about its statistics."""
    return learner._cpp.state()


def _assert_same_state(a, b):
    sa, sb = _state(a), _state(b)
    assert sa.keys() == sb.keys()
    for key in sa:
        if isinstance(sa[key], dict):
            for k in sa[key]:
                np.testing.assert_array_equal(sa[key][k], sb[key][k], err_msg=f"{key}.{k}")
        else:
            np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)


def _click(thread, step):
    return [None, 0, 1, 2][(7 * thread + 3 * step) % 4]


# ---- one learner, eight threads ----------------------------------------------------------------


class _Recorder:
    """Stands in for the C++ learner and logs each call after it ran. The learner calls it under
    its lock, so the log is the order in which the calls took the lock."""

    def __init__(self, inner, log):
        self._inner, self._log = inner, log

    def select(self, X, topics):
        out = self._inner.select(X, topics)
        self._log.append(("select", out.copy()))
        return out

    def update(self, X, topics, cascade, first_click):
        self._inner.update(X, topics, cascade, first_click)
        self._log.append(("update", np.array(cascade, dtype=np.int64), first_click))

    def __getattr__(self, name):
        return getattr(self._inner, name)


@pytest.mark.parametrize("kind", sorted(LEARNERS))
def test_one_learner_shared_by_eight_threads_equals_the_sequential_replay(kind):
    learner = LEARNERS[kind]()
    log = []
    first = learner.select(X, TOPICS)  # builds the C++ learner
    log.append(("select", first.copy()))
    learner._cpp = _Recorder(learner._cpp, log)
    errors, shown = [], []
    start = threading.Barrier(8)

    def work(thread):
        try:
            start.wait()
            for step in range(60):
                c = learner.select(X, TOPICS)
                shown.append(c)
                learner.update(c, _click(thread, step), X=X, topics=TOPICS)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for c in shown:
        assert c.shape == (3,) and len(set(c.tolist())) == 3 and c.min() >= 0 and c.max() < X.shape[0]
    assert sum(entry[0] == "update" for entry in log) == 8 * 60
    assert learner.rounds == 8 * 60

    replay = LEARNERS[kind]()
    for entry in log:
        if entry[0] == "select":
            np.testing.assert_array_equal(replay.select(X, TOPICS), entry[1])
        else:
            replay.update(entry[1], entry[2], X=X, topics=TOPICS)
    learner._cpp = learner._cpp._inner
    _assert_same_state(learner, replay)


def test_item_statistics_add_up_under_threads():
    learner = C.CascadeUCB1(3, 4)
    learner.select(X, TOPICS)
    views = np.zeros(12)
    clicks = np.zeros(12)
    guard = threading.Lock()

    def work(thread):
        for step in range(100):
            c = learner.select(X, TOPICS)
            click = _click(thread, step)
            learner.update(c, click, X=X, topics=TOPICS)
            seen = c if click is None else c[: click + 1]
            with guard:
                views[seen] += 1
                if click is not None:
                    clicks[c[click]] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    state = learner._cpp.state()
    np.testing.assert_array_equal(state["views"], views)
    np.testing.assert_array_equal(state["clicks"], clicks)
    assert state["rounds"] == 800


# ---- refused updates change nothing ------------------------------------------------------------


def _export(learner):
    return {k: np.array(v, copy=True) for k, v in learner._cpp.export_state().items()}


def _assert_unchanged(before, learner):
    after = _export(learner)
    for key in before:
        np.testing.assert_array_equal(after[key], before[key], err_msg=key)


@pytest.mark.parametrize("kind", sorted(LEARNERS))
def test_item_index_beyond_int32_is_refused(kind):
    learner = LEARNERS[kind]()
    learner.update(learner.select(X, TOPICS), 1)
    before = _export(learner)
    with pytest.raises(ValueError, match=r"cascade: expected item indices in \[0, 12\)"):
        learner.update([2**32 + 5, 1, 2], None)
    with pytest.raises(ValueError, match="cascade"):
        learner.update([2**63 + 5, 1, 2], None)
    with pytest.raises(ValueError, match="cascade"):
        learner.update([-(2**32) + 1, 1, 2], 0)
    _assert_unchanged(before, learner)


def test_item_index_beyond_int32_is_refused_for_two_positions():
    learner = C.TopicCascadeUCB(2, 4, beta=1.0)
    learner.select(X, TOPICS)
    with pytest.raises(ValueError, match="cascade"):
        learner.update([2**32 + 5, 1], None)
    assert learner.rounds == 0 and np.all(learner.theta == 0)


@pytest.mark.parametrize("link", ["logistic", "linear"])
def test_topic_learner_refuses_overflowing_features(link):
    learner = C.TopicCascadeUCB(3, 4, beta=1.0, link=link)
    for step in range(5):
        learner.update(learner.select(X, TOPICS), _click(1, step))
    c = learner.select(X, TOPICS)
    before = _export(learner)
    for scale in (1e200, 1e160):
        for click in (None, 0, 2):
            with pytest.raises(ValueError, match="X: the features of item"):
                learner.update(c, click, X=X * scale, topics=TOPICS)
            _assert_unchanged(before, learner)
    assert np.all(np.isfinite(learner.theta)) and np.all(np.isfinite(learner.gram_inverse))
    again = learner.select(X, TOPICS)  # still plans normally
    assert len(set(again.tolist())) == 3


def test_logistic_learner_stays_finite_after_refusals():
    learner = C.TopicCascadeUCB(2, 4, link="logistic")
    c = learner.select(X, TOPICS)
    for _ in range(2):
        with pytest.raises(ValueError, match="X"):
            learner.update(c, 0, X=np.full_like(X, 1e200), topics=TOPICS)
    learner.update(c, 0, X=X * 1e3, topics=TOPICS)  # large but representable: accepted
    assert np.all(np.isfinite(learner.theta)) and np.all(np.isfinite(learner.gram_inverse))
    assert learner.select(X, TOPICS).shape == (2,)


def test_linear_learner_does_not_drop_huge_observations_silently():
    learner = C.CascadeLinUCB(3, 4, beta=1.0)
    c = learner.select(X, TOPICS)
    before = _export(learner)
    with pytest.raises(ValueError, match="X: the features of item"):
        learner.update(c, 1, X=X * 1e160, topics=TOPICS)
    _assert_unchanged(before, learner)
    # representable, but ||x||^2 / lam = 1e200: Sherman-Morrison would leave theta wrong by ~1e284
    with pytest.raises(ValueError, match="X: the features of item .* at most 1e8"):
        learner.update(c, 1, X=X * 1e100, topics=TOPICS)
    _assert_unchanged(before, learner)
    learner.update(c, 1, X=X * 1e3, topics=TOPICS)  # within the bound: recorded, V^-1 shrinks
    state = learner._cpp.state()
    assert state["observations"] == 2 and np.all(np.isfinite(state["gram_inverse"]))
    assert np.trace(state["gram_inverse"]) < np.trace(np.eye(3))


@pytest.mark.parametrize("learner_type", [C.CascadeLinUCB, C.TopicCascadeUCB])
def test_features_too_large_for_accurate_scores_refused(learner_type):
    # ||x||^2 ~ 1e320 overflowed inside the scores: every item scored inf and select() ranked
    # them by index, silently. Such items are refused by select() and scores() as by update().
    learner = learner_type(3, 4, beta=1.0)
    for scale in (1e160, 1e100):
        with pytest.raises(ValueError, match="X: the features of item 0 are too large"):
            learner.select(X * scale, TOPICS)
        if learner_type is C.CascadeLinUCB:
            with pytest.raises(ValueError, match="X: the features of item 0 are too large"):
                learner.scores(X * scale, TOPICS)
    assert learner.rounds == 0


@pytest.mark.parametrize("link", ["linear", "logistic"])
@pytest.mark.parametrize("lam", [1.0, 1e-6])
def test_items_select_accepts_are_learnt_from(link, lam):
    # the bound is on the items' features in select, scores and update alike (the topic entries
    # of the topic-aware learner's phi do not count): items just below it are learnt from
    topics = np.array([0, 1, 2, 0, 1, 2])
    items = np.zeros((6, 2))
    items[:, 0] = np.sqrt(1e8 * lam) * (1 - 1e-12)
    learner = C.TopicCascadeUCB(3, 3, beta=1.0, lam=lam, link=link)
    learner.update(learner.select(items, topics), first_click=1)
    assert learner.rounds == 1 and np.all(np.isfinite(learner.theta))


@pytest.mark.parametrize("learner_type", [C.CascadeLinUCB, C.TopicCascadeUCB])
def test_refused_first_select_leaves_the_learner_as_it_was(learner_type):
    # the first select() makes the C++ learner and fixes n_features from its items: a refused one
    # used to keep both, and the learner then refused items of any other width
    topics = np.array([0, 1, 0, 1])
    learner = learner_type(2, 2, beta=1.0)
    before = pickle.dumps(learner)
    with pytest.raises(ValueError, match="X: the features of item 0 are too large"):
        learner.select(np.full((4, 3), 1e5), topics)
    assert pickle.dumps(learner) == before and learner.n_features is None
    assert len(learner.select(np.full((4, 2), 0.5), topics)) == 2


def test_linear_estimate_within_the_bound_is_the_ridge_solution():
    # rounds with features scaled so that ||x||^2 / lam reaches the 1e8 bound, among ordinary
    # ones: theta_hat stays within 1e-6 (relative; measured up to 2e-7) of the exact rational ridge
    # solution V^-1 b
    rng = np.random.default_rng(0)
    learner = C.CascadeLinUCB(3, 4, beta=1.0, lam=1.0)
    scale = 0.999e4 / np.sqrt(np.max(np.sum(X**2, axis=1)))
    observed = []
    for r in range(40):
        items = X * (scale if r % 7 == 3 else 1.0)
        cascade = learner.select(items, TOPICS)
        click = int(rng.integers(-1, 3))
        learner.update(cascade, None if click < 0 else click)
        observed += [(items[cascade[k]], int(k == click)) for k in range(3 if click < 0 else click + 1)]
    d = X.shape[1]
    V = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    b = [Fraction(0)] * d
    for x, label in observed:
        xf = [Fraction(v) for v in x]
        for i in range(d):
            b[i] += xf[i] * label
            for j in range(d):
                V[i][j] += xf[i] * xf[j]
    exact = np.array([float(v) for v in _solve_exact(V, b)])
    assert np.max(np.abs(learner.theta - exact)) <= 1e-6 * np.max(np.abs(exact))


def _solve_exact(A, b):
    """A^-1 b by Gauss-Jordan elimination in rational arithmetic."""
    n = len(b)
    rows = [list(A[i]) + [b[i]] for i in range(n)]
    for c in range(n):
        pivot = next(r for r in range(c, n) if rows[r][c] != 0)
        rows[c], rows[pivot] = rows[pivot], rows[c]
        for r in range(n):
            if r != c and rows[r][c] != 0:
                f = rows[r][c] / rows[c][c]
                rows[r] = [u - f * v for u, v in zip(rows[r], rows[c], strict=True)]
    return [rows[i][n] / rows[i][i] for i in range(n)]


# ---- the caller's arrays -----------------------------------------------------------------------


def test_model_and_table_leave_the_callers_arrays_alone():
    X0, topics0, theta0 = X.copy(), TOPICS.copy(), np.asarray(ENV.model.theta).copy()
    model = C.TopicCascadeModel(X0, topics0, theta0)
    assert X0.flags.writeable and topics0.flags.writeable and theta0.flags.writeable
    value = model.value([0, 1, 2])
    X0[:] = 0.0
    theta0[:] = 0.0
    assert model.value([0, 1, 2]) == value  # the model kept its own copy
    assert not model.X.flags.writeable
    P = np.full((12, len(C.StateSpace(4, 3))), 0.25)
    table = C.ClickTable(P, topics0, 3)
    assert P.flags.writeable and topics0.flags.writeable
    P[:] = 0.5
    assert table.value([0, 1]) == pytest.approx(1 - 0.75**2)


def test_masked_arrays_are_refused():
    masked = np.ma.array(X, mask=np.zeros_like(X, dtype=bool))
    with pytest.raises(TypeError, match="X: .*masked"):
        C.TopicCascadeModel(masked, TOPICS, ENV.model.theta)
    with pytest.raises(TypeError, match="topics: .*masked"):
        C.TopicCascadeModel(X, np.ma.array(TOPICS), ENV.model.theta)
    with pytest.raises(TypeError, match="X: .*masked"):
        C.TopicCascadeUCB(3, 4).select(masked, TOPICS)
    with pytest.raises(TypeError, match="cascade: .*masked"):
        learner = C.CascadeUCB1(3, 4)
        learner.update(np.ma.array(learner.select(X, TOPICS)), None)


# ---- sizes and counts refused up front ---------------------------------------------------------


def test_state_space_refusals_are_instant():
    for call in (
        lambda: C.StateSpace(62, 64),
        lambda: C.StateSpace(30, 10, max_states=2**40),
        lambda: C.StateSpace(16, 16, "count"),
        lambda: C.TopicCascadeUCB(8, 62).select(np.ones((62, 2)), np.arange(62)),
    ):
        started = time.perf_counter()
        with pytest.raises(ValueError, match="K, n_topics"):
            call()
        assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize("kind", ["set", "count", "last"])
def test_state_count_matches_the_listing(kind):
    from paperkernels.cascade._model import count_states

    for m in range(1, 7):
        for K in range(1, 6):
            assert count_states(kind, m, K) == len(C.StateSpace(m, K, kind))


def test_click_uniforms_arguments_are_named():
    with pytest.raises(TypeError, match="n_items"):
        C.click_uniforms(0, 0, 3, 2.5)
    with pytest.raises(ValueError, match="n_items"):
        C.click_uniforms(0, 0, 3, 0)
    with pytest.raises(ValueError, match="run"):
        C.click_uniforms(0, 2**64, 3, 4)
    with pytest.raises(TypeError, match="run"):
        C.click_uniforms(0, "1", 3, 4)
    started = time.perf_counter()
    with pytest.raises(ValueError, match="T, n_items: .*paperkernels.limits.max_result_bytes"):
        C.click_uniforms(0, 0, 10**7, 10**6)
    assert time.perf_counter() - started < 0.5
    with paperkernels.limits.override(max_result_bytes=8 * 12 * 5 - 1):
        with pytest.raises(ValueError, match="T, n_items"):
            C.click_uniforms(0, 0, 5, 12)
    with paperkernels.limits.override(max_result_bytes=8 * 12 * 5):
        assert C.click_uniforms(0, 0, 5, 12).shape == (5, 12)


def test_environment_and_click_prob_sizes_refused_before_allocating():
    started = time.perf_counter()
    with pytest.raises(ValueError, match="n_items"):
        C.reference_environment(n_items=10**9)
    with pytest.raises(TypeError, match="n_items"):
        C.reference_environment(n_items=2.5)
    with pytest.raises(ValueError, match="n_topics"):
        C.reference_environment(n_topics=100)
    with pytest.raises(ValueError, match="items, states: .*broadcast shape"):
        ENV.model.click_prob(np.zeros((10**5, 1), dtype=np.int64), np.zeros((10**5, 4), dtype=np.int64))
    assert time.perf_counter() - started < 1.0
    assert C.reference_environment(n_items=30, n_topics=5, K=4, n_features=2).model.X.shape == (30, 2)


def test_click_table_size_refused():
    with paperkernels.limits.override(max_result_bytes=12 * len(C.StateSpace(4, 3)) * 8 - 1):
        with pytest.raises(ValueError, match="K: the click table"):
            ENV.model.click_table(3)


def test_one_learner_instead_of_a_list():
    with pytest.raises(TypeError, match=r"learners: expected a list of learners, got a single CascadeUCB1"):
        C.simulate(ENV, C.CascadeUCB1(), 5)
    with pytest.raises(TypeError, match="learners"):
        C.simulate(ENV, 3, 5)
    with pytest.raises(TypeError, match="record"):
        C.simulate(ENV, [C.CascadeUCB1()], 5, record="no")


# ---- pickling ----------------------------------------------------------------------------------


def _round_trips(obj):
    return [
        pickle.loads(pickle.dumps(obj)),
        pickle.loads(pickle.dumps(obj, protocol=5)),
        copy.deepcopy(obj),
        copy.copy(obj),
    ]


@pytest.mark.parametrize("kind", sorted(LEARNERS))
def test_learners_pickle_and_continue_bit_identically(kind):
    fresh = LEARNERS[kind]()
    for clone in _round_trips(fresh):  # before the first select
        assert repr(clone) == repr(fresh)
        np.testing.assert_array_equal(clone.select(X, TOPICS), LEARNERS[kind]().select(X, TOPICS))
    learner = LEARNERS[kind]()
    for step in range(25):
        learner.update(learner.select(X, TOPICS), _click(2, step))
    clones = _round_trips(learner)
    for clone in clones:
        _assert_same_state(clone, learner)
    for step in range(25):
        want = learner.select(X, TOPICS)
        for clone in clones:
            np.testing.assert_array_equal(clone.select(X, TOPICS), want)
            clone.update(want, _click(3, step))  # default X, topics: those of the last select
        learner.update(want, _click(3, step))
    for clone in clones:
        _assert_same_state(clone, learner)
        assert clone._cpp is not learner._cpp


def test_copies_are_independent():
    learner = C.TopicCascadeUCB(3, 4, beta=1.0)
    learner.update(learner.select(X, TOPICS), 0)
    twin = copy.copy(learner)
    twin.update(twin.select(X, TOPICS), 1)
    assert learner.rounds == 1 and twin.rounds == 2


def test_models_tables_spaces_and_environments_pickle():
    env = C.reference_environment(seed=4)
    _ = env.optimal  # fill the cache
    _ = env.click_table
    space = C.StateSpace(4, 3, "count")
    table = C.ClickTable(np.full((12, len(C.StateSpace(4, 3))), 0.2), TOPICS, 3)
    for obj in (env.model, table, space, env, C.worked_example(), C.toy_catalogue()):
        for clone in _round_trips(obj):
            assert type(clone) is type(obj)
    for clone in _round_trips(env):
        assert clone.optimal.value == env.optimal.value
        np.testing.assert_array_equal(clone.click_table, env.click_table)
        np.testing.assert_array_equal(
            C.simulate(clone, [C.TopicCascadeUCB(beta=1.0)], 40, seed=2).regret,
            C.simulate(env, [C.TopicCascadeUCB(beta=1.0)], 40, seed=2).regret,
        )
    for clone in _round_trips(space):
        assert clone.index([1, 1, 0, 0]) == space.index([1, 1, 0, 0])
        np.testing.assert_array_equal(clone.next, space.next)
    for clone in _round_trips(table):
        assert clone.value([3, 1, 2]) == table.value([3, 1, 2])
        assert not clone.probabilities.flags.writeable
    result = C.simulate(env, [C.CascadeUCB1()], 10, seed=1, record=True)
    for clone in _round_trips(result):
        np.testing.assert_array_equal(clone.regret, result.regret)


# ---- Ctrl-C ------------------------------------------------------------------------------------


def test_state_space_construction_stops_on_ctrl_c():
    assert_interrupts("from paperkernels.cascade import StateSpace", "StateSpace(62, 5)")


def test_learner_set_up_and_select_stop_on_ctrl_c():
    # 597,619 states: the planner's ranked lists take 4.3 GiB, above the default result limit
    assert_interrupts(
        "import numpy as np\nimport paperkernels\nfrom paperkernels.cascade import TopicCascadeUCB\n"
        "paperkernels.limits.max_result_bytes = 8 * 2**30\n"
        "learner = TopicCascadeUCB(5, 62, beta=1.0)\nX = np.ones((62, 2))\ntopics = np.arange(62)",
        "learner.select(X, topics)",
    )


def test_brute_planning_stops_on_ctrl_c():
    assert_interrupts(
        "import numpy as np\nfrom paperkernels.cascade import ClickTable, plan\n"
        "table = ClickTable(np.full((40, 2), 0.1), np.zeros(40, dtype=int), 6)",
        "plan(table, 6, 'brute', max_orderings=1e12)",
    )


def test_simulation_stops_on_ctrl_c():
    assert_interrupts(
        "from paperkernels import cascade as C\nenv = C.reference_environment(seed=0)",
        "C.simulate(env, [C.TopicCascadeUCB(beta=1.0)], 2_000_000, n_seeds=2, seed=0, n_threads=1)",
    )
