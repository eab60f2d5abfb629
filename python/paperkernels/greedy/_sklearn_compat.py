"""scikit-learn is optional: this module provides the estimator base classes, input validation and
``NotFittedError`` from scikit-learn when it is importable, and small stand-ins otherwise."""

from __future__ import annotations

import inspect
import numbers
from typing import Any, Dict, Optional, Tuple

import numpy as np

try:  # pragma: no branch
    from sklearn.base import BaseEstimator, RegressorMixin
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted

    try:
        from sklearn.utils.validation import validate_data as _validate_data  # scikit-learn >= 1.6
    except ImportError:  # scikit-learn 1.3 - 1.5
        _validate_data = None
    HAVE_SKLEARN = True
except ImportError:
    HAVE_SKLEARN = False


if not HAVE_SKLEARN:

    class NotFittedError(ValueError, AttributeError):  # type: ignore[no-redef]
        """Raised when an estimator is used before ``fit`` (same bases as scikit-learn's)."""

    class BaseEstimator:  # type: ignore[no-redef]
        """get_params / set_params / repr, as scikit-learn's BaseEstimator provides them."""

        @classmethod
        def _get_param_names(cls):
            signature = inspect.signature(cls.__init__)
            return sorted(name for name in signature.parameters if name != "self")

        def get_params(self, deep: bool = True) -> Dict[str, Any]:
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params: Any):
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"Invalid parameter {name!r} for estimator {type(self).__name__}; valid: {valid}")
                setattr(self, name, value)
            return self

        def __repr__(self) -> str:
            defaults = inspect.signature(type(self).__init__).parameters
            changed = [f"{n}={v!r}" for n, v in self.get_params().items() if defaults[n].default is not v
                       and not (isinstance(v, (int, float, str)) and defaults[n].default == v)]
            return f"{type(self).__name__}({', '.join(changed)})"

    class RegressorMixin:  # type: ignore[no-redef]
        """``score`` as the coefficient of determination R^2, like scikit-learn's mixin."""

        _estimator_type = "regressor"

        def score(self, X, y, sample_weight=None) -> float:
            y = np.asarray(y, dtype=np.float64).ravel()
            residual = y - self.predict(X)
            w = np.ones_like(y) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
            ss_res = float(np.sum(w * residual**2))
            ss_tot = float(np.sum(w * (y - np.average(y, weights=w)) ** 2))
            return 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res == 0 else 0.0)

    def check_is_fitted(estimator, attributes=None):
        fitted = [v for v in vars(estimator) if v.endswith("_") and not v.startswith("__")]
        if not fitted:
            raise NotFittedError(
                f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with appropriate "
                "arguments before using this estimator."
            )


def _feature_names(X) -> Optional[np.ndarray]:
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    return names if len(names) and all(isinstance(n, str) for n in names) else None


def _as_float_matrix(X, name: str) -> np.ndarray:
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name}: sparse input is not supported; pass a dense array (e.g. {name}.toarray())")
    try:
        arr = np.asarray(X)
    except Exception as exc:
        raise TypeError(f"{name}: expected an array-like of numbers ({exc})") from None
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: complex data not supported")
    if arr.dtype.kind in "USV":
        raise TypeError(f"{name}: expected numbers, got an array of dtype {arr.dtype}")
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected numbers that convert to float64 ({exc})") from None


def _validate_without_sklearn(estimator, X, y, reset: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    names = _feature_names(X)
    X = _as_float_matrix(X, "X")
    if X.ndim != 2:
        raise ValueError(
            f"X: expected a 2-d array of shape (n_samples, n_features), got {X.ndim}-d with shape {X.shape}; "
            "reshape 1-d data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample"
        )
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X: expected a non-empty array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        kind = "NaN" if np.isnan(X).any() else "infinity"
        raise ValueError(f"Input X contains {kind}.")
    if reset:
        estimator.n_features_in_ = X.shape[1]
        if names is not None:
            estimator.feature_names_in_ = names
        elif hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
    elif X.shape[1] != estimator.n_features_in_:
        raise ValueError(
            f"X has {X.shape[1]} features, but {type(estimator).__name__} is expecting "
            f"{estimator.n_features_in_} features as input."
        )
    if y is None:
        return X, None
    y = _as_float_matrix(y, "y")
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y: expected a 1-d array of targets, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        kind = "NaN" if np.isnan(y).any() else "infinity"
        raise ValueError(f"Input y contains {kind}.")
    if len(y) != X.shape[0]:
        raise ValueError(
            f"Found input variables with inconsistent numbers of samples: X has {X.shape[0]}, y has {len(y)}"
        )
    return X, y


def _plain_finite_arrays(X, y) -> bool:
    """Whether X and y are plain float64 ndarrays of shapes (n, p) and (n,), n, p >= 1, all finite:
    inputs that every validation path accepts unchanged. Anything else takes the full path (and
    gets its errors and warnings from there)."""
    return (
        type(X) is np.ndarray and type(y) is np.ndarray
        and X.dtype == np.float64 and y.dtype == np.float64
        and X.ndim == 2 and y.ndim == 1 and X.shape[0] == y.shape[0] and X.shape[0] >= 1 and X.shape[1] >= 1
        and bool(np.isfinite(X).all()) and bool(np.isfinite(y).all())
    )


def validate(estimator, X, y=None, *, reset: bool) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """Validated float64 X (and y) following scikit-learn's conventions; sets or checks
    ``n_features_in_`` and ``feature_names_in_``."""
    if X is None:
        raise TypeError("X: expected an array of shape (n_samples, n_features), got None")
    if reset and y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None.")
    if reset and y is not None and _plain_finite_arrays(X, y):
        # What scikit-learn's validation concludes for these inputs, without its generic
        # (dataframe, dtype, sparse) machinery: the same arrays back and the same attributes.
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, y
    if HAVE_SKLEARN:
        kwargs = dict(dtype=np.float64, y_numeric=True, ensure_min_samples=1)
        if y is None:
            kwargs = dict(dtype=np.float64)
        if _validate_data is not None:
            out = _validate_data(estimator, X, y if y is not None else "no_validation", reset=reset, **kwargs)
        else:
            out = estimator._validate_data(X, y if y is not None else "no_validation", reset=reset, **kwargs)
        return (out if y is not None else (out, None))
    return _validate_without_sklearn(estimator, X, y, reset)


def seed_from_random_state(random_state) -> int:
    """A 64-bit seed from scikit-learn style ``random_state`` (None, int, Generator or RandomState)."""
    from .._seed import as_seed

    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return as_seed(int(random_state), "random_state")
    return as_seed(random_state, "random_state")
