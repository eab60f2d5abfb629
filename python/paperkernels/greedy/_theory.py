"""Rank weights of the ensemble under an orthogonal design (closed forms, no randomness).

With ``X^T X = I`` every step picks the candidate with the largest ``|beta_hat_j|``, so the ensemble
(B -> infinity) equals ``sum_j w_{rank(j)} beta_hat_j x_j`` where ``w_r`` is the probability that the
rank-``r`` feature is selected within ``k`` steps.
"""

import math

import numpy as np

from .._limits import check_result_bytes
from .._validation import as_float, as_int

# Arrays of length p alive at once in one step of exact_weights' recursion.
_EXACT_TEMPORARIES = 10

# Default length of asymptotic weight vectors: until the logistic upper bound falls below this.
_NEGLIGIBLE_WEIGHT = 1e-12
_MAX_EXTRA_RANKS = 100_000

MAX_WORK = 2 * 10**8
"""Largest k * p (exact_weights) or k * n_ranks (asymptotic_weights): about a second of work."""
MAX_RANKS = 10**7
"""Longest weight vector returned by asymptotic_weights and logistic_bounds."""


def _check_work(k: int, length: int, what: str, hint: str) -> None:
    if k * length > MAX_WORK:
        raise ValueError(
            f"k: the recursion costs k * {what} = {k * length:.3g} steps, above the limit of {MAX_WORK:.3g} "
            f"(paperkernels.greedy._theory.MAX_WORK); {hint}"
        )


def exact_weights(k: int, m: int, p: int) -> np.ndarray:
    """Exact finite-p rank weights ``w_r = P(rank-r feature selected within k steps)``.

    The recursion of the paper: with ``q`` features remaining, ``mu = min(m, q)`` and
    ``N = C(q, mu)``, the current rank-``j`` feature is chosen within ``i`` steps with probability

    ``W(i,j,q) = C(q-j, mu-1)/N + C(q-j, mu)/N W(i-1,j,q-1) + [1 - C(q-j+1, mu)/N] W(i-1,j-1,q-1)``,

    ``W(0,.,.) = W(.,0,.) = 0`` and ``w_r = W(k, r, p)``. The hypergeometric ratios are formed as
    running products, so the weights are accurate to a few ulps for any p.

    Parameters
    ----------
    k : int in [0, p]
        Steps of each learner.
    m : int in [1, p]
        Candidates per step.
    p : int >= 1
        Number of features.

    Returns
    -------
    ndarray of shape (p,)
        ``w_1, ..., w_p`` (rank 1 = largest ``|beta_hat|``). They sum to ``k``; ``m = 1`` gives
        ``k / p`` for every rank and ``m = p`` gives ``1{r <= k}``.

    Raises
    ------
    ValueError, TypeError
        When ``k``, ``m`` or ``p`` is not an integer in its range (named), or the recursion's ``k x p``
        steps exceed the work limit ``paperkernels.greedy._theory.MAX_WORK``.

    See Also
    --------
    asymptotic_weights : the limit p -> infinity.
    plot_weights : the weights with their asymptotic curve and logistic bounds.

    Examples
    --------
    >>> from paperkernels.greedy import exact_weights
    >>> exact_weights(2, 1, 4)          # m = 1: every rank equally likely
    array([0.5, 0.5, 0.5, 0.5])
    >>> exact_weights(2, 4, 4)          # m = p: plain forward selection keeps the top k
    array([1., 1., 0., 0.])
    >>> w = exact_weights(3, 2, 6)
    >>> w.round(4), float(w.sum())
    (array([0.8 , 0.74, 0.65, 0.51, 0.3 , 0.  ]), 3.0)
    """
    p = as_int(p, "p", low=1)
    k = as_int(k, "k", low=0, high=p)
    m = as_int(m, "m", low=1, high=p)
    _check_work(k, p, "p", "for large p use asymptotic_weights(k, m / p), its p -> infinity limit")
    check_result_bytes(
        8 * _EXACT_TEMPORARIES * p,
        "p",
        f"the exact weights of {p} ranks and their recursion",
        "for large p use asymptotic_weights(k, m / p), its p -> infinity limit",
    )
    previous = np.zeros(p - k)  # W(0, j, p - k) = 0 for ranks 1..p-k
    for i in range(1, k + 1):
        q = p - k + i
        mu = min(m, q)
        # H[j] = C(q - j, mu) / C(q, mu) for j = 0..q: the chance that the mu candidates avoid the
        # top j features.
        steps = np.arange(q, dtype=np.float64)
        factors = np.maximum(q - mu - steps, 0.0) / (q - steps)
        avoid = np.concatenate(([1.0], np.cumprod(factors)))
        ranks = np.arange(1, q + 1, dtype=np.float64)
        chosen_now = avoid[:-1] * mu / (q - ranks + 1)  # C(q-j, mu-1) / N
        stays = avoid[1:]  # C(q-j, mu) / N: a lower-ranked feature is chosen
        moves_up = 1.0 - avoid[:-1]  # a higher-ranked feature is chosen
        same_rank = np.append(previous, 0.0)  # W(i-1, j, q-1); rank q does not exist among q-1
        rank_above = np.concatenate(([0.0], previous))  # W(i-1, j-1, q-1)
        previous = chosen_now + stays * same_rank + moves_up * rank_above
    return previous if k > 0 else np.zeros(p)


