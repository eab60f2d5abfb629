"""paperkernels.toptwo (beta-EB-TCI, Bernoulli arms, beta = 1/2, gk16 threshold).

Contenders, on the same instances, threshold and beta:

- paperkernels.toptwo.run_many on one thread and on all threads;
- the PyPI package ``best-arm`` (its ``TopTwoBAI`` with the EB leader, the TCI challenger and
  ``ChernoffStoppingCondition("practice")``, whose threshold is log((1 + log t) / delta)). Its
  metadata pins scipy < 1.13, which conflicts with current numpy, while its code runs with current
  scipy: ``pip install --no-deps best-arm`` adds it;
- a plain numpy/Python episode written here.

The contenders run in alternating rounds and each keeps its best round; single-threaded ones are
timed by this process's CPU time, the multi-threaded run by wall time. The mean stopping times,
pooled over every round, must agree within 4 standard errors.

Scaling in K: pulls/s of run_many on one core (CPU time) at K = 10, 100 and 1000 arms, with the best
arm at 0.6 and the others spread evenly over [0.1, 0.5], so that the cost of a pull as K grows is
visible. Those episodes are short (about 160 pulls per arm), and their first pulls, while most arms
have one or two pulls and equal costs, cost about O(K) each; one long episode at K = 1000 (the other
arms over [0.1, 0.597], about 5 x 10^6 pulls) shows the per-pull cost once the cost index prunes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core, toptwo
from .._validation import available_cores
from ._harness import Recorder, Timer

BETA = 0.5
SCALING_K = (10, 100, 1000)
BEST_ARM_HINT = "pip install --no-deps best-arm (its scipy<1.13 pin is not needed to run it)"


def numpy_episode(mu: np.ndarray, delta: float, rng: np.random.Generator) -> tuple[int, int]:
    """One beta-EB-TCI episode, step by step with numpy: returns (recommendation, tau)."""
    K = mu.shape[0]
    N = np.ones(K)
    S = (rng.random(K) < mu).astype(float)
    t = K
    with np.errstate(divide="ignore", invalid="ignore"):
        while True:
            means = S / N
            leaders = np.flatnonzero(means == means.max())
            B = int(leaders[0] if leaders.shape[0] == 1 else rng.choice(leaders))
            m = (S[B] + S) / (N[B] + N)
            W = N[B] * kl(means[B], m) + N * kl(means, m)
            W[means >= means[B]] = 0.0
            W[B] = np.inf
            if W.min() > math.log((1 + math.log(t)) / delta):
                return B, t
            arm = B if rng.random() <= BETA else int(np.argmin(W + np.log(N)))
            S[arm] += rng.random() < mu[arm]
            N[arm] += 1
            t += 1


def kl(p: npt.ArrayLike, q: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Bernoulli kl(p, q) elementwise, with 0 log 0 = 0."""
    pa = np.asarray(p, float)
    qa = np.asarray(q)
    return np.where(pa > 0, pa * np.log(pa / qa), 0.0) + np.where(pa < 1, (1 - pa) * np.log((1 - pa) / (1 - qa)), 0.0)


def best_arm_runner(mu: np.ndarray, delta: float, rec: Recorder) -> Callable[[int], tuple[int, int]] | None:
    try:
        from best_arm.algorithms.top_two import TopTwoBAI
        from best_arm.environment import BaseEnvironment
        from best_arm.stopping_conditions import ChernoffStoppingCondition
    except Exception as exc:  # not installed, or its import-time dependencies are missing
        if not any(s["peer"] == "best-arm" for s in rec.skipped):
            rec.skip("best-arm", f"not importable ({type(exc).__name__}: {exc})", BEST_ARM_HINT)
        return None
    env = BaseEnvironment.from_dict({"env_name": "bernoulli", "state": {"probs": [float(x) for x in mu]}})

    def run(seed: int) -> tuple[int, int]:
        np.random.seed(seed)  # noqa: NPY002 - best-arm draws from numpy's global generator
        algo = TopTwoBAI(
            env,
            confidence=delta,
            stopping_condition=ChernoffStoppingCondition("practice"),
            beta=BETA,
            leader_type="EB",
            challenger_type="TCI",
        )
        best, N, _, _ = algo.run()
        return int(best), int(N.sum())

    return run


