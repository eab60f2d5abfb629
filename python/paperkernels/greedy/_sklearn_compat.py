"""scikit-learn is optional, and imported only when it is needed.

The estimator's base classes here implement scikit-learn's estimator protocol themselves
(``get_params``/``set_params``, ``__sklearn_tags__``, ``score``), so that importing
:mod:`paperkernels.greedy` never imports scikit-learn (which takes seconds). scikit-learn's own
input validation, ``NotFittedError`` and tag classes are imported on first use, when scikit-learn is
installed; plain float64 arrays skip them altogether. Without scikit-learn, small stand-ins take
their place.
"""

from __future__ import annotations

import html
import importlib.util
import inspect
import numbers
from typing import Any, Protocol, TypeVar

import numpy as np

from .._optional import optional_import
from .._validation import NON_NUMERIC_KINDS, TIMES, plain_array, refuse_masked


def _sklearn_installed() -> bool:
    try:
        return importlib.util.find_spec("sklearn") is not None
    except (ImportError, ValueError):  # a module set to None, or one without a spec
        return False


HAVE_SKLEARN = _sklearn_installed()
"""Whether scikit-learn can be imported (checked without importing it)."""

_SKLEARN: dict[str, Any] = {}


def _sklearn() -> dict[str, Any] | None:
    """The pieces of scikit-learn used here, imported on the first call; None without scikit-learn."""
    if not HAVE_SKLEARN:
        return None
    if not _SKLEARN:
        try:
            sklearn = optional_import("sklearn", "EnsembleForwardSelection")
            exceptions = optional_import("sklearn.exceptions", "EnsembleForwardSelection", extra="sklearn")
            validation = optional_import("sklearn.utils.validation", "EnsembleForwardSelection", extra="sklearn")
        except ImportError:  # installed but broken: do without it, and do not try again
            _SKLEARN.update(module=None)
            return None
        # validate_data: scikit-learn >= 1.6 (1.3 - 1.5 validate through BaseEstimator._validate_data).
        _SKLEARN.update(
            module=sklearn,
            NotFittedError=exceptions.NotFittedError,
            validate_data=getattr(validation, "validate_data", None),
        )
    return _SKLEARN if _SKLEARN["module"] is not None else None


class NotFittedError(ValueError, AttributeError):
    """Raised when an estimator is used before ``fit`` without scikit-learn installed (with it,
    scikit-learn's own ``NotFittedError``, which has the same bases, is raised)."""


def check_is_fitted(estimator: object) -> None:
    """Raise ``NotFittedError`` unless ``fit`` has set attributes ending in ``_``."""
    fitted = [v for v in vars(estimator) if v.endswith("_") and not v.startswith("__")]
    if not fitted:
        sk = _sklearn()
        error = sk["NotFittedError"] if sk is not None else NotFittedError
        raise error(
            f"This {type(estimator).__name__} instance is not fitted yet. Call 'fit' with appropriate "
            "arguments before using this estimator."
        )


_Estimator = TypeVar("_Estimator", bound="BaseEstimator")


