"""Demo of paperkernels.cascade: the worked example, why order matters, a short regret comparison."""

from __future__ import annotations

import itertools
import time

import numpy as np

from .._report import Report
from ..cascade import (
    CascadeKLUCB,
    CascadeLinUCB,
    CascadeUCB1,
    RandomCascade,
    TopicCascadeUCB,
    plan,
    reference_environment,
    simulate,
    worked_example,
)


def run(report: Report) -> None:
    env = worked_example()
    model = env.model
    report.line(
        "Worked example (L = 6 items, m = 3 topics, K = 3): p(i | s) = x_i . theta_x + sum_{c in s} Gamma[tau(i), c]"
    )
    rows = []
    for method in ("exact", "topic_dp", "greedy", "brute"):
        cascade, value = plan(model, env.K, method)
        rows.append([method, str(tuple(int(i) for i in cascade)), f"{value:.6f}"])
    report.table(["planner", "cascade", "R(A)"], rows)

    best = plan(model, env.K).cascade
    report.line()
    report.line(f"Order matters: the six orderings of the items {sorted(int(i) for i in best)}")
    rows = []
    for order in itertools.permutations(sorted(int(i) for i in best)):
        probs = model.position_probs(order)
        rows.append([str(order), " ".join(f"{p:.3f}" for p in probs), f"{model.value(order):.6f}"])
    report.table(["cascade", "p at each position", "R(A)"], rows)
    p_empty = model.click_prob(np.arange(model.n_items), np.zeros(model.n_topics, dtype=int))
    top3 = tuple(int(i) for i in np.argsort(-p_empty, kind="stable")[:3])
    report.figure("reversed optimum (4, 2, 0)", f"{model.value([4, 2, 0]):.6f}")
    report.figure(f"top-3 items by p(i | empty) {top3}", f"{model.value(top3):.6f}")

    report.line()
    T, seeds = 20_000, 4
    ref = reference_environment(0)
    learners = [
        TopicCascadeUCB(beta=1.0),
        TopicCascadeUCB(beta=1.0, planner="greedy"),
        CascadeLinUCB(beta=1.0),
        CascadeUCB1(),
        CascadeKLUCB(),
        RandomCascade(),
    ]
    start = time.perf_counter()
    result = simulate(ref, learners, T, n_seeds=seeds, seed=1)
    elapsed = time.perf_counter() - start
    report.line(
        f"Regret on the reference environment (L = 12, m = 4, K = 3, beta = 1), T = {T}, {seeds} runs in parallel:"
    )
    quarter = result.cumulative_regret.mean(axis=1)[:, [T // 4 - 1, T // 2 - 1, T - 1]]
    rows = [
        [name, f"{q[0]:.1f}", f"{q[1]:.1f}", f"{q[2]:.1f}", f"{sem:.1f}"]
        for (name, _, sem), q in zip(result.summary(), quarter, strict=False)
    ]
    report.table(["learner", f"t = {T // 4}", f"t = {T // 2}", f"t = {T}", "s.e."], rows)
    rounds = len(learners) * seeds * T
    report.figure("learner-rounds per second (all threads)", f"{rounds / elapsed:,.0f}")