Chunk = Callable[[int], tuple[np.ndarray, np.ndarray]]  # round -> (tau, recommendation)


def python_chunk(run: Callable[[int], tuple[int, int]], runs_per_round: int) -> Chunk:
    def chunk(round_: int) -> tuple[np.ndarray, np.ndarray]:
        out = [run(round_ * runs_per_round + i) for i in range(runs_per_round)]
        return np.array([tau for _, tau in out]), np.array([rec for rec, _ in out])

    return chunk


def kernel_chunk(mu: np.ndarray, delta: float, n_runs: int, n_threads: int) -> Chunk:
    def chunk(round_: int) -> tuple[np.ndarray, np.ndarray]:
        runs = toptwo.run_many(mu, delta, n_runs, beta=BETA, seed=round_, n_threads=n_threads)
        return runs.tau, runs.recommendation

    return chunk


def run(rec: Recorder) -> None:
    quick = rec.quick
    cores = available_cores()
    instances = [
        ("K=4", np.array([0.7, 0.5, 0.45, 0.3]), 0.05, 6 if quick else 240),
        ("K=10", np.round(np.linspace(0.7, 0.2, 10), 4), 0.05, 2 if quick else 24),
    ]
    kernel_runs = 500 if quick else 10000
    rounds = 2 if quick else 3
    rec.note(f"beta-EB-TCI, Bernoulli arms, beta = {BETA}, gk16 threshold; contenders alternate over {rounds} rounds")
    for name, mu, delta, python_runs in instances:
        workload = f"{name} delta={delta}"
        rec.note(f"{workload}: mu = {mu.tolist()}")
        toptwo.run_many(mu, delta, 50, seed=0)  # warm the n log n table
        chunks: dict[str, tuple[Chunk, int, bool]] = {
            "paperkernels": (kernel_chunk(mu, delta, kernel_runs, 1), 1, False),
        }
        if cores > 1:
            chunks[f"paperkernels {cores} threads"] = (kernel_chunk(mu, delta, kernel_runs, cores), cores, False)
        peer = best_arm_runner(mu, delta, rec)
        if peer is not None:
            chunks["best-arm TopTwoBAI"] = (python_chunk(peer, max(1, python_runs // rounds)), 1, True)
        chunks["numpy reference"] = (
            python_chunk(
                lambda seed: numpy_episode(mu, delta, np.random.default_rng(seed)), max(1, python_runs // rounds)
            ),
            1,
            True,
        )
        timers = {label: Timer("wall" if threads > 1 else "cpu") for label, (_, threads, _) in chunks.items()}
        taus: dict[str, list[np.ndarray]] = {label: [] for label in chunks}
        for round_ in range(rounds):
            for label, (chunk, _, _) in chunks.items():
                tau, _ = timers[label].run(lambda: chunk(round_), units=lambda out: float(out[0].sum()))
                taus[label].append(tau)
        pooled = {label: np.concatenate(v) for label, v in taus.items()}
        ours = pooled["paperkernels"]
        ours_se = ours.std(ddof=1) / math.sqrt(len(ours))
        for label, tau in pooled.items():
            if label == "paperkernels":
                continue
            se = tau.std(ddof=1) / math.sqrt(len(tau)) if len(tau) > 1 else float("inf")
            z = (tau.mean() - ours.mean()) / math.hypot(se, ours_se) if math.isfinite(se) else 0.0
            rec.check(
                workload,
                f"{label.replace(f' {cores} threads', ' (all threads)')} vs paperkernels",
                "|z| of the mean stopping times",
                abs(z),
                4.0,
                detail=f"{tau.mean():.1f} vs {ours.mean():.1f} over {len(tau)} and {len(ours)} runs",
            )
        checks = [c["id"] for c in rec.checks if c["workload"] == workload]
        for label, (_, threads, is_peer) in chunks.items():
            rec.rate(
                workload,
                label.replace(f" {cores} threads", ""),
                timers[label],
                unit="pulls/s",
                threads=threads,
                peer=is_peer,
                checks=checks,
                detail=f"{len(pooled[label])} runs, mean tau {pooled[label].mean():.1f}",
            )
    run_scaling(rec)


def scaling_instance(K: int) -> np.ndarray:
    """Best arm 0.6, the other K - 1 arms evenly spread over [0.1, 0.5]."""
    return np.round(np.concatenate([[0.6], np.linspace(0.5, 0.1, K - 1)]), 6)


def long_instance(K: int) -> np.ndarray:
    """Best arm 0.6, the other K - 1 arms evenly spread over [0.1, 0.597]: a close second arm."""
    return np.round(np.concatenate([[0.6], np.linspace(0.597, 0.1, K - 1)]), 6)


def pull_rate(
    rec: Recorder,
    workload: str,
    rounds: int,
    run_round: Callable[[int], Any],
    pulls: Callable[[Any], float],
    detail: Callable[[list[Any]], str],
) -> None:
    """Times ``run_round(r)`` for rounds r = 0, 1, ... on this process's CPU clock and records its best
    pulls/s (``pulls(result)`` pulls per round) as one paperkernels row of ``workload``, described by
    ``detail(results of every round)``."""
    timer = Timer("cpu")
    results = [timer.run(functools.partial(run_round, r), units=pulls) for r in range(rounds)]
    rec.rate(workload, "paperkernels", timer, unit="pulls/s", threads=1, checks=[], detail=detail(results))


def run_scaling(rec: Recorder) -> None:
    delta = 0.01
    rounds = 2 if rec.quick else 3
    pulls = 1_000_000 if rec.quick else 4_000_000  # per round and K, about
    rec.note(
        f"scaling in K: beta-EB-TCI, Bernoulli arms, delta = {delta}, mu = (0.6, K - 1 arms evenly spread "
        "over [0.1, 0.5]); run_many on one thread, CPU time"
    )
    for K in SCALING_K:
        mu = scaling_instance(K)
        runs = max(2, pulls // (160 * K))  # the mean stopping time is about 150 K to 190 K here
        # With many arms the challenger comes from the cost index, a SIMD kernel: one row per
        # instruction set.
        for _ in rec.each_isa() if K >= _core.toptwo.indexed_arms else [None]:
            pull_rate(
                rec,
                f"scaling K={K}",
                rounds,
                lambda r: toptwo.run_many(mu, delta, runs, beta=BETA, seed=r, n_threads=1),
                lambda out: float(out.tau.sum()),
                lambda outs: f"{runs} runs per round, mean tau {np.concatenate([o.tau for o in outs]).mean():.0f}",
            )

    K = SCALING_K[-1]
    mu = long_instance(K)
    rec.note(
        f"long episode: beta-EB-TCI, Bernoulli arms, delta = {delta}, mu = (0.6, K - 1 arms evenly spread over "
        "[0.1, 0.597]); identify on one thread, CPU time, one episode per round"
    )
    max_steps = 200_000 if rec.quick else 10**8  # quick: a truncated episode
    for _ in rec.each_isa():
        pull_rate(
            rec,
            f"long episode K={K}",
            1 if rec.quick else 2,
            lambda r: toptwo.identify(mu, delta, beta=BETA, seed=r, max_steps=max_steps),
            lambda out: float(out.tau),
            lambda outs: f"one episode per round, tau {', '.join(str(o.tau) for o in outs)}",
        )
