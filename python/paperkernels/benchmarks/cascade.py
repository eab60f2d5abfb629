"""paperkernels.cascade against a plain Python/numpy reference learner.

For each scale (L items, m topics, cascade length K; d_x = 5 item features, "transition" features,
"set" states, beta = 1, lambda = 1):

* learner rounds per second: the topic-aware optimistic learner with exact planning, one thread,
  paperkernels (the whole loop in C++) against the numpy learner below (vectorised optimistic
  probabilities for every (item, state), exact branch-and-bound planning in Python,
  Sherman-Morrison updates) and its textbook form with dense feature rows;
* planning alone: exact planning on the true model, paperkernels.plan against the same Python
  planner on the same click table.

Before timing, both learners play the same rounds on the same clicks and must choose the same
cascades (or, where the reference sees a tie within 1e-9, one it also finds optimal), and both
planners must reach the same value. Rates come from this process's CPU time (one thread works at a
time on both sides).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict

import numpy as np

from .. import cascade as pc
from ._harness import Recorder, Timer, blas_threads, measure

D_X = 5
BETA = 1.0


def make_environment(L: int, m: int, K: int, seed: int = 0) -> pc.CascadeEnvironment:
    rng = np.random.default_rng(seed)
    X = rng.random((L, D_X))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    topics = rng.integers(0, m, L)
    gamma = rng.uniform(-0.05, 0.15, (m, m))
    np.fill_diagonal(gamma, -0.10)
    model = pc.TopicCascadeModel.from_parts(X, topics, rng.uniform(0.05, 0.25, D_X), gamma, n_topics=m)
    return pc.CascadeEnvironment(model, K, name=f"L={L}, m={m}, K={K}")


# ---------------------------------------------------------------------------------------------
# The numpy reference: "set" states, "transition" features, linear link.


def enumerate_states(m: int, K: int) -> tuple[np.ndarray, np.ndarray]:
    """States (topic sets as bitmasks) reachable with at most K - 1 items, breadth first."""
    order: list[int] = [0]
    index: dict[int, int] = {0: 0}
    for s in order:
        for c in range(m):
            child = s | (1 << c)
            if child not in index and bin(child).count("1") <= K - 1:
                index[child] = len(order)
                order.append(child)
    Z = np.array([[(s >> c) & 1 for c in range(m)] for s in order], dtype=float)
    nxt = np.array([[index.get(s | (1 << c), -1) for c in range(m)] for s in order])
    return Z, nxt


def _cascade_value(probs: list[float]) -> float:
    """The recursion of cascade_value, without its input checks: the planner's own probabilities."""
    v = 0.0
    for p in reversed(probs):
        v = p + (1.0 - p) * v
    return v


class _Best(TypedDict):
    value: float
    cascade: tuple[int, ...] | None


