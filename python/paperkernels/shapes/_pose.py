"""Harmonic pose field: a pose vector p in R^K becomes the field
``F(rho, theta) = P(rho) cos(m_p theta)``, ``P = sum_k p_k w_k``, encoded by its Zernike radial
coefficients ``a_j = 2 (n_j + 1) integral_0^1 P R_{n_j}^{m_p} rho drho`` with ``n_j = m_p + 2j``.

The windows ``w_k`` are two-bump Gaussians orthonormalised (two-pass Gram-Schmidt) under
``<u, v> = integral_0^1 u v rho drho``; seeds that overlap too much to be orthonormalised in float64
are refused (the windows are checked on a second, finer quadrature rule). Integrals use Gauss-Legendre quadrature on [0, 1] with
enough nodes for the degree of the radial polynomials plus the Gaussians (checked in the tests to be
converged to rounding), instead of the reference implementation's trapezoid rule on a grid.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._validation import as_array, as_float, as_int, realign_state
from ._geometry import _as_compat
from ._inputs import MAX_GAUSS_NODES

__all__ = ["PoseEncoder", "MIN_SIGMA", "MAX_SIGMA"]

MIN_SIGMA = 1e-150
"""Smallest bump width: below it ``2 sigma^2`` is no longer a normal float64 and the bumps turn into NaN."""

MAX_SIGMA = 1e150
"""Largest bump width: above it ``2 sigma^2`` overflows float64."""

_MIN_PIVOT = 1e-8
"""Smallest part of a seed window left after removing the previous windows (relative to its norm):
below it the window is rounding noise amplified more than 1e8 times."""

_MAX_ORTHONORMALITY_ERROR = 1e-8
"""Largest ``|<w_j, w_k> - delta_jk|`` allowed on the independent check rule."""

_BLOCK_FLOPS = 1 << 25
"""Work of one block of the large array operations (a few tens of ms): Ctrl-C is seen between blocks."""

_SEED_COST = 128
"""Work of one seed value (two exponentials) in those units: a block holds 2^18 values, whose
temporaries stay in the caches (three times faster than blocks of 2^22 values, measured)."""

_CHECK_BLOCK_FLOPS = 1 << 30
"""Work of one block of the orthonormality check (~20 ms of matrix products): blocks of at least tens
of rows, so that its products run as matrix products, not one memory-bound row at a time. Its rows
are the check rule's nodes (about twice ``n_nodes``), so its memory stays that of the window tables."""

_SAFE_SPACING = 0.75
"""Seed centres ``0.8 / (K - 1)`` apart by at least this many sigma were always orthonormalised to
~1e-12 (measured for sigma from 0.02 to 10)."""


