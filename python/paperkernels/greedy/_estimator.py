"""EnsembleForwardSelection: a scikit-learn regressor averaging randomized forward selections."""

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._validation import as_array, as_bool, as_choice, as_float, as_int, as_n_threads
from ._design import (
    CentredDesign,
    EnsemblePath,
    check_fit_memory,
    importances,
    resolve_k,
    resolve_m,
    selection_frequencies,
    use_gram,
)
from ._sklearn_compat import BaseEstimator, RegressorMixin, check_is_fitted, seed_from_random_state, validate


def fit_settings(params: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``CentredDesign.fit`` (but y and seed) from checked parameters."""
    return {name: params[name] for name in ("k", "m", "n_learners", "criterion", "tol", "n_threads")}


class EnsembleForwardSelection(RegressorMixin, BaseEstimator):
    """Ensemble of greedy forward selections with per-step feature subsampling.

    Each of ``n_estimators`` learners runs ``k`` steps of forward selection on centred data. At every
    step it draws a fresh uniform subset of ``m`` of the features it has not selected yet, adds the
    best candidate by ``criterion`` to its active set and refits ordinary least squares on the
    active set. The ensemble averages the learners' coefficient vectors, which gives the whole path
    of models with 0..k steps at once (Chen, Klusowski, Tan and Yu, "Revisiting Randomization in
    Greedy Model Search", arXiv 2506.15643).

    Parameters
    ----------
    k : int or None, default=None
        Number of selection steps (the size of each learner's model), at most ``n_features``. None
        takes ``min(10, n_features)`` steps, a default valid for any data (an explicit ``k`` above
        ``n_features`` is an error).
    m : int, float, "sqrt" or None, default=0.33
        Candidates drawn per step: an int count in ``[1, n_features]``, a float fraction of the
        features in ``(0, 1]`` (``max(1, int(m * n_features))``), ``"sqrt"``
        (``max(1, int(sqrt(n_features)))``) or None for all features. When fewer than ``m``
        features are left unselected, all of them are candidates. ``m = n_features`` is plain
        (deterministic) forward selection.
    n_estimators : int, default=500
        Number of learners B.
    criterion : {"fs", "omp"}, default="fs"
        ``"fs"`` (forward selection) picks the candidate with the largest decrease of the residual
        sum of squares, ``(x_j^T r)^2 / ||P_A^perp x_j||^2``; ``"omp"`` (orthogonal matching
        pursuit) the largest ``|x_j^T r|``.
    fit_intercept : bool, default=True
        Centre X and y before the search (columns are never scaled) and fit an intercept.
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState, default=None
        Learner ``b`` draws its subsets from stream ``(seed, b)`` of the library's xoshiro256**
        generator, so the fit is bit-identical for any ``n_jobs``.
    n_jobs : int or None, default=None
        Threads for the Gram matrix and the learners: None or -1 for all cores, -2 for all but one.
        (Both are our own C++ kernels, not BLAS calls: threadpoolctl limits do not apply to them.)
    precompute : {"auto", True, False}, default="auto"
        Whether to build the Gram matrix ``X_c^T X_c`` once (``8 p^2`` bytes) or to let
        each learner compute the Gram entries it needs from the data. ``"auto"`` compares the two
        costs and never builds Gram matrices of more than 8192 features; ``True`` is refused with a
        ``ValueError`` when the matrix would exceed ``paperkernels.limits.max_result_bytes``.
    tol : float, default=1e-10
        Degenerate-candidate threshold: a candidate with ``||P_A^perp x_j||^2 <= tol ||x_j||^2``
        (in the span of the active set, numerically) is invalid. If every drawn candidate is
        invalid, the learner keeps drawing unselected features one at a time until a valid one
        appears (the random-forest convention); if none is left it stops and carries its last
        model forward. Ties in the criterion go to the lowest feature index.
        ``||P_A^perp x_j||^2`` is downdated from the Gram entries, so its rounding error grows with
        the square of the active columns' condition number; the threshold used at each step is
        therefore ``max(tol, 16 eps kappa^2)``, with ``kappa^2`` the largest squared column norm
        of ``D R^-1`` (R the triangular factor of the active columns, D their norms, eps = 2^-52):
        an estimate from below of the squared condition number of the column-normalised active
        set, so that a column in the span of an ill-conditioned active set is not taken for a new
        direction, whatever the columns' units. Two roundings it does not cover: Gram entries
        summed over millions of samples (their error can reach ``n_samples * 2^-53``, above ``tol``
        beyond about 10^6 samples of nearly equal terms; raise ``tol`` there), and the centring of
        columns shifted by offsets far above their spread (1e12 with unit spread: centre them
        first). A learner never takes more steps than the centred design's rank can be
        (``n_samples - 1``, or ``n_samples`` with ``fit_intercept=False``).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        Ensemble coefficients after ``k`` steps (``coef_path_[k]``).
    intercept_ : float
        ``mean(y) - mean(X, axis=0) @ coef_`` (0 without an intercept).
    coef_path_ : ndarray of shape (k + 1, n_features)
        Ensemble coefficients after 0, 1, ..., k steps.
    intercept_path_ : ndarray of shape (k + 1,)
        The matching intercepts.
    selection_frequencies_ : ndarray of shape (k, n_features)
        Row ``t - 1``: fraction of the learners that selected feature ``j`` within ``t`` steps.
    feature_importances_ : ndarray of shape (n_features,)
        Share of the learners' total decrease in training RSS credited to each feature at the step
        it entered (sums to 1 unless y is constant).
    active_sets_ : ndarray of shape (n_estimators, k)
        Each learner's selected features in order of entry; -1 after an early stop.
    m_ : int
        The resolved number of candidates per step.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Only when X had string column names (e.g. a pandas DataFrame).

    Notes
    -----
    A fit refuses up front, with a ``ValueError`` naming ``n_estimators`` or ``k``, to allocate more
    than ``paperkernels.limits.max_result_bytes`` for its results and workspaces: the per-learner
    results (``n_estimators * (k (k + 1) / 2 + 2 k)`` values), ``coef_path_`` and
    ``selection_frequencies_`` (``(2 k + 1) n_features`` values) and one workspace of about
    ``n_features * k + k^2`` values per thread.

    Fitted and unfitted estimators pickle and deep-copy; a restored estimator predicts exactly as
    the original.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.greedy import EnsembleForwardSelection
    >>> rng = np.random.default_rng(0)
    >>> X = rng.standard_normal((200, 30))
    >>> y = X[:, :3] @ [3.0, 2.0, 1.0] + rng.standard_normal(200)
    >>> model = EnsembleForwardSelection(k=5, m=10, n_estimators=200, random_state=0).fit(X, y)
    >>> model.coef_path_.shape
    (6, 30)
    """

    def __init__(
        self,
        k: int | None = None,
        m: int | float | str | None = 0.33,
        n_estimators: int = 500,
        criterion: str = "fs",
        fit_intercept: bool = True,
        random_state: None | int | np.random.Generator | np.random.RandomState = None,
        n_jobs: int | None = None,
        precompute: str | bool = "auto",
        tol: float = 1e-10,
    ) -> None:
        self.k = k
        self.m = m
        self.n_estimators = n_estimators
        self.criterion = criterion
        self.fit_intercept = fit_intercept
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.precompute = precompute
        self.tol = tol

    # -- parameters ------------------------------------------------------------------------------

    def _checked_params(self, n_samples: int, n_features: int) -> dict[str, Any]:
        if n_samples < 2:
            raise ValueError(f"X: expected at least 2 samples, got n_samples = {n_samples}")
        k = resolve_k(self.k, n_features)
        as_bool(self.fit_intercept, "fit_intercept")
        precompute = self.precompute
        if not (precompute is True or precompute is False or precompute == "auto"):
            raise ValueError(f"precompute: expected 'auto', True or False, got {precompute!r}")
        n_learners = as_int(self.n_estimators, "n_estimators", low=1)
        m = resolve_m(self.m, n_features)
        n_threads = as_n_threads(self.n_jobs, "n_jobs")
        check_fit_memory(n_learners, k, n_features, n_threads, m)
        return dict(
            k=k,
            m=m,
            n_learners=n_learners,
            criterion=as_choice(self.criterion, "criterion", ("fs", "omp")),
            tol=as_float(self.tol, "tol", low=0.0, high=1.0, high_open=True),
            n_threads=n_threads,
            precompute=precompute,
        )

    def _design(self, X: np.ndarray, params: dict[str, Any], y: np.ndarray | None = None) -> CentredDesign:
        gram = use_gram(params["precompute"], X.shape[0], X.shape[1], params["k"], params["m"], params["n_learners"])
        return CentredDesign(X, fit_intercept=bool(self.fit_intercept), gram=gram, n_threads=params["n_threads"], y=y)

    # -- fitting and prediction ------------------------------------------------------------------

    def fit(self, X: ArrayLike, y: ArrayLike) -> "EnsembleForwardSelection":
        """Fit the ensemble on X of shape (n_samples, n_features) and y of shape (n_samples,).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data (finite; constant columns are never selected).
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        EnsembleForwardSelection
            ``self``, fitted: ``coef_path_``, ``intercept_path_``, ``coef_``, ``intercept_``,
            ``selection_frequencies_``, ``feature_importances_`` and ``n_features_in_``.

        Raises
        ------
        ValueError, TypeError
            For bad data or parameters (each error names the argument), ``k > n_features``, columns too
            faint to tell apart numerically, or results and workspaces above
            ``paperkernels.limits.max_result_bytes`` (naming ``n_estimators`` or ``k``).

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.greedy import EnsembleForwardSelection
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(80, 10)); y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=80)
        >>> model = EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X, y)
        >>> model.coef_path_.shape, sorted(np.flatnonzero(np.abs(model.coef_) > 0.5).tolist())
        ((4, 10), [0, 1])
        """
        with self._unchanged_on_failure():
            X, y, params, seed, design = self._prepare_fit(X, y)
            result = design.fit(y, seed=seed, **fit_settings(params))
            return self._finish_fit(result, params, X.shape[1])

    @contextlib.contextmanager
    def _unchanged_on_failure(self) -> Iterator[None]:
        """A fit that raises (refused data, parameters or sizes; Ctrl-C) leaves the estimator as it was:
        its fitted attributes (names ending in ``_``, some set by the validation of the data) are put
        back, and those the failed fit added are removed."""
        before = {name: value for name, value in vars(self).items() if name.endswith("_")}
        try:
            yield
        except BaseException:
            for name in [name for name in vars(self) if name.endswith("_") and name not in before]:
                delattr(self, name)
            vars(self).update(before)
            raise

    def _prepare_fit(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray, dict[str, Any], int, CentredDesign]:
        """Validated data, parameters, seed and centred design of a fit (shared with distributed fits)."""
        X, y = validate(self, X, y, reset=True)
        assert y is not None  # validate() refuses a fit without y
        params = self._checked_params(*X.shape)
        seed = seed_from_random_state(self.random_state)
        design = self._design(X, params, y)
        design.check_columns(X)
        return X, y, params, seed, design

    def _finish_fit(self, result: EnsemblePath, params: dict[str, Any], n_features: int) -> "EnsembleForwardSelection":
        self.m_ = params["m"]
        self.coef_path_ = result.coef_path
        self.intercept_path_ = result.intercept_path
        self.coef_ = result.coef_path[-1].copy()
        self.intercept_ = float(result.intercept_path[-1])
        self.active_sets_ = result.active
        self.selection_frequencies_ = selection_frequencies(result.active, n_features)
        self.feature_importances_ = importances(result.active, result.gains, n_features)
        return self

    def _step(self, k: int | None) -> int:
        n_steps: int = self.coef_path_.shape[0] - 1
        if k is None:
            return n_steps
        return as_int(k, "k", low=0, high=n_steps)

    def predict(self, X: ArrayLike, k: int | None = None) -> np.ndarray:
        """Predictions of the ensemble after ``k`` steps (default: all ``k`` steps of the fit).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to predict.
        k : int in [0, k of the fit], optional
            A point on the path: ``k = 0`` predicts the training mean.

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            ``X @ coef_path_[k] + intercept_path_[k]``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit`` (a ``ValueError`` and ``AttributeError`` subclass; without scikit-learn an
            equivalent class of the same name).
        ValueError, TypeError
            For bad data, a different number of features than in ``fit``, or ``k`` out of range.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.greedy import EnsembleForwardSelection
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(80, 10)); y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=80)
        >>> model = EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X, y)
        >>> model.predict(X[:3]).shape
        (3,)
        >>> bool(np.allclose(model.predict(X, k=0), y.mean()))      # no step: the training mean
        True
        """
        check_is_fitted(self)
        X, _ = validate(self, X, reset=False)
        step = self._step(k)
        predictions: np.ndarray = X @ self.coef_path_[step] + self.intercept_path_[step]
        return predictions

    def predict_path(self, X: ArrayLike) -> np.ndarray:
        """Predictions after 0, 1, ..., k steps: an array of shape (n_samples, k + 1).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to predict.

        Returns
        -------
        numpy.ndarray of shape (n_samples, k + 1)
            Column ``t`` equals ``predict(X, k=t)``.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError, TypeError
            For bad data or a different number of features than in ``fit``.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.greedy import EnsembleForwardSelection
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(80, 10)); y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=80)
        >>> model = EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X, y)
        >>> path = model.predict_path(X[:3])
        >>> path.shape, bool(np.allclose(path[:, -1], model.predict(X[:3])))
        ((3, 4), True)
        """
        check_is_fitted(self)
        X, _ = validate(self, X, reset=False)
        predictions: np.ndarray = X @ self.coef_path_.T + self.intercept_path_
        return predictions

    def mse_path(self, X: ArrayLike, y: ArrayLike) -> np.ndarray:
        """Mean squared error of the predictions after 0, 1, ..., k steps: shape (k + 1,).

        On the training data this is the training error along the path.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : array-like of shape (n_samples,)
            Targets.

        Returns
        -------
        numpy.ndarray of shape (k + 1,)
            Mean squared error after each number of steps.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            Before ``fit``.
        ValueError, TypeError
            For bad data or lengths that differ.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.greedy import EnsembleForwardSelection
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(80, 10)); y = X[:, 0] - 2 * X[:, 1] + 0.1 * rng.normal(size=80)
        >>> model = EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X, y)
        >>> errors = model.mse_path(X, y)
        >>> errors.shape, bool(errors[-1] < errors[0])
        ((4,), True)
        """
        predictions = self.predict_path(X)
        targets = as_array(y, "y")
        if targets.ndim == 2 and targets.shape[1] == 1:
            targets = targets.ravel()
        if targets.ndim != 1:
            raise ValueError(f"y: expected a 1-d array of targets, got shape {targets.shape}")
        if len(targets) != predictions.shape[0]:
            raise ValueError(
                f"Found input variables with inconsistent numbers of samples: X has {predictions.shape[0]}, "
                f"y has {len(targets)}"
            )
        errors: np.ndarray = np.mean((targets[:, None] - predictions) ** 2, axis=0)
        return errors