class PythonPlanner:
    """Exact planning in Python: per (state, topic) the best items, a relaxed bound, branch and bound."""

    def __init__(self, topics: np.ndarray, m: int, K: int):
        self.topics, self.m, self.K = topics, m, K
        self.Z, self.next = enumerate_states(m, K)
        self.size = self.Z.sum(axis=1).astype(int)
        self.by_topic = [np.nonzero(topics == c)[0] for c in range(m)]

    def plan(self, P: np.ndarray) -> tuple[tuple[int, ...] | None, float]:
        K, m, S = self.K, self.m, len(self.Z)
        lists: list[np.ndarray] = []  # lists[c]: (r, S) best items of topic c per state
        for c in range(m):
            items = self.by_topic[c]
            r = min(K, len(items))
            if r == 0:
                lists.append(np.empty((0, S), dtype=int))
                continue
            block = P[items]
            top = (
                np.argpartition(-block, r - 1, axis=0)[:r]
                if len(items) > r
                else np.tile(np.arange(len(items))[:, None], (1, S))
            )
            ranked = np.take_along_axis(
                top, np.argsort(-np.take_along_axis(block, top, axis=0), axis=0, kind="stable"), axis=0
            )
            lists.append(items[ranked])
        best_p = np.array([[P[l[0, s], s] if len(l) else -1.0 for s in range(S)] for l in lists])  # (m, S)
        bound = np.zeros((K + 1, S))
        for k in range(K - 1, -1, -1):
            after = (
                np.where(self.next >= 0, bound[k + 1][np.maximum(self.next, 0)], 1.0).T
                if k + 1 < K
                else np.zeros((m, S))
            )
            bound[k] = np.max(np.where(best_p >= 0, best_p + (1 - best_p) * after, 0.0), axis=0)
        best: _Best = {"value": -1.0, "cascade": None}
        chosen: list[int] = []  # item indices (numpy integers)
        probs: list[float] = []

        def search(k: int, s: int, prefix: float, survive: float) -> None:
            branches: list[tuple[float, float, int, int]] = []
            for c in range(m):
                taken = 0
                for item in lists[c][:, s]:
                    if taken == K - k:
                        break
                    if item in chosen:
                        continue
                    p = P[item, s]
                    after = bound[k + 1, self.next[s, c]] if k + 1 < K else 0.0
                    branches.append((p + (1 - p) * after, p, item, c))
                    taken += 1
            branches.sort(key=lambda b: (-b[0], -b[1], b[2]))
            for bnd, p, item, c in branches:
                if best["value"] >= 0 and prefix + survive * bnd <= best["value"]:
                    break
                chosen.append(item)
                probs.append(p)
                if k + 1 == K:
                    value = _cascade_value(probs)
                    if value > best["value"]:
                        best["value"], best["cascade"] = value, tuple(chosen)
                else:
                    search(k + 1, self.next[s, c], prefix + survive * p, survive * (1 - p))
                chosen.pop()
                probs.pop()

        search(0, 0, 0.0, 1.0)
        return best["cascade"], best["value"]


class NumpyTopicUCB:
    """The optimistic learner in numpy: theta = V^{-1} b with V^{-1} by Sherman-Morrison."""

    def __init__(self, X: np.ndarray, topics: np.ndarray, m: int, K: int, beta: float = BETA, lam: float = 1.0):
        self.X, self.topics, self.m, self.K, self.beta = X, topics, m, K, beta
        self.dx = X.shape[1]
        self.d = self.dx + m * m
        self.Minv = np.eye(self.d) / lam
        self.b = np.zeros(self.d)
        self.planner = PythonPlanner(topics, m, K)

    def phi(self, item: int, s: int) -> np.ndarray:
        f = np.zeros(self.d)
        f[: self.dx] = self.X[item]
        start = self.dx + self.topics[item] * self.m
        f[start : start + self.m] = self.planner.Z[s]
        return f

    def optimistic_table(self) -> np.ndarray:
        dx, m, M = self.dx, self.m, self.Minv
        theta = M @ self.b
        Z = self.planner.Z
        u = self.X @ theta[:dx]
        a = np.einsum("ij,jk,ik->i", self.X, M[:dx, :dx], self.X)
        cross = M[dx:, :dx].reshape(m, m, dx)  # cross[c, k] = row (c, k) of the topic blocks
        H = np.einsum("ikl,il->ik", cross[self.topics], self.X)  # (L, m)
        gamma = theta[dx:].reshape(m, m)
        blocks = M[dx:, dx:].reshape(m, m, m, m)[np.arange(m), :, np.arange(m), :]  # (m, m, m): M_cc
        q = np.einsum("sk,ckl,sl->cs", Z, blocks, Z)  # (m, S)
        quad = a[:, None] + 2 * H @ Z.T + q[self.topics]
        index = u[:, None] + gamma[self.topics] @ Z.T + self.beta * np.sqrt(np.maximum(quad, 0))
        table: np.ndarray = np.clip(index, 0, 1)
        return table

    def select(self) -> tuple[tuple[int, ...] | None, float]:
        return self.planner.plan(self.optimistic_table())

    def update(self, cascade: Sequence[int], first_click: int | None) -> None:
        n = self.K if first_click is None else first_click + 1
        s = 0
        for k in range(n):
            f = self.phi(cascade[k], s)
            Mf = self.Minv @ f
            self.Minv -= np.outer(Mf, Mf) / (1 + f @ Mf)
            self.b += (1.0 if k == first_click else 0.0) * f
            s = self.planner.next[s, self.topics[cascade[k]]]


