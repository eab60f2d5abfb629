"""paperkernels.cascade against the paper's numbers (its worked example and reference simulation) and
independent references (tests/cascade_reference.py: dense features, Gram matrices solved from scratch,
brute force)."""

import _thread
import hashlib
import itertools
import math
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import cascade_reference as ref
from paperkernels import cascade as pc

# ---------------------------------------------------------------------------------------------
# Helpers


def random_model(rng, L, m, dx=3, state="set", features="transition", link="linear", n_topics=None):
    X = rng.random((L, dx))
    topics = rng.integers(0, m, L)
    m = n_topics or m
    d = dx + m * (m if features == "transition" else 1)
    theta = np.concatenate([rng.uniform(0.0, 0.4, dx) / dx * 2, rng.uniform(-0.15, 0.2, d - dx)])
    if link == "logistic":
        theta = 4 * theta - 1
    return pc.TopicCascadeModel(X, topics, theta, n_topics=m, features=features, state=state, link=link)


def small_env(seed, L=8, m=3, K=3, dx=3, state="set", features="transition", link="linear"):
    """Un-normalised features so that items are not tied when nothing is known yet."""
    rng = np.random.default_rng(seed)
    X = rng.random((L, dx)) / np.sqrt(dx)
    topics = np.arange(L) % m
    d = dx + m * (m if features == "transition" else 1)
    theta = np.concatenate([rng.uniform(0.1, 0.3, dx), rng.uniform(-0.1, 0.15, d - dx)])
    if link == "logistic":
        theta = 4 * theta
    model = pc.TopicCascadeModel(X, topics, theta, n_topics=m, features=features, state=state, link=link)
    return pc.CascadeEnvironment(model, K)


def reference_prob(model):
    return lambda i, z: ref.model_prob(
        model.X, model.topics, model.theta, model.n_topics, model.features, model.link, i, z
    )


# ---------------------------------------------------------------------------------------------
# The paper's worked example


def test_worked_example_values():
    env = pc.worked_example()
    model = env.model
    for method in ("exact", "topic_dp", "brute"):
        cascade, value = pc.plan(model, 3, method)
        assert value == pytest.approx(0.754615, abs=1e-12)
        assert tuple(cascade) in {(0, 2, 4), (0, 4, 2)}
        assert model.value(cascade) == pytest.approx(value, abs=1e-15)
    assert model.value([4, 2, 0]) == pytest.approx(0.618905, abs=1e-12)
    p_empty = model.click_prob(np.arange(6), np.zeros(3, dtype=int))
    top3 = np.argsort(-p_empty, kind="stable")[:3]
    assert tuple(top3) == (0, 1, 2)
    assert model.value(top3) == pytest.approx(0.608245, abs=1e-12)
    assert pc.plan(model, 3, "greedy").value <= 0.754615 + 1e-12


def test_worked_example_click_probabilities_follow_the_formula():
    model = pc.worked_example().model
    X, tau = model.X, model.topics
    theta_x = np.array([0.30, 0.25])
    gamma = np.array([[-0.20, 0.0, 0.05], [0.10, -0.15, 0.0], [0.25, 0.0, -0.10]])
    for shown in itertools.chain.from_iterable(itertools.combinations(range(3), r) for r in range(3)):
        z = np.zeros(3, dtype=int)
        z[list(shown)] = 1
        for i in range(6):
            expected = X[i] @ theta_x + sum(gamma[tau[i], c] for c in shown)
            assert model.click_prob(i, z) == pytest.approx(min(1, max(0, expected)), abs=1e-15)


# ---------------------------------------------------------------------------------------------
# Model, states and tables against the dense reference


@pytest.mark.parametrize("kind", pc.STATE_KINDS)
def test_state_space_matches_enumeration(kind):
    for m, K in [(1, 1), (3, 1), (3, 3), (4, 4), (5, 3)]:
        space = pc.StateSpace(m, K, kind)
        # Every state reachable with at most K - 1 items, by brute force.
        reachable = {tuple([0] * m)}
        frontier = set(reachable)
        for _ in range(K - 1):
            frontier = {ref.next_state(z, c, kind) for z in frontier for c in range(m)}
            reachable |= frontier
        assert {tuple(v) for v in space.vectors.tolist()} == reachable
        assert len(space) == len(reachable)
        for s, z in enumerate(space.vectors.tolist()):
            for c in range(m):
                after = ref.next_state(tuple(z), c, kind)
                expected = space.index(after) if after in reachable else -1
                assert space.next[s, c] == expected
        if K > 1:  # smaller K: a prefix of the columns
            assert np.array_equal(
                pc.StateSpace(m, K - 1, kind).vectors, space.vectors[: len(pc.StateSpace(m, K - 1, kind))]
            )
    assert len(pc.StateSpace(10, 5, "set")) == sum(math.comb(10, j) for j in range(5))


