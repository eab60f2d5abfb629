"""Cross-validation over (k, m) that reuses the path: one fit per (fold, m) scores every k."""

import copy
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._seed import SeedLike, as_seed
from .._validation import as_bool, as_int, plain_array, refuse_masked
from ._design import resolve_k, resolve_m
from ._estimator import EnsembleForwardSelection
from ._sklearn_compat import validate


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

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import EnsembleForwardSelection, cross_validate_path
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(50, 6)); y = X[:, 0] + 0.1 * rng.normal(size=50)
    >>> cv = cross_validate_path(EnsembleForwardSelection(k=3, n_estimators=10, random_state=0), X, y,
    ...                          m_values=[3], cv=2, random_state=0, refit=False)
    >>> cv.k_values, cv.estimator is None
    (array([0, 1, 2, 3]), True)
    """

    m_values: np.ndarray
    k_values: np.ndarray
    mse: np.ndarray
    se: np.ndarray
    best_m: int
    best_k: int
    estimator: EnsembleForwardSelection | None


def _clone(estimator: EnsembleForwardSelection, **params: Any) -> EnsembleForwardSelection:
    """A fresh unfitted copy with the same parameters (deep-copied, as scikit-learn's ``clone``
    does), then ``params``."""
    fresh = {name: copy.deepcopy(value) for name, value in estimator.get_params(deep=False).items()}
    return type(estimator)(**fresh).set_params(**params)


_CV_EXPECTED = (
    "an int >= 2, a splitter with a split(X, y) method, or an iterable of (train, test) pairs "
    "of index arrays or boolean masks"
)


def _fold_part(part: Any, n_samples: int, fold: int, which: str) -> np.ndarray:
    """One side of a split as sorted-as-given row indices: integer indices in [0, n_samples), or a
    boolean mask of length n_samples."""
    where = f"cv: fold {fold}, {which}"
    arr = plain_array(part, where)
    if arr.dtype == np.bool_:
        if arr.shape != (n_samples,):
            raise ValueError(
                f"{where}: a boolean mask must have shape ({n_samples},) (one entry per sample), got shape {arr.shape}"
            )
        indices = np.flatnonzero(arr)
    elif arr.dtype.kind in "iu":
        if arr.ndim != 1:
            raise ValueError(f"{where}: expected a 1-d array of sample indices, got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() >= n_samples):
            raise ValueError(
                f"{where}: expected sample indices in [0, {n_samples}), got values in [{arr.min()}, {arr.max()}]"
            )
        indices = arr.astype(np.intp, copy=False)
    elif arr.size == 0 and arr.dtype.kind == "f":  # an empty list
        indices = np.empty(0, dtype=np.intp)
    else:
        raise TypeError(
            f"{where}: expected integer sample indices or a boolean mask, got an array of dtype {arr.dtype}"
        )
    if indices.size == 0:
        raise ValueError(f"{where}: selects no sample")
    return indices


def _folds(
    cv: Any, X: np.ndarray, y: np.ndarray, n_samples: int, random_state: SeedLike
) -> list[tuple[np.ndarray, np.ndarray]]:
    if isinstance(cv, numbers.Integral) and not isinstance(cv, (bool, np.bool_)):
        n_folds = as_int(cv, "cv", low=2, high=n_samples)
        order = np.random.default_rng(as_seed(random_state, "random_state")).permutation(n_samples)
        tests = np.array_split(order, n_folds)
        return [(np.sort(np.concatenate(tests[:i] + tests[i + 1 :])), np.sort(test)) for i, test in enumerate(tests)]
    if isinstance(cv, (str, bytes, bool, np.bool_, numbers.Number)) or cv is None:
        raise TypeError(f"cv: expected {_CV_EXPECTED}, got {cv!r}")
    splits = cv.split(X, y) if callable(getattr(cv, "split", None)) else cv
    try:
        pairs = list(splits)
    except TypeError:
        raise TypeError(f"cv: expected {_CV_EXPECTED}, got {type(cv).__name__}") from None
    folds = []
    for f, pair in enumerate(pairs):
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            raise TypeError(f"cv: fold {f}: expected a (train, test) pair, got {type(pair).__name__}")
        train = _fold_part(pair[0], n_samples, f, "train")
        test = _fold_part(pair[1], n_samples, f, "test")
        if train.size < 2:
            raise ValueError(f"cv: fold {f}, train: expected at least 2 samples to fit on, got {train.size}")
        folds.append((train, test))
    if not folds:
        raise ValueError("cv: expected at least one (train, test) split")
    return folds


def cross_validate_path(
    estimator: EnsembleForwardSelection,
    X: ArrayLike,
    y: ArrayLike,
    m_values: int | float | str | None | Sequence[int | float | str | None],
    *,
    cv: int | Any | Iterable[tuple[np.ndarray, np.ndarray]] = 5,
    random_state: SeedLike = None,
    refit: bool = True,
) -> PathCVResult:
    """Cross-validate an :class:`EnsembleForwardSelection` over ``k = 0..estimator.k`` and ``m_values``.

    Each (fold, m) pair is fitted once with ``k = estimator.k``; the fitted path scores every
    smaller k at no extra cost.

    Parameters
    ----------
    estimator : EnsembleForwardSelection
        Template: its k (``k=None`` resolved against the number of features) is the largest k
        tried, its other parameters are kept.
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    m_values : sequence
        Values of m (each as accepted by the estimator).
    cv : int, splitter or iterable of (train, test), default=5
        An int gives that many shuffled folds (the shuffle seeded by ``random_state``); an object
        with a ``split(X, y)`` method (e.g. ``KFold(5)``) or an iterable of pairs (e.g.
        ``KFold(5).split(X)``) gives the splits directly. Each side of a pair is an array of integer
        row indices in ``[0, n_samples)`` or a boolean mask of length ``n_samples``; float indices,
        indices out of range and empty sides are refused (``TypeError``/``ValueError`` naming
        ``cv`` and the fold).
    random_state : None, int or numpy.random.Generator
        Seeds the fold shuffle only; the learners use the estimator's ``random_state``.
    refit : bool, default=True
        Refit the best (k, m) on all the data.

    Returns
    -------
    PathCVResult
        The error over the (m, k) grid, the best point and, with ``refit=True``, the refitted
        estimator.

    Notes
    -----
    The loop over (m, fold) runs in Python between C++ fits, each of which polls for signals:
    Ctrl-C stops it within a fraction of a second.

    Raises
    ------
    ValueError, TypeError
        For bad data, ``m_values`` outside ``[1, n_features]`` (naming ``m_values``), or folds that are
        not valid (naming ``cv`` and the fold).

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import EnsembleForwardSelection, cross_validate_path
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 8)); y = 2 * X[:, 0] + rng.normal(size=60)
    >>> cv = cross_validate_path(EnsembleForwardSelection(k=4, n_estimators=20, random_state=0), X, y,
    ...                          m_values=[2, None], cv=3, random_state=0)
    >>> cv.mse.shape                   # (m values, k = 0..4)
    (2, 5)
    >>> cv.m_values                    # None resolved to all 8 features
    array([2, 8])
    >>> cv.estimator.k == cv.best_k
    True
    """
    as_bool(refit, "refit")
    data, target = validate(_clone(estimator), X, y, reset=True)
    assert target is not None  # validate() refuses a fit without y
    n_samples, n_features = data.shape
    values: Any = [m_values] if isinstance(m_values, (str, numbers.Number)) or m_values is None else m_values
    refuse_masked(values, "m_values")
    try:
        candidates = list(values)
    except TypeError:
        raise TypeError(f"m_values: expected a value of m or a sequence of them, got {type(values).__name__}") from None
    resolved = np.array([resolve_m(m, n_features) for m in candidates], dtype=np.int64)
    if resolved.size == 0:
        raise ValueError("m_values: expected at least one value of m")
    folds = _folds(cv, data, target, n_samples, random_state)
    k_max = resolve_k(estimator.k, n_features)
    scores = np.empty((len(resolved), len(folds), k_max + 1))
    for i, m in enumerate(resolved):
        for f, (train, test) in enumerate(folds):
            model = _clone(estimator, m=int(m)).fit(data[train], target[train])
            scores[i, f] = model.mse_path(data[test], target[test])
    mse = scores.mean(axis=1)
    se = scores.std(axis=1, ddof=1) / np.sqrt(len(folds)) if len(folds) > 1 else np.full_like(mse, np.nan)
    # Best over k >= 1; argmin on the transposed grid prefers the smaller k, then the earlier m.
    flat = int(np.argmin(mse[:, 1:].T))
    best_k, best_i = divmod(flat, len(resolved))
    best_k += 1
    best_m = int(resolved[best_i])
    fitted = _clone(estimator, k=best_k, m=best_m).fit(data, target) if refit else None
    return PathCVResult(resolved, np.arange(k_max + 1), mse, se, best_m, best_k, fitted)
