"""Monte Carlo degrees of freedom, training error and bias/variance along the path.

Efron's degrees of freedom ``df = sum_i Cov(yhat_i, y_i) / sigma^2`` for a known mean ``mu``:
each of R replicates draws ``y_r = mu + e_r`` and refits. The estimate is the sample covariance
with the known mean of y, ``sum_r <yhat_r - mean_s yhat_s, e_r> / ((R - 1) sigma^2)``, which is
unbiased; centring the fits on their Monte Carlo mean removes the large but mean-zero term
``<E yhat, e_r>`` from every replicate. Unlike Stein's divergence, this counts the search part of
the degrees of freedom.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._limits import check_result_bytes
from .._report import Report
from .._seed import SeedLike, as_seed
from .._validation import as_array, as_float, as_int
from ._design import CentredDesign, use_gram
from ._estimator import EnsembleForwardSelection, fit_settings
from ._theory import exact_weights


@dataclass(frozen=True)
class DegreesOfFreedom:
    """Monte Carlo degrees of freedom and training error.

    For :func:`degrees_of_freedom` every field is an array over the path ``t = 0..k`` (index t);
    for :func:`degrees_of_freedom_orthogonal` they are 0-d arrays.

    Attributes
    ----------
    df, se : ndarray
        Estimated degrees of freedom and its Monte Carlo standard error.
    train_error, train_error_se : ndarray
        Mean squared training residual ``||y - yhat||^2 / n`` and its standard error.
    n_replicates : int
        Number of Monte Carlo replicates.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import degrees_of_freedom_orthogonal
    >>> d = degrees_of_freedom_orthogonal(np.zeros(5), 1.0, k=1, m=5, n_replicates=50, random_state=0)
    >>> sorted(vars(d))
    ['df', 'n_replicates', 'se', 'train_error', 'train_error_se']
    """

    df: np.ndarray
    se: np.ndarray
    train_error: np.ndarray
    train_error_se: np.ndarray
    n_replicates: int


@dataclass(frozen=True)
class BiasVariance:
    """Bias/variance decomposition along the path ``t = 0..k`` (arrays of length k + 1).

    ``risk = bias2 + variance`` is ``E ||yhat - mu||^2 / n``; ``prediction_error = risk + sigma^2``
    is the expected error on a new response at the same design points, and equals
    ``train_error + 2 sigma^2 df / n`` in expectation (Efron's optimism theorem).

    Attributes
    ----------
    k : ndarray of int
        Path positions ``0..k``.
    bias2, variance, risk : ndarray
        Squared bias, variance and their sum ``E ||yhat - mu||^2 / n``.
    prediction_error : ndarray
        ``risk + sigma^2``.
    train_error : ndarray
        Mean squared training residual.
    df, df_se : ndarray
        Monte Carlo degrees of freedom and its standard error.
    sigma : float
        Noise standard deviation.
    n_replicates : int
        Number of Monte Carlo replicates.

    Examples
    --------
    See :func:`bias_variance`.
    """

    k: np.ndarray
    bias2: np.ndarray
    variance: np.ndarray
    risk: np.ndarray
    prediction_error: np.ndarray
    train_error: np.ndarray
    df: np.ndarray
    df_se: np.ndarray
    sigma: float
    n_replicates: int

    def report(self, report: Report | None = None) -> None:
        """Print the decomposition as a table.

        Parameters
        ----------
        report : Report, optional
            Where the table goes (default: a new one printing to standard output).

        Returns
        -------
        None

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.greedy import EnsembleForwardSelection, bias_variance
        >>> X = np.random.default_rng(0).normal(size=(80, 10))
        >>> bias_variance(EnsembleForwardSelection(k=2, n_estimators=5), X, X[:, 0], 1.0, n_replicates=5,
        ...               random_state=0).report()                                # doctest: +ELLIPSIS
          k  bias^2  variance    risk  train err      df   df se
          -  ------  --------  ------  ---------  ------  ------
          0 ...
        """
        report = report if report is not None else Report()
        rows = [
            [int(t), float(b), float(v), float(r), float(e), float(d), float(s)]
            for t, b, v, r, e, d, s in zip(
                self.k, self.bias2, self.variance, self.risk, self.train_error, self.df, self.df_se, strict=False
            )
        ]
        report.table(["k", "bias^2", "variance", "risk", "train err", "df", "df se"], rows)


def _check_replicates(n_replicates: int, length: int, fixed: int = 0) -> None:
    """The covariance estimate keeps every replicate's noise vector (and ``length`` values in all per
    replicate), besides ``fixed`` values: refuse what would not fit."""
    check_result_bytes(
        8 * (n_replicates * length + fixed),
        "n_replicates",
        f"{n_replicates} replicates of {length} noise and result values",
        "use fewer replicates and average independent runs",
    )


def _simulation_inputs(
    estimator: EnsembleForwardSelection, X: Any, mu: Any, sigma: Any, n_replicates: Any, random_state: Any
) -> tuple[np.ndarray, np.ndarray, float, int, dict[str, Any], CentredDesign, np.random.Generator]:
    X = as_array(X, "X", ndim=2)
    n, p = X.shape
    mu = as_array(mu, "mu", shape=(n,))
    sigma = as_float(sigma, "sigma", low=0.0, low_open=True)
    n_replicates = as_int(n_replicates, "n_replicates", low=2)
    params = estimator._checked_params(n, p)
    # Per replicate: its noise, <fit, noise> and training error along the path; besides, the fitted
    # values, their running mean and spread (n, k + 1) each.
    _check_replicates(n_replicates, n + 2 * (params["k"] + 1), 4 * n * (params["k"] + 1))
    gram = use_gram(params["precompute"], n, p, params["k"], params["m"], params["n_learners"])
    design = CentredDesign(X, fit_intercept=bool(estimator.fit_intercept), gram=gram, n_threads=params["n_threads"])
    design.check_columns(X)
    rng = np.random.default_rng(as_seed(random_state, "random_state"))
    return X, mu, sigma, n_replicates, params, design, rng


class _CovarianceEstimate:
    """Accumulates ``sum_i Cov(fit_i, y_i) / sigma^2`` over replicates (see the module docstring)."""

    def __init__(self, sigma: float) -> None:
        self.sigma2 = sigma * sigma
        self.inner: list[np.ndarray] = []  # <fit_r, e_r> per replicate
        self.noise: list[np.ndarray] = []
        self.fit_sum: np.ndarray | None = None

    def add(self, noise: np.ndarray, fit: np.ndarray) -> None:
        self.inner.append(noise @ fit)
        self.noise.append(noise)
        self.fit_sum = fit.copy() if self.fit_sum is None else self.fit_sum + fit

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        count = len(self.inner)
        assert self.fit_sum is not None, "no replicate added"
        terms = np.array(self.inner) - np.array(self.noise) @ (self.fit_sum / count)
        terms *= count / ((count - 1) * self.sigma2)
        return terms.mean(axis=0), terms.std(axis=0, ddof=1) / np.sqrt(count)


def _replicates(
    estimator: EnsembleForwardSelection, X: Any, mu: Any, sigma: Any, n_replicates: Any, random_state: Any
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Yields (noise, y, fitted values along the path (n, k + 1)) for each replicate."""
    X, mu, sigma, n_replicates, params, design, rng = _simulation_inputs(
        estimator, X, mu, sigma, n_replicates, random_state
    )
    for _ in range(n_replicates):
        noise = sigma * rng.standard_normal(X.shape[0])
        y = mu + noise
        seed = int(rng.integers(0, 2**64, dtype=np.uint64))
        path = design.fit(y, seed=seed, **fit_settings(params))
        yield noise, y, X @ path.coef_path.T + path.intercept_path


