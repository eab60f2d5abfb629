"""Orthonormal Zernike basis on the unit disk and exact or batched moments.

Conventions used throughout :mod:`paperkernels.shapes`:

- Half index set of order N: ``(n, m)`` with ``0 <= m <= n <= N`` and ``n - m`` even, ordered by n
  then m (:func:`indices`); it has ``S(N) = floor((N + 2)**2 / 4)`` members (121 for N = 20).
- ``Z_nm(rho, theta) = sqrt((n + 1) / pi) R_n^|m|(rho) exp(i m theta)`` is orthonormal on the disk;
  moments are ``c_nm = integral of f conj(Z_nm) dA``. For real f, ``c_{n,-m} = conj(c_nm)``, so the
  half set carries everything, and a rotation by phi multiplies ``c_nm`` by ``exp(-i m phi)``.
- Images span ``[-1, 1]^2`` with the disk inscribed, y pointing up (row 0 is the top), pixel
  centres ``x_j = (2j + 1 - W) / W`` and ``y_i = (H - 1 - 2i) / H``.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._validation import as_array, as_choice, as_float, as_int, as_n_threads, plain_array
from ._inputs import (
    MAX_GAUSS_NODES,
    MAX_ORDER,
    MAX_RADIAL_DEGREE,
    PackedPolygons,
    _looks_transposed,
    as_masks,
    as_order,
    check_output_bytes,
    pack_polygons,
    refuse_images,
    split_polygons,
)

__all__ = [
    "MAX_ORDER",
    "n_coefficients",
    "indices",
    "radial",
    "radial_table",
    "zernike_basis",
    "PolarGrid",
    "polar_grid",
    "zernike_moments",
    "synthesize",
]

DEFAULT_MAX_BASIS_BYTES = 256 * 2**20
MAX_GRID_SIDE = 1 << 24  # samples per axis of a polar grid


def n_coefficients(N: int) -> int:
    """Size ``S(N) = floor((N + 2)**2 / 4)`` of the half index set of order N.

    Parameters
    ----------
    N : int
        Largest radial order, ``0 <= N <= MAX_ORDER``.

    Returns
    -------
    int
        ``S(N)``.

    Raises
    ------
    ValueError, TypeError
        When ``N`` is not an integer in ``[0, MAX_ORDER]``.

    Examples
    --------
    >>> from paperkernels.shapes import n_coefficients
    >>> n_coefficients(4), n_coefficients(20)
    (9, 121)
    """
    N = as_order(N)
    return (N + 2) ** 2 // 4


def indices(N: int) -> np.ndarray:
    """The ``(n, m)`` pairs of the half set of order N, in code order: shape ``(S(N), 2)``.

    Parameters
    ----------
    N : int
        Largest radial order, ``0 <= N <= MAX_ORDER``.

    Returns
    -------
    numpy.ndarray
        int ``(S(N), 2)``: rows ``(n, m)`` with ``0 <= m <= n <= N`` and ``n - m`` even, by n then m.

    Raises
    ------
    ValueError, TypeError
        When ``N`` is not an integer in ``[0, MAX_ORDER]``.

    Examples
    --------
    >>> from paperkernels.shapes import indices
    >>> indices(3).tolist()
    [[0, 0], [1, 1], [2, 0], [2, 2], [3, 1], [3, 3]]
    """
    N = as_order(N)
    return np.array([(n, m) for n in range(N + 1) for m in range(n % 2, n + 1, 2)], dtype=np.int64).reshape(-1, 2)


def _as_radii(rho: Any, name: str = "rho") -> tuple[np.ndarray, tuple[int, ...]]:
    arr = as_array(rho, name, low=0.0, high=1.0, allow_empty=True)
    return np.ascontiguousarray(arr.ravel()), arr.shape


def radial(n: int, m: int, rho: Any) -> np.ndarray:
    """Zernike radial polynomial ``R_n^|m|(rho)`` on ``[0, 1]`` (three-term recurrence in n).

    Absolute errors (against mpmath with at least 0.35 n + 60 digits) are largest for small ``|m|`` at radii below
    about ``4 / n``: below 1e-13 up to n = 100 (5.5e-14 for m = 0 at rho = 6e-4), below 1e-12 up to
    n = 300 and a few 1e-12 at n = 1000; about 1e-15 for ``|m|`` near ``n / 2`` and beyond. The
    factorial sum has lost every digit long before (beyond n of about 40). For all the orders of a
    half set at once, :func:`radial_table` is more accurate (1.3e-15 up to n = 100).

    Parameters
    ----------
    n : int
        Radial order, ``>= 0`` (errors grow about linearly with n, see above).
    m : int
        Angular order with ``|m| <= n`` and ``n - |m|`` even.
    rho : array_like
        Radii in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        float64 array of the shape of ``rho`` (at least 1-d).

    Raises
    ------
    ValueError, TypeError
        When ``(n, m)`` is not a valid pair or ``rho`` leaves ``[0, 1]`` or is not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import radial
    >>> radial(4, 0, np.array([0.0, 0.5, 1.0]))      # 6 rho^4 - 6 rho^2 + 1
    array([ 1.   , -0.125,  1.   ])
    """
    n = as_int(n, "n", low=0, high=MAX_RADIAL_DEGREE)
    m = as_int(m, "m", low=-n, high=n)
    if (n - m) % 2:
        raise ValueError(f"m: expected n - m even, got n = {n}, m = {m}")
    flat, shape = _as_radii(rho)
    check_output_bytes((flat.size, (n - abs(m)) // 2 + 1), "rho", "evaluate fewer radii per call")
    values = _core.shapes.radial_band(abs(m), (n - abs(m)) // 2 + 1, flat)[:, -1]
    result: np.ndarray = values.reshape(shape)
    return result


def radial_table(N: int, rho: Any) -> np.ndarray:
    """All ``R_n^m(rho)`` of the half set of order N: shape ``rho.shape + (S(N),)``.

    A table larger than ``paperkernels.limits.max_result_bytes`` is refused before any work.

    Parameters
    ----------
    N : int
        Largest radial order, ``0 <= N <= MAX_ORDER``.
    rho : array_like
        Radii in ``[0, 1]``.

    Returns
    -------
    numpy.ndarray
        float64 ``rho.shape + (S(N),)``, columns in the order of :func:`indices`.

    Raises
    ------
    ValueError, TypeError
        When ``N`` or ``rho`` is out of range, or the table would exceed
        ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import radial_table
    >>> radial_table(4, np.array([0.0, 1.0])).shape
    (2, 9)
    >>> radial_table(2, np.array([1.0]))         # R_n^m(1) = 1
    array([[1., 1., 1., 1.]])
    """
    N = as_order(N)
    flat, shape = _as_radii(rho)
    check_output_bytes(
        (flat.size, (N + 2) ** 2 // 4), "rho", "evaluate fewer radii per call (or a lower N)", what="table"
    )
    result: np.ndarray = _core.shapes.radial_table(N, flat).reshape(shape + (-1,))
    return result


def zernike_basis(N: int, rho: Any, theta: Any) -> np.ndarray:
    """Orthonormal ``Z_nm(rho, theta)`` for the half set of order N: shape ``broadcast + (S(N),)``.

    A result larger than ``paperkernels.limits.max_result_bytes`` is refused before any work.

    Parameters
    ----------
    N : int
        Largest radial order, ``0 <= N <= MAX_ORDER``.
    rho : array_like
        Radii in ``[0, 1]``.
    theta : array_like
        Angles in radians, broadcast against ``rho``.

    Returns
    -------
    numpy.ndarray
        complex128 ``broadcast(rho, theta).shape + (S(N),)``.

    Raises
    ------
    ValueError, TypeError
        When ``N`` or ``rho`` is out of range, the arrays do not broadcast, or the result would exceed
        ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import zernike_basis
    >>> Z = zernike_basis(4, np.array([0.5, 1.0]), 0.0)
    >>> Z.shape, Z.dtype
    ((2, 9), dtype('complex128'))
    >>> bool(np.isclose(Z[0, 0], 1 / np.sqrt(np.pi)))   # Z_00 = 1 / sqrt(pi)
    True
    """
    N = as_order(N)
    rho_arr = as_array(rho, "rho", low=0.0, high=1.0, allow_empty=True)
    theta_arr = as_array(theta, "theta", allow_empty=True)
    try:
        points = np.broadcast_shapes(rho_arr.shape, theta_arr.shape)
    except ValueError:
        raise ValueError(
            f"rho, theta: expected shapes that broadcast together, got {rho_arr.shape} and {theta_arr.shape}"
        ) from None
    check_output_bytes(
        points + ((N + 2) ** 2 // 4,),
        "rho, theta",
        "evaluate fewer points per call (or a lower N)",
        dtype=np.complex128,
    )
    rho_arr, theta_arr = np.broadcast_arrays(rho_arr, theta_arr)
    table = radial_table(N, rho_arr)
    nm = indices(N)
    norm = np.sqrt((nm[:, 0] + 1) / np.pi)
    result: np.ndarray = table * norm * np.exp(1j * nm[:, 1] * theta_arr[..., None])
    return result


@dataclass(frozen=True)
class PolarGrid:
    """Sample positions and quadrature weights of a polar grid: values are ``(n_theta, n_rho)``
    arrays whose row i holds angle ``theta[i]`` and column j radius ``rho[j]``; ``wrho`` includes
    the area factor rho.

    Attributes
    ----------
    theta : numpy.ndarray
        Angles ``(n_theta,)``.
    rho : numpy.ndarray
        Radii ``(n_rho,)``.
    wtheta : numpy.ndarray
        Angular weights ``(n_theta,)``.
    wrho : numpy.ndarray
        Radial weights times rho ``(n_rho,)``.
    shape : (int, int)
        ``(n_theta, n_rho)``, the shape of the sample arrays on this grid.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import polar_grid
    >>> grid = polar_grid(16, 8, rule="gauss")
    >>> bool(np.isclose(grid.wtheta.sum() * grid.wrho.sum(), np.pi))   # the area of the unit disk
    True
    """

    theta: np.ndarray
    rho: np.ndarray
    wtheta: np.ndarray
    wrho: np.ndarray

    @property
    def shape(self) -> tuple[int, int]:
        """``(n_theta, n_rho)``: the shape of the sample arrays on this grid."""
        return (len(self.theta), len(self.rho))


def polar_grid(n_theta: int, n_rho: int, rule: str = "midpoint") -> PolarGrid:
    """A consistent polar grid: ``theta_i = 2 pi i / n_theta`` (periodic trapezoid, spectrally exact in
    theta) and radii by the ``"midpoint"`` rule (``rho_j = (j + 1/2) / n_rho``) or ``"gauss"``
    (Gauss-Legendre on [0, 1], exact for polynomials of degree < 2 n_rho).

    Parameters
    ----------
    n_theta : int
        Number of angles, ``>= 1``.
    n_rho : int
        Number of radii, ``>= 1``.
    rule : {"midpoint", "gauss"}
        Radial rule.

    Returns
    -------
    PolarGrid
        Angles and radii with their weights, for samples of shape ``(n_theta, n_rho)``.

    Raises
    ------
    ValueError, TypeError
        When a count is not a positive integer, ``rule`` is unknown, or the grid would exceed
        ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels.shapes import polar_grid
    >>> grid = polar_grid(8, 4)
    >>> grid.shape, grid.rho
    ((8, 4), array([0.125, 0.375, 0.625, 0.875]))
    """
    n_theta = as_int(n_theta, "n_theta", low=1, high=MAX_GRID_SIDE)
    n_rho = as_int(n_rho, "n_rho", low=1, high=MAX_GRID_SIDE)
    rule = as_choice(rule, "rule", ("midpoint", "gauss"))
    if rule == "gauss" and n_rho > MAX_GAUSS_NODES:
        raise ValueError(
            f"n_rho: a Gauss-Legendre rule of {n_rho} nodes costs O(n_rho^2); the limit is {MAX_GAUSS_NODES} "
            "(use rule='midpoint' for finer grids)"
        )
    theta = 2 * np.pi * np.arange(n_theta) / n_theta
    wtheta = np.full(n_theta, 2 * np.pi / n_theta)
    if rule == "midpoint":
        rho = (np.arange(n_rho) + 0.5) / n_rho
        w = np.full(n_rho, 1.0 / n_rho)
    else:
        x, w = _core.shapes.gauss_legendre(n_rho)
        rho, w = 0.5 * (x + 1.0), 0.5 * w
    return PolarGrid(theta=theta, rho=rho, wtheta=wtheta, wrho=w * rho)


def _as_grid(grid: Any, name: str = "grid") -> PolarGrid:
    """A PolarGrid of finite 1-d arrays with one weight per node and radii in [0, 1]."""
    if not isinstance(grid, PolarGrid):
        raise TypeError(f"{name}: expected a PolarGrid (see polar_grid()), got {type(grid).__name__}")
    theta = as_array(grid.theta, f"{name}.theta", ndim=1)
    wtheta = as_array(grid.wtheta, f"{name}.wtheta", shape=(len(theta),))
    rho = as_array(grid.rho, f"{name}.rho", ndim=1, low=0.0, high=1.0)
    wrho = as_array(grid.wrho, f"{name}.wrho", shape=(len(rho),))
    return PolarGrid(theta=theta, rho=rho, wtheta=wtheta, wrho=wrho)


# ---------------------------------------------------------------------------------------------
# Cached bases (building one costs about as much as a few hundred shapes)

_BASES: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_BASES_LOCK = threading.Lock()  # every read and change of _BASES (threads share the cache)
_MAX_CACHED = 8
_MAX_CACHED_BYTES = 512 * 2**20


def _stored_basis_bytes() -> int:
    return sum(int(b.basis_bytes) for b in _BASES.values() if b.precomputed)


def cartesian_basis(
    N: int,
    H: int,
    W: int,
    supersample: int,
    synthesis: bool,
    max_basis_bytes: float,
    n_threads: int,
    name: str = "masks",
) -> Any:
    """A cached C++ basis for (N, grid, purpose): the 8 most recent, within 512 MiB in all.

    Its pixel tables (about 11 bytes per pixel of the disk on square grids, 32 otherwise) are refused
    up front beyond ``paperkernels.limits.max_result_bytes``; the basis itself falls back to on-the-fly
    evaluation beyond ``max_basis_bytes``.
    """
    key = (N, H, W, supersample, synthesis, float(max_basis_bytes))
    with _BASES_LOCK:
        basis = _BASES.get(key)
        if basis is not None:
            _BASES.move_to_end(key)
            return basis
    disk_pixels = int(np.ceil(np.pi / 4 * H * W)) + 2 * (H + W)
    check_result_bytes(
        disk_pixels * (11 if H == W else 32),
        name,
        f"the pixel tables of a {H} x {W} grid",
        "use smaller images (resample them) or split them into tiles",
    )
    # Built outside the lock (it can take seconds); two threads may build the same basis, and the
    # first one stored is kept.
    purpose = _core.shapes.BasisPurpose.synthesis if synthesis else _core.shapes.BasisPurpose.analysis
    built = _core.shapes.CartesianBasis(N, H, W, supersample, purpose, float(max_basis_bytes), n_threads)
    with _BASES_LOCK:
        basis = _BASES.setdefault(key, built)
        _BASES.move_to_end(key)
        while len(_BASES) > 1 and (len(_BASES) > _MAX_CACHED or _stored_basis_bytes() > _MAX_CACHED_BYTES):
            _BASES.popitem(last=False)
    return basis


def polar_basis(N: int, grid: PolarGrid, scale: np.ndarray | None = None, name: str = "grid") -> Any:
    """The C++ engine of polar moments on ``grid`` (its tables are refused up front when they would
    exceed ``paperkernels.limits.max_result_bytes``)."""
    n_theta, n_rho = grid.shape
    S = (N + 2) ** 2 // 4
    check_result_bytes(
        8 * (n_rho * S + 2 * (N + 1) * n_theta),
        name,
        f"the polar basis tables of order {N} on a {n_theta} x {n_rho} grid",
        "use a grid with fewer radii (or a lower N)",
    )
    if scale is None:
        nm = indices(N)
        scale = np.sqrt((nm[:, 0] + 1) / np.pi)
    # The engine keeps its own copies of the nodes, weights and scales (lists of the same float64 values).
    nodes = (grid.theta, grid.wtheta, grid.rho, grid.wrho, np.asarray(scale, dtype=np.float64))
    theta, wtheta, rho, wrho, scales = (np.asarray(a, dtype=np.float64).tolist() for a in nodes)
    return _core.shapes.PolarBasis(N, theta, wtheta, rho, wrho, scales)


def _guess_input(shapes: Any, name: str = "shapes") -> str:
    """Dicts, geometries, strings (refused there with a hint), lists of rings or polygons and float or
    signed-integer (V, 2)/(B, V, 2) arrays are polygons; anything else (bool and uint8 arrays
    included) is read as masks. Arrays shaped like colour images or transposed polygons are refused."""
    if hasattr(shapes, "__geo_interface__") or isinstance(shapes, (dict, str, bytes)):
        return "polygon"
    if isinstance(shapes, (list, tuple)):
        if not shapes:
            return "polygon"
        first = shapes[0]
        if hasattr(first, "__geo_interface__") or isinstance(first, dict):
            return "polygon"
        try:
            arr = np.asarray(first)
        except Exception:  # ragged (a list of rings), or not numbers: the polygon path says which
            return "polygon"
        if arr.ndim == 2 and arr.shape[1] != 2 and not _looks_transposed(arr):
            return "cartesian"
        return "polygon"
    arr = plain_array(shapes, name)
    if arr.ndim in (2, 3) and arr.shape[-1] == 2 and arr.shape[-2] > 2 and arr.dtype.kind in "if":
        return "polygon"
    if arr.dtype == object and (arr.ndim == 1 or (arr.ndim in (2, 3) and arr.shape[-1] == 2)):
        return "polygon"  # read element by element there, or refused naming what an element is
    if _looks_transposed(arr):
        return "polygon"  # vertices as columns (2, V): the polygon path says so
    refuse_images(arr, name, "Pass input='cartesian' to read it as a batch of narrow masks.")
    return "cartesian"


def zernike_moments(
    shapes: Any,
    N: int,
    *,
    input: str = "auto",
    supersample: int = 1,
    rule: str = "boundary",
    grid: PolarGrid | None = None,
    n_threads: int | None = None,
    max_basis_bytes: float = DEFAULT_MAX_BASIS_BYTES,
) -> np.ndarray:
    """Zernike moments ``c_nm`` (half set of order N) of masks, polar grids or polygons.

    Parameters
    ----------
    shapes
        ``input="cartesian"``: a mask ``(H, W)`` or a batch ``(B, H, W)`` with values in [0, 1]
        (float64, float32, uint8 or bool are read without copying; torch CPU tensors work).
        ``input="polar"``: values ``(n_theta, n_rho)`` or ``(B, n_theta, n_rho)`` on ``grid``.
        ``input="polygon"``: a ``(V, 2)`` array, a GeoJSON Polygon/MultiPolygon dict, a shapely
        geometry, or a list of such (a list item may also be a list of rings ``[outer, hole, ...]``);
        vertices must lie in the closed unit disk (see :func:`normalize`).
        ``"auto"`` reads dicts, geometries, lists and float or signed-integer ``(V, 2)``/``(B, V, 2)``
        arrays (V > 2) as polygons and anything else as masks; it refuses arrays that look like
        colour images ``(H, W, 1|3|4)`` or polygons stored as columns ``(2, V)`` (with negative
        entries), which an explicit ``input`` reads as asked. Strings are refused: parse GeoJSON
        text with ``json.loads`` first. Numpy masked arrays are refused (their mask would be lost).
    N : int
        Largest radial order, ``0 <= N <= 200``.
    input : {"auto", "cartesian", "polar", "polygon"}
        How to read ``shapes`` (see above).
    supersample : int
        Masks: ``s x s`` sample points per pixel for the basis (1 = the pixel-centre rule).
    rule : {"boundary", "fan"}
        Polygons: exact quadrature along the edges (Stokes' theorem, default) or over the fan
        triangles from the origin (Duffy map, tensor Gauss-Legendre); both are exact.
    grid : PolarGrid
        Polar input: the grid of the samples (default ``polar_grid(n_theta, n_rho)``).
    n_threads : int, optional
        Threads for the batch (None = all cores). Results do not depend on it.
    max_basis_bytes : float
        Masks: largest precomputed basis; beyond it the basis is evaluated on the fly (same results).

    Returns
    -------
    numpy.ndarray
        complex128 ``(B, S(N))``, or ``(S(N),)`` for a single shape.

    Raises
    ------
    ValueError, TypeError
        For inputs that cannot be read as asked (each error names the argument and how it was
        read, e.g. ``shapes, read as masks: ...``), vertices outside the unit disk, ``N`` out of range, or work tables above ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> square = shapes.regular_polygon(4, radius=0.9)
    >>> z = shapes.zernike_moments(square, 10, input="polygon")
    >>> z.shape
    (36,)
    >>> area = 2 * 0.9**2
    >>> bool(np.isclose(z[0].real * np.sqrt(np.pi), area))      # c_00 = area / sqrt(pi)
    True
    >>> masks = shapes.rasterize([square, shapes.regular_polygon(3, radius=0.9)], 64)
    >>> shapes.zernike_moments(masks, 10).shape
    (2, 36)
    """
    N = as_order(N)
    input = as_choice(input, "input", ("auto", "cartesian", "polar", "polygon"))
    threads = as_n_threads(n_threads)
    max_basis_bytes = as_float(max_basis_bytes, "max_basis_bytes", low=0.0)
    if input == "auto":
        input = _guess_input(shapes, "shapes")
    # Errors name the argument and how it was read (input="auto" guesses): "shapes, read as masks: ...".
    if input == "polygon":
        rule = as_choice(rule, "rule", ("boundary", "fan"))
        name = "shapes, read as polygons"
        batch, single = split_polygons(shapes, name)
        packed = pack_polygons(batch, name)
        out = polygon_moments(N, packed, rule, threads)
    elif input == "cartesian":
        supersample = as_int(supersample, "supersample", low=1, high=16)
        name = "shapes, read as masks"
        masks, single = as_masks(shapes, name)
        basis = cartesian_basis(
            N, masks.shape[1], masks.shape[2], supersample, False, max_basis_bytes, threads, name="shapes"
        )
        with core_errors_named(name):
            out = basis.analyse(masks, threads)
    else:
        name = "shapes, read as polar masks"
        values, single = as_masks(shapes, name)
        grid_name = "grid"
        if grid is None:
            grid, grid_name = polar_grid(values.shape[1], values.shape[2]), "shapes"
        else:
            grid = _as_grid(grid)
        if values.shape[1:] != grid.shape:
            raise ValueError(
                f"{name}: expected polar samples of shape {grid.shape} (n_theta, n_rho), got {values.shape[1:]}"
            )
        engine = polar_basis(N, grid, name=grid_name)
        with core_errors_named(name):
            out = engine.analyse(values, threads, n_coefficients(N))
    return out[0] if single else out


@contextlib.contextmanager
def core_errors_named(name: str) -> Iterator[None]:
    """Errors of the C++ core about the values of its input (``masks: ...``) named after the
    caller's argument."""
    try:
        yield
    except ValueError as exc:
        message = str(exc)
        if message.startswith("masks:") and name != "masks":
            raise ValueError(name + message[len("masks") :]) from None
        raise


def polygon_moments(N: int, packed: PackedPolygons, rule: str, threads: int) -> np.ndarray:
    """Exact moments of packed polygons; ``rule`` is a validated ``"boundary"`` or ``"fan"``."""
    moments: np.ndarray = _core.shapes.polygon_moments(
        N, packed.vertices, packed.ring_start, packed.ring_sign, packed.poly_start, _POLYGON_RULES[rule], threads
    )
    return moments


_POLYGON_RULES = {"boundary": _core.shapes.PolygonRule.boundary, "fan": _core.shapes.PolygonRule.fan}
"""The polygon quadratures as the C++ core names them (the user's string is checked with as_choice first)."""


def order_of(coefficients: np.ndarray, name: str = "coefficients") -> int:
    """N such that S(N) equals the last axis of ``coefficients``."""
    S = coefficients.shape[-1]
    N = int(np.floor(2 * np.sqrt(S))) - 2
    for candidate in (N - 1, N, N + 1):
        if candidate >= 0 and (candidate + 2) ** 2 // 4 == S:
            return candidate
    raise ValueError(f"{name}: expected a last axis of length S(N) = floor((N+2)^2/4) (1, 2, 4, 6, 9, ...), got {S}")


def synthesize(
    coefficients: Any,
    res: Any = 256,
    *,
    n_threads: int | None = None,
    max_basis_bytes: float = DEFAULT_MAX_BASIS_BYTES,
) -> np.ndarray:
    """The real field ``f_N = Re sum_nm c_nm Z_nm`` at the pixel centres of a ``res`` image (0 off the disk).

    Parameters
    ----------
    coefficients : array_like
        Half-set coefficients ``(S(N),)`` or ``(B, S(N))`` as returned by :func:`zernike_moments`.
    res : int or (int, int)
        Output size; an int gives a square image.
    n_threads : int, optional
        Threads for a batch (None = all cores). Results do not depend on it.
    max_basis_bytes : float
        Largest precomputed basis; beyond it the basis is evaluated on the fly (same results).

    Returns
    -------
    numpy.ndarray
        float64 ``(H, W)``, or ``(B, H, W)`` for a batch of coefficients.

    Raises
    ------
    ValueError, TypeError
        When the last axis is not a half-set size, ``res`` is not a positive size, or the result would
        exceed ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels import shapes
    >>> z = shapes.zernike_moments(shapes.regular_polygon(6, radius=0.8), 20, input="polygon")
    >>> field = shapes.synthesize(z, 64)
    >>> field.shape, round(float(shapes.iou(field, shapes.rasterize(shapes.regular_polygon(6, radius=0.8), 64))), 2)
    ((64, 64), 0.99)
    """
    z = plain_array(coefficients, "coefficients")
    if z.dtype.kind not in "fc":
        raise TypeError(f"coefficients: expected complex (or real) numbers, got dtype {z.dtype}")
    if z.ndim not in (1, 2) or z.size == 0:
        raise ValueError(f"coefficients: expected shape (S,) or (B, S), got {z.shape}")
    z = np.ascontiguousarray(z, dtype=np.complex128)
    if not np.all(np.isfinite(z)):
        raise ValueError("coefficients: expected finite values, got NaN or infinity")
    N = order_of(z)
    H, W = _as_resolution(res)
    single = z.ndim == 1
    threads = as_n_threads(n_threads)
    max_basis_bytes = as_float(max_basis_bytes, "max_basis_bytes", low=0.0)
    check_output_bytes((1 if single else z.shape[0], H, W), "res", "synthesize smaller batches or at a lower res")
    basis = cartesian_basis(N, H, W, 1, True, max_basis_bytes, threads, name="res")
    field = basis.synthesize(np.atleast_2d(z), threads)
    if not np.all(np.isfinite(field)):
        raise ValueError("coefficients: values too large, the field overflows float64; rescale the coefficients")
    result: np.ndarray = field[0] if single else field
    return result


def _as_resolution(res: Any, name: str = "res") -> tuple[int, int]:
    if isinstance(res, (tuple, list)):
        if len(res) != 2:
            raise ValueError(f"{name}: expected an int or a pair (H, W), got {res!r}")
        return as_int(res[0], name, low=1, high=1 << 15), as_int(res[1], name, low=1, high=1 << 15)
    r = as_int(res, name, low=1, high=1 << 15)
    return r, r
