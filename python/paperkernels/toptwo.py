"""Fixed-confidence best-arm identification with the beta-EB-TCI top-two sampling rule, and the
baselines that papers compare it with (uniform sampling, TTTS, T3C, EB-TC, TTUCB, Track-and-Stop,
Frank-Wolfe sampling, LUCB1, lil'UCB, exponential-gap elimination) on the same C++ episode engine.

Implements the Top Two algorithm of Jourdan, Degenne, Baudry, de Heide and Kaufmann, "Top Two
Algorithms Revisited" (NeurIPS 2022), with the Empirical-Best leader and the Transportation-Cost-
Improved challenger, for Bernoulli arms (as analysed in "Sharp Non-Asymptotic Analysis of the
Penalized Challenger in beta-EB-TCI for Bernoulli Bandits") and Gaussian arms of known variance.

One step, after every arm has been pulled ``min_pulls`` times (round robin in index order):

1. Leader ``B = argmax_a mu_hat_a``, compared exactly in integers for Bernoulli arms
   (``S_i N_j > S_j N_i``); ties go to a uniformly random maximiser (``tie_break="random"``) or the
   lowest index (``"first"``).
2. Transportation costs ``W(B, j)``; for Bernoulli arms in the log-free form
   ``G(S_B+S_j, N_B+N_j) - G(S_B, N_B) - G(S_j, N_j)`` with ``G(s, n) = n log n - s log s - (n-s) log(n-s)``.
3. Stop when ``Z = min_j W(B, j) > c(t, delta)`` (strictly) and recommend ``B``.
4. Optional forced exploration: if ``min_a N_a < sqrt(t / K)`` (decided in integers as
   ``N_a^2 K < t``), pull the least-pulled arm (lowest index on ties). This is our reading of the
   papers' O(sqrt(Kt)) forced-exploration rule.
5. Challenger ``C = argmin_{j != B} W(B, j) + log N_j`` (TCI) or ``W(B, j)`` (TC), lowest index on ties.
6. Pull ``B`` or ``C``: ``rule="random"`` pulls ``B`` when ``U <= beta`` for ``U ~ Uniform[0, 1)``;
   ``rule="tracking"`` increments ``L_B`` (rounds led by ``B``) and pulls ``B`` iff ``M_B < beta L_B``
   (strict; ``M_B`` counts the pulls of ``B`` decided while it led, and is then incremented).

Sampling rules (``sampler=``). Every rule uses the same episode engine, reward streams, GLR
stopping rule (step 3, with the empirical leader) and recommendation; only the arm pulled differs.

- ``"EB-TCI"`` (default): the steps above.
- ``"EB-TC"``: empirical-best leader, TC challenger (``challenger="TC"``; Jourdan et al. 2022).
- ``"TTTS"`` (Russo 2016): the leader is the arm of the largest posterior draw; the challenger is
  found by re-drawing the whole posterior until another arm wins (at most ``kMaxResamples`` = 10,000
  times; then the TC challenger of that leader is taken).
- ``"T3C"`` (Shang, de Heide, Kaufmann, Menard, Valko 2020): Thompson leader, TC challenger.
- ``"TTUCB"`` (Jourdan and Degenne 2022): leader ``argmax_a mu_hat_a + sqrt(2 ucb_alpha sigma^2 log t
  / N_a)`` (``sigma^2 = 1/4`` for Bernoulli arms, their sub-Gaussian variance; ``ucb_alpha=1`` by
  default), TC challenger.
- ``"uniform"``: round robin (the least-pulled arm, lowest index on ties): the baseline of every
  comparison figure.
- ``"TaS-D"``, ``"TaS-C"``: Track-and-Stop (Garivier and Kaufmann 2016) with D- or C-tracking of the
  optimal weights ``w*(mu_hat)`` (those of :func:`characteristic_time` with ``beta=None``; uniform
  weights while the empirical best is not unique or the solver cannot place it), recomputed every
  ``weights_every`` steps. D-tracking: pull the least-pulled arm of ``{a : N_a < sqrt(t) - K/2}`` if
  any, else ``argmax_a t w_a - N_a``. C-tracking: add ``(1 - K eps) w + eps`` with
  ``eps = 1 / (2 sqrt(K^2 + t))`` (the uniform mixture, our choice of the paper's projection onto
  ``{w_a >= eps}``) to running sums from the end of the initial round robin and pull
  ``argmax_a sum_a - N_a``. Ties go to the lowest index; ``forced_exploration`` does not apply.
- ``"FWS"``: Frank-Wolfe sampling (Wang, Tzeng, Proutiere 2021, Algorithm 1) with the GLR stopping
  rule. An iterate ``x`` (uniform at the first step after the round robin) moves at pull ``s = t + 1``
  to ``((s - 1) / s) x + z / s``, and the arm ``argmax_a x_a / N_a`` is pulled. ``z`` is uniform at
  the forced-exploration steps (``s = K m^2``, a non-unique empirical best, or a Bernoulli mean at 0
  or 1); otherwise it is the optimal strategy of the zero-sum game ``max_z min_{j in H} <z - x,
  grad C_j(x)>`` over the r-subdifferential ``H = {j : C_j(x) < min_k C_k(x) + r}``, ``r = s^-0.9 / K``
  (the paper's experimental choice), with ``C_j(x) = x_b d(mu_hat_b, m_j) + x_j d(mu_hat_j, m_j)``
  at the empirical best ``b``, solved exactly by a small simplex method.
- ``"LUCB1"`` (Kalyanakrishnan, Tewari, Auer, Stone 2012) with its own stopping rule: rounds of two
  pulls, the empirical leader ``h`` then ``l = argmax_{j != h} mu_hat_j + b(N_j, r)`` with
  ``b(u, r) = sqrt(2 var log(5/4 K r^4 / delta) / u)`` at round ``r`` (``var`` = 1/4 for Bernoulli
  arms, which gives the paper's ``sqrt(log(k1 K r^4 / delta) / (2u))``, ``sigma^2`` for Gaussian
  arms); it stops at the start of a round when ``mu_hat_h - b(N_h, r) > mu_hat_l + b(N_l, r)`` and
  recommends ``h``. The ``threshold`` is not used.
- ``"lilUCB"`` (Jamieson, Malloy, Nowak, Bubeck 2014) with its own stopping rule: pull
  ``argmax_a mu_hat_a + (1 + b)(1 + sqrt(e)) sqrt(2 var (1 + e) log(max(log((1 + e) N_a), 1) / delta)
  / N_a)`` (``e = lil_epsilon``, ``b = lil_beta``; the inner logarithm is floored at 1, where it would
  leave the bonus undefined); stop when the most-pulled arm has ``N_i >= 1 + lil_lambda (t - N_i)``
  and recommend it. ``delta`` enters the bonus directly (the paper's heuristic use); the constant
  ``c_eps`` adjustment of its proven version is not applied, so this is not a delta-correctness claim.
- ``"EGE"``: exponential-gap elimination (Karnin, Koren, Somekh 2013, Algorithm 2) with median
  elimination (Even-Dar, Mannor, Mansour 2006) as its subroutine, after the initial round robin
  (whose pulls its statistics do not use). Round ``r``: ``eps_r = 2^-r / 4``, ``delta_r = delta /
  (50 r^3)``; every arm of ``S_r`` is pulled ``ceil((2 / eps_r^2) log(2 / delta_r))`` times; median
  elimination with ``(eps_r / 2, delta_r)`` pulls every remaining arm ``ceil((1 / (eps_l / 2)^2)
  log(3 / delta_l))`` times per sub-round, keeps the better half (``ceil``, lowest index on ties) and
  sets ``eps_l <- 3 eps_l / 4``, ``delta_l <- delta_l / 2``; then ``S_{r+1}`` drops the arms whose
  round mean is below that of median elimination's arm minus ``eps_r``. It stops when one arm is left
  and recommends it. Each phase pulls its arms one after the other in index order and uses only its
  own pulls. Counts are those for rewards in [0, 1], times ``4 sigma^2`` for Gaussian arms. The
  constants are the paper's, so episodes are long (about 10^6 pulls even for gaps of 0.5).

A challenger ``W(B, j)`` for a leader ``B`` that is not the empirical best is 0 unless
``mu_hat_B > mu_hat_j`` (so the lowest-indexed arm with a larger empirical mean wins). Posteriors:
``Beta(S_a + 1, N_a - S_a + 1)`` (uniform prior; a Beta draw is ``X / (X + Y)`` with ``X``, ``Y``
gamma variates by Marsaglia and Tsang's method) for Bernoulli arms, ``N(mu_hat_a, sigma^2 / N_a)`` for
Gaussian arms; arms are drawn in index order from the decision stream, after the stopping check and
before the uniform of ``rule="random"``.

Thresholds ``c(t, delta)`` (``threshold=``):

- ``"gk16"`` (default): ``log((1 + log t) / delta)``, the heuristic of Garivier & Kaufmann (2016)
  used in the papers' experiments. **Not proven delta-correct.**
- ``"union"``: ``log(2 t (K - 1) / delta)``; delta-correct for Bernoulli arms (Garivier & Kaufmann
  2016, Proposition 12).
- ``"kk21"``: ``2 C_exp(log((K-1)/delta) / 2) + 6 log(1 + log(t/2))``, the threshold built on
  Kaufmann & Koolen (2021)'s concentration bound, whose delta-correctness is stated with the exact
  function ``C_exp``. We evaluate ``C_exp`` by the closed-form approximation
  ``C_exp(x) ~= x + 4 log(1 + x + sqrt(2 x))``, not the exact function, so the guarantee carries
  over only as far as that approximation does (it exceeds the asymptotic ``x + log x``; we have not
  proved it is an upper bound everywhere).
- an array ``c`` (entry ``c[t]`` is used at time ``t``) or a callable ``c(t, delta)`` evaluated once,
  vectorised, on ``t = 0, 1, ...``: never called per step.

Randomness. Run ``r`` of a seed draws its rewards from stream ``2r`` and its decisions (leader
tie-breaks, the uniform of ``rule="random"``) from stream ``2r + 1`` of the shared xoshiro256**
generator, so :func:`identify` is run 0 of :func:`run_many` and results never depend on the number
of threads. :class:`TopTwo` uses the decision stream of run 0: fed the rewards of
``identify(mu, seed=s)``, ``TopTwo(..., seed=s)`` selects the same arms and stops at the same time.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, Optional, Sequence, Tuple, Union

import numpy as np

from . import _core
from ._seed import SeedLike, as_seed
from ._limits import check_result_bytes
from ._validation import as_array, as_choice, as_float, as_int, as_n_threads, plain_array, refuse_masked

__all__ = [
    "TopTwo",
    "TopTwoState",
    "Episode",
    "Runs",
    "CharacteristicTime",
    "identify",
    "run_many",
    "compare",
    "Comparison",
    "plot_comparison",
    "characteristic_time",
    "kl_bernoulli",
    "transportation_cost",
    "stopping_threshold",
]

CHALLENGERS = ("TCI", "TC", "RS")
#: Named sampling rules: (leader, challenger) of the top-two family, "uniform", or the tracking rule
#: of Track-and-Stop ("C" or "D").
SAMPLERS: Dict[str, Any] = {
    "EB-TCI": ("EB", "TCI"),
    "EB-TC": ("EB", "TC"),
    "TTTS": ("TS", "RS"),
    "T3C": ("TS", "TC"),
    "TTUCB": ("UCB", "TC"),
    "uniform": "uniform",
    "TaS-C": "C",
    "TaS-D": "D",
    "FWS": "FW",
    "LUCB1": "LUCB1",
    "lilUCB": "lilUCB",
    "EGE": "EGE",
}
RULES = ("random", "tracking")
ARMS = ("bernoulli", "gaussian")
TIE_BREAKS = ("random", "first")
THRESHOLDS = ("gk16", "union", "kk21")

#: Default cap on the number of pulls of one episode (a guard against instances that never stop).
DEFAULT_MAX_STEPS = 100_000_000
MAX_STEPS_LIMIT = 2**62
#: Largest number of arms of one sampler (arm indices are 32-bit in the C++ core).
MAX_ARMS = 2**31 - 1
#: Default cap on the number of arms :func:`characteristic_time` accepts (its cost grows like K
#: times the number of root-finding steps: about a second per 2,000 arms).
CHARACTERISTIC_MAX_ARMS = 10_000
#: Largest number of arms of Frank-Wolfe sampling, whose zero-sum game needs a (K + 1) x 2K tableau
#: per step.
FWS_MAX_ARMS = 256
#: Bytes of sampler state per arm (counts, sums, cached costs and tracking counters).
_STATE_BYTES_PER_ARM = 88

ThresholdLike = Union[str, np.ndarray, Sequence[float], Callable[[np.ndarray, float], Any]]


# --------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class Episode:
    """Outcome of one simulated episode (:func:`identify`).

    Attributes
    ----------
    recommendation : int
        Arm recommended at stopping (the empirical leader).
    tau : int
        Stopping time: total number of pulls.
    N, S : numpy.ndarray
        Pulls and reward sums per arm at stopping (``S`` holds success counts for Bernoulli arms).
    hit_max_steps : bool
        True if the episode was cut at ``max_steps`` before the stopping rule fired.
    arms, rewards : numpy.ndarray or None
        With ``record=True``: the arm pulled and the reward seen at each of the ``tau`` steps.
    """

    recommendation: int
    tau: int
    N: np.ndarray
    S: np.ndarray
    hit_max_steps: bool
    arms: Optional[np.ndarray] = None
    rewards: Optional[np.ndarray] = None


@dataclass(frozen=True)
class Runs:
    """Outcomes of ``n_runs`` independent episodes (:func:`run_many`).

    Attributes
    ----------
    tau : numpy.ndarray of int64, shape (n_runs,)
    recommendation : numpy.ndarray of int64, shape (n_runs,)
    N, S : numpy.ndarray, shape (n_runs, K)
    hit_max_steps : numpy.ndarray of bool, shape (n_runs,)
    best : int
        Index of the true best arm.
    """

    tau: np.ndarray
    recommendation: np.ndarray
    N: np.ndarray
    S: np.ndarray
    hit_max_steps: np.ndarray
    best: int

    @property
    def n_runs(self) -> int:
        return int(self.tau.shape[0])

    @property
    def mean_tau(self) -> float:
        """Average stopping time."""
        return float(self.tau.mean())

    @property
    def se_tau(self) -> float:
        """Standard error of :attr:`mean_tau` (0 for a single run)."""
        return float(self.tau.std(ddof=1) / math.sqrt(self.n_runs)) if self.n_runs > 1 else 0.0

    @property
    def error_rate(self) -> float:
        """Fraction of runs that recommended a wrong arm."""
        return float(np.mean(self.recommendation != self.best))


@dataclass(frozen=True)
class CharacteristicTime:
    """``T*_beta`` (or ``T*``) and the optimal weights; unpacks as ``T, weights = ...``.

    Attributes
    ----------
    T : float
        The characteristic time: ``T*_beta(mu)`` for a given ``beta``, else ``T*(mu)``.
    weights : numpy.ndarray
        The optimal allocation (sums to 1; the best arm's entry is ``beta``).
    beta : float
        The best arm's weight: the given ``beta``, or the optimal ``beta*``.
    best : int
        Index of the best arm.
    """

    T: float
    weights: np.ndarray
    beta: float
    best: int

    def __iter__(self) -> Iterator[Any]:
        return iter((self.T, self.weights))


@dataclass(frozen=True)
class TopTwoState:
    """Snapshot of a :class:`TopTwo` sampler (see :meth:`TopTwo.state`).

    ``leader``, ``challenger``, ``W``, ``Z``, ``threshold`` and ``should_stop`` are None until every
    arm has ``min_pulls`` pulls. ``W[j]`` is ``W(leader, j)`` (0 for the leader itself); ``L`` and ``M``
    are the tracking counters (zero under ``rule="random"``).
    """

    t: int
    N: np.ndarray
    S: np.ndarray
    L: np.ndarray
    M: np.ndarray
    initialised: bool
    leader: Optional[int] = None
    challenger: Optional[int] = None
    W: Optional[np.ndarray] = None
    Z: Optional[float] = None
    threshold: Optional[float] = None
    should_stop: Optional[bool] = None


# --------------------------------------------------------------------------------------------
# Validation


def _check_mu(mu: Any, arms: str) -> Tuple[np.ndarray, int]:
    if arms == "bernoulli":
        values = as_array(mu, "mu", ndim=1, low=0.0, high=1.0)
    else:
        values = as_array(mu, "mu", ndim=1)
    if values.shape[0] < 2:
        raise ValueError(f"mu: expected at least 2 arms, got {values.shape[0]}")
    best = int(np.argmax(values))
    if np.count_nonzero(values == values[best]) > 1:
        tied = np.flatnonzero(values == values[best]).tolist()
        raise ValueError(f"mu: expected a unique best arm, but arms {tied} share the largest mean {values[best]}")
    return values, best


def _check_sigma(sigma: Any) -> float:
    """A standard deviation whose 2 sigma^2 (the costs' denominator) is a finite normal number."""
    value = as_float(sigma, "sigma", low=0.0, low_open=True)
    two_sigma2 = 2.0 * value * value
    if not (np.isfinite(two_sigma2) and two_sigma2 >= np.finfo(np.float64).tiny):
        raise ValueError(
            f"sigma: expected a standard deviation whose 2 sigma^2 is a finite positive float64 "
            f"(about 1e-154 < sigma < 1.34e154), got {value!r}"
        )
    return value


def _check_bool(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a bool, got {type(value).__name__} {value!r}"[:200])
    return bool(value)


def _check_options(beta: Any, challenger: Any, rule: Any, arms: Any, sigma: Any, delta: Any,
                   tie_break: Any, forced_exploration: Any, min_pulls: Any, sampler: Any = "EB-TCI",
                   ucb_alpha: Any = 1.0, weights_every: Any = 1, lil_epsilon: Any = 0.01, lil_beta: Any = 1.0,
                   lil_lambda: Any = 9.0) -> Dict[str, Any]:
    _check_bool(forced_exploration, "forced_exploration")
    sampler = as_choice(sampler, "sampler", tuple(SAMPLERS))
    family = SAMPLERS[sampler]
    leader, own_challenger = family if isinstance(family, tuple) else ("EB", "TCI")
    if challenger is None:
        challenger = own_challenger
    return dict(
        sampler=sampler,
        leader=leader,
        uniform=family == "uniform",
        tracking=family if family in ("C", "D", "FW") else "none",
        weights_every=as_int(weights_every, "weights_every", low=1, high=MAX_STEPS_LIMIT),
        racing=family if family in ("LUCB1", "lilUCB", "EGE") else "none",
        lil_epsilon=as_float(lil_epsilon, "lil_epsilon", low=0.0, high=1.0),
        lil_beta=as_float(lil_beta, "lil_beta", low=0.0, high=1e6, low_open=True),
        lil_lambda=as_float(lil_lambda, "lil_lambda", low=0.0, high=1e12, low_open=True),
        ucb_alpha=as_float(ucb_alpha, "ucb_alpha", low=0.0, low_open=True),
        beta=as_float(beta, "beta", low=0.0, high=1.0, low_open=True, high_open=True),
        challenger=as_choice(challenger, "challenger", CHALLENGERS),
        rule=as_choice(rule, "rule", RULES),
        tie_break=as_choice(tie_break, "tie_break", TIE_BREAKS),
        forced_exploration=bool(forced_exploration),
        min_pulls=as_int(min_pulls, "min_pulls", low=1, high=MAX_STEPS_LIMIT),
        arms=as_choice(arms, "arms", ARMS),
        sigma=_check_sigma(sigma),
        delta=as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True),
    )


def _threshold_array(values: Any, name: str = "threshold") -> np.ndarray:
    arr = as_array(values, name, ndim=1, finite=False)
    if np.isnan(arr).any():
        raise ValueError(f"{name}: expected no NaN values")
    return arr


def _evaluate_threshold(fn: Callable[..., Any], start: int, stop: int, delta: float) -> np.ndarray:
    check_result_bytes(
        16 * (stop - start), "max_steps", f"evaluating the callable threshold on t = {start}..{stop - 1} "
        "(an int64 time and a float64 value each)", "lower max_steps or pass a named threshold",
    )
    t = np.arange(start, stop, dtype=np.int64)
    raw = plain_array(fn(t, delta), "threshold")
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"threshold: the callable must return real numbers, got an array of dtype {raw.dtype}")
    values = raw.astype(np.float64, copy=False)
    if values.shape != t.shape:
        raise ValueError(
            f"threshold: the callable must map an array t of shape {t.shape} to values of the same shape, "
            f"got shape {values.shape}"
        )
    return _threshold_array(values)


def _resolve_threshold(threshold: Any, delta: float, max_steps: Any, min_steps: int) -> Tuple[str, Optional[np.ndarray], int]:
    """(kind, values or None, max_steps) for identify/run_many."""
    if max_steps is not None:
        max_steps = as_int(max_steps, "max_steps", low=min_steps, high=MAX_STEPS_LIMIT)
    if isinstance(threshold, str):
        kind = as_choice(threshold, "threshold", THRESHOLDS)
        return kind, None, DEFAULT_MAX_STEPS if max_steps is None else max_steps
    if callable(threshold):
        if max_steps is None:
            raise ValueError(
                "max_steps: a callable threshold needs an explicit max_steps (it is evaluated once on t = 0..max_steps)"
            )
        return "array", _evaluate_threshold(threshold, 0, max_steps + 1, delta), max_steps
    values = _threshold_array(threshold)
    if max_steps is None:
        max_steps = values.shape[0] - 1
        if max_steps < min_steps:
            raise ValueError(
                f"threshold: expected an array of at least K * min_pulls + 1 = {min_steps + 1} entries, got {values.shape[0]}"
            )
    elif values.shape[0] < max_steps + 1:
        raise ValueError(
            f"threshold: expected an array of max_steps + 1 = {max_steps + 1} entries (c[t] for t = 0..max_steps), "
            f"got {values.shape[0]}"
        )
    return "array", values, max_steps


def _config(K: int, opts: Dict[str, Any], kind: str, values: Optional[np.ndarray]) -> Any:
    return _core.toptwo.Config(
        K, opts["beta"], opts["challenger"], opts["rule"], opts["tie_break"], opts["forced_exploration"],
        opts["min_pulls"], opts["arms"], opts["sigma"], kind, opts["delta"], values, opts["leader"], opts["uniform"],
        opts["ucb_alpha"], opts["tracking"], opts["weights_every"], opts["racing"], opts["lil_epsilon"],
        opts["lil_beta"], opts["lil_lambda"],
    )


def _check_arm_count(K: int, opts: Dict[str, Any], name: str) -> None:
    if opts["sampler"] == "FWS" and K > FWS_MAX_ARMS:
        raise ValueError(
            f"{name}: Frank-Wolfe sampling accepts at most FWS_MAX_ARMS = {FWS_MAX_ARMS} arms (its game needs a "
            f"(K + 1) x 2K tableau per step), got {K}"
        )


def _simulation_setup(mu: Any, delta: Any, threshold: Any, max_steps: Any, **options: Any) -> Tuple[Any, np.ndarray, int, int]:
    """(core config, mu as an array, best arm, max_steps) for identify and run_many."""
    opts = _check_options(delta=delta, **options)
    values, best = _check_mu(mu, opts["arms"])
    K = values.shape[0]
    _check_arm_count(K, opts, "mu")
    kind, thr, max_steps = _resolve_threshold(threshold, opts["delta"], max_steps, K * opts["min_pulls"])
    return _config(K, opts, kind, thr), values, best, max_steps


# --------------------------------------------------------------------------------------------
# Simulation


def identify(
    mu: Any,
    delta: float = 0.01,
    *,
    sampler: str = "EB-TCI",
    beta: float = 0.5,
    challenger: Optional[str] = None,
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
    max_steps: Optional[int] = None,
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
        "lilUCB", "EGE". Sampling rule (see "Sampling rules" in the module docstring); every rule but LUCB1, lil'UCB and
        EGE stops with the same GLR rule and recommends the empirical best arm.
    beta : float
        Target fraction of pulls of the leader, in (0, 1).
    challenger : {"TCI", "TC", "RS"}, optional
        Challenger with (TCI) or without (TC) the ``log N_j`` penalty, or TTTS's posterior re-sampling
        (RS); None takes the sampler's own.
    rule : {"random", "tracking"}
        How the leader/challenger choice is made (see the module docstring).
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
    """
    config, values, _, max_steps = _simulation_setup(
        mu, delta, threshold, max_steps, beta=beta, challenger=challenger, rule=rule, arms=arms, sigma=sigma,
        tie_break=tie_break, forced_exploration=forced_exploration, min_pulls=min_pulls, sampler=sampler,
        ucb_alpha=ucb_alpha, weights_every=weights_every, lil_epsilon=lil_epsilon, lil_beta=lil_beta,
        lil_lambda=lil_lambda,
    )
    if _check_bool(record, "record"):
        check_result_bytes(
            16 * max_steps, "record", f"recording up to max_steps = {max_steps} pulls (an int64 arm and a float64 "
            "reward each)", "lower max_steps or run with record=False",
        )
    seed_value = as_seed(seed)
    rec, tau, N, S, hit, pulled, rewards = _core.toptwo.identify(config, values, seed_value, max_steps, bool(record))
    return Episode(int(rec), int(tau), N, S, bool(hit), pulled, rewards)


def run_many(
    mu: Any,
    delta: float = 0.01,
    n_runs: int = 100,
    *,
    sampler: str = "EB-TCI",
    beta: float = 0.5,
    challenger: Optional[str] = None,
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
    max_steps: Optional[int] = None,
    seed: SeedLike = None,
    n_threads: Optional[int] = None,
    first_run: int = 0,
) -> Runs:
    """Run ``n_runs`` independent episodes in parallel C++ threads (the GIL is released).

    Run ``r`` uses streams ``2r`` (rewards) and ``2r + 1`` (decisions) of ``seed`` only, so the
    results are identical for any ``n_threads``, and run 0 equals ``identify(..., seed=seed)``.
    The other parameters are those of :func:`identify`.

    Parameters
    ----------
    n_runs : int
        Number of episodes, at least 1.
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
    """
    config, values, best, max_steps = _simulation_setup(
        mu, delta, threshold, max_steps, beta=beta, challenger=challenger, rule=rule, arms=arms, sigma=sigma,
        tie_break=tie_break, forced_exploration=forced_exploration, min_pulls=min_pulls, sampler=sampler,
        ucb_alpha=ucb_alpha, weights_every=weights_every, lil_epsilon=lil_epsilon, lil_beta=lil_beta,
        lil_lambda=lil_lambda,
    )
    n_runs = as_int(n_runs, "n_runs", low=1, high=2**62)
    # tau, recommendation, hit flag, N and S rows of K arms
    check_result_bytes(
        n_runs * (17 + 16 * len(values)), "n_runs", f"the results of {n_runs} runs",
        "run smaller batches with first_run= and join them",
    )
    first_run = as_int(first_run, "first_run", low=0, high=2**62 - n_runs)
    threads = as_n_threads(n_threads)
    seed_value = as_seed(seed)
    tau, rec, N, S, hit = _core.toptwo.run_many(config, values, seed_value, n_runs, max_steps, threads, first_run)
    return Runs(tau, rec, N, S, hit, best)


# --------------------------------------------------------------------------------------------
# Comparisons of sampling rules


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare`: one row per sampler, in the order given.

    Attributes
    ----------
    rows : list of dict
        Keys ``label``, ``sampler``, ``n_runs``, ``mean_tau``, ``se_tau``, ``error_rate``,
        ``hit_max_steps`` (count of truncated runs), ``ratio`` (``mean_tau / (T* log(1/delta))``) and
        ``se_ratio``.
    runs : dict
        The :class:`Runs` of each label (for plots and further statistics).
    T_star : float
        ``T*(mu)`` of :func:`characteristic_time` (``beta=None``).
    delta : float
    """

    rows: list
    runs: dict
    T_star: float
    delta: float

    COLUMNS = ("label", "sampler", "n_runs", "mean_tau", "se_tau", "error_rate", "hit_max_steps", "ratio", "se_ratio")

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(self.COLUMNS))

    def __str__(self) -> str:
        head = f"{'sampler':<14} {'runs':>6} {'mean tau':>11} {'s.e.':>9} {'error':>7} {'cut':>5} {'tau/(T* log 1/d)':>17}"
        lines = [head]
        for r in self.rows:
            lines.append(
                f"{r['label']:<14} {r['n_runs']:>6} {r['mean_tau']:>11.1f} {r['se_tau']:>9.1f} {r['error_rate']:>7.4f} "
                f"{r['hit_max_steps']:>5} {r['ratio']:>10.3f} +- {r['se_ratio']:.3f}"
            )
        return "\n".join(lines)


def compare(
    mu: Any,
    delta: float = 0.01,
    samplers: Sequence[Any] = ("uniform", "EB-TCI", "TTUCB", "T3C"),
    n_runs: int = 100,
    *,
    arms: str = "bernoulli",
    sigma: float = 1.0,
    seed: SeedLike = None,
    n_threads: Optional[int] = None,
    **options: Any,
) -> Comparison:
    """Run every sampler on the same instance and the same reward streams, and tabulate.

    Parameters
    ----------
    mu, delta, arms, sigma
        As in :func:`run_many`.
    samplers : sequence
        Names of :data:`SAMPLERS`, or dicts ``{"sampler": name, "label": ..., **options}`` for a rule
        with its own options (e.g. ``{"sampler": "TaS-D", "weights_every": 10}``).
    n_runs : int
        Runs per sampler. Run ``r`` of every sampler sees the same reward stream (common random
        numbers), which sharpens the comparison of means.
    seed, n_threads
        As in :func:`run_many`.
    **options
        Further :func:`run_many` options applied to every sampler (a sampler's own dict wins).

    Returns
    -------
    Comparison
        ``rows`` (one dict per sampler: mean tau, its standard error, error rate, truncated runs and
        ``mean_tau / (T* log(1/delta))`` with its standard error), ``runs`` and ``T_star``; ``str()``
        gives a table and ``to_pandas()`` a DataFrame.
    """
    delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    if isinstance(samplers, (str, dict)) or not isinstance(samplers, Sequence) or len(samplers) == 0:
        raise TypeError("samplers: expected a non-empty list of sampler names or dicts")
    specs = []
    for item in samplers:
        if isinstance(item, str):
            spec = {"sampler": item}
        elif isinstance(item, dict) and "sampler" in item:
            spec = dict(item)
        else:
            raise TypeError(f"samplers: expected names or dicts with a 'sampler' key, got {item!r}"[:200])
        as_choice(spec["sampler"], "samplers", tuple(SAMPLERS))
        label = spec.pop("label", spec["sampler"])
        if not isinstance(label, str):
            raise TypeError("samplers: a label must be a string")
        if any(label == other for other, _ in specs):
            raise ValueError(f"samplers: the label {label!r} appears twice; give the rows distinct labels")
        specs.append((label, spec))
    seed_value = as_seed(seed)
    T_star = characteristic_time(mu, arms=arms, sigma=sigma).T
    scale = T_star * math.log(1.0 / delta)
    rows, all_runs = [], {}
    for label, spec in specs:
        kwargs = dict(options, **spec)
        runs = run_many(mu, delta, n_runs, arms=arms, sigma=sigma, seed=seed_value, n_threads=n_threads, **kwargs)
        all_runs[label] = runs
        rows.append(dict(
            label=label, sampler=spec["sampler"], n_runs=runs.n_runs, mean_tau=runs.mean_tau, se_tau=runs.se_tau,
            error_rate=runs.error_rate, hit_max_steps=int(runs.hit_max_steps.sum()), ratio=runs.mean_tau / scale,
            se_ratio=runs.se_tau / scale,
        ))
    return Comparison(rows, all_runs, float(T_star), delta)


def plot_comparison(result: Comparison, ax: Any = None, log_scale: bool = True) -> Any:
    """Stopping-time distributions of a :func:`compare` result side by side (box plots with the
    means marked), with the reference line ``T* log(1/delta)``. Needs matplotlib; returns the axes."""
    import matplotlib.pyplot as plt

    if not isinstance(result, Comparison):
        raise TypeError(f"result: expected a Comparison from compare(), got {type(result).__name__}")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.2 + 1.1 * len(result.rows), 4))
    labels = [r["label"] for r in result.rows]
    data = [result.runs[label].tau for label in labels]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(labels) + 1))
    ax.set_xticklabels(labels, rotation=30, ha="right")
    ax.axhline(result.T_star * math.log(1.0 / result.delta), color="grey", linestyle="--", label="T* log(1/delta)")
    if log_scale:
        ax.set_yscale("log")
    ax.set_ylabel("stopping time tau")
    ax.legend(loc="best")
    return ax