def _blocks(rows: int, cost_per_row: int, budget: int = _BLOCK_FLOPS) -> list[slice]:
    """Row ranges of about ``budget`` work each (a single range when the whole fits in one)."""
    step = max(1, budget // max(1, cost_per_row))
    return [slice(start, min(start + step, rows)) for start in range(0, max(rows, 1), step)]


def _check_rule(n_nodes: int) -> tuple[np.ndarray, np.ndarray]:
    """Composite 16-point Gauss-Legendre rule with about twice ``n_nodes`` nodes on [0, 1]: nodes
    and weights (times rho) that share no node with the encoder's rule."""
    panels = max(4, -(-2 * n_nodes // 16))
    x, w = np.polynomial.legendre.leggauss(16)
    left = np.arange(panels)[:, None] / panels
    rho = (left + (x + 1.0) / (2.0 * panels)).ravel()
    weight = np.tile(w / (2.0 * panels), panels) * rho
    return rho, weight


def _trapezoid(y: np.ndarray, x: np.ndarray, axis: int = -1) -> np.ndarray:
    """The trapezoid rule as numpy/scipy compute it: sum of dx (y_i + y_{i+1}) / 2."""
    y = np.moveaxis(np.asarray(y), axis, -1)
    result: np.ndarray = (np.diff(x) * (y[..., 1:] + y[..., :-1]) / 2.0).sum(axis=-1)
    return result


def _bump_centres(c: float, delta: float, sigma: float, keep_inside: bool) -> tuple[float, float]:
    """Sub-centres c -/+ delta; with keep_inside, shifted together into [0, 1] as the reference does."""
    min_offset = np.sqrt(2.0) * sigma
    delta = max(delta, min_offset)
    c1, c2 = c - delta, c + delta
    if not keep_inside:
        return c1, c2
    if c1 < 0.0:
        shift = -c1
        c1, c2 = c1 + shift, c2 + shift
    if c2 > 1.0:
        shift = c2 - 1.0
        c1, c2 = c1 - shift, c2 - shift
    c1, c2 = float(np.clip(c1, 0.0, 1.0)), float(np.clip(c2, 0.0, 1.0))
    if abs(c2 - c1) < min_offset:
        mid = 0.5 * (c1 + c2)
        c1, c2 = float(np.clip(mid - 0.5 * min_offset, 0, 1)), float(np.clip(mid + 0.5 * min_offset, 0, 1))
        if abs(c2 - c1) < min_offset:
            span = min(min_offset, 0.5)
            c1, c2 = float(np.clip(mid - 0.5 * span, 0, 1)), float(np.clip(mid + 0.5 * span, 0, 1))
    return c1, c2


class PoseEncoder:
    """Encode pose vectors as Zernike radial codes of a harmonic pose field, and decode them.

    Parameters
    ----------
    K : int
        Pose length (number of radial windows).
    m_p : int
        Angular frequency of the pose field (default 17).
    L : int
        Code length: orders ``n_j = m_p + 2j`` for ``j < L`` (default 128).
    sigma : float
        Width of each Gaussian bump (default 0.1), in ``[1e-150, 1e150]``. The K seed windows are
        centred ``0.8 / (K - 1)`` apart; when they overlap so much that float64 cannot orthonormalise
        them (from K = 17 at sigma = 0.1) or are too narrow for the quadrature (sigma < ~3.5 / n_nodes),
        the encoder is refused rather than built from rounding noise.
    keep_bumps_inside : bool
        Shift both bumps of a seed window into [0, 1] when a sub-centre ``c_k -/+ delta`` falls
        outside, as the reference implementation does. Default False: the plain seed windows of
        He (2026), XShapeEnc (arXiv 2604.07522), in its section on the harmonic pose field,
        ``g_k = 1/2 exp(-(rho - c_k + delta)^2 / 2 sigma^2) + 1/2 exp(-(rho - c_k - delta)^2 / 2 sigma^2)``.
    n_nodes : int, optional
        Gauss-Legendre nodes on [0, 1] (default ``max(256, (m_p + 2L) / 2 + 160)``).
    compat : {"xshapeenc-0.1.2"}, optional
        Reproduce ``xshapeenc.ShapePoseEncoder``: trapezoid integrals on ``res`` grid points in rho
        and theta, shifted bumps and the reference's small regularisers.
    res : int
        Grid size in compat mode (the reference's default is 300).

    Raises
    ------
    ValueError, TypeError
        For arguments out of range; for seed windows that overlap too much (the message names K
        and sigma and gives the largest K or sigma that works; bump centres at least 0.75 sigma
        apart always do), or that are too narrow for the quadrature (it says how many n_nodes are
        needed): the windows are checked to be orthonormal to 1e-8 on an independent Gauss-Legendre
        rule with twice the nodes (in compat mode, each seed must keep 1e-8 of its norm after
        removing the previous windows); for arrays above ``paperkernels.limits.max_result_bytes``.

    Notes
    -----
    Encoders pickle and deep-copy; a restored encoder gives bit-identical codes. The arrays behind
    the encoder are refused up front when one would exceed ``paperkernels.limits.max_result_bytes``
    (in compat mode, the ``K x L x res`` trapezoid integrand).

    The code is linear in p (``a = p @ matrix``). :meth:`decode` solves the least-squares problem
    ``p G = a / (2 (n + 1))`` with ``G_kj = integral w_k R_{n_j} rho drho``; it is exact when
    ``L >= K`` and ``G`` has full rank. Large ``m_p`` with small ``L`` makes ``G`` ill-conditioned
    (``R_n^m ~ rho^m`` barely reaches the inner windows): see :attr:`condition_number`.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import PoseEncoder
    >>> encoder = PoseEncoder(3, L=16)
    >>> code = encoder.encode([0.2, -0.1, 0.5])
    >>> code.shape
    (16,)
    >>> bool(np.allclose(encoder.decode(code), [0.2, -0.1, 0.5]))
    True
    """

    def __init__(
        self,
        K: int,
        m_p: int = 17,
        L: int = 128,
        sigma: float = 0.1,
        *,
        keep_bumps_inside: bool = False,
        n_nodes: int | None = None,
        compat: str | None = None,
        res: int = 300,
    ) -> None:
        self.K = as_int(K, "K", low=1, high=4096)
        self.m_p = as_int(m_p, "m_p", low=0, high=1000)
        self.L = as_int(L, "L", low=1, high=4096)
        self.sigma = as_float(sigma, "sigma", low=MIN_SIGMA, high=MAX_SIGMA)
        self.compat = _as_compat(compat)
        self.keep_bumps_inside = bool(keep_bumps_inside) or self.compat is not None
        self.orders = self.m_p + 2 * np.arange(self.L)
        centres = np.linspace(0.1, 0.9, self.K)
        spacing = centres[1] - centres[0] if self.K > 1 else 0.2
        self.delta = max(0.35 * spacing, np.sqrt(2.0) * self.sigma)
        self.sub_centres = np.array(
            [_bump_centres(c, 0.35 * spacing, self.sigma, self.keep_bumps_inside) for c in centres]
        )
        if self.compat is None:
            top = int(self.orders[-1])
            n_nodes = (
                max(256, top // 2 + 160) if n_nodes is None else as_int(n_nodes, "n_nodes", low=8, high=MAX_GAUSS_NODES)
            )
            self._check_memory(n_nodes * max(self.K, self.L), "n_nodes", f"the {n_nodes}-node window tables")
            x, w = _core.shapes.gauss_legendre(n_nodes)
            self._rho = 0.5 * (x + 1.0)
            self._weight = 0.5 * w * self._rho  # includes the area factor rho
        else:
            self.res = as_int(res, "res", low=2, high=100_000)
            self._check_compat_memory(self.L)
            self._rho = np.linspace(0.0, 1.0, self.res)
            self._theta = np.linspace(0.0, 2 * np.pi, self.res)
        self._windows = self._orthonormal_windows()
        self.gram = self.band_gram(self.m_p, self.L)
        self.matrix = self.band_matrix(self.m_p, self.L)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(realign_state(state))

    def _check_memory(self, n_doubles: int, name: str, what: str) -> None:
        check_result_bytes(8 * n_doubles, name, what, "use fewer windows K, a shorter code L or fewer nodes")

    def _check_compat_memory(self, L: int) -> None:
        """Compat integrals build a K x L x res integrand (the reference's trapezoid double sum)."""
        check_result_bytes(
            8 * self.K * L * self.res,
            "K, L, res",
            f"the compat trapezoid integrand of shape ({self.K}, {L}, {self.res})",
            "use fewer windows K, a shorter code L or a coarser res",
        )

    def _inner(self, u: np.ndarray, v: np.ndarray) -> Any:
        """``integral_0^1 u v rho drho`` by the encoder's quadrature (Gauss-Legendre, or the reference's trapezoid rule)."""
        if self.compat is None:
            return (u * v) @ self._weight
        return _trapezoid(u * v * self._rho, self._rho)

    # -- windows -------------------------------------------------------------------------------

    def _seeds(self, rho: np.ndarray) -> np.ndarray:
        c1, c2 = self.sub_centres[:, 0], self.sub_centres[:, 1]
        s2 = 2.0 * self.sigma**2
        r = np.asarray(rho, dtype=np.float64)[:, None]
        result = np.empty((len(r), self.K))
        for rows in _blocks(len(r), _SEED_COST * self.K):  # blocks: Ctrl-C gets through between them
            block = r[rows]
            result[rows] = 0.5 * np.exp(-((block - c1) ** 2) / s2) + 0.5 * np.exp(-((block - c2) ** 2) / s2)
        return result

    def _orthonormal_windows(self) -> np.ndarray:
        """Two-pass modified Gram-Schmidt of the seeds (as the reference does), refusing a seed that
        the previous windows span to within 1e-8 of its norm; then :meth:`_check_orthonormal`."""
        seeds = self._seeds(self._rho)
        windows = np.zeros_like(seeds)
        self._combination = np.zeros((self.K, self.K))  # windows = seeds @ _combination
        for k in range(self.K):  # K^2 small steps: Ctrl-C gets through between them
            w = seeds[:, k].copy()
            seed_norm = np.sqrt(self._inner(w, w))
            coef = np.zeros(self.K)
            coef[k] = 1.0
            for _ in range(2):  # two passes of Gram-Schmidt
                for j in range(k):
                    proj = self._inner(w, windows[:, j])
                    w = w - proj * windows[:, j]
                    coef -= proj * self._combination[:, j]
            norm = np.sqrt(self._inner(w, w))
            if not (np.isfinite(norm) and norm > 0.0):
                raise ValueError(
                    f"sigma: window {k} of width sigma = {self.sigma:g} is zero at every one of the {len(self._rho)} "
                    "quadrature points (or repeats the previous windows); use a larger sigma"
                    + (" or a larger res" if self.compat is not None else " or more n_nodes")
                )
            if norm < _MIN_PIVOT * seed_norm:
                raise self._overlap_error(
                    f"seed window {k} lies within {norm / seed_norm:.1e} of the span of the previous ones"
                )
            if self.compat is not None:
                norm = norm + 1e-12
            windows[:, k] = w / norm
            self._combination[:, k] = coef / norm
        if self.compat is None:
            self._check_orthonormal()
        return windows

    def _overlap_error(self, detail: str) -> ValueError:
        """The error for seeds too close to each other to be orthonormalised in float64."""
        k_max = 1 + int(0.8 / (_SAFE_SPACING * self.sigma))
        sigma_max = 0.8 / (_SAFE_SPACING * (self.K - 1))
        return ValueError(
            f"K, sigma: the K = {self.K} seed windows of width sigma = {self.sigma:g} overlap too much to be "
            f"orthonormalised in float64 ({detail}); use K <= {k_max} or sigma <= {sigma_max:.3g} (bump "
            f"centres 0.8 / (K - 1) apart by at least {_SAFE_SPACING} sigma)"
        )

    def _check_orthonormal(self) -> None:
        """Refuse windows that are orthonormal on the encoder's nodes only: measured on an independent
        composite Gauss-Legendre rule with twice the nodes, ``|<w_j, w_k> - delta_jk|`` must stay below
        1e-8. It fails when the seeds overlap so much that Gram-Schmidt normalises rounding noise, or
        when the bumps are too narrow for the quadrature."""
        rho, weight = _check_rule(len(self._rho))
        gram = np.zeros((self.K, self.K))
        for rows in _blocks(len(rho), 8 * self.K * self.K, _CHECK_BLOCK_FLOPS):
            W = self._seeds(rho[rows]) @ self._combination
            gram += (W * weight[rows, None]).T @ W
        error = float(np.max(np.abs(gram - np.eye(self.K))))
        if error <= _MAX_ORTHONORMALITY_ERROR:
            return
        detail = f"off orthonormal by {error:.1e} between the quadrature nodes"
        if self.K > 1 and 0.8 / (self.K - 1) < _SAFE_SPACING * self.sigma:
            raise self._overlap_error(detail)
        needed = int(np.ceil(3.5 / self.sigma))  # nodes about sigma / 2 apart in the middle of [0, 1]
        remedy = (
            f"use n_nodes >= {needed} (about 3.5 / sigma) or a larger sigma"
            if needed <= MAX_GAUSS_NODES
            else f"use sigma >= {3.5 / MAX_GAUSS_NODES:.3g} with n_nodes = {MAX_GAUSS_NODES}"
        )
        raise ValueError(
            f"sigma: the windows of width sigma = {self.sigma:g} are too narrow for the {len(self._rho)} "
            f"quadrature nodes ({detail}); {remedy}"
        )

    def windows(self, rho: Any) -> np.ndarray:
        """Orthonormal windows ``w_k(rho)``: shape ``(len(rho), K)``.

        Parameters
        ----------
        rho : array_like
            Radii in ``[0, 1]``.

        Returns
        -------
        numpy.ndarray
            float64 ``(len(rho), K)``.

        Raises
        ------
        ValueError, TypeError
            When ``rho`` leaves ``[0, 1]`` or is not finite, or the result would exceed
            ``paperkernels.limits.max_result_bytes``.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> encoder.windows(np.array([0.1, 0.5])).shape
        (2, 3)
        """
        r = as_array(rho, "rho", ndim=1, low=0.0, high=1.0)
        check_result_bytes(
            8 * len(r) * self.K, "rho", f"the windows of shape ({len(r)}, {self.K})", "evaluate fewer radii per call"
        )
        result = np.empty((len(r), self.K))
        for rows in _blocks(len(r), 8 * self.K * self.K):
            result[rows] = self._seeds(r[rows]) @ self._combination
        return result

    # -- band matrices ---------------------------------------------------------------------------

    def band_gram(self, m: int, L: int) -> np.ndarray:
        """``G_kj = integral_0^1 w_k R_{m+2j}^m rho drho`` for ``j < L``: shape (K, L).

        Parameters
        ----------
        m : int
            Angular frequency, ``>= 0``.
        L : int
            Number of radial orders, ``>= 1``.

        Returns
        -------
        numpy.ndarray
            float64 ``(K, L)``.

        Raises
        ------
        ValueError, TypeError
            For counts out of range.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> encoder.band_gram(5, 8).shape
        (3, 8)
        """
        if self.compat is not None:
            self._check_compat_memory(int(L))
        radials = _core.shapes.radial_band(int(m), int(L), np.ascontiguousarray(self._rho))
        if self.compat is None:
            weighted = self._windows * self._weight[:, None]
            result: np.ndarray = np.empty((self.K, radials.shape[1]))
            for rows in _blocks(self.K, 2 * radials.size):  # rows of the result
                result[rows] = weighted[:, rows].T @ radials
            return result
        return _trapezoid(self._windows.T[:, None, :] * radials.T[None, :, :] * self._rho, self._rho)

    def band_matrix(self, m: int, L: int) -> np.ndarray:
        """The linear code map of angular frequency m: ``a = p @ band_matrix(m, L)``, shape (K, L).

        Parameters
        ----------
        m : int
            Angular frequency, ``>= 0``.
        L : int
            Number of radial orders, ``>= 1``.

        Returns
        -------
        numpy.ndarray
            float64 ``(K, L)``.

        Raises
        ------
        ValueError, TypeError
            For counts out of range.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> pose = np.array([0.2, 0.1, 0.3])
        >>> bool(np.allclose(encoder.encode(pose), pose @ encoder.band_matrix(5, 8)))
        True
        """
        if self.compat is None:
            orders = m + 2 * np.arange(L)
            result: np.ndarray = self.band_gram(m, L) * (2.0 * (orders + 1))
            return result
        # The reference divides two trapezoid double integrals; the angular factors cancel up to
        # rounding and its 1e-12 regulariser.
        radials = _core.shapes.radial_band(int(m), int(L), np.ascontiguousarray(self._rho))
        cos2 = np.cos(m * self._theta) ** 2
        angular = _trapezoid(cos2, self._theta)
        value = self.band_gram(m, L) * angular
        norm = _trapezoid(radials.T**2 * self._rho, self._rho) * angular + 1e-12
        result = value / norm
        return result

    def phase_matrix(self, N: int) -> np.ndarray:
        """Pose phases of a joint code of order N: ``phi = p @ phase_matrix(N)``, shape (K, S(N)).

        Coefficient (n, m) takes entry ``(n - m) / 2`` of the code with ``m_p = m`` and one entry per
        radial order ``m, m + 2, ..., N``.

        Parameters
        ----------
        N : int
            Order of the joint code, ``0 <= N <= MAX_ORDER``.

        Returns
        -------
        numpy.ndarray
            float64 ``(K, S(N))``.

        Raises
        ------
        ValueError, TypeError
            When ``N`` is out of range.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> encoder.phase_matrix(6).shape
        (3, 16)
        """
        if self.compat is not None:
            self._check_compat_memory(N // 2 + 1)
        blocks = {m: self.band_matrix(m, (N - m) // 2 + 1) for m in range(N + 1)}
        columns = [blocks[m][:, (n - m) // 2] for n in range(N + 1) for m in range(n % 2, n + 1, 2)]
        return np.stack(columns, axis=1)

    # -- encode / decode -------------------------------------------------------------------------

    @property
    def condition_number(self) -> float:
        """2-norm condition number of the decoding matrix G (large values mean a lossy decode)."""
        return float(np.linalg.cond(self.gram))

    def encode(self, pose: Any) -> np.ndarray:
        """Codes ``(L,)`` or ``(B, L)`` of poses ``(K,)`` or ``(B, K)``.

        Parameters
        ----------
        pose : array_like
            Poses ``(K,)`` or ``(B, K)``, finite.

        Returns
        -------
        numpy.ndarray
            float64 codes ``(L,)`` or ``(B, L)``.

        Raises
        ------
        ValueError, TypeError
            When the last axis is not K long or values are not finite.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> encoder.encode([[0.2, 0.1, 0.3], [0.0, 0.0, 1.0]]).shape
        (2, 8)
        """
        p = as_array(pose, "pose")
        if p.ndim not in (1, 2) or p.shape[-1] != self.K:
            raise ValueError(f"pose: expected shape ({self.K},) or (B, {self.K}), got {p.shape}")
        with np.errstate(over="ignore", invalid="ignore"):
            codes = p @ self.matrix
        if not np.all(np.isfinite(codes)):
            raise ValueError("pose: values too large, the codes overflow float64; rescale the pose")
        result: np.ndarray = codes
        return result

    def decode(self, codes: Any) -> np.ndarray:
        """Least-squares poses ``(K,)`` or ``(B, K)`` from codes ``(L,)`` or ``(B, L)``.

        Parameters
        ----------
        codes : array_like
            Codes ``(L,)`` or ``(B, L)``, finite.

        Returns
        -------
        numpy.ndarray
            float64 poses ``(K,)`` or ``(B, K)``.

        Raises
        ------
        ValueError, TypeError
            When the last axis is not L long or values are not finite.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> bool(np.allclose(encoder.decode(encoder.encode([0.2, 0.1, 0.3])), [0.2, 0.1, 0.3]))
        True
        """
        a = as_array(codes, "codes")
        if a.ndim not in (1, 2) or a.shape[-1] != self.L:
            raise ValueError(f"codes: expected shape ({self.L},) or (B, {self.L}), got {a.shape}")
        if self.compat is None:
            scaled = a / (2.0 * (self.orders + 1))
            solution = np.linalg.lstsq(self.gram.T, np.atleast_2d(scaled).T, rcond=None)[0].T
            result: np.ndarray = solution[0] if a.ndim == 1 else solution
            return result
        radials = _core.shapes.radial_band(self.m_p, self.L, np.ascontiguousarray(self._rho))
        radial_norms = _trapezoid(radials.T**2 * self._rho, self._rho)
        result = (a * radial_norms) @ np.linalg.pinv(self.gram)
        return result

    def field(self, pose: Any, rho: Any, theta: Any) -> np.ndarray:
        """The pose field ``F = P(rho) cos(m_p theta)`` at broadcast points.

        Parameters
        ----------
        pose : array_like
            One pose ``(K,)``.
        rho : array_like
            Radii in ``[0, 1]``.
        theta : array_like
            Angles in radians, broadcast against ``rho``.

        Returns
        -------
        numpy.ndarray
            float64 field values of the broadcast shape.

        Raises
        ------
        ValueError, TypeError
            For a pose of the wrong length, radii outside ``[0, 1]`` or shapes that do not broadcast.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels.shapes import PoseEncoder
        >>> encoder = PoseEncoder(3, m_p=5, L=8)
        >>> encoder.field([0.2, 0.1, 0.3], np.array([0.25, 0.5]), 0.0).shape
        (2,)
        """
        p = as_array(pose, "pose", shape=(self.K,))
        r = as_array(rho, "rho", low=0.0, high=1.0)
        t = as_array(theta, "theta")
        r, t = np.broadcast_arrays(r, t)
        flat = r.ravel()
        profile = np.empty(len(flat))
        for rows in _blocks(len(flat), 8 * self.K * self.K):  # bounded memory, Ctrl-C between blocks
            profile[rows] = (self._seeds(flat[rows]) @ self._combination) @ p
        result: np.ndarray = profile.reshape(r.shape) * np.cos(self.m_p * t)
        return result

    def __repr__(self) -> str:
        mode = f", compat={self.compat!r}" if self.compat else ""
        return f"PoseEncoder(K={self.K}, m_p={self.m_p}, L={self.L}, sigma={self.sigma}{mode})"