class DenseNumpyTopicUCB(NumpyTopicUCB):
    """The textbook form: phi for every (item, state) as dense rows, p~ = clip(Phi theta + beta
    sqrt(diag(Phi M Phi^T)))."""

    def optimistic_table(self) -> np.ndarray:
        dx, m, M = self.dx, self.m, self.Minv
        theta = M @ self.b
        L = self.X.shape[0]
        out = np.empty((L, len(self.planner.Z)))
        Phi = np.zeros((L, self.d))
        Phi[:, :dx] = self.X
        columns = dx + self.topics[:, None] * m + np.arange(m)[None, :]  # each item's topic block
        rows = np.arange(L)[:, None]
        for s, z in enumerate(self.planner.Z):
            Phi[:, dx:] = 0.0
            Phi[rows, columns] = z[None, :]
            out[:, s] = Phi @ theta + self.beta * np.sqrt(np.maximum(np.sum((Phi @ M) * Phi, axis=1), 0))
        return np.clip(out, 0, 1)


def check_same_cascades(env: pc.CascadeEnvironment, rounds: int, checked: int, seed: int = 7) -> tuple[int, int, int]:
    """The numpy learner consumes the clicks of a paperkernels run; over the last `checked` rounds
    it also selects. Returns (equal, ties, different): ties are cascades the numpy learner also
    finds optimal within 1e-9."""
    model = env.model
    result = pc.simulate(env, [pc.TopicCascadeUCB(beta=BETA)], rounds, seed=seed, n_threads=1, record=True)
    reference = NumpyTopicUCB(model.X, model.topics, model.n_topics, env.K)
    cascades, first_clicks = result.cascades, result.first_clicks
    assert cascades is not None and first_clicks is not None  # record=True keeps both
    equal = ties = different = 0
    for t in range(rounds):
        mine = tuple(int(i) for i in cascades[0, 0, t])
        if t >= rounds - checked:
            theirs, value = reference.select()
            if mine == theirs:
                equal += 1
            else:
                table = reference.optimistic_table()
                probs: list[float] = []
                s = 0
                for item in mine:
                    probs.append(table[item, s])
                    s = reference.planner.next[s, model.topics[item]]
                if pc.cascade_value(probs) < value - 1e-9:
                    different += 1
                else:
                    ties += 1
        first = int(first_clicks[0, 0, t])
        reference.update(mine, None if first < 0 else first)
    return equal, ties, different


# rounds timed for paperkernels, rounds timed for numpy, rounds replayed, rounds checked, rounds for
# the dense numpy learner
FULL = {
    (100, 5, 3): (20_000, 200, 2_000, 200, 20),
    (1000, 10, 5): (2_000, 20, 2_000, 20, 2),
    (10_000, 10, 5): (500, 4, 500, 4, 1),
}
QUICK = {(100, 5, 3): (300, 5, 60, 10, 2), (300, 6, 4): (40, 2, 20, 4, 1)}


def run(rec: Recorder) -> None:
    with blas_threads(1):
        _run(rec)


