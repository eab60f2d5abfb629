"""Benchmark of paperkernels.toptwo (beta-EB-TCI, Bernoulli arms, beta = 1/2, gk16 threshold).

Contenders, on the same instances, threshold and beta:

- paperkernels.toptwo.run_many on one thread and on all threads;
- the PyPI package ``best-arm`` (its ``TopTwoBAI`` with the EB leader, the TCI challenger and
  ``ChernoffStoppingCondition("practice")``, whose threshold is log((1 + log t) / delta)). It imports
  matplotlib and pins an old scipy, so install it with ``pip install --no-deps best-arm``;
- a plain numpy/Python episode written here.

For each instance the mean stopping times are first compared (they must agree within 4 standard
errors), then pulls/s and runs/s are printed with the speed-up of the C++ kernel on one thread.
The contenders run in alternating rounds and each keeps its best round; single-threaded ones are
timed by process CPU time (so that other work on the machine does not count against them), the
multi-threaded run by wall time.
Run ``python bench/bench_toptwo.py [--quick]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from paperkernels import toptwo
from paperkernels._report import Report
from paperkernels._validation import available_cores

BETA = 0.5


def numpy_episode(mu: np.ndarray, delta: float, rng: np.random.Generator) -> Tuple[int, int]:
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


def kl(p, q):
    """Bernoulli kl(p, q) elementwise, with 0 log 0 = 0."""
    p = np.asarray(p, float)
    return np.where(p > 0, p * np.log(p / q), 0.0) + np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)


def best_arm_runner(mu: np.ndarray, delta: float) -> Optional[Callable[[int], Tuple[int, int]]]:
    try:
        from best_arm.algorithms.top_two import TopTwoBAI
        from best_arm.environment import BaseEnvironment
        from best_arm.stopping_conditions import ChernoffStoppingCondition
    except Exception as exc:  # not installed, or its import-time dependencies are missing
        print(f"  best-arm not available ({type(exc).__name__}: {exc}); skipping it. "
              "Install with: pip install --no-deps best-arm")
        return None
    env = BaseEnvironment.from_dict({"env_name": "bernoulli", "state": {"probs": [float(x) for x in mu]}})

    def run(seed: int) -> Tuple[int, int]:
        np.random.seed(seed)  # best-arm draws from numpy's global generator
        algo = TopTwoBAI(env, confidence=delta, stopping_condition=ChernoffStoppingCondition("practice"),
                         beta=BETA, leader_type="EB", challenger_type="TCI")
        best, N, _, _ = algo.run()
        return int(best), int(N.sum())

    return run


Chunk = Callable[[int], Tuple[np.ndarray, np.ndarray]]  # round -> (tau, recommendation)


def python_chunk(run: Callable[[int], Tuple[int, int]], runs_per_round: int) -> Chunk:
    def chunk(round_: int) -> Tuple[np.ndarray, np.ndarray]:
        out = [run(round_ * runs_per_round + i) for i in range(runs_per_round)]
        return np.array([tau for _, tau in out]), np.array([rec for rec, _ in out])

    return chunk


def kernel_chunk(mu: np.ndarray, delta: float, n_runs: int, n_threads: int) -> Chunk:
    def chunk(round_: int) -> Tuple[np.ndarray, np.ndarray]:
        runs = toptwo.run_many(mu, delta, n_runs, beta=BETA, seed=round_, n_threads=n_threads)
        return runs.tau, runs.recommendation

    return chunk


def measure(chunks: Dict[str, Chunk], rounds: int, wall_clock: Tuple[str, ...]) -> Dict[str, Dict[str, float]]:
    """Runs the contenders in alternating rounds and keeps each one's best throughput; the
    statistics pool every round. Single-threaded contenders are timed by the process's CPU time
    (robust to other work on the machine), those in `wall_clock` by wall time."""
    taus: Dict[str, List[np.ndarray]] = {k: [] for k in chunks}
    recs: Dict[str, List[np.ndarray]] = {k: [] for k in chunks}
    best: Dict[str, Tuple[float, float]] = {}
    for round_ in range(rounds):
        for label, chunk in chunks.items():
            clock = time.perf_counter if label in wall_clock else time.process_time
            start = clock()
            tau, rec = chunk(round_)
            elapsed = clock() - start
            taus[label].append(tau)
            recs[label].append(rec)
            rate = (tau.sum() / elapsed, tau.shape[0] / elapsed)
            if label not in best or rate[0] > best[label][0]:
                best[label] = rate
    results = {}
    for label in chunks:
        tau = np.concatenate(taus[label])
        results[label] = dict(
            runs=tau.shape[0],
            mean=float(tau.mean()),
            se=float(tau.std(ddof=1) / math.sqrt(tau.shape[0])),
            error_rate=float(np.mean(np.concatenate(recs[label]) != 0)),
            pulls_per_s=float(best[label][0]),
            runs_per_s=float(best[label][1]),
        )
    return results


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small run counts: a smoke run of a few seconds")
    args = parser.parse_args(argv)
    report = Report()
    cores = available_cores()
    instances = [
        ("K=4", np.array([0.7, 0.5, 0.45, 0.3]), 0.05, 30 if args.quick else 240),
        ("K=10", np.round(np.linspace(0.7, 0.2, 10), 4), 0.05, 4 if args.quick else 24),
    ]
    kernel_runs = 2000 if args.quick else 10000
    rounds = 2 if args.quick else 3
    report.line(f"beta-EB-TCI, Bernoulli arms, beta = {BETA}, gk16 threshold; {cores} core(s) available")
    failures = 0
    rows = []
    for name, mu, delta, python_runs in instances:
        report.heading(f"{name}: mu = {mu.tolist()}, delta = {delta}")
        toptwo.run_many(mu, delta, 50, seed=0)  # warm the n log n table
        chunks: Dict[str, Chunk] = {
            "paperkernels, 1 thread": kernel_chunk(mu, delta, kernel_runs, 1),
            f"paperkernels, {cores} threads": kernel_chunk(mu, delta, kernel_runs, cores),
        }
        peer = best_arm_runner(mu, delta)
        if peer is not None:
            chunks["best-arm (PyPI)"] = python_chunk(peer, python_runs // rounds)
        chunks["numpy reference"] = python_chunk(lambda seed: numpy_episode(mu, delta, np.random.default_rng(seed)), python_runs // rounds)
        results = measure(chunks, rounds, wall_clock=(f"paperkernels, {cores} threads",))
        ours = results["paperkernels, 1 thread"]
        report.line("mean stopping time (must agree within 4 standard errors):")
        for label, r in results.items():
            z = (r["mean"] - ours["mean"]) / math.hypot(r["se"], ours["se"])
            agree = abs(z) <= 4
            failures += not agree
            report.line(f"  {label:<26} {r['mean']:9.1f} +- {r['se']:6.1f}  ({r['runs']} runs, error rate "
                        f"{r['error_rate']:.3f})  z = {z:+.2f} {'ok' if agree else 'DISAGREES'}")
        for label, r in results.items():
            rows.append([name, label, r["runs"], f"{r['pulls_per_s']:.4g}", f"{r['runs_per_s']:.4g}",
                         f"{1e9 / r['pulls_per_s']:.4g}", f"{ours['pulls_per_s'] / r['pulls_per_s']:.4g}"])
    report.heading("throughput (CPU time; wall time for the multi-threaded run; speed-up = 1-thread kernel / contender)")
    report.table(["instance", "contender", "runs", "pulls/s", "runs/s", "ns/pull", "speed-up"], rows)
    k10 = [r for r in rows if r[0] == "K=10" and r[1] == "paperkernels, 1 thread"][0]
    report.line(f"K = 10 on one core: {float(k10[3]) / 1e6:.1f} million pulls/s ({k10[5]} ns per pull); target >= 10 million")
    if failures:
        report.line(f"{failures} contender(s) disagree on the mean stopping time")
        return 1
    return 0


if __name__ == "__main__":
    status = main()
    if status:  # only on failure: `python -m paperkernels bench` runs every benchmark in one process
        sys.exit(status)
