"""Simulated episodes in C++: one (:func:`identify`) or many in parallel (:func:`run_many`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from .._limits import check_result_bytes
from .._seed import SeedLike, as_seed
from .._validation import as_bool, as_int, as_n_threads
from ._options import (
    FloatArray,
    IntArray,
    ThresholdLike,
    check_arm_count,
    check_mu,
    check_options,
    core_config,
    resolve_threshold,
)


@dataclass(frozen=True)
class Episode:
    """Outcome of one simulated episode (:func:`identify`).

    Parameters
    ----------
    recommendation : int
        Arm recommended at stopping (the empirical leader, or the arm of a racing rule).
    tau : int
        Stopping time: total number of pulls.
    N : numpy.ndarray of int64, shape (K,)
        Pulls per arm at stopping.
    S : numpy.ndarray, shape (K,)
        Reward sums per arm at stopping (int64 success counts for Bernoulli arms, float64 sums for
        Gaussian arms).
    hit_max_steps : bool
        True if the episode was cut at ``max_steps`` before the stopping rule fired.
    arms : numpy.ndarray of int64, shape (tau,), optional
        With ``record=True``: the arm pulled at each step; None otherwise.
    rewards : numpy.ndarray of float64, shape (tau,), optional
        With ``record=True``: the reward seen at each step; None otherwise.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> episode = toptwo.identify([0.6, 0.4, 0.3], delta=0.1, seed=0)
    >>> episode.recommendation, episode.tau, episode.hit_max_steps
    (0, 127, False)
    >>> int(episode.N.sum()) == episode.tau
    True
    """

    recommendation: int
    tau: int
    N: IntArray
    S: npt.NDArray[Any]
    hit_max_steps: bool
    arms: IntArray | None = None
    rewards: FloatArray | None = None


@dataclass(frozen=True)
class Runs:
    """Outcomes of ``n_runs`` independent episodes (:func:`run_many`).

    Parameters
    ----------
    tau : numpy.ndarray of int64, shape (n_runs,)
        Stopping times.
    recommendation : numpy.ndarray of int64, shape (n_runs,)
        Recommended arms.
    N : numpy.ndarray of int64, shape (n_runs, K)
        Pulls per arm at stopping.
    S : numpy.ndarray, shape (n_runs, K)
        Reward sums per arm at stopping (int64 for Bernoulli arms, float64 for Gaussian arms).
    hit_max_steps : numpy.ndarray of bool, shape (n_runs,)
        Runs cut at ``max_steps`` before the stopping rule fired.
    best : int
        Index of the true best arm.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> runs = toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=100, seed=0)
    >>> runs.n_runs, runs.best
    (100, 0)
    >>> runs.tau[:5]
    array([127,  51, 272, 281, 312])
    >>> round(runs.mean_tau, 2), round(runs.se_tau, 1), runs.error_rate
    (203.18, 15.9, 0.01)
    """

    tau: IntArray
    recommendation: IntArray
    N: IntArray
    S: npt.NDArray[Any]
    hit_max_steps: npt.NDArray[np.bool_]
    best: int

    @property
    def n_runs(self) -> int:
        """Number of runs.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> toptwo.run_many([0.6, 0.4], delta=0.1, n_runs=7, seed=0).n_runs
        7
        """
        return int(self.tau.shape[0])

    @property
    def mean_tau(self) -> float:
        """Average stopping time.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> round(toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=100, seed=0).mean_tau, 2)
        203.18
        """
        return float(self.tau.mean())

    @property
    def se_tau(self) -> float:
        """Standard error of :attr:`mean_tau` (0 for a single run).

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> round(toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=100, seed=0).se_tau, 1)
        15.9
        >>> toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=1, seed=0).se_tau
        0.0
        """
        return float(self.tau.std(ddof=1) / math.sqrt(self.n_runs)) if self.n_runs > 1 else 0.0

    @property
    def error_rate(self) -> float:
        """Fraction of runs that recommended a wrong arm.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=100, seed=0).error_rate
        0.01
        """
        return float(np.mean(self.recommendation != self.best))


def _simulation_setup(
    mu: Any, delta: Any, threshold: Any, max_steps: Any, **options: Any
) -> tuple[Any, FloatArray, int, int]:
    """(core config, mu as an array, best arm, max_steps) for identify and run_many."""
    opts = check_options(delta=delta, **options)
    values, best = check_mu(mu, opts.arms)
    K = values.shape[0]
    check_arm_count(K, opts, "mu")
    kind, thr, max_steps = resolve_threshold(threshold, opts.delta, max_steps, K * opts.min_pulls)
    return core_config(K, opts, kind, thr), values, best, max_steps


def identify(
    mu: Any,
    delta: float = 0.01,
    *,
    sampler: str = "EB-TCI",
    beta: float = 0.5,
    challenger: str | None = None,
    rule: str = "random",
    arms: str = "bernoulli",
    sigma: float = 1.0,
    threshold: ThresholdLike = "gk16",
    tie_break: str = "random",
    forced_exploration: bool = False,
    min_pulls: int = 1,
    ucb_alpha: float = 1.0,
    weights_every: int = 1,
    lil_epsilon: float = 0.01,
    lil_beta: float = 1.0,
    lil_lambda: float = 9.0,
    max_steps: int | None = None,
    record: bool = False,
    seed: SeedLike = None,
) -> Episode:
    """Run one simulated best-arm-identification episode entirely in C++.

    Parameters
    ----------
    mu : array_like, shape (K,)
        Arm means (in [0, 1] for Bernoulli arms), K >= 2, with a unique largest entry.
    delta : float
        Confidence parameter in (0, 1).
    sampler : str
        One of "EB-TCI", "EB-TC", "TTTS", "T3C", "TTUCB", "uniform", "TaS-C", "TaS-D", "FWS", "LUCB1",
        "lilUCB", "EGE". Sampling rule (see "Sampling rules" in the module documentation); every rule
        but LUCB1, lil'UCB and EGE stops with the same GLR rule and recommends the empirical best arm.
    beta : float
        Target fraction of pulls of the leader, in (0, 1).
    challenger : {"TCI", "TC", "RS"}, optional
        Challenger with (TCI) or without (TC) the ``log N_j`` penalty, or TTTS's posterior re-sampling
        (RS); None takes the sampler's own.
    rule : {"random", "tracking"}
        How the leader/challenger choice is made (see the module documentation).
    arms : {"bernoulli", "gaussian"}
        Reward distributions; Gaussian arms have known standard deviation ``sigma``.
    sigma : float
        Standard deviation of Gaussian arms (ignored for Bernoulli arms).
    threshold : {"gk16", "union", "kk21"}, array or callable
        Stopping threshold ``c(t, delta)``. An array holds ``c[t]`` for ``t = 0..max_steps`` (at least
        ``max_steps + 1`` entries; its length sets ``max_steps`` when that is None). A callable
        ``threshold(t, delta)`` receives the int64 array ``t = 0..max_steps`` once and returns the
        values; it needs an explicit ``max_steps``.
    tie_break : {"random", "first"}
        Resolution of ties for the leader.
    forced_exploration : bool
        Pull the least-pulled arm whenever ``min_a N_a < sqrt(t / K)``.
    min_pulls : int
        Pulls of every arm in the initial round robin.
    ucb_alpha : float
        TTUCB only: the UCB index is ``mu_hat_a + sqrt(2 ucb_alpha sigma^2 log t / N_a)``.
    weights_every : int
        Track-and-Stop only: the optimal weights ``w*(mu_hat)`` are recomputed every ``weights_every``
        steps (1, the paper's rule, by default; each recomputation solves a characteristic time).
    lil_epsilon, lil_beta, lil_lambda : float
        lil'UCB only: its epsilon, beta and stopping lambda (defaults 0.01, 1 and 9 = ((2 + beta) /
        beta)^2, the paper's choice for its guarantee).
    max_steps : int, optional
        Cap on the number of pulls (default ``DEFAULT_MAX_STEPS`` = 10**8 for the named thresholds).
        The stopping rule is also checked at ``t = max_steps``; if it does not fire the episode is
        returned with ``hit_max_steps=True`` and the leader as recommendation.
    record : bool
        Also return the sequence of arms pulled and rewards seen.
    seed : None, int or numpy.random.Generator
        Randomness; the episode is run 0 of :func:`run_many` with the same seed.

    Returns
    -------
    Episode
        The recommendation, the stopping time, the counts and sums per arm, whether ``max_steps``
        cut the episode and, with ``record=True``, the arms and rewards of every step.

    Raises
    ------
    ValueError
        If ``mu`` is invalid (fewer than 2 arms, no unique best arm, Bernoulli means outside [0, 1]),
        an option is out of range or not one of its names, ``max_steps`` is below ``K * min_pulls``,
        a threshold array is too short or holds NaN, or the recorded steps would exceed
        ``paperkernels.limits.max_result_bytes``.
    TypeError
        If an argument has the wrong type (e.g. ``record=1`` or a float ``min_pulls``).
    KeyboardInterrupt
        On Ctrl-C (the episode polls for signals).

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> episode = toptwo.identify([0.6, 0.4, 0.3], delta=0.1, seed=0)
    >>> episode.recommendation, episode.tau, episode.N
    (0, 127, array([61, 43, 23]))

    Another sampling rule on the same reward stream, and the pulls of an episode:

    >>> toptwo.identify([0.6, 0.4, 0.3], delta=0.1, sampler="TTTS", seed=0).tau
    115
    >>> toptwo.identify([0.6, 0.4, 0.3], delta=0.1, record=True, seed=0).arms[:8]
    array([0, 1, 2, 0, 1, 2, 2, 1])

    Gaussian arms, and a threshold given as a function of ``t`` (evaluated once, vectorised):

    >>> toptwo.identify([1.0, 0.0, -0.5], delta=0.05, arms="gaussian", seed=3).tau
    16
    >>> import numpy as np
    >>> gk16 = lambda t, delta: np.log((1 + np.log(np.maximum(t, 1))) / delta)
    >>> toptwo.identify([0.6, 0.4, 0.3], delta=0.1, threshold=gk16, max_steps=10_000, seed=0).tau
    127
    """
    config, values, _, max_steps = _simulation_setup(
        mu,
        delta,
        threshold,
        max_steps,
        beta=beta,
        challenger=challenger,
        rule=rule,
        arms=arms,
        sigma=sigma,
        tie_break=tie_break,
        forced_exploration=forced_exploration,
        min_pulls=min_pulls,
        sampler=sampler,
        ucb_alpha=ucb_alpha,
        weights_every=weights_every,
        lil_epsilon=lil_epsilon,
        lil_beta=lil_beta,
        lil_lambda=lil_lambda,
    )
    recording = as_bool(record, "record")
    if recording:
        check_result_bytes(
            16 * max_steps,
            "record",
            f"recording up to max_steps = {max_steps} pulls (an int64 arm and a float64 reward each)",
            "lower max_steps or run with record=False",
        )
    seed_value = as_seed(seed)
    rec, tau, N, S, hit, pulled, rewards = _core.toptwo.identify(config, values, seed_value, max_steps, recording)
    return Episode(int(rec), int(tau), N, S, bool(hit), pulled, rewards)


def run_many(
    mu: Any,
    delta: float = 0.01,
    n_runs: int = 100,
    *,
    sampler: str = "EB-TCI",
    beta: float = 0.5,
    challenger: str | None = None,
    rule: str = "random",
    arms: str = "bernoulli",
    sigma: float = 1.0,
    threshold: ThresholdLike = "gk16",
    tie_break: str = "random",
    forced_exploration: bool = False,
    min_pulls: int = 1,
    ucb_alpha: float = 1.0,
    weights_every: int = 1,
    lil_epsilon: float = 0.01,
    lil_beta: float = 1.0,
    lil_lambda: float = 9.0,
    max_steps: int | None = None,
    seed: SeedLike = None,
    n_threads: int | None = None,
    first_run: int = 0,
) -> Runs:
    """Run ``n_runs`` independent episodes in parallel C++ threads (the GIL is released).

    Run ``r`` uses streams ``2r`` (rewards) and ``2r + 1`` (decisions) of ``seed`` only, so the
    results are identical for any ``n_threads``, and run 0 equals ``identify(..., seed=seed)``.

    Parameters
    ----------
    mu : array_like, shape (K,)
        Arm means, as in :func:`identify`.
    delta : float
        Confidence parameter in (0, 1).
    n_runs : int
        Number of episodes, at least 1.
    sampler, beta, challenger, rule, arms, sigma, threshold, tie_break, forced_exploration : optional
        The sampling rule and its options, as in :func:`identify`.
    min_pulls, ucb_alpha, weights_every, lil_epsilon, lil_beta, lil_lambda, max_steps : optional
        As in :func:`identify`.
    seed : None, int or numpy.random.Generator
        Randomness of every run.
    n_threads : int, optional
        Threads: None or -1 for all available cores.
    first_run : int
        Index of the first run: runs ``first_run .. first_run + n_runs - 1`` are simulated, so a
        batch split into consecutive ranges of runs (see :mod:`paperkernels.distributed`) equals
        the single call.

    Returns
    -------
    Runs
        Arrays ``tau``, ``recommendation``, ``N``, ``S`` and ``hit_max_steps`` indexed by run.

    Raises
    ------
    ValueError
        As :func:`identify`; also if ``n_runs`` or ``first_run`` is out of range or the results would
        exceed ``paperkernels.limits.max_result_bytes``.
    TypeError
        If an argument has the wrong type.
    KeyboardInterrupt
        On Ctrl-C (the threads stop within a fraction of a second).

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> runs = toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=100, seed=0)
    >>> round(runs.mean_tau, 2), runs.error_rate
    (203.18, 0.01)
    >>> int(runs.tau[0]) == toptwo.identify([0.6, 0.4, 0.3], delta=0.1, seed=0).tau
    True

    The same runs, split into two batches:

    >>> import numpy as np
    >>> first = toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=60, seed=0)
    >>> rest = toptwo.run_many([0.6, 0.4, 0.3], delta=0.1, n_runs=40, seed=0, first_run=60)
    >>> bool((np.concatenate([first.tau, rest.tau]) == runs.tau).all())
    True
    """
    config, values, best, max_steps = _simulation_setup(
        mu,
        delta,
        threshold,
        max_steps,
        beta=beta,
        challenger=challenger,
        rule=rule,
        arms=arms,
        sigma=sigma,
        tie_break=tie_break,
        forced_exploration=forced_exploration,
        min_pulls=min_pulls,
        sampler=sampler,
        ucb_alpha=ucb_alpha,
        weights_every=weights_every,
        lil_epsilon=lil_epsilon,
        lil_beta=lil_beta,
        lil_lambda=lil_lambda,
    )
    n_runs = as_int(n_runs, "n_runs", low=1, high=2**62)
    # tau, recommendation, hit flag, N and S rows of K arms
    check_result_bytes(
        n_runs * (17 + 16 * len(values)),
        "n_runs",
        f"the results of {n_runs} runs",
        "run smaller batches with first_run= and join them",
    )
    first_run = as_int(first_run, "first_run", low=0, high=2**62 - n_runs)
    threads = as_n_threads(n_threads)
    seed_value = as_seed(seed)
    tau, rec, N, S, hit = _core.toptwo.run_many(config, values, seed_value, n_runs, max_steps, threads, first_run)
    return Runs(tau, rec, N, S, hit, best)