@pytest.mark.parametrize("kind", pc.STATE_KINDS)
@pytest.mark.parametrize("features", pc.FEATURE_MAPS)
@pytest.mark.parametrize("link", pc.LINKS)
def test_click_table_and_values_match_reference(kind, features, link):
    rng = np.random.default_rng([pc.STATE_KINDS.index(kind), pc.FEATURE_MAPS.index(features), pc.LINKS.index(link)])
    model = random_model(rng, L=7, m=3, state=kind, features=features, link=link)
    K = 3
    table = model.click_table(K)
    space = model.state_space(K)
    prob = reference_prob(model)
    for s, z in enumerate(space.vectors.tolist()):
        assert np.allclose(table[:, s], model.click_prob(np.arange(7), z), rtol=0, atol=1e-14)
        assert np.allclose(table[:, s], [prob(i, tuple(z)) for i in range(7)], rtol=0, atol=1e-14)
    for cascade in itertools.permutations(range(7), K):
        probs = model.position_probs(cascade)
        z = tuple([0] * 3)
        for k, i in enumerate(cascade):
            assert probs[k] == pytest.approx(prob(i, z), abs=1e-14)
            z = ref.next_state(z, int(model.topics[i]), kind)
        # The recursion V_k = p_k + (1 - p_k) V_{k+1} equals the product form.
        assert model.value(cascade) == pytest.approx(ref.product_value(probs), abs=1e-14)


def test_value_recursion_equals_product_form_on_random_probabilities():
    rng = np.random.default_rng(1)
    for _ in range(500):
        p = rng.random(rng.integers(1, 8))
        p[rng.random(p.size) < 0.2] = rng.choice([0.0, 1.0])
        assert pc.cascade_value(p) == pytest.approx(1 - np.prod(1 - p), abs=1e-15)


def test_from_parts_layout():
    model = pc.worked_example().model
    assert model.dim == 2 + 9
    assert np.array_equal(model.theta_x, [0.30, 0.25])
    assert model.gamma[2, 0] == 0.25
    coverage = pc.TopicCascadeModel.from_parts(
        model.X, model.topics, [0.3, 0.25], [0.1, 0.0, -0.1], features="coverage"
    )
    assert coverage.dim == 5 and np.array_equal(coverage.gamma, [0.1, 0.0, -0.1])
    # Coverage: the bonus applies only while the item's topic is absent.
    assert coverage.click_prob(0, [0, 1, 0]) == pytest.approx(0.3 + 0.1)
    assert coverage.click_prob(0, [1, 1, 0]) == pytest.approx(0.3)


# ---------------------------------------------------------------------------------------------
# Planners on random small instances against brute force


def random_table(rng):
    kind = rng.choice(pc.STATE_KINDS)
    K = int(rng.integers(1, 5))
    L = int(rng.integers(K, 10))
    m = int(rng.integers(1, 5))
    space = pc.StateSpace(m, K, kind)
    topics = rng.integers(0, m, L)
    flavour = rng.integers(0, 3)
    if flavour == 0:  # a random model
        model = random_model(rng, L, m, state=kind, features=rng.choice(pc.FEATURE_MAPS), link=rng.choice(pc.LINKS))
        return pc.ClickTable(model.click_table(K), model.topics, K, state=kind, n_topics=m), model
    P = rng.random((L, len(space)))
    if flavour == 1:  # many exact ties, zeros and ones
        P = np.round(P * 4) / 4
    return pc.ClickTable(P, topics, K, state=kind, n_topics=m), None


def test_planners_against_brute_force_on_random_instances():
    rng = np.random.default_rng(2024)
    checked_dp = 0
    for _ in range(400):
        table, model = random_table(rng)
        K, L, m, kind = table.K, table.n_items, table.n_topics, table.state
        prob = ref.table_prob(table.probabilities, table.space.vectors)
        best, values = ref.brute_force(prob, L, K, table.topics, kind, m)
        assert pc.plan(table, K, "brute").value == pytest.approx(best, abs=1e-12)
        feasible_dp = len(set(table.topics.tolist())) >= K
        if feasible_dp:
            best_distinct, distinct = ref.brute_force(prob, L, K, table.topics, kind, m, distinct_topics=True)
            checked_dp += 1
        for source in (table, model) if model is not None else (table,):  # a model plans without its table
            exact = pc.plan(source, K, "exact")
            assert exact.value == pytest.approx(best, abs=1e-12)
            assert values[tuple(exact.cascade)] == pytest.approx(exact.value, abs=1e-12)
            greedy = pc.plan(source, K, "greedy")
            assert greedy.value <= best + 1e-12
            assert values[tuple(greedy.cascade)] == pytest.approx(greedy.value, abs=1e-12)
            if feasible_dp:
                dp = pc.plan(source, K, "topic_dp")
                assert dp.value == pytest.approx(best_distinct, abs=1e-12)
                assert tuple(dp.cascade) in distinct
            else:
                with pytest.raises(ValueError, match="K: method 'topic_dp' uses one item per topic"):
                    pc.plan(source, K, "topic_dp")
    assert checked_dp > 150


def test_table_serves_shorter_cascades():
    model = random_model(np.random.default_rng(9), L=8, m=3)
    table = pc.ClickTable(model.click_table(4), model.topics, 4)
    for K in (1, 2, 3):
        assert pc.plan(table, K).value == pytest.approx(pc.plan(model, K).value, abs=1e-14)
    with pytest.raises(ValueError, match="K: this click table covers cascades of length <= 4, got 5"):
        pc.plan(table, 5)