def _check_gamma(gamma: float) -> float:
    return as_float(gamma, "gamma", low=0.0, high=1.0, low_open=True)


def _default_n_ranks(k: int, gamma: float) -> int:
    if gamma >= 1.0 or k == 0:
        return max(k, 1)
    a = -math.log1p(-gamma)
    c_k = 1.0 - (1.0 - gamma) ** k
    extra = math.ceil(math.log(max(c_k, _NEGLIGIBLE_WEIGHT) / _NEGLIGIBLE_WEIGHT) / a) + 1
    return k + min(extra, _MAX_EXTRA_RANKS)


def asymptotic_weights(k: int, gamma: float, n_ranks: int | None = None) -> np.ndarray:
    """Rank weights in the limit p -> infinity with m / p -> gamma.

    ``w~^{(i)}_j = gamma (1-gamma)^{j-1} + (1-gamma)^j w~^{(i-1)}_j + (1 - (1-gamma)^{j-1}) w~^{(i-1)}_{j-1}``,
    ``w~^{(0)} = 0``, ``w~_0 = 0``; the result is ``w~^{(k)}_j`` for ``j = 1..n_ranks``.

    Parameters
    ----------
    k : int >= 0
        Steps of each learner.
    gamma : float in (0, 1]
        Subsampling rate m / p.
    n_ranks : int, optional
        Number of ranks returned. Default: enough that every omitted weight is below 1e-12 (by the
        logistic upper bound), at most ``k + 100000``.

    Returns
    -------
    ndarray of shape (n_ranks,)
        ``w~_1, ..., w~_n_ranks``, non-increasing in the rank, within :func:`logistic_bounds`.

    Raises
    ------
    ValueError, TypeError
        When ``k``, ``gamma`` or ``n_ranks`` is out of range (named).

    Examples
    --------
    >>> from paperkernels.greedy import asymptotic_weights
    >>> asymptotic_weights(3, 0.5, n_ranks=6).round(4)
    array([0.875 , 0.7656, 0.5879, 0.3606, 0.1989, 0.1043])
    """
    k = as_int(k, "k", low=0)
    gamma = _check_gamma(gamma)
    n_ranks = _default_n_ranks(k, gamma) if n_ranks is None else as_int(n_ranks, "n_ranks", low=1, high=MAX_RANKS)
    _check_work(k, n_ranks, "n_ranks", "pass fewer n_ranks, or use logistic_bounds(k, gamma), a closed form")
    j = np.arange(1, n_ranks + 1, dtype=np.float64)
    keep = 1.0 - gamma
    first = gamma * keep ** (j - 1)
    stay = keep**j
    shift = 1.0 - keep ** (j - 1)
    w = np.zeros(n_ranks)
    for _ in range(k):
        w = first + stay * w + shift * np.concatenate(([0.0], w[:-1]))
    return w


def logistic_bounds(k: int, gamma: float, n_ranks: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Logistic lower and upper bounds on the asymptotic weights, ranks ``j = 1..n_ranks``.

    With ``a = -log(1 - gamma)`` and ``C_k = 1 - (1 - gamma)^k``:
    ``C_k / (C_k + e^{a (j - k)}) <= w~_j <= C_k / (C_k + e^{a (j - k - 1)})``.

    Parameters
    ----------
    k : int >= 0
        Steps of each learner.
    gamma : float in (0, 1]
        Subsampling rate m / p.
    n_ranks : int, optional
        Number of ranks returned; the default is that of :func:`asymptotic_weights`.

    Returns
    -------
    lower, upper : ndarray of shape (n_ranks,)
        The bounds at ranks ``1..n_ranks``.

    Raises
    ------
    ValueError, TypeError
        When ``k``, ``gamma`` or ``n_ranks`` is out of range (named).

    Examples
    --------
    >>> from paperkernels.greedy import asymptotic_weights, logistic_bounds
    >>> lower, upper = logistic_bounds(3, 0.5, n_ranks=6)
    >>> w = asymptotic_weights(3, 0.5, n_ranks=6)
    >>> bool(((lower <= w) & (w <= upper)).all())
    True
    """
    k = as_int(k, "k", low=0)
    gamma = _check_gamma(gamma)
    n_ranks = _default_n_ranks(k, gamma) if n_ranks is None else as_int(n_ranks, "n_ranks", low=1, high=MAX_RANKS)
    j = np.arange(1, n_ranks + 1, dtype=np.float64)
    c_k = 1.0 - (1.0 - gamma) ** k

    def logistic(offset: float) -> np.ndarray:
        d = j - k - offset
        if gamma >= 1.0:  # a = infinity: a step function with value 1/2 where d = 0
            exponent = np.where(d < 0, 0.0, np.where(d > 0, np.inf, 1.0))
        else:
            with np.errstate(over="ignore"):
                exponent = np.exp(-math.log1p(-gamma) * d)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = c_k / (c_k + exponent)
        return np.where(np.isinf(exponent), 0.0, out)

    return logistic(0.0), logistic(1.0)