class BaseEstimator:
    """scikit-learn's estimator protocol: ``get_params``, ``set_params``, a repr showing the changed
    parameters and the estimator tags, without importing scikit-learn."""

    @classmethod
    def _get_param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return sorted(name for name in signature.parameters if name != "self")

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """Parameters of this estimator, by name (as in ``__init__``)."""
        out: dict[str, Any] = {}
        for name in self._get_param_names():
            value = getattr(self, name)
            if deep and hasattr(value, "get_params") and not isinstance(value, type):
                out.update((f"{name}__{key}", item) for key, item in value.get_params().items())
            out[name] = value
        return out

    def set_params(self: _Estimator, **params: Any) -> _Estimator:
        """Set parameters by name; returns the estimator."""
        valid = self._get_param_names()
        for name, value in params.items():
            if name not in valid:
                raise ValueError(
                    f"Invalid parameter {name!r} for estimator {type(self).__name__}. Valid parameters are: {valid!r}."
                )
            setattr(self, name, value)
        return self

    def __repr__(self) -> str:
        defaults = inspect.signature(type(self).__init__).parameters
        changed = [
            f"{n}={v!r}"
            for n, v in self.get_params(deep=False).items()
            if defaults[n].default is not v and not (isinstance(v, (int, float, str)) and defaults[n].default == v)
        ]
        return f"{type(self).__name__}({', '.join(changed)})"

    def _repr_html_(self) -> str:
        """The estimator diagram of scikit-learn in notebooks (its plain repr without scikit-learn)."""
        if _sklearn() is not None:
            from sklearn.utils import estimator_html_repr

            return str(estimator_html_repr(self))
        return f"<pre>{html.escape(repr(self))}</pre>"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import Tags, TargetTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=None,
            regressor_tags=None,
            classifier_tags=None,
        )

    # The tags of scikit-learn 1.3 - 1.5.
    def _more_tags(self) -> dict[str, Any]:
        return {}

    def _get_tags(self) -> dict[str, Any]:
        from sklearn.utils._tags import _DEFAULT_TAGS

        tags = dict(_DEFAULT_TAGS)
        for klass in reversed(type(self).__mro__):
            more_tags = vars(klass).get("_more_tags")
            if more_tags is not None:
                tags.update(more_tags(self))
        return tags

    # Used by scikit-learn 1.3 - 1.5's validation of X.
    def _check_feature_names(self, X: Any, *, reset: bool) -> None:
        from sklearn.base import BaseEstimator as SkBaseEstimator

        SkBaseEstimator._check_feature_names(self, X, reset=reset)

    def _check_n_features(self, X: Any, reset: bool) -> None:
        from sklearn.base import BaseEstimator as SkBaseEstimator

        SkBaseEstimator._check_n_features(self, X, reset=reset)


class _Predictor(Protocol):
    def predict(self, X: Any) -> np.ndarray: ...


class RegressorMixin:
    """``score`` as the coefficient of determination R^2 and the regressor tags, as scikit-learn's
    mixin provides them."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self) -> Any:
        from sklearn.utils import RegressorTags

        tags = super().__sklearn_tags__()  # type: ignore[misc]  # BaseEstimator's, next in the estimator's MRO
        tags.estimator_type = "regressor"
        tags.regressor_tags = RegressorTags()
        tags.target_tags.required = True
        return tags

    def _more_tags(self) -> dict[str, Any]:
        return {"requires_y": True}

    def score(self: _Predictor, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Coefficient of determination R^2 of ``predict(X)`` against ``y``."""
        _refuse_text(y, "y")
        predictions = self.predict(X)
        if _sklearn() is not None:
            from sklearn.metrics import r2_score

            return float(r2_score(y, predictions, sample_weight=sample_weight))
        y = plain_array(y, "y", np.float64).ravel()
        residual = y - predictions
        w = np.ones_like(y) if sample_weight is None else plain_array(sample_weight, "sample_weight", np.float64)
        ss_res = float(np.sum(w * residual**2))
        ss_tot = float(np.sum(w * (y - np.average(y, weights=w)) ** 2))
        return 1.0 - ss_res / ss_tot if ss_tot > 0 else (1.0 if ss_res == 0 else 0.0)


def _feature_names(X: Any) -> np.ndarray | None:
    columns = getattr(X, "columns", None)
    if columns is None:
        return None
    names = np.asarray(list(columns), dtype=object)
    return names if len(names) and all(isinstance(n, str) for n in names) else None


def _as_float_matrix(X: Any, name: str) -> np.ndarray:
    if hasattr(X, "toarray") or hasattr(X, "tocsr"):
        raise TypeError(f"{name}: sparse input is not supported; pass a dense array (e.g. {name}.toarray())")
    arr = plain_array(X, name)
    if arr.dtype.kind == "c":
        raise ValueError(f"{name}: complex data not supported")
    if arr.dtype.kind in NON_NUMERIC_KINDS:
        raise TypeError(f"{name}: expected numbers, got an array of dtype {arr.dtype}")
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected numbers that convert to float64 ({exc})") from None


def _validate_without_sklearn(estimator: Any, X: Any, y: Any, reset: bool) -> tuple[np.ndarray, np.ndarray | None]:
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


def _plain_finite_matrix(X: Any) -> bool:
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.shape[0] >= 1
        and X.shape[1] >= 1
        and bool(np.isfinite(X).all())
    )


def _plain_finite_arrays(X: Any, y: Any) -> bool:
    """Whether X and y are plain float64 ndarrays of shapes (n, p) and (n,), n, p >= 1, all finite:
    inputs that every validation path accepts unchanged. Anything else takes the full path (and
    gets its errors and warnings from there)."""
    return (
        type(y) is np.ndarray
        and y.dtype == np.float64
        and y.ndim == 1
        and _plain_finite_matrix(X)
        and X.shape[0] == y.shape[0]
        and bool(np.isfinite(y).all())
    )


