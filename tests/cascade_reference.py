"""Slow, obviously-correct references for paperkernels.cascade: dense feature vectors, explicit Gram
matrices solved from scratch, and brute force over every ordering. Nothing here calls the C++ core
except the shared xoshiro256** stream for the common random numbers (checked in test_foundation)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from xoshiro_reference import Xoshiro256

# ---------------------------------------------------------------------------------------------
# Model


def next_state(z: tuple[int, ...], topic: int, kind: str) -> tuple[int, ...]:
    z = list(z)
    if kind == "set":
        z[topic] = 1
    elif kind == "count":
        z[topic] += 1
    else:
        z = [0] * len(z)
        z[topic] = 1
    return tuple(z)


def phi(x: np.ndarray, topic: int, z: Sequence[int], m: int, features: str) -> np.ndarray:
    """Dense phi(i, s) = [x ; topic blocks] built entry by entry."""
    block = m if features == "transition" else 1
    out = np.zeros(len(x) + m * block)
    out[: len(x)] = x
    start = len(x) + topic * block
    if features == "transition":
        for c in range(m):
            out[start + c] = z[c]
    else:
        out[start] = 1.0 if z[topic] == 0 else 0.0
    return out


def link(eta: float, name: str) -> float:
    if name == "linear":
        return min(1.0, max(0.0, eta))
    return 1.0 / (1.0 + math.exp(-eta))


def model_prob(X, topics, theta, m, features, link_name, item, z) -> float:
    return link(float(phi(X[item], int(topics[item]), z, m, features) @ theta), link_name)


def product_value(probs: Sequence[float]) -> float:
    return 1.0 - float(np.prod([1.0 - p for p in probs]))


def orderings(L: int, K: int, topics: Sequence[int], kind: str, m: int, distinct_topics: bool = False):
    """Every ordered K-tuple of distinct items with the state before each position."""
    for cascade in itertools.permutations(range(L), K):
        if distinct_topics and len({topics[i] for i in cascade}) < K:
            continue
        z = tuple([0] * m)
        states = []
        for i in cascade:
            states.append(z)
            z = next_state(z, int(topics[i]), kind)
        yield cascade, states


def brute_force(prob: Callable[[int, tuple[int, ...]], float], L, K, topics, kind, m, distinct_topics=False):
    """All values by the product form; returns (best value, best cascades within 1e-12, values dict)."""
    cache: dict[tuple, float] = {}

    def p(i, z):
        key = (i, z)
        if key not in cache:
            cache[key] = prob(i, z)
        return cache[key]

    values = {}
    for cascade, states in orderings(L, K, topics, kind, m, distinct_topics):
        values[cascade] = product_value([p(i, z) for i, z in zip(cascade, states, strict=False)])
    best = max(values.values())
    return best, values


def table_prob(P: np.ndarray, space_vectors: np.ndarray) -> Callable:
    index = {tuple(v): s for s, v in enumerate(space_vectors.tolist())}
    return lambda i, z: float(P[i, index[z]])


# ---------------------------------------------------------------------------------------------
# Learners. Each exposes select(X, topics) -> (cascade or None, scores) and update(...); for the
# planners with ties the reference returns every cascade within `tol` of its optimum.


class ReferenceTopicUCB:
    """The optimistic learner from scratch each round: V = lam I + sum phi phi^T, theta = V^-1 b."""

    def __init__(
        self,
        K,
        m,
        dx,
        *,
        features="transition",
        state="set",
        link_name="linear",
        planner="exact",
        beta=None,
        lam=1.0,
        delta=0.05,
        S=1.0,
    ):
        self.K, self.m, self.dx = K, m, dx
        self.features, self.state, self.link_name, self.planner = features, state, link_name, planner
        self.beta, self.lam, self.delta, self.S = beta, lam, delta, S
        self.d = dx + m * (m if features == "transition" else 1)
        self.rows: list[np.ndarray] = []
        self.labels: list[float] = []
        self.W = lam * np.eye(self.d)  # logistic: Hessian-weighted Gram
        self.theta_logistic = np.zeros(self.d)

    def beta_t(self) -> float:
        if self.beta is not None:
            return self.beta
        n = len(self.rows)
        return math.sqrt(self.d * math.log((1 + n / self.lam) / self.delta)) / 2 + math.sqrt(self.lam) * self.S

    def estimate(self):
        if self.link_name == "logistic":
            return self.theta_logistic, self.W
        V = self.lam * np.eye(self.d)
        b = np.zeros(self.d)
        for f, y in zip(self.rows, self.labels, strict=False):
            V += np.outer(f, f)
            b += y * f
        return np.linalg.solve(V, b), V

    def index(self, X, topics):
        """Unclipped optimistic index and probability as functions of (item, state)."""
        theta, V = self.estimate()
        beta = self.beta_t()
        cache = {}

        def score(i, z):
            key = (i, z)
            if key not in cache:
                f = phi(X[i], int(topics[i]), z, self.m, self.features)
                cache[key] = float(f @ theta) + beta * math.sqrt(max(float(f @ np.linalg.solve(V, f)), 0.0))
            return cache[key]

        return score, (lambda i, z: link(score(i, z), self.link_name))

    def plan(self, X, topics):
        """(best value, {cascade: value}) under the optimistic probabilities; greedy: its cascade."""
        score, prob = self.index(X, topics)
        L = len(X)
        if self.planner == "greedy":
            chosen, z = [], tuple([0] * self.m)
            for _ in range(self.K):
                free = [i for i in range(L) if i not in chosen]
                best = max(free, key=lambda i: (prob(i, z), score(i, z), -i))
                chosen.append(best)
                z = next_state(z, int(topics[best]), self.state)
            return tuple(chosen), None
        distinct = self.planner == "topic_dp"
        return brute_force(prob, L, self.K, topics, self.state, self.m, distinct_topics=distinct)

    def update(self, X, topics, cascade, first_click):
        n = self.K if first_click is None else first_click + 1
        z = tuple([0] * self.m)
        for k in range(n):
            i = cascade[k]
            f = phi(X[i], int(topics[i]), z, self.m, self.features)
            y = 1.0 if k == first_click else 0.0
            if self.link_name == "logistic":
                mu = 1.0 / (1.0 + math.exp(-float(f @ self.theta_logistic)))
                self.W = self.W + mu * (1 - mu) * np.outer(f, f)
                self.theta_logistic = self.theta_logistic + np.linalg.solve(self.W, f) * (y - mu)
            self.rows.append(f)
            self.labels.append(y)
            z = next_state(z, int(topics[i]), self.state)


class ReferenceLinUCB:
    def __init__(self, K, dx, beta=None, lam=1.0, delta=0.05, S=1.0):
        self.K, self.dx, self.beta, self.lam, self.delta, self.S = K, dx, beta, lam, delta, S
        self.V = lam * np.eye(dx)
        self.b = np.zeros(dx)
        self.n = 0

    def scores(self, X):
        beta = self.beta
        if beta is None:
            beta = (
                math.sqrt(self.dx * math.log((1 + self.n / self.lam) / self.delta)) / 2 + math.sqrt(self.lam) * self.S
            )
        theta = np.linalg.solve(self.V, self.b)
        return np.array([x @ theta + beta * math.sqrt(x @ np.linalg.solve(self.V, x)) for x in X])

    def update(self, X, topics, cascade, first_click):
        n = self.K if first_click is None else first_click + 1
        for k in range(n):
            x = X[cascade[k]]
            self.V += np.outer(x, x)
            self.b += (1.0 if k == first_click else 0.0) * x
            self.n += 1


def kl(p, q):
    q = min(max(q, 1e-15), 1 - 1e-15)
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


class ReferenceItemUCB:
    """CascadeUCB1 / CascadeKL-UCB with per-item counts; KL-UCB solved with scipy's brentq."""

    def __init__(self, K, L, kind):
        self.K, self.kind = K, kind
        self.clicks = np.zeros(L)
        self.views = np.zeros(L)
        self.t = 1

    def scores(self, X):
        from scipy.optimize import brentq

        log_t = math.log(self.t)
        out = np.full(len(self.views), np.inf)
        for i, (c, n) in enumerate(zip(self.clicks, self.views, strict=False)):
            if n == 0:
                continue
            mean = c / n
            if self.kind == "ucb1":
                out[i] = mean + math.sqrt(1.5 * log_t / n)
            else:
                budget = log_t + 3 * math.log(max(1.0, log_t))
                g = lambda q: n * kl(mean, q) - budget  # noqa: E731
                out[i] = 1.0 if mean >= 1 or g(1 - 1e-15) <= 0 else brentq(g, mean, 1 - 1e-15, xtol=1e-14)
        return out

    def update(self, X, topics, cascade, first_click):
        n = self.K if first_click is None else first_click + 1
        for k in range(n):
            self.views[cascade[k]] += 1
            if k == first_click:
                self.clicks[cascade[k]] += 1
        self.t += 1


def top_k(scores: np.ndarray, K: int) -> tuple[int, ...]:
    """K best by score, ties to the lower index."""
    return tuple(sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:K])


# ---------------------------------------------------------------------------------------------
# The random baseline's stream: the shared xoshiro256** reference.


def random_cascades(seed, stream, L, K, T):
    rng = Xoshiro256(seed, stream)
    out = []
    for _ in range(T):
        perm = list(range(L))
        for k in range(K):
            j = k + rng.below(L - k)
            perm[k], perm[j] = perm[j], perm[k]
        out.append(tuple(perm[:K]))
    return out