def _mean_and_se(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return samples.mean(axis=0), samples.std(axis=0, ddof=1) / np.sqrt(samples.shape[0])


def degrees_of_freedom(
    estimator: EnsembleForwardSelection,
    X: ArrayLike,
    mu: ArrayLike,
    sigma: float,
    *,
    n_replicates: int = 200,
    random_state: SeedLike = None,
) -> DegreesOfFreedom:
    """Monte Carlo degrees of freedom of an :class:`EnsembleForwardSelection` along its path.

    Parameters
    ----------
    estimator : EnsembleForwardSelection
        Supplies k, m, n_estimators, criterion, fit_intercept, tol, n_jobs (it is not fitted).
    X : array of shape (n, p)
        Fixed design.
    mu : array of shape (n,)
        Known mean of the response (e.g. ``X @ beta``).
    sigma : float > 0
        Noise standard deviation.
    n_replicates : int >= 2
        Number of responses ``y = mu + sigma * N(0, I)``, each refitted.
    random_state : None, int or numpy.random.Generator
        Seeds the noise and, afresh for every replicate, the learners' subsets (the estimator's own
        random_state is not used, so that df includes the randomization of the ensemble).

    Returns
    -------
    DegreesOfFreedom
        ``df``, its standard error and the training error, each an array over the path ``t = 0..k``.

    Raises
    ------
    ValueError, TypeError
        For bad arrays (shapes, NaN), ``sigma <= 0``, ``n_replicates < 2``, bad estimator parameters,
        or results and workspaces above ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import EnsembleForwardSelection, degrees_of_freedom
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8))
    >>> d = degrees_of_freedom(EnsembleForwardSelection(k=3, m=4, n_estimators=20), X, 2 * X[:, 0], 1.0,
    ...                        n_replicates=20, random_state=0)
    >>> d.df.shape, d.n_replicates
    ((4,), 20)
    """
    covariance = _CovarianceEstimate(float(sigma))
    train = []
    for noise, y, fitted in _replicates(estimator, X, mu, sigma, n_replicates, random_state):
        covariance.add(noise, fitted)
        train.append(np.mean((y[:, None] - fitted) ** 2, axis=0))
    df_mean, df_se = covariance.result()
    train_mean, train_se = _mean_and_se(np.array(train))
    return DegreesOfFreedom(df_mean, df_se, train_mean, train_se, len(train))


def bias_variance(
    estimator: EnsembleForwardSelection,
    X: ArrayLike,
    mu: ArrayLike,
    sigma: float,
    *,
    n_replicates: int = 200,
    random_state: SeedLike = None,
) -> BiasVariance:
    """Monte Carlo bias/variance decomposition, training error and df along the path.

    Parameters
    ----------
    estimator : EnsembleForwardSelection
        Supplies k, m, n_estimators, criterion, fit_intercept, tol, n_jobs (it is not fitted).
    X : array of shape (n, p)
        Fixed design.
    mu : array of shape (n,)
        Known mean of the response (e.g. ``X @ beta``).
    sigma : float > 0
        Noise standard deviation.
    n_replicates : int >= 2
        Number of responses ``y = mu + sigma * N(0, I)``, each refitted.
    random_state : None, int or numpy.random.Generator
        Seeds the noise and, afresh for every replicate, the learners' subsets.

    Returns
    -------
    BiasVariance
        Squared bias, variance, risk, prediction and training error and df over the path ``t = 0..k``.

    Raises
    ------
    ValueError, TypeError
        As :func:`degrees_of_freedom`.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import EnsembleForwardSelection, bias_variance
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8))
    >>> report = bias_variance(EnsembleForwardSelection(k=3, m=4, n_estimators=20), X, 2 * X[:, 0], 1.0,
    ...                        n_replicates=20, random_state=0)
    >>> report.k
    array([0, 1, 2, 3])
    >>> bool(np.allclose(report.risk, report.bias2 + report.variance))
    True
    """
    count = 0
    mean: np.ndarray | None = None
    sum_sq: np.ndarray | None = None
    covariance = _CovarianceEstimate(float(sigma))
    train = []
    for noise, y, fitted in _replicates(estimator, X, mu, sigma, n_replicates, random_state):
        count += 1
        if mean is None or sum_sq is None:
            mean = np.zeros_like(fitted)
            sum_sq = np.zeros_like(fitted)
        delta = fitted - mean  # Welford's running mean and sum of squared deviations
        mean += delta / count
        sum_sq += delta * (fitted - mean)
        covariance.add(noise, fitted)
        train.append(np.mean((y[:, None] - fitted) ** 2, axis=0))
    assert mean is not None and sum_sq is not None  # n_replicates >= 2
    mu = np.asarray(mu, dtype=np.float64)
    bias2 = np.mean((mean - mu[:, None]) ** 2, axis=0)
    variance = np.mean(sum_sq / count, axis=0)
    df_mean, df_se = covariance.result()
    risk = bias2 + variance
    return BiasVariance(
        k=np.arange(mean.shape[1]),
        bias2=bias2,
        variance=variance,
        risk=risk,
        prediction_error=risk + float(sigma) ** 2,
        train_error=np.array(train).mean(axis=0),
        df=df_mean,
        df_se=df_se,
        sigma=float(sigma),
        n_replicates=count,
    )


MAX_ORTHOGONAL_FEATURES = 2_000_000


def degrees_of_freedom_orthogonal(
    theta: ArrayLike, sigma: float, k: int, m: int, *, n_replicates: int = 2000, random_state: SeedLike = None
) -> DegreesOfFreedom:
    """Degrees of freedom of the infinite ensemble under an orthogonal design, by exact weights.

    With ``X^T X = I`` the sufficient statistic is ``z = X^T y ~ N(theta, sigma^2 I)`` and the
    B -> infinity ensemble fits ``w[rank(|z_j|)] z_j`` with ``w = exact_weights(k, m, p)``; no
    ensemble is run. ``train_error`` is ``||z - fit||^2 / p`` (the training error per sample of a
    square orthogonal design).

    Parameters
    ----------
    theta : array of shape (p,)
        Mean of ``z`` (the true coefficients in the orthonormal basis).
    sigma : float > 0
        Noise standard deviation.
    k, m : int
        Steps and candidates per step, ``1 <= k <= p``, ``1 <= m <= p``.
    n_replicates : int >= 2
        Number of draws of ``z``.
    random_state : None, int or numpy.random.Generator
        Seeds the draws of ``z``.

    Returns
    -------
    DegreesOfFreedom
        0-d arrays: ``df``, its standard error and the training error of the infinite ensemble.

    Raises
    ------
    ValueError, TypeError
        For a bad ``theta``, ``sigma <= 0``, ``k`` or ``m`` out of range, or ``n_replicates < 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import degrees_of_freedom_orthogonal
    >>> d = degrees_of_freedom_orthogonal(np.array([3.0, 2.0, 0, 0, 0, 0]), 1.0, k=2, m=3,
    ...                                   n_replicates=200, random_state=0)
    >>> d.df.shape, bool(0 < d.df < 6)
    ((), True)
    """
    theta = as_array(theta, "theta", ndim=1)
    p = theta.shape[0]
    if p > MAX_ORTHOGONAL_FEATURES:
        # One replicate sorts p values in numpy without a chance to see Ctrl-C; past this size a
        # single sort takes about a second.
        raise ValueError(
            f"theta: expected at most MAX_ORTHOGONAL_FEATURES = {MAX_ORTHOGONAL_FEATURES} "
            f"features (paperkernels.greedy._simulation.MAX_ORTHOGONAL_FEATURES), got {p}"
        )
    sigma = as_float(sigma, "sigma", low=0.0, low_open=True)
    n_replicates = as_int(n_replicates, "n_replicates", low=2)
    _check_replicates(n_replicates, p)
    weights = exact_weights(k, m, p)
    rng = np.random.default_rng(as_seed(random_state, "random_state"))
    covariance = _CovarianceEstimate(sigma)
    train = []
    chunk = max(1, min(n_replicates, 2_000_000 // p))
    done = 0
    while done < n_replicates:
        rows = min(chunk, n_replicates - done)
        noise = sigma * rng.standard_normal((rows, p))
        z = theta + noise
        order = np.argsort(-np.abs(z), axis=1, kind="stable")
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(p)[None, :], axis=1)
        fit = weights[ranks] * z
        for row in range(rows):
            covariance.add(noise[row], fit[row])
        train.append(np.mean((z - fit) ** 2, axis=1))
        done += rows
    df_mean, df_se = covariance.result()
    train_mean, train_se = _mean_and_se(np.concatenate(train))
    return DegreesOfFreedom(df_mean, df_se, train_mean, train_se, n_replicates)
