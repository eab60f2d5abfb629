"""Cross-validation over (k, m) that reuses the path: one fit per (fold, m) scores every k."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._seed import as_seed
from .._validation import as_int
from ._design import resolve_m
from ._sklearn_compat import HAVE_SKLEARN, validate


@dataclass
class PathCVResult:
    """Cross-validated mean squared error over the (m, k) grid.

    Attributes
    ----------
    m_values : ndarray of int, shape (n_m,)
        Candidates per step, resolved against the number of features.
    k_values : ndarray of int, shape (k + 1,)
        Path positions 0..k (0 = intercept only).
    mse : ndarray of shape (n_m, k + 1)
        Mean over folds of the held-out mean squared error.
    se : ndarray of shape (n_m, k + 1)
        Standard error of that mean over folds.
    best_m, best_k : int
        The grid point (k >= 1) with the smallest ``mse``; ties go to the smaller k, then the
        earlier m.
    estimator : EnsembleForwardSelection or None
        Refitted on all the data at (best_k, best_m) when ``refit=True``.
    """

    m_values: np.ndarray
    k_values: np.ndarray
    mse: np.ndarray
    se: np.ndarray
    best_m: int
    best_k: int
    estimator: Optional[object]


def _clone(estimator, **params):
    if HAVE_SKLEARN:
        from sklearn.base import clone

        return clone(estimator).set_params(**params)
    return type(estimator)(**{**estimator.get_params(), **params})


def _folds(cv, n_samples: int, random_state) -> List[Tuple[np.ndarray, np.ndarray]]:
    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        n_folds = as_int(cv, "cv", low=2, high=n_samples)
        order = np.random.default_rng(as_seed(random_state, "random_state")).permutation(n_samples)
        tests = np.array_split(order, n_folds)
        return [(np.sort(np.concatenate(tests[:i] + tests[i + 1:])), np.sort(test)) for i, test in enumerate(tests)]
    try:
        folds = [(np.asarray(train, dtype=np.intp), np.asarray(test, dtype=np.intp)) for train, test in cv]
    except TypeError:
        raise TypeError(f"cv: expected an int >= 2 or an iterable of (train, test) index arrays, got {cv!r}") from None
    if not folds:
        raise ValueError("cv: expected at least one (train, test) split")
    return folds


def cross_validate_path(
    estimator,
    X,
    y,
    m_values: Sequence[Union[int, float, str, None]],
    *,
    cv: Union[int, Iterable[Tuple[np.ndarray, np.ndarray]]] = 5,
    random_state=None,
    refit: bool = True,
) -> PathCVResult:
    """Cross-validate an :class:`EnsembleForwardSelection` over ``k = 0..estimator.k`` and ``m_values``.

    Each (fold, m) pair is fitted once with ``k = estimator.k``; the fitted path scores every
    smaller k at no extra cost.

    Parameters
    ----------
    estimator : EnsembleForwardSelection
        Template: its k is the largest k tried, its other parameters are kept.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    m_values : sequence
        Values of m (each as accepted by the estimator).
    cv : int or iterable of (train, test), default=5
        An int gives that many shuffled folds (the shuffle seeded by ``random_state``); an iterable
        (e.g. ``KFold(5).split(X)``) gives the splits directly.
    random_state : None, int or numpy.random.Generator
        Seeds the fold shuffle only; the learners use the estimator's ``random_state``.
    refit : bool, default=True
        Refit the best (k, m) on all the data.
    """
    X, y = validate(_clone(estimator), X, y, reset=True)
    n_samples, n_features = X.shape
    if isinstance(m_values, (str, numbers.Number)) or m_values is None:
        m_values = [m_values]
    resolved = np.array([resolve_m(m, n_features) for m in m_values], dtype=np.int64)
    if resolved.size == 0:
        raise ValueError("m_values: expected at least one value of m")
    folds = _folds(cv, n_samples, random_state)
    k_max = as_int(estimator.k, "k", low=1, high=n_features)
    scores = np.empty((len(resolved), len(folds), k_max + 1))
    for i, m in enumerate(resolved):
        for f, (train, test) in enumerate(folds):
            model = _clone(estimator, m=int(m)).fit(X[train], y[train])
            scores[i, f] = model.mse_path(X[test], y[test])
    mse = scores.mean(axis=1)
    se = scores.std(axis=1, ddof=1) / np.sqrt(len(folds)) if len(folds) > 1 else np.full_like(mse, np.nan)
    # Best over k >= 1; argmin on the transposed grid prefers the smaller k, then the earlier m.
    flat = int(np.argmin(mse[:, 1:].T))
    best_k, best_i = divmod(flat, len(resolved))
    best_k += 1
    best_m = int(resolved[best_i])
    fitted = _clone(estimator, k=best_k, m=best_m).fit(X, y) if refit else None
    return PathCVResult(resolved, np.arange(k_max + 1), mse, se, best_m, best_k, fitted)