def _refuse_text(value: Any, name: str) -> None:
    """Refuse strings where numbers are expected. scikit-learn's validation parses numeric strings
    (and numeric strings inside object arrays) silently, and names no argument when one does not
    parse; object arrays of numbers stay accepted, as scikit-learn's estimator checks require."""
    if value is None or (isinstance(value, np.ndarray) and value.dtype.kind in "biuf"):
        return
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected an array of numbers, got a string")
    try:
        array = value if isinstance(value, np.ndarray) else np.asarray(value)
    except Exception:
        return  # not convertible: the validation below reports it, naming the argument
    kind = array.dtype.kind
    strings = kind in "UST" or (kind == "O" and any(isinstance(v, (str, bytes, bytearray)) for v in array.flat))
    if strings:
        raise TypeError(f"{name}: expected an array of numbers, got strings (dtype {array.dtype})")
    if kind in "mM" or (kind == "O" and any(isinstance(v, TIMES) for v in array.flat)):
        raise TypeError(f"{name}: expected an array of numbers, got dates or durations (dtype {array.dtype})")


def _conversion_culprit(X: Any, y: Any) -> str:
    """Which of X and y numpy cannot convert (after scikit-learn's validation failed unexpectedly)."""
    for name, value in (("X", X), ("y", y)):
        if value is None or isinstance(value, np.ndarray):
            continue
        try:
            np.asarray(value)
        except Exception:
            return name
    return "X" if y is None else "X or y"


def _validate_with_sklearn(
    sk: dict[str, Any], estimator: Any, X: Any, y: Any, reset: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    kwargs: dict[str, Any] = dict(dtype=np.float64, y_numeric=True, ensure_min_samples=1)
    if y is None:
        kwargs = dict(dtype=np.float64)
    target = y if y is not None else "no_validation"
    try:
        if sk["validate_data"] is not None:
            out = sk["validate_data"](estimator, X, target, reset=reset, **kwargs)
        else:
            from sklearn.base import BaseEstimator as SkBaseEstimator

            out = SkBaseEstimator._validate_data(estimator, X, target, reset=reset, **kwargs)
    except (ValueError, TypeError):
        raise
    except Exception as exc:  # e.g. an __array__ that raises: not the caller's fault to decode
        name = _conversion_culprit(X, y)
        raise TypeError(f"{name}: expected an array-like of numbers ({type(exc).__name__}: {exc})") from None
    validated: tuple[np.ndarray, np.ndarray | None] = out if y is not None else (out, None)
    return validated


def validate(estimator: Any, X: Any, y: Any = None, *, reset: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """Validated float64 X (and y) following scikit-learn's conventions; sets or checks
    ``n_features_in_`` and ``feature_names_in_``."""
    if X is None:
        raise TypeError("X: expected an array of shape (n_samples, n_features), got None")
    refuse_masked(X, "X")
    refuse_masked(y, "y")
    _refuse_text(X, "X")
    _refuse_text(y, "y")
    if reset and y is None:
        raise ValueError(f"{type(estimator).__name__} requires y to be passed, but the target y is None.")
    if reset and y is not None and _plain_finite_arrays(X, y):
        # What scikit-learn's validation concludes for these inputs, without its generic
        # (dataframe, dtype, sparse) machinery: the same arrays back and the same attributes.
        estimator.n_features_in_ = X.shape[1]
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        return X, y
    if (
        not reset
        and y is None
        and _plain_finite_matrix(X)
        and not hasattr(estimator, "feature_names_in_")
        and X.shape[1] == getattr(estimator, "n_features_in_", None)
    ):
        return X, None  # likewise for prediction on a plain array, after a fit without feature names
    sk = _sklearn()
    if sk is not None:
        return _validate_with_sklearn(sk, estimator, X, y, reset)
    return _validate_without_sklearn(estimator, X, y, reset)


def seed_from_random_state(random_state: Any) -> int:
    """A 64-bit seed from scikit-learn style ``random_state`` (None, int, Generator or RandomState)."""
    from .._seed import as_seed

    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, 2**63, dtype=np.int64))
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, (bool, np.bool_)):
        return as_seed(int(random_state), "random_state")
    return as_seed(random_state, "random_state")
