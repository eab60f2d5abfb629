"""Characteristic times, Bernoulli KL divergences, transportation costs and stopping thresholds."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._validation import as_array, as_choice, as_float, as_int
from ._options import (
    ARM_KINDS,
    ARMS,
    CHARACTERISTIC_MAX_ARMS,
    MAX_ARMS,
    THRESHOLD_KINDS,
    THRESHOLDS,
    FloatArray,
    array_without_booleans,
    check_mu,
    check_sigma,
    real_array,
)


@dataclass(frozen=True)
class CharacteristicTime:
    """``T*_beta`` (or ``T*``) and the optimal weights; unpacks as ``T, weights = ...``.

    Returned by :func:`characteristic_time`.

    Parameters
    ----------
    T : float
        The characteristic time: ``T*_beta(mu)`` for a given ``beta``, else ``T*(mu)``.
    weights : numpy.ndarray of float64, shape (K,)
        The optimal allocation (sums to 1; the best arm's entry is ``beta``).
    beta : float
        The best arm's weight: the given ``beta``, or the optimal ``beta*``.
    best : int
        Index of the best arm.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> result = toptwo.characteristic_time([0.5, 0.45, 0.3], beta=0.5)
    >>> round(result.T, 1), result.beta, result.best
    (810.4, 0.5, 0)
    >>> T, weights = result
    >>> float(weights.sum())
    1.0
    """

    T: float
    weights: FloatArray
    beta: float
    best: int

    def __iter__(self) -> Iterator[Any]:
        return iter((self.T, self.weights))


def characteristic_time(
    mu: Any,
    beta: float | None = None,
    arms: str = "bernoulli",
    sigma: float = 1.0,
    *,
    max_arms: int = CHARACTERISTIC_MAX_ARMS,
) -> CharacteristicTime:
    """Characteristic time ``T*_beta(mu)`` (given ``beta``) or ``T*(mu)`` (``beta=None``).

    ``1 / T*_beta = max_{w: w_best = beta} min_{a != best} C_a(w)`` with
    ``C_a(w) = w_best kl(mu*, m_a) + w_a kl(mu_a, m_a)`` (Bernoulli) or
    ``Delta_a^2 / (2 sigma^2 (1/w_best + 1/w_a))`` (Gaussian), and ``T* = min_beta T*_beta``.
    Solved by nested root finding: each ``w_a`` from ``C_a = v``, then ``v`` from ``sum w = 1``, and
    ``beta*`` from the optimality condition ``sum_a kl(mu*, m_a) / kl(mu_a, m_a) = 1``
    (``sum_a w_a^2 = beta^2`` for Gaussian arms), robust near the endpoints of [0, 1] and of
    (0, 1) for beta; the relative error of ``T`` is within a few units of 1e-16 in our high-precision
    checks. Expected stopping times behave like ``T*_beta log(1/delta)`` for small delta
    (Jourdan et al. 2022, Theorem 2).

    Parameters
    ----------
    mu : array_like, shape (K,)
        Means with a unique maximum (in [0, 1] for Bernoulli arms), K >= 2.
    beta : float, optional
        Weight of the best arm in (0, 1); None optimises it.
    arms : {"bernoulli", "gaussian"}
        Reward distributions.
    sigma : float
        Standard deviation of Gaussian arms (ignored for Bernoulli arms).
    max_arms : int
        Largest number of arms accepted (default ``CHARACTERISTIC_MAX_ARMS`` = 10,000): the cost grows
        like K times the number of root-finding steps, about a second per 2,000 arms with ``beta=None``.
        The computation can be interrupted with Ctrl-C.

    Returns
    -------
    CharacteristicTime
        ``T``, ``weights``, ``beta``, ``best``; unpacks as ``T, weights = characteristic_time(mu)``.

    Raises
    ------
    ValueError
        If ``mu`` has fewer than 2 arms, more than ``max_arms``, no unique maximum, or (Bernoulli)
        means outside [0, 1]; if ``beta`` is not in (0, 1); if ``arms`` is not a known name; if
        ``sigma`` is not positive or its squared gaps overflow; if the gaps or means are so small
        that ``T`` or the costs leave float64 (Gaussian gaps below about ``1e-154 sigma``; Bernoulli
        means so small that ``T`` exceeds the largest float64, as ``T = e / mu_1`` does for two arms
        of means ``mu_1 < 1.5e-308`` and 0): every returned solution is checked (weights summing to
        1, every ``C_a(w) = 1 / T``).
    TypeError
        If an argument has the wrong type (e.g. a string ``beta``).

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import toptwo
    >>> T, weights = toptwo.characteristic_time([0.5, 0.45, 0.3])
    >>> round(T, 1)
    810.2
    >>> np.round(weights, 3)
    array([0.492, 0.493, 0.015])
    >>> round(toptwo.characteristic_time([0.5, 0.45, 0.3], beta=0.5).T, 1)
    810.4
    >>> round(toptwo.characteristic_time([1.0, 0.5, 0.0], arms="gaussian").T, 2)
    34.28
    """
    arms = as_choice(arms, "arms", ARMS)
    sigma = check_sigma(sigma)
    max_arms = as_int(max_arms, "max_arms", low=2, high=MAX_ARMS)
    values, _ = check_mu(mu, arms)
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
    T, weights, beta_out, best = _core.toptwo.characteristic_time(values, b, ARM_KINDS[arms], sigma)
    return CharacteristicTime(float(T), weights, float(beta_out), int(best))


def _broadcast_shape(names: str, *values: Any) -> tuple[int, ...]:
    shapes = [np.shape(v) for v in values]
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise ValueError(f"{names}: shapes {', '.join(map(str, shapes))} do not broadcast") from None


def _scalar_or_array(out: FloatArray, shape: tuple[int, ...]) -> float | FloatArray:
    out = out.reshape(shape)
    return float(out) if out.ndim == 0 else out


def _flat_broadcast(arrays: tuple[FloatArray, ...], raws: tuple[Any, ...], shape: tuple[int, ...]) -> list[FloatArray]:
    return [
        np.ascontiguousarray(np.broadcast_to(x.reshape(np.shape(raw)), shape)).ravel()
        for x, raw in zip(arrays, raws, strict=True)
    ]


def kl_bernoulli(p: Any, q: Any) -> float | FloatArray:
    """Bernoulli Kullback-Leibler divergence ``kl(p, q)``, elementwise with broadcasting.

    ``kl(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q))`` with ``0 log 0 = 0``; infinite when
    ``q`` is 0 or 1 and differs from ``p``. Evaluated without cancellation when ``q`` is near ``p``,
    near 0 or near 1, and for subnormal ``p`` (the one Bernoulli KL of the C++ core).

    Parameters
    ----------
    p, q : float or array_like
        Means in [0, 1]; the two broadcast against each other.

    Returns
    -------
    float or numpy.ndarray of float64
        A float for scalar inputs, else an array of the broadcast shape.

    Raises
    ------
    ValueError
        If a value is outside [0, 1] or not finite, or the shapes do not broadcast.
    TypeError
        If an input is not numeric.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> round(toptwo.kl_bernoulli(0.5, 0.25), 6)
    0.143841
    >>> toptwo.kl_bernoulli([0.5, 0.2], 0.5).round(4)
    array([0.    , 0.1927])
    >>> toptwo.kl_bernoulli(0.0, 1.0)
    inf
    """
    pa = real_array(p, "p", low=0.0, high=1.0, allow_empty=True)
    qa = real_array(q, "q", low=0.0, high=1.0, allow_empty=True)
    shape = _broadcast_shape("p, q", p, q)
    pb, qb = _flat_broadcast((pa, qa), (p, q), shape)
    return _scalar_or_array(_core.toptwo.kl_bernoulli(pb, qb), shape)


def transportation_cost(
    mu_i: Any, n_i: Any, mu_j: Any, n_j: Any, arms: str = "bernoulli", sigma: float = 1.0
) -> float | FloatArray:
    """Transportation cost ``W(i, j)`` (the GLR for "mu_i <= mu_j"), elementwise with broadcasting.

    Bernoulli: ``n_i kl(mu_i, m) + n_j kl(mu_j, m)`` with ``m = (n_i mu_i + n_j mu_j) / (n_i + n_j)``;
    Gaussian: ``(mu_i - mu_j)^2 / (2 sigma^2 (1/n_i + 1/n_j))``; 0 when ``mu_i <= mu_j``. Counts may be
    real (weights), which gives the ``C_a(w)`` of :func:`characteristic_time`.

    Every cost that float64 can hold is returned to about 1e-15 relative, including those whose
    intermediates (a gap or pooled mean below the normal range, a sum of counts or a squared gap
    beyond it) cannot be held: such cases are computed again with the wider exponent range of the
    C++ ``long double`` (x86-64) and rounded once. Costs below the normal range keep only the digits
    a subnormal float64 has.

    Parameters
    ----------
    mu_i, n_i : float or array_like
        Empirical mean (in [0, 1] for Bernoulli arms) and positive (possibly real) count of arm i.
    mu_j, n_j : float or array_like
        The same for arm j.
    arms : {"bernoulli", "gaussian"}
        Reward distributions.
    sigma : float
        Standard deviation of Gaussian arms (ignored for Bernoulli arms).

    Returns
    -------
    float or numpy.ndarray of float64
        A float for scalar inputs, else an array of the broadcast shape of the four inputs.

    Raises
    ------
    ValueError
        If a mean is out of range, a count is not positive, a count (or a Bernoulli mean) is below
        the smallest normal float64 but not 0, ``arms`` or ``sigma`` is invalid, the shapes do not
        broadcast, or a cost is beyond float64. (Where ``long double`` is no wider than a double,
        Bernoulli counts whose ratio underflows are also refused, as too far apart.)
    TypeError
        If an input is not numeric.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> round(toptwo.transportation_cost(0.6, 10, 0.4, 20), 6)
    0.537349
    >>> toptwo.transportation_cost(0.4, 10, 0.6, 20)
    0.0
    >>> toptwo.transportation_cost(1.0, 1, 0.0, 1, arms="gaussian")
    0.25
    """
    arms = as_choice(arms, "arms", ARMS)
    sigma = check_sigma(sigma)
    low, high = (0.0, 1.0) if arms == "bernoulli" else (None, None)
    a = real_array(mu_i, "mu_i", allow_empty=True, low=low, high=high)
    b = real_array(n_i, "n_i", allow_empty=True)
    c = real_array(mu_j, "mu_j", allow_empty=True, low=low, high=high)
    d = real_array(n_j, "n_j", allow_empty=True)
    for name, arr in (("n_i", b), ("n_j", d)):
        if arr.size and not np.all(arr > 0):
            raise ValueError(f"{name}: expected positive counts")
    # Below the smallest normal float64, counts and Bernoulli means have lost digits, and so would
    # the cost (a mean of 5e-324 gave 0.0 for a cost of 3e-24).
    tiny = np.finfo(np.float64).tiny
    checked = (("n_i", b), ("n_j", d), ("mu_i", a), ("mu_j", c)) if arms == "bernoulli" else (("n_i", b), ("n_j", d))
    for name, arr in checked:
        if arr.size and np.any((arr > 0) & (arr < tiny)):
            least = f"at least {tiny:.4g} (the smallest normal float64)"
            raise ValueError(f"{name}: expected " + (f"counts {least}" if name[0] == "n" else f"0 or means {least}"))
    raws = (mu_i, n_i, mu_j, n_j)
    shape = _broadcast_shape("mu_i, n_i, mu_j, n_j", *raws)
    fa, fb, fc, fd = _flat_broadcast((a, b, c, d), raws, shape)
    costs = _core.toptwo.transportation_cost(fa, fb, fc, fd, ARM_KINDS[arms], sigma)
    unrepresentable = np.flatnonzero(~np.isfinite(costs))
    if unrepresentable.size:
        i = int(unrepresentable[0])
        where = f"mu_i={float(fa[i])!r}, n_i={float(fb[i])!r}, mu_j={float(fc[i])!r}, n_j={float(fd[i])!r}"
        if arms == "bernoulli" and min(fb[i], fd[i]) / max(fb[i], fd[i]) == 0.0:
            # The pooled mean's share of the smaller count underflows: its kl term is lost.
            raise ValueError(
                f"n_i, n_j: counts too far apart for float64 (their ratio underflows; at flat index {i}: {where})"
            )
        raise ValueError(
            f"mu_i, n_i, mu_j, n_j: the transportation cost is beyond float64 here (it overflows, or one of "
            f"its terms does; at flat index {i}: {where})"
        )
    return _scalar_or_array(costs, shape)


def _times(t: Any) -> np.ndarray:
    """Times ``t >= 1`` as int64. Booleans are refused; integral numbers that numpy holds as objects
    (Python integers beyond int64, Fractions, mixed with floats) are read as integers, and those
    out of range named by value, as the range check of the others does."""
    top = int(np.iinfo(np.int64).max)
    raw = array_without_booleans(t, "t", "integer times")
    if raw.dtype == object:
        items = raw.ravel().tolist()
        if all(_integral(x) for x in items):
            values = [math.floor(x) for x in items]
            smallest, largest = min(values, default=1), max(values, default=1)
            if smallest < 1 or largest > top:
                raise ValueError(f"t: expected values in [1, {top}], got values in [{smallest}, {largest}]")
            raw = np.array(values, dtype=np.int64).reshape(raw.shape)
    return as_array(raw, "t", dtype=np.int64, low=1, high=top, allow_empty=True)


def _integral(x: Any) -> bool:
    """Whether x is a real number with an integer value (not a boolean)."""
    try:
        return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)) and x == math.floor(x)
    except (OverflowError, ValueError):  # infinities, NaN
        return False


def stopping_threshold(t: Any, delta: float, K: int, kind: str = "gk16") -> float | FloatArray:
    """The named stopping thresholds ``c(t, delta)`` of the GLR stopping rule, at times ``t >= 1``.

    ``"gk16"``: ``log((1 + log t) / delta)`` (Garivier and Kaufmann 2016's heuristic, not proven
    delta-correct); ``"union"``: ``log(2 t (K - 1) / delta)`` (delta-correct for Bernoulli arms);
    ``"kk21"``: ``2 C_exp(log((K - 1) / delta) / 2) + 6 log(1 + log(t / 2))`` with the closed-form
    approximation of ``C_exp`` (see "Thresholds" in the module documentation).

    Parameters
    ----------
    t : int or array_like of int
        Times, at least 1.
    delta : float
        Confidence parameter in (0, 1).
    K : int
        Number of arms, at least 2.
    kind : {"gk16", "union", "kk21"}
        Which threshold.

    Returns
    -------
    float or numpy.ndarray of float64
        A float for a scalar ``t``, else an array of the shape of ``t``.

    Raises
    ------
    ValueError
        If a time is below 1, ``delta`` is not in (0, 1), ``K < 2`` or ``kind`` is unknown.
    TypeError
        If ``t`` or ``K`` is not an integer.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> toptwo.stopping_threshold([1, 10, 100], 0.05, K=3).round(4)
    array([2.9957, 4.1904, 4.7194])
    >>> round(toptwo.stopping_threshold(100, 0.05, K=3, kind="union"), 4)
    8.9872
    """
    kind = as_choice(kind, "kind", THRESHOLDS)
    delta = as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True)
    K = as_int(K, "K", low=2, high=MAX_ARMS)
    ta = _times(t)
    out = _core.toptwo.threshold(THRESHOLD_KINDS[kind], delta, K, ta.ravel())
    return _scalar_or_array(out, np.shape(t))
