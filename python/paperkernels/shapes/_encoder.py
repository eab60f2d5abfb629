"""XShapeEnc: geometry, pose and joint codes of 2D shapes on the orthonormal Zernike basis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._validation import as_array, as_choice, as_float, as_int, as_n_threads, plain_array, realign_state
from . import _compat
from ._codes import code_length, from_codes, order_for_length
from ._geometry import _as_compat
from ._inputs import MAX_ORDER, as_masks, as_order, check_output_bytes, pack_polygons, split_polygons
from ._pose import MAX_SIGMA, MIN_SIGMA, PoseEncoder
from ._zernike import (
    DEFAULT_MAX_BASIS_BYTES,
    PolarGrid,
    _as_resolution,
    cartesian_basis,
    core_errors_named,
    indices,
    n_coefficients,
    polar_basis,
    polar_grid,
    polygon_moments,
)

__all__ = ["XShapeEncoder", "GeometryDecoding", "PoseFit"]


_VANISHING_CODE = 1e-150
"""Largest coefficient magnitude of a geometry code that counts as the code of an empty shape in
:meth:`XShapeEncoder.fit_pose` (the squares of smaller weights underflow)."""


@dataclass
class GeometryDecoding:
    """Decoded geometry: the synthesised field, its mask (``field > threshold``) and the raw
    Zernike coefficients. Arrays are batched like the codes that were decoded.

    Attributes
    ----------
    field : numpy.ndarray
        The synthesised real field, ``(H, W)`` or ``(B, H, W)`` (polar grids: ``(n_theta, n_rho)``).
    mask : numpy.ndarray
        bool array of the shape of ``field``: ``field > threshold``.
    coefficients : numpy.ndarray
        complex128 Zernike coefficients ``(S(N),)`` or ``(B, S(N))`` recovered from the codes.

    Examples
    --------
    >>> from paperkernels import shapes
    >>> encoder = shapes.XShapeEncoder(8)
    >>> mask = shapes.rasterize(shapes.regular_polygon(5, radius=0.9), 64)
    >>> decoded = encoder.decode_geometry(encoder.encode_geometry(mask), res=64)
    >>> decoded.field.shape, decoded.mask.dtype, decoded.coefficients.shape
    ((64, 64), dtype('bool'), (25,))
    """

    field: np.ndarray
    mask: np.ndarray
    coefficients: np.ndarray


@dataclass
class PoseFit:
    """Poses fitted to the phases of joint codes, with the weighted RMS of the wrapped phase
    residuals (radians) of each fit: near 0 when the fit explains the code.

    Attributes
    ----------
    pose : numpy.ndarray
        Fitted poses ``(K,)`` or ``(B, K)``.
    residual : numpy.ndarray
        Weighted RMS of the wrapped phase residuals, in radians, per fit.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> encoder = shapes.XShapeEncoder(14, input="polygon")
    >>> unit, _ = shapes.normalize(shapes.star_polygon(5, 0.5))
    >>> pose = np.array([0.3, -0.2, 0.5])
    >>> fit = encoder.fit_pose(encoder.encode_joint(unit, pose), encoder.encode_geometry(unit), 3)
    >>> bool(np.allclose(fit.pose, pose, atol=1e-6)), bool(fit.residual < 1e-2)
    (True, True)
    """

    pose: np.ndarray
    residual: np.ndarray


def _apply_pose(z: np.ndarray, phi: np.ndarray, beta: float) -> np.ndarray:
    if beta == 1.0:
        return z * np.exp(-1j * phi)
    if beta < 1.0:
        modulated = np.abs(z) ** beta * np.exp(1j * beta * np.angle(z))
        return np.where(z != 0, modulated, 0.0) * np.exp(-1j * phi)
    result: np.ndarray = z * np.exp(-1j * np.exp(-5.0 * (beta - 1.0)) * phi)
    return result


def _apply_pose_repeated(z: np.ndarray, phi: np.ndarray, beta: float, repeats: np.ndarray) -> np.ndarray:
    """The reference's joint step: coefficient (n, m) receives the phase once per pose encoder of
    angular frequency m, i.e. L_m times, each time through its principal logarithm when beta < 1."""
    out = z.copy()
    eta = np.exp(-5.0 * (beta - 1.0))
    for k in range(z.shape[1]):
        c = out[:, k]
        for _ in range(int(repeats[k])):
            if beta == 1.0:
                c = c * np.exp(-1j * phi[:, k])
            elif beta < 1.0:
                nonzero = c != 0
                with np.errstate(divide="ignore"):
                    lifted = np.exp(beta * np.log(np.where(nonzero, c, 1.0)))
                c = np.where(nonzero, lifted, 0.0) * np.exp(-1j * phi[:, k])
            else:
                c = c * np.exp(-1j * eta * phi[:, k])
        out[:, k] = c
    result: np.ndarray = out
    return result


def _wrap(angle: np.ndarray) -> np.ndarray:
    return np.angle(np.exp(1j * angle))


class XShapeEncoder:
    """Encoder of 2D shapes (and poses) into fixed-length real codes, holding a cached basis.

    Parameters
    ----------
    N : int, optional
        Largest Zernike order (``0 <= N <= 200``). If omitted, the smallest N whose code holds
        ``encode_len`` numbers (``encode_len`` defaults to 512, giving N = 30).
    encode_len : int, optional
        Wanted code length. Without ``exact_len`` it only selects N (the code has ``2 S(N)`` numbers,
        or ``S(N)`` with ``invariant``); giving both N and a different ``encode_len`` is an error.
    exact_len : bool
        Zero-pad or truncate codes to exactly ``encode_len``.
    input : {"cartesian", "polar", "polygon"}
        Masks ``(H, W)`` spanning ``[-1, 1]^2``; values on a polar grid ``(n_theta, n_rho)``; or
        polygons inside the unit disk (exact moments).
    res : int
        Default output size of :meth:`decode_geometry`; in compat mode, the reference's grid size.
    freqprop : float
        Frequency propagation strength lambda of geometry codes (0 disables it).
    invariant : bool
        Rotation-invariant codes: magnitudes of the radially propagated coefficients (length ``S(N)``).
    supersample : int
        Masks: ``s x s`` basis samples per pixel.
    polygon_rule : {"boundary", "fan"}
        Exact polygon quadrature (see :func:`zernike_moments`).
    polar_rule : {"midpoint", "gauss"}
        Radial rule of the default polar grid (see :func:`polar_grid`).
    pose_sigma : float
        Bump width of the pose windows used by joint codes (see :class:`PoseEncoder`: poses of 17 or more
        numbers need a smaller width; ``pose_sigma <= 0.8 / (0.75 (K - 1))`` always works).
    dtype : numpy dtype
        float32 (default) or float64 codes.
    n_threads : int, optional
        Threads (None = all cores); results do not depend on it.
    max_basis_bytes : float
        Largest precomputed Cartesian basis; beyond it the basis is evaluated on the fly.
    compat : {"xshapeenc-0.1.2"}, optional
        Reproduce the reference package: its polar grids and resampling, its numerically
        normalised basis, its repeated joint phase (inputs "cartesian" or "polar" only).

    Notes
    -----
    Encoders pickle (e.g. to Dask workers) and deep-copy without their cached bases, which are
    rebuilt on first use; a restored encoder gives bit-identical codes.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> star = shapes.star_polygon(5, 0.5, radius=3.0, center=(10.0, 4.0))
    >>> unit, pose = shapes.normalize(star)
    >>> encoder = shapes.XShapeEncoder(encode_len=512, input="polygon")
    >>> encoder.N, encoder.length
    (30, 512)
    >>> code = encoder.encode_geometry(unit)
    >>> code.shape, code.dtype
    ((512,), dtype('float32'))
    >>> mask = encoder.decode_geometry(code, res=256).mask
    >>> round(float(shapes.iou(mask, shapes.rasterize(unit, 256))), 2)
    0.98
    >>> encoder.encode_joint(unit, pose, beta=1.0).shape       # geometry phases modulated by the pose
    (512,)
    """

    def __init__(
        self,
        N: int | None = None,
        encode_len: int | None = None,
        *,
        exact_len: bool = False,
        input: str = "cartesian",
        res: int = 256,
        freqprop: float = 0.6,
        invariant: bool = False,
        supersample: int = 1,
        polygon_rule: str = "boundary",
        polar_rule: str = "midpoint",
        pose_sigma: float = 0.1,
        dtype: Any = np.float32,
        n_threads: int | None = None,
        max_basis_bytes: float = DEFAULT_MAX_BASIS_BYTES,
        compat: str | None = None,
    ) -> None:
        self.invariant = bool(invariant)
        self.exact_len = bool(exact_len)
        if encode_len is not None:
            encode_len = as_int(encode_len, "encode_len", low=1, high=code_length(MAX_ORDER, self.invariant))
        if N is None:
            self.N = order_for_length(512 if encode_len is None else encode_len, self.invariant)
        else:
            self.N = as_order(N)
            full = code_length(self.N, self.invariant)
            if encode_len is not None and encode_len != full and not self.exact_len:
                raise ValueError(
                    f"encode_len: N = {self.N} gives codes of length {full}, not {encode_len}; "
                    "pass only one of them, or exact_len=True to pad or truncate"
                )
        if self.exact_len and encode_len is None:
            raise ValueError("exact_len: expected encode_len to be given")
        # (exact_len without encode_len was refused above)
        self.length: int = (
            encode_len if self.exact_len and encode_len is not None else code_length(self.N, self.invariant)
        )
        self.input = as_choice(input, "input", ("cartesian", "polar", "polygon"))
        self.res = as_int(res, "res", low=2, high=1 << 15)
        self.freqprop = as_float(freqprop, "freqprop")
        self.supersample = as_int(supersample, "supersample", low=1, high=16)
        self.polygon_rule = as_choice(polygon_rule, "polygon_rule", ("boundary", "fan"))
        self.polar_rule = as_choice(polar_rule, "polar_rule", ("midpoint", "gauss"))
        self.pose_sigma = as_float(pose_sigma, "pose_sigma", low=MIN_SIGMA, high=MAX_SIGMA)
        self.dtype = np.dtype(dtype)
        if self.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise ValueError(f"dtype: expected float32 or float64, got {self.dtype}")
        self.n_threads = as_n_threads(n_threads)
        self.max_basis_bytes = as_float(max_basis_bytes, "max_basis_bytes", low=0.0)
        self.compat = _as_compat(compat)
        if self.compat is not None:
            if self.input == "polygon":
                raise ValueError("input: compat mode reproduces the reference's 'cartesian' and 'polar' inputs only")
            if self.invariant or self.supersample != 1:
                raise ValueError(
                    "compat: invariant codes and supersampling are not part of the reference implementation"
                )
        self.indices = indices(self.N)
        self._polar: dict[tuple[int, int], Any] = {}
        self._cartesian: dict[tuple[int, int, bool], Any] = {}
        self._poses: dict[int, PoseEncoder] = {}
        self._phases: dict[int, np.ndarray] = {}

    def __getstate__(self) -> dict[str, Any]:
        # Pickled (e.g. shipped to Dask workers) or deep-copied without its cached bases, which are
        # rebuilt on use: a restored encoder gives bit-identical codes.
        state = dict(self.__dict__)
        for cache in ("_polar", "_cartesian", "_poses", "_phases"):
            state[cache] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(realign_state(state))

    @property
    def S(self) -> int:
        """Number of half-set coefficients ``S(N)``."""
        return n_coefficients(self.N)

    def __repr__(self) -> str:
        extra = f", compat={self.compat!r}" if self.compat else ""
        return (
            f"XShapeEncoder(N={self.N}, length={self.length}, input={self.input!r}, freqprop={self.freqprop}, "
            f"invariant={self.invariant}, dtype={self.dtype.name}{extra})"
        )

    # -- moments -----------------------------------------------------------------------------------

    def _polar_engine(self, shape: tuple[int, int]) -> Any:
        engine = self._polar.get(shape)
        if engine is None:
            if self.compat is not None:
                grid = _compat.reference_grid(self.res)
                engine = polar_basis(self.N, grid, _compat.reference_scales(self.N, self.res), name="res")
            else:
                engine = polar_basis(self.N, polar_grid(shape[0], shape[1], self.polar_rule), name="shapes")
            self._polar[shape] = engine
        return engine

    def _cartesian_basis(self, H: int, W: int, synthesis: bool) -> Any:
        """The encoder keeps the bases it has used (built once, shared through the module cache)."""
        key = (H, W, synthesis)
        if key not in self._cartesian:
            supersample = 1 if synthesis else self.supersample
            self._cartesian[key] = cartesian_basis(
                self.N,
                H,
                W,
                supersample,
                synthesis,
                self.max_basis_bytes,
                self.n_threads,
                "res" if synthesis else "shapes",
            )
        return self._cartesian[key]

    def polar_grid(self, n_theta: int | None = None, n_rho: int | None = None) -> PolarGrid:
        """The grid polar inputs are sampled on (the reference's ``res x res`` grid in compat mode).

        Parameters
        ----------
        n_theta, n_rho : int, optional
            Grid size (default: the encoder's ``res`` in both directions).

        Returns
        -------
        PolarGrid
            The grid, with the encoder's ``polar_rule``.

        Raises
        ------
        ValueError, TypeError
            For sizes that are not positive integers.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> encoder.polar_grid(16, 8).shape
        (16, 8)
        """
        if self.compat is not None:
            return _compat.reference_grid(self.res)
        return polar_grid(
            self.res if n_theta is None else n_theta, self.res if n_rho is None else n_rho, self.polar_rule
        )

    def moments(self, shapes: Any) -> np.ndarray:
        """Raw Zernike coefficients ``(B, S)`` (or ``(S,)``) of shapes, before any propagation.

        Parameters
        ----------
        shapes
            Shapes as the encoder's ``input`` reads them (see :func:`zernike_moments`).

        Returns
        -------
        numpy.ndarray
            complex128 ``(S(N),)`` for one shape or ``(B, S(N))`` for a batch.

        Raises
        ------
        ValueError, TypeError
            For shapes that cannot be read (named), or work tables above
            ``paperkernels.limits.max_result_bytes``.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> z = encoder.moments(square)
        >>> z.shape, bool(np.allclose(z, shapes.zernike_moments(square, 8, input="polygon")))
        ((25,), True)
        """
        if self.input == "polygon":
            batch, single = split_polygons(shapes, "shapes")
            packed = pack_polygons(batch, "shapes")
            z = polygon_moments(self.N, packed, self.polygon_rule, self.n_threads)
            return z[0] if single else z
        images = ""
        if self.input == "cartesian":
            images = "For a batch of masks only 1, 3 or 4 pixels wide use zernike_moments(..., input='cartesian')."
        masks, single = as_masks(shapes, "shapes", images=images)
        if self.input == "cartesian" and self.compat is None:
            basis = self._cartesian_basis(masks.shape[1], masks.shape[2], False)
            with core_errors_named("shapes"):
                z = basis.analyse(masks, self.n_threads)
        else:
            if self.input == "cartesian":  # compat: the reference's resampling to its polar grid
                if masks.min() < 0 or masks.max() > 1:
                    raise ValueError("shapes: expected values in [0, 1]")
                check_output_bytes(
                    (len(masks), self.res, self.res),
                    "res",
                    "encode smaller batches or use a lower res",
                    what="polar resampling",
                )
                with core_errors_named("shapes"):
                    masks = _compat.euclidean_to_polar(masks, self.res)
            elif self.compat is not None and masks.shape[1:] != (self.res, self.res):
                raise ValueError(
                    f"shapes: compat polar input must be sampled on the {self.res} x {self.res} reference grid, "
                    f"got {masks.shape[1:]}"
                )
            engine = self._polar_engine(masks.shape[1:])
            with core_errors_named("shapes"):
                z = engine.analyse(masks, self.n_threads, self.S)
        result: np.ndarray = z[0] if single else z
        return result

    # -- geometry codes ---------------------------------------------------------------------------

    def _finish(self, z: np.ndarray, lam: float, single: bool) -> np.ndarray:
        if self.invariant:
            z = _core.shapes.freqprop(z, self.N, lam, True, False, False) if lam else z
            codes = np.abs(z)
        else:
            z = _core.shapes.freqprop(z, self.N, lam, True, True, False) if lam else z
            codes = np.ascontiguousarray(z).view(np.float64)
        if codes.shape[1] != self.length:
            fitted = np.zeros((codes.shape[0], self.length))
            keep = min(self.length, codes.shape[1])
            fitted[:, :keep] = codes[:, :keep]
            codes = fitted
        with np.errstate(over="ignore"):
            codes = codes.astype(self.dtype, copy=False)
        if not np.all(np.isfinite(codes)):
            raise ValueError(
                f"freqprop: the propagated codes overflow {self.dtype}; use a smaller freqprop (or dtype=float64)"
            )
        result: np.ndarray = codes[0] if single else codes
        return result

    def encode_geometry(self, shapes: Any) -> np.ndarray:
        """Geometry codes ``(B, D)`` (or ``(D,)`` for one shape): moments, frequency propagation
        (lambda = ``freqprop``), then ``[Re z_nm, Im z_nm]`` over the half set (or ``|z_nm|``).

        Cartesian input is a mask ``(H, W)`` or a batch ``(B, H, W)`` with values in [0, 1]; arrays
        shaped like colour images ``(H, W, 1|3|4)`` are refused rather than read as H narrow masks.

        Parameters
        ----------
        shapes
            Shapes as the encoder's ``input`` reads them (see :func:`zernike_moments`).

        Returns
        -------
        numpy.ndarray
            Codes of the encoder's ``dtype``: ``(D,)`` for one shape or ``(B, D)`` for a batch, with
            ``D = self.length``.

        Raises
        ------
        ValueError, TypeError
            For shapes that cannot be read (named), or work tables above
            ``paperkernels.limits.max_result_bytes``.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> encoder.encode_geometry([square, shapes.regular_polygon(3, radius=0.9)]).shape
        (2, 50)
        """
        z = self.moments(shapes)
        single = z.ndim == 1
        return self._finish(np.atleast_2d(z), self.freqprop, single)

    def _coefficients(self, codes: Any, lam: float, name: str = "codes") -> tuple[np.ndarray, bool]:
        if self.invariant:
            raise ValueError(f"{name}: invariant codes hold magnitudes only and cannot be decoded")
        arr = plain_array(codes, name)
        single = arr.ndim == 1
        if arr.ndim not in (1, 2) or arr.shape[-1] != self.length:
            raise ValueError(f"{name}: expected shape ({self.length},) or (B, {self.length}), got {arr.shape}")
        z = from_codes(arr, self.N, name)
        if lam:
            z = _core.shapes.freqprop(np.ascontiguousarray(z), self.N, lam, True, True, True)
        return z, single

    def decode_geometry(
        self, codes: Any, res: Any = None, *, threshold: float = 0.5, grid: str = "cartesian"
    ) -> GeometryDecoding:
        """Invert the propagation and synthesise ``f_N = Re sum c_nm Z_nm`` at the pixel centres of a
        ``res`` image (default: the encoder's ``res``); the mask is ``f_N > threshold``.

        ``grid="polar"`` synthesises on the encoder's polar grid instead (in compat mode: the
        reference's ``res x res`` grid with its numerically normalised basis, as
        ``xshapeenc.ShapeGeometryEncoder.decode`` returns).

        Parameters
        ----------
        codes : array_like
            Geometry codes ``(D,)`` or ``(B, D)`` (not invariant codes).
        res : int or (int, int), optional
            Image size (default: the encoder's ``res``).
        threshold : float
            Level of the mask.
        grid : {"cartesian", "polar"}
            Where to synthesise.

        Returns
        -------
        GeometryDecoding
            The field, its mask and the raw coefficients.

        Raises
        ------
        ValueError, TypeError
            For codes of the wrong length or not finite, invariant encoders (their codes keep no phase),
            or a field above ``paperkernels.limits.max_result_bytes``.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> decoded = encoder.decode_geometry(encoder.encode_geometry(square), res=64)
        >>> round(float(shapes.iou(decoded.mask, shapes.rasterize(square, 64))), 2)
        0.95
        """
        grid = as_choice(grid, "grid", ("cartesian", "polar"))
        threshold = as_float(threshold, "threshold")
        z, single = self._coefficients(codes, self.freqprop)
        if grid == "polar":
            check_output_bytes((z.shape[0], self.res, self.res), "res", "decode smaller batches or use a lower res")
            if self.compat is not None:
                field = _compat.reference_synthesis(z, self.N, self.res)
            else:
                pg = self.polar_grid()
                nm = self.indices
                radial = _core.shapes.radial_table(self.N, pg.rho) * np.sqrt((nm[:, 0] + 1) / np.pi)
                weight = np.where(nm[:, 1] == 0, 1.0, 2.0)
                field = np.zeros((z.shape[0],) + pg.shape)
                for m in range(self.N + 1):
                    sel = np.flatnonzero(nm[:, 1] == m)
                    profile = (z[:, sel] * weight[sel]) @ radial[:, sel].T
                    field += (profile[:, None, :] * np.exp(1j * m * pg.theta)[None, :, None]).real
        else:
            H, W = _as_resolution(self.res if res is None else res)
            check_output_bytes((z.shape[0], H, W), "res", "decode smaller batches or at a lower res")
            field = self._cartesian_basis(H, W, True).synthesize(np.ascontiguousarray(z), self.n_threads)
        if not np.all(np.isfinite(field)):
            raise ValueError("codes: values too large, the decoded field overflows float64; rescale the codes")
        mask = field > threshold
        if single:
            return GeometryDecoding(field[0], mask[0], z[0])
        return GeometryDecoding(field, mask, z)

    # -- joint codes ------------------------------------------------------------------------------

    def pose_encoder(self, K: int) -> PoseEncoder:
        """The pose encoder (K windows, this encoder's sigma and mode) behind joint codes.

        Parameters
        ----------
        K : int
            Pose length.

        Returns
        -------
        PoseEncoder
            A placeholder encoder of K windows with this encoder's ``pose_sigma`` and mode; the angular
            frequency and code length are chosen per coefficient by :meth:`encode_joint`.

        Raises
        ------
        ValueError, TypeError
            When ``K`` is not a positive integer, or ``pose_sigma`` does not suit K windows (too
            narrow for the quadrature, or too wide for K windows to be orthonormalised; the message
            starts with ``pose_sigma``).

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> encoder.pose_encoder(3)
        PoseEncoder(K=3, m_p=0, L=1, sigma=0.1)
        """
        K = as_int(K, "K", low=1, high=4096)
        if K not in self._poses:
            if self.compat is not None:  # phase_matrix integrates K x (N/2 + 1) x res values at once
                check_result_bytes(
                    8 * K * (self.N // 2 + 1) * self.res,
                    "res",
                    f"the compat trapezoid integrand of joint codes, shape (K, N/2 + 1, res) = ({K}, {self.N // 2 + 1}, {self.res})",
                    "use a lower res or N, or shorter poses",
                )
            try:
                encoder = PoseEncoder(K, 0, 1, self.pose_sigma, compat=self.compat, res=self.res)
            except ValueError as exc:
                message = str(exc)
                for prefix in ("sigma:", "K, sigma:"):  # the encoder's arguments are the pose length and pose_sigma
                    if message.startswith(prefix):
                        raise ValueError("pose_sigma:" + message[len(prefix) :]) from None
                raise
            phases = encoder.phase_matrix(self.N)
            # Phases first: a thread that finds the encoder in _poses then reads its phases.
            self._phases[K] = phases
            self._poses[K] = encoder
        return self._poses[K]

    def _pose_phases(self, poses: Any, batch: int) -> np.ndarray:
        p = as_array(poses, "poses")
        if p.ndim == 1:
            p = p[None]
        if p.ndim != 2:
            raise ValueError(f"poses: expected shape (K,) or (B, K), got {np.shape(poses)}")
        if len(p) != batch:
            raise ValueError(f"poses: expected {batch} rows, one per shape, got {len(p)}")
        self.pose_encoder(p.shape[1])
        result: np.ndarray = p @ self._phases[p.shape[1]]
        return result

    def _repeats(self) -> np.ndarray:
        m = self.indices[:, 1]
        return (self.N - m) // 2 + 1

    def encode_joint(self, shapes: Any, poses: Any, beta: float = 1.0, *, freqprop: float = 0.0) -> np.ndarray:
        """Joint geometry-pose codes: the pose phase modulates the raw geometry coefficients.

        ``phi_nm`` is entry ``(n - m) / 2`` of the pose code with ``m_p = m`` (one entry per radial
        order). ``beta = 1``: ``c exp(-i phi)``; ``0 <= beta < 1``: ``|c|^beta exp(i beta Arg c)
        exp(-i phi)`` (beta = 0 keeps the pose alone, unit modulus; c = 0 stays 0);
        ``1 < beta <= 2``: ``c exp(-i eta phi)`` with ``eta = exp(-5 (beta - 1))``. Then frequency
        propagation with ``freqprop`` (0 by default as in the reference; the paper's experiments use
        0.2) and the geometry layout. In compat mode the phase is applied L_m times per coefficient,
        as the reference does.

        Parameters
        ----------
        shapes
            Shapes as the encoder's ``input`` reads them.
        poses : array_like
            ``(K,)`` or ``(B, K)``, one pose per shape.
        beta : float
            Emphasis in ``[0, 2]``.
        freqprop : float
            Propagation weight applied after the modulation.

        Returns
        -------
        numpy.ndarray
            Codes of the encoder's ``dtype``, ``(D,)`` or ``(B, D)``.

        Raises
        ------
        ValueError, TypeError
            For ``beta`` outside ``[0, 2]``, poses that do not match the shapes, invariant encoders, or
            shapes that cannot be read.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> encoder.encode_joint(square, [0.1, 0.2, -0.1], beta=1.0).shape
        (50,)
        """
        beta = as_float(beta, "beta", low=0.0, high=2.0)
        lam = as_float(freqprop, "freqprop")
        if self.invariant:
            raise ValueError("encode_joint: invariant encoders hold magnitudes, which carry no pose phase")
        z = self.moments(shapes)
        single = z.ndim == 1
        z = np.atleast_2d(z)
        phi = self._pose_phases(poses, len(z))
        if self.compat is None:
            joint = _apply_pose(z, phi, beta)
        else:
            joint = _apply_pose_repeated(z, phi, beta, self._repeats())
        return self._finish(np.ascontiguousarray(joint), lam, single)

    def decode_joint(self, codes: Any, poses: Any, beta: float = 1.0, *, freqprop: float = 0.0) -> np.ndarray:
        """Recover geometry codes (as :meth:`encode_geometry` gives them) from joint codes and known
        poses. Not possible for beta = 0, whose codes keep no geometry.

        Parameters
        ----------
        codes : array_like
            Joint codes ``(D,)`` or ``(B, D)``.
        poses : array_like
            The poses used to encode them, ``(K,)`` or ``(B, K)``.
        beta : float
            The emphasis used, in ``(0, 2]``.
        freqprop : float
            The propagation weight used.

        Returns
        -------
        numpy.ndarray
            Geometry codes ``(D,)`` or ``(B, D)`` of the encoder's ``dtype``.

        Raises
        ------
        ValueError, TypeError
            For ``beta = 0`` or outside ``[0, 2]``, or codes and poses that do not match.

        Examples
        --------
        >>> import numpy as np
        >>> from paperkernels import shapes
        >>> square = shapes.regular_polygon(4, radius=0.9)
        >>> encoder = shapes.XShapeEncoder(8, input="polygon")
        >>> joint = encoder.encode_joint(square, [0.1, 0.2, -0.1])
        >>> bool(np.allclose(encoder.decode_joint(joint, [0.1, 0.2, -0.1]), encoder.encode_geometry(square), atol=1e-6))
        True
        """
        beta = as_float(beta, "beta", low=0.0, high=2.0)
        lam = as_float(freqprop, "freqprop")
        if self.compat is not None:
            raise ValueError("decode_joint: not available in compat mode (the reference has no joint decoder)")
        if beta == 0.0:
            raise ValueError("beta: codes made with beta = 0 keep the pose only; geometry cannot be recovered")
        z, single = self._coefficients(codes, lam)
        phi = self._pose_phases(poses, len(z))
        if beta == 1.0:
            raw = z * np.exp(1j * phi)
        elif beta < 1.0:
            lifted = z * np.exp(1j * phi)
            raw = np.abs(lifted) ** (1.0 / beta) * np.exp(1j * np.angle(lifted) / beta)
        else:
            raw = z * np.exp(1j * np.exp(-5.0 * (beta - 1.0)) * phi)
        return self._finish(np.ascontiguousarray(raw), self.freqprop, single)

    def fit_pose(self, codes: Any, geometry: Any, K: int, beta: float = 1.0, *, freqprop: float = 0.0) -> PoseFit:
        """Fit poses (K numbers each) to joint codes given their geometry codes, by weighted linear
        least squares on the phases ``arg(joint / geometry)``.

        Phases are only known modulo 2 pi: equations are added from the least to the most
        pose-sensitive, each unwrapped against the prediction of the poses fitted so far, so the
        fit succeeds when the least sensitive phases stay within (-pi, pi) (moderate poses, small
        eta for beta > 1); a residual of order 1 radian reveals phases it could not unwrap. At N = 14
        on a normalised star with K = 3, every random pose in [-1, 1]^3 is recovered (to 1e-15 with
        float64 codes, 3e-8 with float32) but about 1 in 12 in [-2, 2]^3 is not (residuals 1.0 to
        1.1 rad): check the residual. Blind
        separation of pose and geometry from a joint code alone is not possible in general: the
        geometry (or the pose, :meth:`decode_joint`) must be known.

        Parameters
        ----------
        codes : array_like
            Joint codes ``(D,)`` or ``(B, D)``.
        geometry : array_like
            Geometry codes of the same shapes (from :meth:`encode_geometry`).
        K : int
            Pose length.
        beta : float
            The emphasis used, in ``(0, 2]``.
        freqprop : float
            The propagation weight used.

        Returns
        -------
        PoseFit
            Fitted poses and the RMS phase residual of each fit.

        Raises
        ------
        ValueError, TypeError
            For ``beta`` out of range, codes that do not match, or a geometry code whose
            coefficients all vanish (an empty shape, whose code carries no pose).

        Examples
        --------
        See :class:`PoseFit`.
        """
        beta = as_float(beta, "beta", low=0.0, high=2.0)
        lam = as_float(freqprop, "freqprop")
        if self.compat is not None:
            raise ValueError("fit_pose: not available in compat mode")
        joint, single = self._coefficients(codes, lam, "codes")
        geo, _ = self._coefficients(geometry, self.freqprop, "geometry")
        if len(geo) != len(joint):
            raise ValueError(f"geometry: expected {len(joint)} rows, one per code, got {len(geo)}")
        K = as_int(K, "K", low=1, high=4096)
        self.pose_encoder(K)
        design = self._phases[K].copy()
        if beta > 1.0:
            design *= np.exp(-5.0 * (beta - 1.0))
        if beta < 1.0:
            base = np.abs(geo) ** beta * np.exp(1j * beta * np.angle(geo))
        else:
            base = geo
        # A shape with no area (an empty mask) has an all-zero geometry code: no phase carries its pose.
        # Below 1e-150 the squared weights of the least squares underflow: such codes count as empty.
        empty = np.flatnonzero(~(np.max(np.abs(geo), axis=1) > _VANISHING_CODE))
        if empty.size:
            where = "geometry" if single else f"geometry[{int(empty[0])}]"
            raise ValueError(
                f"{where}: expected the code of a shape with area, got a code whose coefficients all vanish "
                f"(none above {_VANISHING_CODE:g} in magnitude): no pose to fit"
            )
        poses = np.zeros((len(joint), K))
        residual = np.zeros(len(joint))
        order = np.argsort(np.linalg.norm(design, axis=0), kind="stable")
        for b in range(len(joint)):
            weight = np.abs(base[b])
            magnitude = np.abs(geo[b])  # coefficients that vanish carry no phase
            usable = order[magnitude[order] > 1e-12 * max(magnitude.max(), 1e-300)]
            observed = -np.angle(joint[b, usable] / base[b, usable])
            A = design[:, usable].T
            w = weight[usable]
            p = np.zeros(K)
            size = min(len(usable), max(2 * K, 4))
            while True:
                prediction = A[:size] @ p
                target = prediction + _wrap(observed[:size] - prediction)
                p = np.linalg.lstsq(A[:size] * w[:size, None], target * w[:size], rcond=None)[0]
                if size == len(usable):
                    break
                size = min(len(usable), 2 * size)
            poses[b] = p
            misfit = _wrap(observed - A @ p)
            residual[b] = np.sqrt(np.sum(w * misfit**2) / np.sum(w))
        return PoseFit(poses[0], residual[0]) if single else PoseFit(poses, residual)