def test_builder_with_given_parameters():
    table = np.array([[1, 0, 0], [0, 2, 1], [0, 1, 1], [1, 0, 1]])
    features = np.array([[3.0, 4.0], [1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    env = pc.environment_from_table(
        table, features, 2, theta_x=[0.2, 0.1], gamma=[0.05, 0.0, -0.05], feature_map="coverage"
    )
    model = env.model
    assert np.array_equal(model.topics, [0, 1, 1, 0])
    assert np.allclose(model.X[0], [0.6, 0.8])
    assert model.click_prob(0, [0, 0, 0]) == pytest.approx(0.6 * 0.2 + 0.8 * 0.1 + 0.05)
    assert pc.plan(model, 2).value == pytest.approx(pc.plan(model, 2, "brute").value, abs=1e-14)


def test_optimistic_value_never_below_true_optimum():
    rng = np.random.default_rng(7)
    for _ in range(300):
        table, _ = random_table(rng)
        bump = np.abs(rng.normal(0, 0.1, table.probabilities.shape)) * (rng.random(table.probabilities.shape) < 0.5)
        optimistic = pc.ClickTable(
            np.clip(table.probabilities + bump, 0, 1), table.topics, table.K, state=table.state, n_topics=table.n_topics
        )
        assert pc.plan(optimistic, table.K).value >= pc.plan(table, table.K).value - 1e-12


def test_learner_optimism_when_its_probabilities_dominate():
    env = pc.reference_environment(3)
    learner = pc.TopicCascadeUCB(env.K, env.model.n_topics, beta=2.0)
    model = env.model
    u = pc.click_uniforms(11, 0, 300, model.n_items)
    for t in range(300):
        cascade = learner.select(model.X, model.topics)
        learner.update(cascade, env.clicks(u[t], cascade))
    optimistic = learner.optimistic_table(model.X, model.topics)
    assert np.all(optimistic >= env.click_table - 1e-12)  # beta = 2 covers the truth here
    learner.select(model.X, model.topics)
    assert learner.last_value >= env.optimal.value - 1e-12
    assert learner.last_value == pytest.approx(
        pc.plan(pc.ClickTable(optimistic, model.topics, env.K), env.K).value, abs=1e-12
    )


def test_large_instance_exact_matches_topic_dp_or_beats_it():
    rng = np.random.default_rng(5)
    model = random_model(rng, L=400, m=8, dx=4)
    exact = pc.plan(model, 5, "exact")
    assert exact.value >= pc.plan(model, 5, "topic_dp").value - 1e-12
    assert exact.value >= pc.plan(model, 5, "greedy").value - 1e-12
    assert model.value(exact.cascade) == pytest.approx(exact.value, abs=1e-14)


# ---------------------------------------------------------------------------------------------
# Learners against the slow references, on the same clicks


def follow_reference(env, learner, reference, T, seed=3, mode="plan"):
    """Runs `learner` in simulate() and the reference on the same clicks; returns
    (rounds where the reference's choice is unique and equal, rounds decided by a tie)."""
    result = pc.simulate(env, [learner], T, seed=seed, record=True)
    model = env.model
    u = pc.click_uniforms(result.seed, 0, T, model.n_items)
    strict = ties = 0
    for t in range(T):
        cascade = tuple(int(v) for v in result.cascades[0, 0, t])
        if mode == "plan":
            best, values = reference.plan(model.X, model.topics)
            if values is None:  # greedy: a single cascade
                assert cascade == best, t
                strict += 1
            else:
                near = [c for c, v in values.items() if v >= best - 1e-9]
                if len(near) == 1:
                    assert cascade == near[0], t
                    strict += 1
                else:
                    assert values[cascade] >= best - 1e-9, t
                    ties += 1
        else:
            scores = reference.scores(model.X)
            expected = ref.top_k(scores, env.K)
            if cascade == expected:
                strict += 1
            else:
                assert np.allclose(scores[list(cascade)], scores[list(expected)], rtol=0, atol=1e-9), t
                ties += 1
        first = env.clicks(u[t], cascade)
        assert result.first_clicks[0, 0, t] == (-1 if first is None else first)
        assert result.regret[0, 0, t] == pytest.approx(env.optimal.value - model.value(cascade), abs=1e-12)
        reference.update(model.X, model.topics, cascade, first)
    return strict, ties


TOPIC_CONFIGS = {
    "exact": {},
    "greedy": {"planner": "greedy"},
    "topic_dp": {"planner": "topic_dp"},
    "count": {"state": "count"},
    "last": {"state": "last"},
    "logistic": {"link": "logistic"},
}


@pytest.mark.parametrize("name", list(TOPIC_CONFIGS))
def test_topic_learner_matches_reference(name):
    options = TOPIC_CONFIGS[name]
    env = small_env(1, state=options.get("state", "set"), link=options.get("link", "linear"))
    learner = pc.TopicCascadeUCB(beta=0.5, **options)
    reference = ref.ReferenceTopicUCB(
        env.K,
        env.model.n_topics,
        env.model.n_features,
        state=options.get("state", "set"),
        link_name=options.get("link", "linear"),
        planner=options.get("planner", "exact"),
        beta=0.5,
    )
    strict, ties = follow_reference(env, learner, reference, 150)
    assert strict >= 120, (strict, ties)  # the rest: genuine ties (clipped probabilities)


def test_topic_learner_with_ties_chooses_optimal_cascades():
    # Coverage features make every ordering of distinct topics tie; the default beta keeps the
    # optimistic probabilities clipped at 1 for long. Every choice must still be optimal.
    for features, beta in (("coverage", 0.5), ("transition", None)):
        env = small_env(2, features=features)
        learner = pc.TopicCascadeUCB(beta=beta, features=features)
        reference = ref.ReferenceTopicUCB(env.K, env.model.n_topics, env.model.n_features, features=features, beta=beta)
        strict, ties = follow_reference(env, learner, reference, 100)
        assert strict + ties == 100


@pytest.mark.parametrize("name", ["linucb", "ucb1", "klucb"])
def test_item_learners_match_reference(name):
    env = small_env(4)
    L, K = env.model.n_items, env.K
    learner, reference = {
        "linucb": (pc.CascadeLinUCB(beta=0.5), ref.ReferenceLinUCB(K, env.model.n_features, beta=0.5)),
        "ucb1": (pc.CascadeUCB1(), ref.ReferenceItemUCB(K, L, "ucb1")),
        "klucb": (pc.CascadeKLUCB(), ref.ReferenceItemUCB(K, L, "kl")),
    }[name]
    strict, ties = follow_reference(env, learner, reference, 300, mode="score")
    assert strict >= 290


def test_random_learner_stream():
    env = small_env(5)
    result = pc.simulate(env, [pc.CascadeUCB1(), pc.RandomCascade()], 50, n_seeds=2, seed=99, record=True)
    for run in range(2):
        expected = ref.random_cascades(result.seed, (2 << 32) + run, env.model.n_items, env.K, 50)
        assert [tuple(c) for c in result.cascades[1, run].tolist()] == expected


def test_stepping_matches_simulate_and_reference_probabilities():
    env = small_env(6)
    model = env.model
    T = 60
    result = pc.simulate(env, [pc.TopicCascadeUCB(beta=0.5)], T, seed=8, record=True)
    u = pc.click_uniforms(result.seed, 0, T, model.n_items)
    learner = pc.TopicCascadeUCB(env.K, model.n_topics, beta=0.5)
    reference = ref.ReferenceTopicUCB(env.K, model.n_topics, model.n_features, beta=0.5)
    space = model.state_space(env.K)
    for t in range(T):
        table = learner.optimistic_table(model.X, model.topics)
        _, prob = reference.index(model.X, model.topics)
        expected = np.array([[prob(i, tuple(z)) for z in space.vectors.tolist()] for i in range(model.n_items)])
        assert np.allclose(table, expected, rtol=0, atol=1e-10)
        cascade = learner.select(model.X, model.topics)
        assert np.array_equal(cascade, result.cascades[0, 0, t])
        first = env.clicks(u[t], cascade)
        learner.update(cascade, first)
        reference.update(model.X, model.topics, tuple(cascade), first)
    theta, V = reference.estimate()
    assert np.allclose(learner.theta, theta, atol=1e-10)
    assert np.allclose(learner.gram_inverse, np.linalg.inv(V), atol=1e-10)
    assert learner.rounds == T


def topic_env(L, m, K, seed=0):
    """The benchmark's environment shape (d_x = 5), without reductions whose rounding may vary."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 0.45, (L, 5))
    topics = rng.integers(0, m, L)
    gamma = rng.uniform(-0.05, 0.15, (m, m))
    np.fill_diagonal(gamma, -0.10)
    model = pc.TopicCascadeModel.from_parts(X, topics, rng.uniform(0.05, 0.25, 5), gamma, n_topics=m)
    return pc.CascadeEnvironment(model, K)


# (L, m, K), rounds, options: every state kind, feature map and planner of the learner.
PINNED_RUNS = [
    ((1000, 10, 5), 100, {}),
    ((300, 6, 4), 150, {}),
    ((200, 5, 3), 150, {"state": "count"}),
    ((200, 5, 4), 150, {"state": "last"}),
    ((150, 4, 3), 150, {"features": "coverage"}),
    ((300, 6, 4), 100, {"planner": "topic_dp"}),
    ((300, 6, 4), 100, {"planner": "greedy"}),
]


# Topic counts on both sides of the fixed vector blocks (up to 16 topics) and up to the largest.
PINNED_RUNS_MANY_TOPICS = [
    ((400, 17, 3), 60, {}),
    ((400, 20, 3), 60, {}),
    ((300, 33, 2), 60, {}),
    ((300, 16, 3), 60, {"state": "count"}),
    ((300, 40, 3), 60, {"state": "last"}),
    ((300, 40, 3), 60, {"features": "coverage"}),
    ((200, 3, 4), 60, {}),
    ((50, 1, 3), 40, {}),
    ((100, 2, 3), 60, {"state": "count"}),
    ((100, 62, 2), 40, {"features": "coverage"}),
]


@pytest.mark.parametrize(
    "runs, expected",
    [
        (PINNED_RUNS, "caa49ac2b40b87c1bc383ffa10024490862739b95d20bd567e7cff5532e73b4c"),
        (PINNED_RUNS_MANY_TOPICS, "65d8027127c201396bfc69d5d416e55f8ae6a161b992516820a472766242a686"),
    ],
    ids=["bench-like", "many-topics"],
)
def test_topic_learner_bits_are_pinned(runs, expected):
    # SHA-256 of every cascade, plan value, final optimistic table and V^{-1} of these runs, as an
    # earlier, plainer implementation of the optimistic lists computed them: the pruning and
    # vectorisation of the lists may change speed, never a bit of what the learner reports.
    digest = hashlib.sha256()
    for (L, m, K), rounds, options in runs:
        env = topic_env(L, m, K)
        model = env.model
        learner = pc.TopicCascadeUCB(K, m, beta=1.0, **options)
        u = np.random.default_rng(5).random((rounds, L))
        for t in range(rounds):
            cascade = learner.select(model.X, model.topics)
            digest.update(np.ascontiguousarray(cascade, dtype=np.int64).tobytes())
            digest.update(np.float64(learner.last_value).tobytes())
            learner.update(cascade, env.clicks(u[t], cascade))
        digest.update(learner.optimistic_table(model.X, model.topics).tobytes())
        digest.update(learner.gram_inverse.tobytes())
    assert digest.hexdigest() == expected


def test_learner_items_may_change_between_rounds():
    rng = np.random.default_rng(3)
    learner = pc.TopicCascadeUCB(3, 4, beta=1.0)
    for _ in range(30):
        L = int(rng.integers(5, 40))
        X = rng.random((L, 2))
        topics = rng.integers(0, 4, L)
        cascade = learner.select(X, topics)
        assert len(set(cascade.tolist())) == 3 and cascade.max() < L
        learner.update(cascade, int(rng.integers(-1, 3)))


# ---------------------------------------------------------------------------------------------
# simulate(): determinism, common random numbers, the reference regret shape


def test_simulate_identical_for_any_thread_count(n_threads):
    env = pc.reference_environment(1)
    learners = [pc.TopicCascadeUCB(beta=1.0), pc.CascadeLinUCB(beta=1.0), pc.CascadeKLUCB(), pc.RandomCascade()]
    a = pc.simulate(env, learners, 400, n_seeds=5, seed=17, n_threads=1, record=True)
    b = pc.simulate(env, learners, 400, n_seeds=5, seed=17, n_threads=n_threads, record=True)
    assert np.array_equal(a.regret, b.regret) and np.array_equal(a.cascades, b.cascades)
    # Run r depends on (seed, r) only.
    c = pc.simulate(env, learners, 400, n_seeds=3, seed=17, n_threads=n_threads)
    assert np.array_equal(c.regret, a.regret[:, :3])
    assert not np.array_equal(a.regret[:, 0], a.regret[:, 1])


def test_simulate_common_random_numbers():
    env = pc.reference_environment(2)
    learners = [pc.TopicCascadeUCB(beta=1.0), pc.CascadeUCB1(), pc.RandomCascade()]
    T = 200
    result = pc.simulate(env, learners, T, n_seeds=2, seed=5, record=True)
    table = env.click_table
    space = env.model.state_space(env.K)
    for run in range(2):
        u = pc.click_uniforms(result.seed, run, T, env.model.n_items)
        for j in range(len(learners)):
            for t in range(T):
                cascade = result.cascades[j, run, t]
                s, first = 0, -1
                for k, item in enumerate(cascade):
                    if first < 0 and u[t, item] < table[item, s]:
                        first = k
                    if k + 1 < env.K:
                        s = space.next[s, env.model.topics[item]]
                assert result.first_clicks[j, run, t] == first
    assert np.all(result.regret >= -1e-12)


def test_reference_simulation_regret_shape():
    env = pc.reference_environment(0)
    learners = [
        pc.TopicCascadeUCB(beta=1.0),
        pc.TopicCascadeUCB(beta=1.0, planner="greedy"),
        pc.CascadeLinUCB(beta=1.0),
        pc.CascadeUCB1(),
        pc.CascadeKLUCB(),
        pc.RandomCascade(),
    ]
    result = pc.simulate(env, learners, 20_000, n_seeds=4, seed=1)
    curve = result.cumulative_regret.mean(axis=1)
    final = curve[:, -1]
    quarters = np.diff(np.concatenate([np.zeros((6, 1)), curve[:, [4999, 9999, 14999, 19999]]], axis=1), axis=1)
    exact, greedy, linucb, ucb1, klucb, random = range(6)
    assert final[exact] == final.min() and final[random] == final.max()
    assert quarters[exact, 3] < 0.35 * quarters[exact, 0]  # sublinear, flattening
    for j in (greedy, linucb):  # growing linearly
        assert quarters[j, 3] > 0.6 * quarters[j, 1]
        assert quarters[j, 3] > 2 * quarters[exact, 3]
    assert final[ucb1] > final[exact] and final[klucb] > final[exact]


def test_simulate_interrupt():
    # A process started in the background inherits SIGINT ignored, and then interrupt_main does
    # nothing: install Python's handler for the duration of the test.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        env = pc.reference_environment(0)
        timer = threading.Timer(0.3, _thread.interrupt_main)
        timer.start()
        start = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):  # uninterrupted, this would take minutes
            pc.simulate(env, [pc.TopicCascadeUCB(beta=1.0)], 10_000_000, n_seeds=2, seed=0, n_threads=2)
        assert time.perf_counter() - start < 10
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)


# ---------------------------------------------------------------------------------------------
# Environments, catalogue, plotting


def test_reference_environment_follows_the_paper():
    env = pc.reference_environment(0)
    model = env.model
    assert (model.n_items, model.n_topics, env.K, model.n_features) == (12, 4, 3, 3)
    assert np.array_equal(model.topics, np.arange(12) % 4)
    assert np.allclose(np.linalg.norm(model.X, axis=1), 1) and model.X.min() >= 0
    assert np.all((model.theta_x >= 0.2) & (model.theta_x <= 0.4))
    gamma = model.gamma
    assert np.all(np.diag(gamma) == -0.10)
    off = gamma[~np.eye(4, dtype=bool)]
    assert np.all((off >= -0.05) & (off <= 0.15))
    assert np.array_equal(pc.reference_environment(0).model.X, model.X)
    assert not np.array_equal(pc.reference_environment(1).model.X, model.X)


def test_toy_catalogue_and_builder():
    catalogue = pc.toy_catalogue()
    assert len(catalogue.titles) == 24 and catalogue.topic_table.shape == (24, len(catalogue.topic_names))
    assert catalogue.features.shape == (24, 3) and catalogue.feature_names == ("popularity", "recency", "rating")
    env = catalogue.environment(3, seed=4)
    assert env.item_names[0] == catalogue.titles[0]
    rows = catalogue.topic_table
    assert np.all(rows[np.arange(24), env.model.topics] == 1)
    # argmax picks the first listed topic column among ties; rarest the least frequent topic.
    assert np.array_equal(env.model.topics, np.argmax(rows, axis=1))
    rare = catalogue.environment(3, assign="rarest").model.topics
    freq = rows.sum(axis=0)
    assert np.all(freq[rare] == np.where(rows > 0, freq, np.inf).min(axis=1))
    result = pc.simulate(env, [pc.TopicCascadeUCB(beta=1.0), pc.RandomCascade()], 500, n_seeds=2, seed=0)
    assert result.final_regret.mean(axis=1)[0] < result.final_regret.mean(axis=1)[1]


def test_read_catalogue_movielens_layout(tmp_path):
    path = tmp_path / "movies.csv"
    path.write_text(
        "movieId,title,genres,year\n1,A,Comedy|Drama,0.5\n2,B,(no genres listed)|Drama,0.2\n3,C,Action,0.9\n"
    )
    catalogue = pc.read_catalogue(str(path))
    assert catalogue.topic_names == ("Comedy", "Drama", "Action")
    assert np.array_equal(catalogue.topic_table, [[1, 1, 0], [0, 1, 0], [0, 0, 1]])
    assert np.array_equal(catalogue.features, [[0.5], [0.2], [0.9]])
    bad = tmp_path / "bad.csv"
    bad.write_text("title,genres,year\nA,Comedy,x\n")
    with pytest.raises(ValueError, match="feature_columns: non-numeric value"):
        pc.read_catalogue(str(bad))
    with pytest.raises(ValueError, match="genre_column: no column 'kind'"):
        pc.read_catalogue(str(path), genre_column="kind")


def test_plot_regret_draws_mean_and_band():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    result = pc.simulate(
        pc.reference_environment(0), [pc.TopicCascadeUCB(beta=1.0), pc.RandomCascade()], 300, n_seeds=3, seed=0
    )
    ax = pc.plot_regret(result, band="std")
    assert len(ax.lines) == 2 and len(ax.collections) == 2
    assert np.allclose(ax.lines[1].get_ydata(), result.cumulative_regret[1].mean(axis=0))
    assert [t.get_text() for t in ax.get_legend().get_texts()] == result.names
    plt.close("all")


def test_matplotlib_is_imported_lazily():
    code = "import sys, paperkernels.cascade; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_demo_runs():
    out = subprocess.run(
        [sys.executable, "-m", "paperkernels", "demo", "cascade"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert "0.754615" in out.stdout and "0.618905" in out.stdout


# ---------------------------------------------------------------------------------------------
# Bad input


def test_bad_click_tables_and_topics():
    space = pc.StateSpace(2, 2)
    P = np.full((3, len(space)), 0.5)
    with pytest.raises(ValueError, match=r"probabilities: expected values in \[0.0, 1.0\]"):
        pc.ClickTable(np.where(np.eye(3, len(space)) > 0, 1.5, P), [0, 1, 0], 2)
    with pytest.raises(ValueError, match="probabilities: expected finite values"):
        pc.ClickTable(np.where(np.eye(3, len(space)) > 0, np.nan, P), [0, 1, 0], 2)
    with pytest.raises(ValueError, match="probabilities: expected 3 columns"):
        pc.ClickTable(P[:, :2], [0, 1, 0], 2)
    with pytest.raises(ValueError, match=r"topics: expected values in \[0, 2\)"):
        pc.ClickTable(P, [0, 2, 0], 2, n_topics=2)
    with pytest.raises(ValueError, match="topics: expected non-negative topic indices"):
        pc.ClickTable(P, [0, -1, 0], 2)
    with pytest.raises(ValueError, match="topics: expected one topic per item"):
        pc.ClickTable(P, [0, 1], 2)
    with pytest.raises(TypeError, match="topics: expected integers"):
        pc.ClickTable(P, [0, 0.5, 1], 2)


def test_bad_model_arguments():
    X = np.random.default_rng(0).random((5, 2))
    topics = np.array([0, 1, 2, 0, 1])
    theta = np.zeros(2 + 9)
    with pytest.raises(ValueError, match="X: expected finite values"):
        pc.TopicCascadeModel(np.where(X > 0.9, np.nan, X), topics, theta)
    with pytest.raises(ValueError, match=r"theta: expected shape \(11,\)"):
        pc.TopicCascadeModel(X, topics, np.zeros(5))
    with pytest.raises(ValueError, match="link: expected one of 'linear', 'logistic'"):
        pc.TopicCascadeModel(X, topics, theta, link="probit")
    with pytest.raises(ValueError, match="state: expected one of 'set', 'count', 'last'"):
        pc.TopicCascadeModel(X, topics, theta, state="bag")
    with pytest.raises(ValueError, match="n_topics: the 'count' state kind allows at most 16 topics, got 17"):
        pc.StateSpace(17, 3, "count")
    with pytest.raises(ValueError, match="topics: the 'set' state kind allows at most 62 topics, got 63"):
        pc.TopicCascadeModel(np.ones((63, 1)), np.arange(63), np.zeros(1 + 63 * 63))
    with pytest.raises(ValueError, match="topics: the 'count' state kind allows at most 16 topics, got 20"):
        pc.TopicCascadeModel(np.ones((20, 1)), np.arange(20), np.zeros(1 + 20 * 20), state="count")
    with pytest.raises(ValueError, match="K, n_topics: the 'set' state space with 62 topics and K = 8 has more than"):
        pc.StateSpace(62, 8, "set")
    model = pc.TopicCascadeModel(X, topics, theta)
    with pytest.raises(ValueError, match="states: 'set' state vectors hold 0/1 indicators"):
        model.click_prob(0, [2, 0, 0])
    with pytest.raises(ValueError, match="states: expected topic vectors of length n_topics = 3"):
        model.click_prob(0, [1, 0])
    with pytest.raises(ValueError, match=r"items: expected item indices in \[0, 5\)"):
        model.click_prob(5, [0, 0, 0])


def test_bad_cascades_and_K():
    model = pc.worked_example().model
    with pytest.raises(ValueError, match="cascade: expected distinct items, item 2 appears twice"):
        model.value([0, 2, 2])
    with pytest.raises(ValueError, match=r"cascade: expected item indices in \[0, 6\)"):
        model.value([0, 6])
    with pytest.raises(ValueError, match=r"K: expected K <= the number of items \(6\), got 7"):
        pc.plan(model, 7)
    with pytest.raises(ValueError, match=r"K: expected an integer in \[1, 64\], got 0"):
        pc.plan(model, 0)
    with pytest.raises(ValueError, match="method: expected one of 'exact', 'topic_dp', 'greedy', 'brute'"):
        pc.plan(model, 3, "astar")
    with pytest.raises(
        ValueError, match="K: method 'topic_dp' uses one item per topic and needs K <= the number of topics with items"
    ):
        pc.plan(model, 4, "topic_dp")
    with pytest.raises(
        ValueError,
        match=r"method 'brute': L!/\(L-K\)! = 120 orderings \(L = 6, K = 3\) is above the limit max_orderings = 100",
    ):
        pc.plan(model, 3, "brute", max_orderings=100)
    big = random_model(np.random.default_rng(0), 40, 3)
    with pytest.raises(ValueError, match=r"L!/\(L-K\)! = 78960960 orderings"):
        pc.plan(big, 5, "brute")
    with pytest.raises(TypeError, match="source: expected a TopicCascadeModel or a ClickTable"):
        pc.plan(np.ones((3, 3)), 2)


def test_bad_learner_calls():
    env = pc.worked_example()
    X, topics = env.model.X, env.model.topics
    learner = pc.TopicCascadeUCB(3, 3, beta=1.0)
    cascade = learner.select(X, topics)
    with pytest.raises(ValueError, match="cascade: expected distinct items, item 0 appears twice"):
        learner.update([0, 0, 1], 0)
    with pytest.raises(ValueError, match=r"first_click: expected an integer in \[-1, 2\], got 3"):
        learner.update(cascade, 3)
    with pytest.raises(ValueError, match="X: expected 2 features per item, got 3"):
        learner.select(np.ones((6, 3)), topics)
    with pytest.raises(ValueError, match="X: expected finite values"):
        learner.select(np.where(X > 0.85, np.nan, X), topics)
    with pytest.raises(ValueError, match=r"topics: expected values in \[0, 3\)"):
        learner.select(X, topics + 1)
    with pytest.raises(ValueError, match=r"K: expected K <= the number of items \(2\), got 3"):
        learner.select(X[:2], topics[:2])
    with pytest.raises(ValueError, match=r"TopicCascadeUCB\(exact\): pass K and n_topics when creating the learner"):
        pc.TopicCascadeUCB().select(X, topics)
    with pytest.raises(ValueError, match="planner: expected one of 'exact', 'topic_dp', 'greedy'"):
        pc.TopicCascadeUCB(planner="brute")
    with pytest.raises(ValueError, match=r"lam: expected a number in \(0, inf\]"):
        pc.TopicCascadeUCB(lam=0)
    with pytest.raises(ValueError, match="beta: expected a finite number"):
        pc.CascadeLinUCB(beta=float("nan"))
    ucb1 = pc.CascadeUCB1(3, 3)
    ucb1.select(X, topics)
    with pytest.raises(ValueError, match="X: this learner keeps per-item statistics for 6 items, got 5"):
        ucb1.select(X[:5], topics[:5])


def test_bad_simulate_arguments():
    env = pc.worked_example()
    with pytest.raises(
        ValueError, match="learners: TopicCascadeUCB\\(exact\\) was created with K = 2, the environment has 3"
    ):
        pc.simulate(env, [pc.TopicCascadeUCB(K=2)], 10)
    with pytest.raises(ValueError, match="learners: expected at least one learner"):
        pc.simulate(env, [], 10)
    with pytest.raises(TypeError, match=r"learners\[0\]: expected a cascade learner"):
        pc.simulate(env, ["ucb"], 10)
    with pytest.raises(ValueError, match=r"T: expected an integer in \[1, inf\], got 0"):
        pc.simulate(env, [pc.CascadeUCB1()], 0)
    with pytest.raises(TypeError, match="env: expected a CascadeEnvironment"):
        pc.simulate(env.model, [pc.CascadeUCB1()], 10)
    with pytest.raises(ValueError, match="K: expected K <= the number of items"):
        pc.CascadeEnvironment(env.model, 7)


def test_bad_tables_for_builder():
    features = np.ones((3, 2))
    with pytest.raises(ValueError, match="topic_table: item 1 has no topic"):
        pc.environment_from_table([[1, 0], [0, 0], [0, 1]], features, 2)
    with pytest.raises(ValueError, match=r"topic_table: expected values in \[0.0, inf\]"):
        pc.environment_from_table([[1, -1], [0, 1], [0, 1]], features, 2)
    with pytest.raises(ValueError, match="features: expected one row per item of topic_table"):
        pc.environment_from_table([[1, 0], [0, 1]], features, 2)


# ---------------------------------------------------------------------------------------------
# Options cross into the core as enums; the KL-UCB index is the accurate root


def test_options_cross_into_the_core_as_enums():
    from paperkernels import _core

    for enum, names in (
        (_core.cascade.StateKind, pc.STATE_KINDS),
        (_core.cascade.FeatureMap, pc.FEATURE_MAPS),
        (_core.cascade.Link, pc.LINKS),
        (_core.cascade.Planner, pc.PLANNERS),
    ):
        assert tuple(enum.__members__) == names
    assert _core.cascade.LearnerType.topic_ucb.name == "topic_ucb"
    # A bare integer code is refused by the binding (it was cast to the enum unchecked).
    with pytest.raises(TypeError):
        _core.cascade.state_space(7, 3, 3, 100)
    with pytest.raises(TypeError):
        _core.cascade.Learner(
            type=9,
            K=2,
            n_topics=2,
            n_features=1,
            state=0,
            features=0,
            link=0,
            planner=0,
            lam=1.0,
            beta=1.0,
            delta=0.05,
            S=1.0,
            max_states=100,
            seed=0,
            stream=0,
        )
    # pybind11 builds a member from any integer: one that names no option is refused as well.
    with pytest.raises(ValueError, match="state: expected a member of the enum, got the value 7"):
        _core.cascade.state_space(_core.cascade.StateKind(7), 3, 3, 100)
    with pytest.raises(ValueError, match="planner: expected one of 'exact', 'topic_dp', 'greedy', got 'brute'"):
        pc.TopicCascadeUCB(planner="brute")


def test_kl_ucb_index_is_the_accurate_root():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    L, K, n = 3, 3, 2000
    X, topics = np.eye(L), np.zeros(L, dtype=np.int64)
    learner = pc.CascadeKLUCB(K, 1)
    learner.select(X, topics)
    learner.update([0, 1, 2], 0)  # item 0: one click
    for _ in range(n - 1):
        learner.update([0, 1, 2], None)  # every item examined, no click
    scores = learner.scores(X, topics)

    def exact(clicks, views, t):
        mean, log_t = mpmath.mpf(clicks) / views, mpmath.log(t)
        budget = log_t + 3 * mpmath.log(max(mpmath.mpf(1), log_t))

        def excess(q):
            kl = (1 - mean) * mpmath.log((1 - mean) / (1 - q))
            if mean > 0:
                kl += mean * mpmath.log(mean / q)
            return views * kl - budget

        low, high = mean, mpmath.mpf(1)
        for _ in range(200):
            mid = (low + high) / 2
            low, high = (low, mid) if excess(mid) > 0 else (mid, high)
        return low

    t = n + 1
    for item, (clicks, views) in enumerate([(1, n), (0, n - 1), (0, n - 1)]):
        root = exact(clicks, views, t)
        # The index solves n kl(mean, q) = log t + 3 log log t to the last bits (the naive
        # divergence cancels near q = mean and was off by 1e-14 relative here).
        assert abs(mpmath.mpf(float(scores[item])) - root) / root < 1e-15, item
