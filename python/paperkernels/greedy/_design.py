"""The centred design handed to the C++ core, built once and refitted for any response.

Both the estimator and the Monte Carlo helpers go through :class:`CentredDesign`: the centring,
the Gram matrix (our own kernel) and the data layout are computed once per design matrix, and each
``fit`` only computes ``X^T y`` before calling the C++ ensemble (for a response known when the
design is built, as an extra column of the Gram computation).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes, limits
from .._validation import aligned, as_int

CRITERIA = {"fs": _core.greedy.Criterion.fs, "omp": _core.greedy.Criterion.omp}
"""The criteria as the C++ core names them (the user's string is checked with as_choice first)."""

DEFAULT_K = 10
"""Steps of a learner when ``k=None``: ``min(DEFAULT_K, n_features)``."""


def resolve_k(k: Any, n_features: int) -> int:
    """Steps per learner: None gives ``min(DEFAULT_K, n_features)``; an int must lie in [1, n_features]."""
    if k is None:
        return min(DEFAULT_K, n_features)
    steps = as_int(k, "k", low=1)
    if steps > n_features:
        raise ValueError(f"k: expected at most n_features = {n_features} steps, got k = {steps}")
    return steps


def fit_memory(n_learners: int, k: int, n_features: int, n_threads: int, runs: int) -> tuple[int, int]:
    """Bytes of one ensemble fit: (per-learner part, the rest). The per-learner results (active sets,
    gains, packed coefficients by step, and the temporaries of the selection frequencies); the
    coefficient path and the selection frequencies, (k + 1) p and k p values; and the workspaces of
    the learners running at once (R, p k values, and its inverse, k^2, each, plus at most 3 p + k
    pointers and 1536 partial sums for the Gram entries of a batch of candidates without a Gram
    matrix)."""
    per_learner = 8 * n_learners * (k * (k + 1) // 2 + 2 * k) + 3 * 8 * n_learners * k
    shared = 8 * (2 * k + 1) * n_features
    batch = 8 * (3 * n_features + k + 1536)
    workspaces = min(n_threads, runs) * (8 * (n_features * k + k * k) + 32 * n_features + 48 * k + batch)
    return per_learner, shared + workspaces


def check_fit_memory(n_learners: int, k: int, n_features: int, n_threads: int, m: int) -> None:
    """Refuse up front a fit whose results and workspaces would exceed ``limits.max_result_bytes``."""
    runs = 1 if m >= n_features else n_learners
    per_learner, rest = fit_memory(n_learners, k, n_features, n_threads, runs)
    what = (
        f"a fit of {n_learners} learners of k = {k} steps over {n_features} features (per-learner results, "
        f"the (k + 1, p) coefficient path, the (k, p) selection frequencies and "
        f"{min(n_threads, runs)} learner workspaces of p k values)"
    )
    if rest > limits.max_result_bytes:
        check_result_bytes(rest, "k", what, "use a smaller k (or fewer threads, n_jobs)")
    check_result_bytes(per_learner + rest, "n_estimators", what, "use fewer estimators or a smaller k")


def check_gram_memory(n_features: int) -> None:
    """Refuse up front a Gram matrix above ``limits.max_result_bytes``."""
    check_result_bytes(
        8 * n_features * n_features,
        "precompute",
        f"the Gram matrix of {n_features} features ({n_features} x {n_features} float64)",
        "pass precompute=False or 'auto' (the learners then compute the Gram entries they need from the data)",
    )


# Gram matrices above this many features are never built by precompute="auto" (8 p^2 bytes).
MAX_AUTO_GRAM_FEATURES = 8192


@dataclass
class EnsemblePath:
    """Raw result of one ensemble fit on a centred design."""

    coef_path: np.ndarray  # (k + 1, p)
    intercept_path: np.ndarray  # (k + 1,)
    active: np.ndarray  # (B, k), -1 after a learner's early stop
    gains: np.ndarray  # (B, k): decrease of the learner's RSS at each step
    learner_coef: np.ndarray  # (B, k (k + 1) / 2): packed per-learner coefficients by step


def resolve_m(m: Any, n_features: int) -> int:
    """Candidates per step: an int count, a float fraction of p, "sqrt", or None (all features)."""
    if m is None:
        return n_features
    if isinstance(m, str):
        if m == "sqrt":
            return max(1, int(np.sqrt(n_features)))
        raise ValueError(f"m: expected an int in [1, n_features], a float in (0, 1], 'sqrt' or None, got {m!r}")
    if isinstance(m, (bool, np.bool_)):
        raise TypeError(f"m: expected an int, a float, 'sqrt' or None, got {m!r}")
    if isinstance(m, numbers.Integral):
        if not 1 <= int(m) <= n_features:
            raise ValueError(f"m: expected an integer in [1, n_features = {n_features}], got {int(m)}")
        return int(m)
    if isinstance(m, numbers.Real):
        if not (0.0 < float(m) <= 1.0):
            raise ValueError(f"m: expected a fraction of the features in (0, 1], got {float(m)!r}")
        return max(1, int(float(m) * n_features))
    raise TypeError(f"m: expected an int, a float, 'sqrt' or None, got {type(m).__name__} {m!r}")


def use_gram(precompute: str | bool, n_samples: int, n_features: int, k: int, m: int, n_learners: int) -> bool:
    """Whether to build the Gram matrix: cheaper when the learners together touch it often enough.

    The Gram costs ~ n p^2 / 2 multiply-adds once; without it each learner computes the Gram
    entries it needs as dot products, ~ n * min(m k, p) * k / 2 of them per learner (a single
    learner when m = p, since all learners are then the same). ``precompute=True`` is refused when the
    Gram matrix would exceed ``paperkernels.limits.max_result_bytes``; ``"auto"`` then does without it.
    """
    if precompute is True:
        check_gram_memory(n_features)
        return True
    if precompute is False:
        return False
    if n_features > MAX_AUTO_GRAM_FEATURES or 8 * n_features * n_features > limits.max_result_bytes:
        return False
    runs = 1 if m >= n_features else n_learners
    direct = runs * min(m * k, n_features) * k / 2.0
    return n_features * n_features / 2.0 <= direct


@dataclass
class Response:
    """A response prepared for a design: its mean (0 without an intercept) and X_c^T y_c."""

    y_mean: float
    xty: np.ndarray


class CentredDesign:
    """X centred (or not), in the layout the C++ core wants, ready to be fitted to any y."""

    def __init__(
        self, X: np.ndarray, *, fit_intercept: bool, gram: bool, n_threads: int = 1, y: np.ndarray | None = None
    ) -> None:
        """``y``, if given, is prepared along with the Gram matrix (``X^T y`` as its extra column), and
        :meth:`response` of that same array object returns it without another pass over X."""
        # One memory layout for every input layout.
        X = np.ascontiguousarray(X, dtype=np.float64)
        self.n_samples, self.n_features = X.shape
        self.fit_intercept = fit_intercept
        self.gram: np.ndarray | None = None
        self.xt: np.ndarray | None = None
        self._prepared: tuple[np.ndarray, Response] | None = None  # (y, its Response)
        response = None
        # Overflows are reported below, naming X (or y), not as numpy warnings.
        with np.errstate(over="ignore", invalid="ignore"):
            self.x_mean = X.mean(axis=0) if fit_intercept else np.zeros(self.n_features)
            if gram:
                # Our own kernels (not BLAS): the same Gram matrix and X^T y, bit for bit, whatever
                # the BLAS library, its threads or n_threads.
                self._x = X
                if y is None:
                    self.gram = _core.greedy.centred_gram(X, self._mean, n_threads)
                else:
                    y_mean, y_centred = self._centre(y)
                    self.gram, xty = _core.greedy.centred_gram(X, self._mean, n_threads, y_centred)
                    response = (y_mean, y_centred, xty)
                self.col_sq = np.ascontiguousarray(np.diagonal(self.gram))
            else:
                # Feature-major, so that the learners read each feature's samples contiguously.
                xt = _core.greedy.centred_transpose(X, self._mean, n_threads)
                self.xt = xt
                self.col_sq = np.einsum("ij,ij->i", xt, xt)
        # |x_i^T x_j| <= ||x_i|| ||x_j||: finite squared norms keep the whole Gram matrix finite.
        # Checked before y, whose X^T y overflows too when X does.
        if not (np.all(np.isfinite(self.x_mean)) and np.all(np.isfinite(self.col_sq))):
            raise ValueError("X: values too large, sums of squares overflow float64; rescale X")
        if response is not None and y is not None:
            self._prepared = (y, self._checked_response(*response))

    @property
    def _mean(self) -> np.ndarray | None:
        return self.x_mean if self.fit_intercept else None

    def check_columns(self, X: np.ndarray) -> None:
        """Reject constant columns (all-zero ones without an intercept) with the column indices.

        A constant column c centres to n equal values c - mean(c), each below (n + 8) ulps of the
        mean (a generous bound on the rounding of the mean), so only columns whose centred sum of
        squares is that small are examined in the data.
        """
        if self.fit_intercept:
            ulps = (self.n_samples + 8) * np.finfo(np.float64).eps
            with np.errstate(over="ignore"):
                tiny = self.n_samples * (ulps * np.abs(self.x_mean)) ** 2
            suspects = np.flatnonzero(self.col_sq <= tiny)
            bad = suspects[np.ptp(X[:, suspects], axis=0) == 0] if suspects.size else suspects
            what = "constant (zero variance)"
        else:
            suspects = np.flatnonzero(self.col_sq == 0)
            bad = suspects[~np.any(X[:, suspects] != 0, axis=0)] if suspects.size else suspects
            what = "all zero"
        if bad.size:
            raise ValueError(f"X: column(s) {_listing(bad)} are {what}; remove them before fitting")
        # Columns that vary, but so little that their (centred) sum of squares is below the smallest
        # normal float64 (or underflows to 0): the criteria cannot tell them apart numerically.
        faint = np.flatnonzero(~(self.col_sq >= np.finfo(np.float64).tiny))
        if faint.size:
            raise ValueError(
                f"X: column(s) {_listing(faint)} vary too little to be told apart numerically (their "
                f"{'centred ' if self.fit_intercept else ''}sum of squares is below 2.2e-308, the smallest normal "
                "float64); rescale them (e.g. divide each column by its standard deviation) or remove them"
            )

    def xty(self, y_centred: np.ndarray) -> np.ndarray:
        xty: np.ndarray
        if self.xt is None:
            xty = _core.greedy.centred_xty(self._x, self._mean, np.ascontiguousarray(y_centred))
        else:
            xty = self.xt @ y_centred
        return xty

    def _centre(self, y: np.ndarray) -> tuple[float, np.ndarray]:
        y = np.asarray(y, dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            y_mean = float(y.mean()) if self.fit_intercept else 0.0
            return y_mean, np.ascontiguousarray(y - y_mean)

    @staticmethod
    def _checked_response(y_mean: float, y_centred: np.ndarray, xty: np.ndarray) -> Response:
        with np.errstate(over="ignore", invalid="ignore"):
            y_sq = float(y_centred @ y_centred)
        if not (np.isfinite(y_sq) and np.all(np.isfinite(xty))):
            raise ValueError("y: values too large, sums of squares overflow float64; rescale y")
        return Response(y_mean, xty)

    def response(self, y: np.ndarray) -> Response:
        """The response as the learners see it: its mean and ``X_c^T y_c``. Computed once per fit
        and handed to every range of learners, so that learners fitted anywhere see the same
        numbers (without a Gram matrix ``X_c^T y_c`` is a BLAS call, whose rounding may depend on
        the BLAS thread count)."""
        if self._prepared is not None and y is self._prepared[0]:
            return self._prepared[1]
        y_mean, y_centred = self._centre(y)
        with np.errstate(over="ignore", invalid="ignore"):
            xty = self.xty(y_centred)
        return self._checked_response(y_mean, y_centred, xty)

    def fit(
        self, y: np.ndarray, *, k: int, m: int, n_learners: int, criterion: str, tol: float, seed: int, n_threads: int
    ) -> EnsemblePath:
        """Fit learners 0 .. n_learners - 1 (learner b draws from stream b of ``seed``) and average
        their paths."""
        return self.fit_learners(
            self.response(y),
            k=k,
            m=m,
            n_learners=n_learners,
            criterion=criterion,
            tol=tol,
            seed=seed,
            n_threads=n_threads,
        )

    def fit_learners(
        self,
        response: Response,
        *,
        k: int,
        m: int,
        n_learners: int,
        criterion: str,
        tol: float,
        seed: int,
        n_threads: int,
        first_learner: int = 0,
    ) -> EnsemblePath:
        """Fit learners ``first_learner .. first_learner + n_learners - 1`` on a prepared response."""
        code = CRITERIA[criterion]  # a _core.greedy.Criterion member
        # A design or response shipped to a Dask worker arrives with arrays unpickled from
        # out-of-band buffers, which may be misaligned: the core reads them only aligned.
        xty = aligned(response.xty)
        # Centred data have rank at most n - 1: a learner stops there even when rounding keeps a
        # candidate in the active span above tol (see ``tol`` of EnsembleForwardSelection).
        max_rank = max(1, self.n_samples - 1 if self.fit_intercept else self.n_samples)
        if self.gram is not None:
            path, active, coef, gains = _core.greedy.fit_gram(
                aligned(self.gram), xty, k, m, code, tol, seed, n_learners, n_threads, first_learner, max_rank
            )
        else:
            assert self.xt is not None  # the design holds either the Gram matrix or the transposed data
            path, active, coef, gains = _core.greedy.fit_columns(
                aligned(self.xt),
                xty,
                aligned(self.col_sq),
                k,
                m,
                code,
                tol,
                seed,
                n_learners,
                n_threads,
                first_learner,
                max_rank,
            )
        return self._path(path, response.y_mean, active, gains, coef)

    def _path(
        self, path: np.ndarray, y_mean: float, active: np.ndarray, gains: np.ndarray, coef: np.ndarray
    ) -> EnsemblePath:
        intercept_path = y_mean - path @ self.x_mean if self.fit_intercept else np.zeros(path.shape[0])
        return EnsemblePath(path, intercept_path, active, gains, coef)

    def combine(self, parts: Sequence[EnsemblePath], *, y_mean: float, m: int, n_threads: int) -> EnsemblePath:
        """One ensemble from fits of consecutive ranges of learners (in learner order): the same
        result, bit for bit, as a single :meth:`fit` of all of them."""
        active = np.ascontiguousarray(np.concatenate([part.active for part in parts]))
        coef = np.ascontiguousarray(np.concatenate([part.learner_coef for part in parts]))
        gains = np.concatenate([part.gains for part in parts])
        path = _core.greedy.average_path(active, coef, self.n_features, m >= self.n_features, n_threads)
        return self._path(path, y_mean, active, gains, coef)


def _listing(columns: np.ndarray) -> str:
    return ", ".join(map(str, columns[:10])) + (", ..." if columns.size > 10 else "")


def selection_frequencies(active: np.ndarray, n_features: int) -> np.ndarray:
    """(k, p): fraction of learners whose first t + 1 steps selected feature j (row t).

    Computed in one (k, p) buffer: the counts, their running sums over steps, then the fractions.
    """
    n_learners, k = active.shape
    steps = np.broadcast_to(np.arange(k), active.shape)
    chosen = active >= 0
    flat = steps[chosen] * n_features + active[chosen]
    del steps, chosen
    counts = np.bincount(flat, minlength=k * n_features).astype(np.int64, copy=False).reshape(k, n_features)
    del flat
    np.cumsum(counts, axis=0, out=counts)
    frequencies = counts.view(np.float64)
    np.divide(counts, n_learners, out=frequencies)
    return frequencies


def importances(active: np.ndarray, gains: np.ndarray, n_features: int) -> np.ndarray:
    """Share of the learners' total decrease in training RSS credited to each feature at entry."""
    chosen = active >= 0
    total = np.bincount(active[chosen], weights=gains[chosen], minlength=n_features)
    s = total.sum()
    return total / s if s > 0 else total
