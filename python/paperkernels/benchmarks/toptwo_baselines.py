"""Mean stopping time and speed of the fixed-confidence baselines of paperkernels.toptwo against the
PyPI package ``best-arm`` (0.1.1, pure Python; install it with ``pip install --no-deps best-arm``).

For every algorithm both packages have, the same instance and delta are run by both; the table gives
the mean stopping time of each with its standard error, their difference in combined standard
errors, pulls per second (one thread; process CPU time) and the speed ratio. Definitional
differences that move tau are named next to each row:

- EB-TCI, T3C, TTTS: the same leaders, challengers and GLR threshold log((1 + log t) / delta);
  best-arm breaks cost ties within 1e-6 at random and re-samples TTTS's challenger without a cap.
- TaS-D: the same D-tracking and forced exploration; best-arm computes w*(mu_hat) with its own solver.
- FWS: the same iterate, r-subdifferential (r = t^-0.9 / K), forced exploration and game; best-arm
  solves the game with scipy's HiGHS, paperkernels with its own exact simplex routine.
- LUCB1: best-arm's confidence width uses the number of pulls t where the paper (and paperkernels)
  use the round index (about t / 2), and it stops at every pull, not at round starts: its tau is
  slightly smaller.
- lil'UCB: best-arm's "theory" mode adjusts delta by the paper's c_eps and floors the inner log
  differently; the stopping rule is the same.

Run ``python -m paperkernels.benchmarks.toptwo_baselines [--runs N]`` (a few minutes at the default).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import toptwo
from ._harness import Timer


def best_arm_runner(name: str, mu: Sequence[float], delta: float) -> Callable[[int, int], tuple[np.ndarray, int]]:
    import best_arm
    from best_arm.environment import BernoulliEnvironment

    with contextlib.redirect_stdout(io.StringIO()):
        env = BernoulliEnvironment(len(mu), "uniform")
    env.probs = list(mu)
    stops = best_arm.STOPPING_CONDITION_REGISTRY
    algos = best_arm.ALGO_REGISTRY
    trackers = best_arm.TRACKER_REGISTRY
    if name not in ("EB-TCI", "T3C", "TTTS", "TaS-D", "FWS", "LUCB1", "lilUCB"):
        raise ValueError(name)

    def make() -> Any:
        """A fresh best-arm algorithm (its tracker and stopping rule keep state: one per run)."""
        if name in ("EB-TCI", "T3C", "TTTS"):
            leader, challenger = {"EB-TCI": ("EB", "TCI"), "T3C": ("TS", "TC"), "TTTS": ("TS", "RS")}[name]
            return algos["top_two"](
                env=env,
                confidence=delta,
                beta=0.5,
                leader_type=leader,
                challenger_type=challenger,
                stopping_condition=stops["chernoff"]("practice"),
            )
        if name == "TaS-D":
            return algos["track_and_stop"](
                env=env,
                confidence=delta,
                tracker=trackers["d_tracking"](len(mu)),
                stopping_condition=stops["chernoff"]("practice"),
            )
        if name == "FWS":
            return algos["fws"](env=env, confidence=delta, stopping_condition=stops["chernoff"]("practice"))
        if name == "LUCB1":
            return algos["lucb"](env=env, confidence=delta, stopping_condition=stops["lucb"](epsilon=0.0))
        return algos["lil_ucb"](env=env, confidence=delta, stopping_condition=stops["lil_ucb_original"]())

    def run(n_runs: int, seed: int) -> tuple[np.ndarray, int]:
        np.random.seed(seed)  # noqa: NPY002 - best-arm draws from numpy's global generator
        taus: list[int] = []
        wrong = 0
        for _ in range(n_runs):
            best, counts, _, _ = make().run()
            taus.append(int(counts.sum()))
            wrong += best != int(np.argmax(mu))
        return np.array(taus), wrong

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of best-arm per algorithm")
    args = parser.parse_args()
    mu, delta = [0.7, 0.5, 0.4, 0.3], 0.05
    T_star = toptwo.characteristic_time(mu).T
    print(f"mu = {mu}, delta = {delta}, T* log(1/delta) = {T_star * math.log(1 / delta):.0f}")
    print(
        f"{'algorithm':<8} {'best-arm tau':>18} {'paperkernels tau':>20} {'diff/se':>8} "
        f"{'best-arm pulls/s':>17} {'paperkernels pulls/s':>21} {'ratio':>8}"
    )
    for name in ("EB-TCI", "T3C", "TTTS", "TaS-D", "FWS", "LUCB1", "lilUCB"):
        runs = max(4, args.runs // (4 if name in ("TaS-D", "FWS", "LUCB1", "lilUCB") else 1))
        runner = best_arm_runner(name, mu, delta)
        theirs_timer, ours_timer = Timer("cpu"), Timer("cpu")
        taus, wrong = theirs_timer.run(functools.partial(runner, runs, 1))
        ours_runs = 200 if name != "TaS-D" else 40
        result = ours_timer.run(
            functools.partial(toptwo.run_many, mu, delta, ours_runs, sampler=name, seed=1, n_threads=1)
        )
        theirs, ours = theirs_timer.samples[0][0], ours_timer.samples[0][0]
        se_a = taus.std(ddof=1) / math.sqrt(len(taus))
        diff = (taus.mean() - result.mean_tau) / math.hypot(se_a, result.se_tau)
        speed_a = taus.sum() / theirs
        speed_b = result.tau.sum() / max(ours, 1e-9)
        print(
            f"{name:<8} {taus.mean():>10.0f} +- {se_a:>5.0f} {result.mean_tau:>12.0f} +- {result.se_tau:>5.0f} "
            f"{diff:>8.2f} {speed_a:>17.3g} {speed_b:>21.3g} {speed_b / speed_a:>8.0f}"
        )


if __name__ == "__main__":
    main()