# --------------------------------------------------------------------------------------------
# Incremental use


class TopTwo:
    """Incremental sampler for rewards that come from outside (A/B tests, experiments): beta-EB-TCI by
    default, or any rule of ``SAMPLERS`` (``sampler=``) with its stopping rule and recommendation.

    Parameters
    ----------
    K : int
        Number of arms (>= 2).
    beta, challenger, rule, arms, sigma, delta, forced_exploration, tie_break, min_pulls, sampler, ucb_alpha
        As in :func:`identify` (``sampler`` picks any of the named sampling rules; the class name is
        historical).
    threshold : {"gk16", "union", "kk21"}, array or callable
        As in :func:`identify`. An array must cover every ``t`` at which :meth:`should_stop` is
        asked (a ValueError says when it does not); a callable ``threshold(t, delta)`` is evaluated
        on growing blocks of ``t`` as needed.
    seed : None, int or numpy.random.Generator
        Seed of the decision stream (stream 1 of the seed: the one :func:`identify` uses).

    Notes
    -----
    A sampler pickles, deep-copies and copies (``copy.copy`` gives an independent sampler); the copy
    continues bit-identically, cached decisions and random stream included. An update (one reward or
    a batch) is applied entirely or not at all. Methods lock the sampler, so sharing one between
    threads is safe.

    Decisions are made lazily and cached until the next :meth:`update`: the leader (and its
    tie-break draw) once per state, the arm returned by :meth:`select` once per state (with its
    uniform draw, or its tracking-counter update, made at that moment). Calling :meth:`select`,
    then :meth:`update` with that arm's reward, and :meth:`should_stop` after each update
    reproduces :func:`identify` exactly. Updates of other arms, or batches, are allowed: they simply
    change the state.

    Examples
    --------
    >>> sampler = TopTwo(3, delta=0.05, seed=1)
    >>> while not sampler.should_stop():
    ...     arm = sampler.select()
    ...     sampler.update(arm, reward_from_the_world(arm))  # doctest: +SKIP
    """

    def __init__(
        self,
        K: int,
        beta: float = 0.5,
        challenger: Optional[str] = None,
        rule: str = "random",
        arms: str = "bernoulli",
        sigma: float = 1.0,
        threshold: ThresholdLike = "gk16",
        delta: float = 0.01,
        forced_exploration: bool = False,
        seed: SeedLike = None,
        *,
        tie_break: str = "random",
        min_pulls: int = 1,
        sampler: str = "EB-TCI",
        ucb_alpha: float = 1.0,
        weights_every: int = 1,
        lil_epsilon: float = 0.01,
        lil_beta: float = 1.0,
        lil_lambda: float = 9.0,
    ) -> None:
        K = as_int(K, "K", low=2, high=MAX_ARMS)
        check_result_bytes(K * _STATE_BYTES_PER_ARM, "K", f"the state of a sampler of {K} arms", "use fewer arms")
        opts = _check_options(beta, challenger, rule, arms, sigma, delta, tie_break, forced_exploration, min_pulls,
                              sampler, ucb_alpha, weights_every, lil_epsilon, lil_beta, lil_lambda)
        _check_arm_count(K, opts, "K")
        self._K = K
        self._options = opts
        self._threshold_fn: Optional[Callable[..., Any]] = None
        if isinstance(threshold, str):
            kind, values = as_choice(threshold, "threshold", THRESHOLDS), None
        elif callable(threshold):
            self._threshold_fn = threshold
            kind, values = "array", _evaluate_threshold(threshold, 0, 1024, opts["delta"])
        else:
            kind, values = "array", _threshold_array(threshold)
        self._threshold_kind = kind
        self._threshold_values = values
        self._core = _core.toptwo.Sampler(_config(K, opts, kind, values), as_seed(seed))

    # Pickling and copies: the options, the threshold and the sampler's exact state (counts, sums,
    # tracking counters, decision generator and the decisions cached for the current state), so a
    # restored or copied sampler continues bit-identically and independently of the original.

    def __getstate__(self) -> Dict[str, Any]:
        t, N, S, L, M, rng, leader, selection, weights, cumulative, weights_left, rounds, elimination = self._core.get_state()
        return dict(
            K=self._K, options=dict(self._options), threshold_kind=self._threshold_kind,
            threshold_values=None if self._threshold_values is None else np.array(self._threshold_values),
            threshold_fn=self._threshold_fn,
            core=dict(t=int(t), N=N, S=np.asarray(S, dtype=np.float64), L=L, M=M, rng=[int(w) for w in rng],
                      leader=int(leader), selection=int(selection), weights=weights, cumulative=cumulative,
                      weights_left=int(weights_left), round=(int(rounds[0]), bool(rounds[1]), int(rounds[2])),
                      elimination=elimination),
        )

    def __setstate__(self, state: Dict[str, Any]) -> None:
        try:
            K = as_int(state["K"], "state K", low=2, high=MAX_ARMS)
            o = state["options"]
            opts = _check_options(o["beta"], o["challenger"], o["rule"], o["arms"], o["sigma"], o["delta"],
                                  o["tie_break"], o["forced_exploration"], o["min_pulls"], o.get("sampler", "EB-TCI"),
                                  o.get("ucb_alpha", 1.0), o.get("weights_every", 1), o.get("lil_epsilon", 0.01),
                                  o.get("lil_beta", 1.0), o.get("lil_lambda", 9.0))
            kind = state["threshold_kind"]
            values = state["threshold_values"]
            fn = state["threshold_fn"]
            core_state = state["core"]
        except (KeyError, TypeError) as exc:
            raise TypeError(f"state: not the pickled state of a TopTwo sampler ({type(exc).__name__}: {exc})") from None
        if kind != "array":
            kind, values = as_choice(kind, "threshold", THRESHOLDS), None
        else:
            values = _threshold_array(values)
        self._K = K
        self._options = opts
        self._threshold_fn = fn
        self._threshold_kind = kind
        self._threshold_values = values
        core = _core.toptwo.Sampler(_config(K, opts, kind, values), 0)
        c = core_state
        core.set_state(
            int(c["t"]), as_array(c["N"], "state N", dtype=np.int64, shape=(K,)),
            as_array(c["S"], "state S", shape=(K,)), as_array(c["L"], "state L", dtype=np.int64, shape=(K,)),
            as_array(c["M"], "state M", dtype=np.int64, shape=(K,)), tuple(int(w) for w in c["rng"]),
            int(c["leader"]), int(c["selection"]),
            as_array(c.get("weights", []), "state weights", allow_empty=True),
            as_array(c.get("cumulative", []), "state cumulative", allow_empty=True), int(c.get("weights_left", 0)),
            tuple(c.get("round", (-1, False, 0))),
            as_array(c.get("elimination", []), "state elimination", allow_empty=True),
        )
        self._core = core

    def __copy__(self) -> "TopTwo":
        """An independent sampler in the same state (it shares nothing with this one but the callable
        threshold, if any)."""
        other = TopTwo.__new__(TopTwo)
        other.__setstate__(self.__getstate__())
        return other

    def __repr__(self) -> str:
        o = self._options
        return (
            f"TopTwo(K={self._K}, sampler={o['sampler']!r}, beta={o['beta']}, challenger={o['challenger']!r}, rule={o['rule']!r}, "
            f"arms={o['arms']!r}, delta={o['delta']}, t={self.t})"
        )

    @property
    def K(self) -> int:
        return self._K

    @property
    def t(self) -> int:
        """Total number of rewards received."""
        return int(self._core.t)

    @property
    def N(self) -> np.ndarray:
        """Pulls per arm."""
        return self._core.counts()[0]

    @property
    def S(self) -> np.ndarray:
        """Reward sums per arm (success counts for Bernoulli arms)."""
        return self._core.counts()[1]

    def select(self) -> int:
        """The arm to pull next (the same arm until the next :meth:`update`)."""
        return int(self._core.select())

    def update(self, arm: Any, reward: Any) -> None:
        """Record rewards: one ``(arm, reward)`` pair, or equal-length arrays of arms and rewards
        (applied in order, without decisions in between). Bernoulli rewards must be 0 or 1."""
        arm_dims = plain_array(arm, "arm").ndim
        reward_dims = plain_array(reward, "reward").ndim
        if arm_dims == 0 and reward_dims == 0:
            a = as_int(arm, "arm", low=0, high=self.K - 1)
            if isinstance(reward, (bool, np.bool_)):
                reward = int(reward)
            if not isinstance(reward, numbers.Real):
                raise TypeError(f"reward: expected a real number, got {type(reward).__name__}")
            try:
                value = float(reward)
            except OverflowError:
                raise ValueError(f"reward: expected a number within the float64 range, got {reward!r}"[:200]) from None
            self._core.update(a, value)
            return
        arms = as_array(arm, "arm", dtype=np.int64, ndim=1, allow_empty=True)
        rewards = as_array(reward, "reward", dtype=np.float64, ndim=1, allow_empty=True, finite=False)
        if arms.shape != rewards.shape:
            raise ValueError(f"arm, reward: expected the same number of arms and rewards, got {arms.shape[0]} and {rewards.shape[0]}")
        self._core.update_many(arms, rewards)

    def _cover_threshold(self) -> None:
        if self._threshold_fn is None:
            return
        t = self.t
        have = self._threshold_values.shape[0]
        if t < have:
            return
        extra = _evaluate_threshold(self._threshold_fn, have, max(2 * have, t + 1), self._options["delta"])
        self._threshold_values = np.concatenate([self._threshold_values, extra])
        self._core.set_threshold_values(self._threshold_values)

    def should_stop(self) -> bool:
        """True when every arm has ``min_pulls`` pulls and ``Z > c(t, delta)``."""
        self._cover_threshold()
        return bool(self._core.should_stop())

    @property
    def recommendation(self) -> Optional[int]:
        """The empirical leader: None while an arm is unpulled; during the initial round robin the
        lowest-indexed empirical best (no random draw)."""
        rec = int(self._core.recommendation())
        return None if rec < 0 else rec

    def state(self) -> TopTwoState:
        """A :class:`TopTwoState` snapshot (computing it draws nothing beyond the leader's tie-break,
        which the current state needs anyway)."""
        self._cover_threshold()
        d = self._core.state()
        extra: Dict[str, Any] = {}
        if d["initialised"]:
            extra = dict(
                leader=int(d["leader"]), challenger=int(d["challenger"]), W=d["W"], Z=float(d["Z"]),
                threshold=float(d["threshold"]), should_stop=bool(d["should_stop"]),
            )
        return TopTwoState(t=int(d["t"]), N=d["N"], S=d["S"], L=d["L"], M=d["M"], initialised=bool(d["initialised"]), **extra)