def _run(rec: Recorder) -> None:
    quick = rec.quick
    rounds = QUICK if quick else FULL
    rec.note(
        f"topic-aware learner, exact planning, d_x = {D_X}, beta = {BETA}, one thread (BLAS too); "
        "rates from this process's CPU time"
    )
    for (L, m, K), (T_fast, T_ref, T_replay, T_check, T_dense) in rounds.items():
        env = make_environment(L, m, K)
        model = env.model
        scale = f"L={L} m={m} K={K}"
        workload = f"learner {scale}"
        equal, ties, different = check_same_cascades(env, T_replay, T_check)
        rec.check(
            workload,
            "TopicCascadeUCB vs the numpy learner on the same clicks",
            "cascades not optimal for the numpy learner",
            different,
            0,
            detail=f"last {T_check} of {T_replay} replayed rounds: {equal} equal, {ties} ties within 1e-9",
        )

        def run_fast(T: int = T_fast) -> None:
            pc.simulate(env, [pc.TopicCascadeUCB(beta=BETA)], T, seed=1, n_threads=1)

        rec.rate(
            workload,
            "paperkernels",
            measure(run_fast, repeat=2 if quick else 3, clock="cpu", units=T_fast),
            unit="rounds/s",
            threads=1,
            detail=f"runs of {T_fast} rounds from scratch",
        )
        rec.rate(
            workload,
            "paperkernels (first rounds only)",
            measure(lambda: run_fast(T_ref), repeat=3, min_time=0.0 if quick else 0.2, clock="cpu", units=T_ref),
            unit="rounds/s",
            threads=1,
            detail=f"the numpy learner's {T_ref} rounds, where optimism is widest and pruning weakest",
        )
        T_auto = max(T_ref, T_fast // 4)
        rec.rate(
            workload,
            "paperkernels (default confidence width)",
            measure(
                lambda: pc.simulate(env, [pc.TopicCascadeUCB()], T_auto, seed=1, n_threads=1),
                repeat=2,
                clock="cpu",
                units=T_auto,
            ),
            unit="rounds/s",
            threads=1,
            detail=f"runs of {T_auto} rounds, beta_t from the confidence bound",
        )

        def numpy_timer(cls: type[NumpyTopicUCB], rounds_timed: int) -> tuple[Timer, NumpyTopicUCB]:
            learner = cls(model.X, model.topics, m, K)

            def play() -> None:
                for t in range(rounds_timed):
                    cascade, _ = learner.select()
                    assert cascade is not None  # every scale has at least K items
                    learner.update(cascade, None if t % 3 else 0)

            return measure(play, repeat=1, clock="cpu", units=rounds_timed), learner

        timer, _ = numpy_timer(NumpyTopicUCB, T_ref)
        rec.rate(
            workload,
            "numpy learner (block-structured)",
            timer,
            unit="rounds/s",
            threads=1,
            peer=True,
            detail=f"its first {T_ref} rounds",
        )
        timer, dense = numpy_timer(DenseNumpyTopicUCB, T_dense)
        gap = float(np.max(np.abs(dense.optimistic_table() - NumpyTopicUCB.optimistic_table(dense))))
        rec.check(workload, "dense vs block-structured numpy optimistic tables", "max |difference|", gap, 1e-10)
        rec.rate(
            workload,
            "numpy learner (dense rows)",
            timer,
            unit="rounds/s",
            threads=1,
            peer=True,
            detail=f"its first {T_dense} rounds",
        )

        workload = f"planning {scale}"
        planner = PythonPlanner(model.topics, m, K)
        mine = pc.plan(model, K)
        theirs = planner.plan(model.click_table(K))
        rec.check(
            workload,
            "paperkernels.plan vs the Python branch-and-bound planner",
            "|R(A*) difference|",
            abs(mine.value - theirs[1]),
            1e-12,
        )
        rec.rate(
            workload,
            "paperkernels",
            measure(lambda: pc.plan(model, K), repeat=3, min_time=0.05 if quick else 0.2, clock="cpu"),
            unit="plans/s",
            threads=1,
            detail="plans from the model",
        )
        rec.rate(
            workload,
            "Python planner",
            measure(lambda: planner.plan(model.click_table(K)), repeat=2, clock="cpu"),
            unit="plans/s",
            threads=1,
            peer=True,
            detail="plans from the model's click table (included)",
        )