# --------------------------------------------------------------------------------------------
# Characteristic times and helpers


def characteristic_time(mu: Any, beta: Optional[float] = None, arms: str = "bernoulli", sigma: float = 1.0, *,
                        max_arms: int = CHARACTERISTIC_MAX_ARMS) -> CharacteristicTime:
    """Characteristic time ``T*_beta(mu)`` (given ``beta``) or ``T*(mu)`` (``beta=None``).

    ``1 / T*_beta = max_{w: w_best = beta} min_{a != best} C_a(w)`` with
    ``C_a(w) = w_best kl(mu*, m_a) + w_a kl(mu_a, m_a)`` (Bernoulli) or
    ``Delta_a^2 / (2 sigma^2 (1/w_best + 1/w_a))`` (Gaussian), and ``T* = min_beta T*_beta``.
    Solved by nested root finding: each ``w_a`` from ``C_a = v``, then ``v`` from ``sum w = 1``, and
    ``beta*`` from the optimality condition ``sum_a kl(mu*, m_a) / kl(mu_a, m_a) = 1``
    (``sum_a w_a^2 = beta^2`` for Gaussian arms), robust near the endpoints of [0, 1] and of
    (0, 1) for beta; the relative error of ``T`` is within a few units of 1e-16 in our high-precision checks.
    Expected stopping times behave like ``T*_beta log(1/delta)`` for small delta.

    Parameters
    ----------
    mu : array_like, shape (K,)
        Means with a unique maximum (in [0, 1] for Bernoulli arms).
    beta : float, optional
        Weight of the best arm in (0, 1); None optimises it.
    arms : {"bernoulli", "gaussian"}
    sigma : float
        Standard deviation of Gaussian arms.
    max_arms : int
        Largest number of arms accepted (default ``CHARACTERISTIC_MAX_ARMS`` = 10,000): the cost grows
        like K times the number of root-finding steps, about a second per 2,000 arms with ``beta=None``.
        The computation can be interrupted with Ctrl-C.

    Returns
    -------
    CharacteristicTime
        ``T``, ``weights``, ``beta``, ``best``; unpacks as ``T, weights = characteristic_time(mu)``.
    """
    arms = as_choice(arms, "arms", ARMS)
    sigma = _check_sigma(sigma)
    max_arms = as_int(max_arms, "max_arms", low=2, high=MAX_ARMS)
    values, _ = _check_mu(mu, arms)
    if values.shape[0] > max_arms:
        raise ValueError(
            f"mu: {values.shape[0]} arms is above max_arms = {max_arms} (the cost grows like K times the number "
            "of root-finding steps); pass a larger max_arms to allow it"
        )
    if arms == "gaussian":
        with np.errstate(over="ignore"):
            gap = (values.max() - values.min()) / sigma
            square = gap * gap
        if not np.isfinite(square):
            raise ValueError("mu, sigma: the squared gaps (max(mu) - min(mu))^2 / sigma^2 overflow float64")
    b = math.nan if beta is None else as_float(beta, "beta", low=0.0, high=1.0, low_open=True, high_open=True)
    T, weights, beta_out, best = _core.toptwo.characteristic_time(values, b, arms, sigma)
    return CharacteristicTime(float(T), weights, float(beta_out), int(best))


def _broadcast_shape(names: str, *values: Any) -> Tuple[int, ...]:
    shapes = [np.shape(v) for v in values]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{names}: shapes {', '.join(map(str, shapes))} do not broadcast") from None


def _scalar_or_array(out: np.ndarray, shape: Tuple[int, ...]) -> Union[float, np.ndarray]:
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def kl_bernoulli(p: Any, q: Any) -> Union[float, np.ndarray]:
    """Bernoulli Kullback-Leibler divergence ``kl(p, q)``, elementwise with broadcasting.

    ``kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q))`` with ``0 log 0 = 0``; infinite when
    ``q`` is 0 or 1 and differs from ``p``. Evaluated without cancellation when ``q`` is near ``p``.
    """
    pa = as_array(p, "p", low=0.0, high=1.0, allow_empty=True)
    qa = as_array(q, "q", low=0.0, high=1.0, allow_empty=True)
    shape = _broadcast_shape("p, q", p, q)
    pb, qb = (np.ascontiguousarray(np.broadcast_to(x.reshape(np.shape(raw)), shape)).ravel() for x, raw in ((pa, p), (qa, q)))
    return _scalar_or_array(_core.toptwo.kl_bernoulli(pb, qb), shape)


def transportation_cost(mu_i: Any, n_i: Any, mu_j: Any, n_j: Any, arms: str = "bernoulli", sigma: float = 1.0) -> Union[float, np.ndarray]:
    """Transportation cost ``W(i, j)`` (the GLR for "mu_i <= mu_j"), elementwise with broadcasting.

    Bernoulli: ``n_i kl(mu_i, m) + n_j kl(mu_j, m)`` with ``m = (n_i mu_i + n_j mu_j) / (n_i + n_j)``;
    Gaussian: ``(mu_i - mu_j)^2 / (2 sigma^2 (1/n_i + 1/n_j))``; 0 when ``mu_i <= mu_j``. Counts may be
    real (weights), which gives the ``C_a(w)`` of :func:`characteristic_time`.
    """
    arms = as_choice(arms, "arms", ARMS)
    sigma = _check_sigma(sigma)
    bounds = dict(low=0.0, high=1.0) if arms == "bernoulli" else {}
    a = as_array(mu_i, "mu_i", allow_empty=True, **bounds)
    b = as_array(n_i, "n_i", allow_empty=True)
    c = as_array(mu_j, "mu_j", allow_empty=True, **bounds)
    d = as_array(n_j, "n_j", allow_empty=True)
    for name, arr in (("n_i", b), ("n_j", d)):
        if arr.size and not np.all(arr > 0):
            raise ValueError(f"{name}: expected positive counts")
    raws = (mu_i, n_i, mu_j, n_j)
    shape = _broadcast_shape("mu_i, n_i, mu_j, n_j", *raws)
    flat = [np.ascontiguousarray(np.broadcast_to(x.reshape(np.shape(raw)), shape)).ravel() for x, raw in zip((a, b, c, d), raws)]
    return _scalar_or_array(_core.toptwo.transportation_cost(*flat, arms, sigma), shape)


def stopping_threshold(t: Any, delta: float, K: int, kind: str = "gk16") -> Union[float, np.ndarray]:
    """The named thresholds ``c(t, delta)`` at times ``t >= 1`` (see the module docstring)."""
    kind = as_choice(kind, "kind", THRESHOLDS)
    delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    K = as_int(K, "K", low=2)
    ta = as_array(t, "t", dtype=np.int64, low=1, allow_empty=True)
    out = _core.toptwo.threshold(kind, delta, K, ta.ravel())
    return _scalar_or_array(out, np.shape(t))


from ._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
