"""Putting shapes into the unit disk and back (:func:`normalize`, :func:`denormalize`), rasterising
polygons, simple primitives and the IoU used to judge reconstructions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes, limits
from .._optional import optional_import
from .._validation import as_array, as_choice, as_float, as_int, as_n_threads
from ._inputs import PackedPolygons, as_masks, check_output_bytes, pack_polygons, split_polygons
from ._zernike import _as_resolution, _guess_input

__all__ = ["normalize", "denormalize", "rasterize", "star_polygon", "regular_polygon", "iou", "COMPAT_XSHAPEENC"]

COMPAT_XSHAPEENC = "xshapeenc-0.1.2"

MAX_POLYGON_VERTICES = 10_000_000
"""Largest vertex count of the generated primitives (star_polygon, regular_polygon)."""


def _as_compat(compat: Any) -> str | None:
    if compat is None:
        return None
    return as_choice(compat, "compat", (COMPAT_XSHAPEENC,))


def _pixel_centres(H: int, W: int) -> tuple[np.ndarray, np.ndarray]:
    return (2 * np.arange(W) + 1 - W) / W, (H - 1 - 2 * np.arange(H)) / H


def normalize(
    shape: Any,
    *,
    input: str = "auto",
    margin: float = 1e-3,
    res: Any = None,
    supersample: int = 4,
    compat: str | None = None,
    n_threads: int | None = None,
) -> tuple[Any, np.ndarray]:
    """Move a shape into the unit disk: ``unit = (world - c) * s``, returning ``(unit_shape, pose)``.

    ``c`` is the area centroid and ``s = (1 - margin) / r_max`` with ``r_max`` the true largest distance
    from ``c``: to a vertex (polygons) or to the farthest corner of a foreground pixel (masks, whose
    pixels are read as constant squares). There is no rotation normalisation: orientation stays in
    the phases of the moments. ``pose = (c_x, c_y, s)`` and :func:`denormalize` inverts the map.

    Parameters
    ----------
    shape
        Polygons in any form :func:`zernike_moments` accepts (a single one or a batch), or masks
        ``(H, W)`` / ``(B, H, W)`` in [0, 1] whose coordinates are the ``[-1, 1]^2`` image frame.
    input : {"auto", "polygon", "cartesian"}
        How to read ``shape`` (see :func:`zernike_moments`).
    margin : float
        Relative gap left between the shape and the unit circle.
    res : int or (int, int), optional
        Masks: size of the returned unit masks (default: the input size).
    supersample : int
        Masks: ``s x s`` samples per output pixel when resampling (values are coverage fractions).
    compat : {"xshapeenc-0.1.2"}, optional
        Reproduce the reference implementation's fit: ``r_max`` measured to the corners of the
        bounding box (a disk then only reaches radius ``(1 - margin) / sqrt(2)``).
    n_threads : int, optional
        Threads for a batch of masks (None = all cores). Results do not depend on it.

    Returns
    -------
    unit_shape
        Same kind as the input (arrays, lists of rings, GeoJSON dicts and shapely geometries keep
        their type; masks become float64 coverage masks).
    pose : numpy.ndarray
        ``(3,)`` or ``(B, 3)`` rows ``(c_x, c_y, s)``.

    Raises
    ------
    ValueError, TypeError
        For shapes that cannot be read (named), an empty mask, polygon coordinates so large (or
        small) that their area, centroid or extent overflows (underflows) float64, ``margin`` outside
        ``[0, 1)``, an unknown ``compat``, or unit masks (or the float64 working copy of one input
        mask) above ``paperkernels.limits.max_result_bytes``. Mask batches are read in blocks of
        bounded memory (about 64 MiB of temporaries), with the results of the whole batch at once.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> star = shapes.star_polygon(5, 0.5, radius=3.0, center=(10.0, 4.0))
    >>> unit, pose = shapes.normalize(star)
    >>> pose
    array([10.   ,  4.   ,  0.333])
    >>> round(float(np.hypot(*unit.T).max()), 6)       # the farthest vertex at 1 - margin
    0.999
    """
    compat = _as_compat(compat)
    margin = as_float(margin, "margin", low=0.0, high=1.0, high_open=True)
    input = as_choice(input, "input", ("auto", "polygon", "cartesian"))
    if input == "auto":
        input = _guess_input(shape, "shape")
    if input == "polygon":
        return _normalize_polygons(shape, margin, compat)
    return _normalize_masks(shape, margin, res, supersample, compat, n_threads)


def _polygon_frames(packed: PackedPolygons, compat: str | None) -> tuple[np.ndarray, np.ndarray]:
    """Area centroids (B, 2) and fitting radii (B,) of packed polygons. Each ring's area and first
    moment are taken about its own first vertex, at unit scale (PackedPolygons.scaled_rings), then
    moved to its polygon's origin: no cancellation far from the coordinate origin, no overflow or
    underflow of the products at extreme scales."""
    local, shift, origins, exponent = packed.scaled_rings()
    ring_count = np.diff(packed.ring_start)
    poly_of_ring = np.repeat(np.arange(packed.count), np.diff(packed.poly_start))
    x, y = local[:, 0], local[:, 1]
    nxt, cross = packed.edge_cross(local)
    starts = packed.ring_start[:-1]
    ring_area = np.add.reduceat(cross, starts) / 2.0 * packed.ring_sign
    ring_moment = np.stack(
        [np.add.reduceat((x + x[nxt]) * cross, starts), np.add.reduceat((y + y[nxt]) * cross, starts)], 1
    )
    ring_moment *= packed.ring_sign[:, None] / 6.0
    # About the polygon's origin: a ring's moment about its own origin plus its area times its shift.
    poly_starts = packed.poly_start[:-1]
    moment = np.add.reduceat(ring_moment + ring_area[:, None] * shift, poly_starts)
    local_centre = moment / np.add.reduceat(ring_area, poly_starts)[:, None]  # scaled, about the origin
    centre = origins[poly_starts] + np.ldexp(local_centre, -exponent[:, None])
    offset = local + np.repeat(shift, ring_count, axis=0) - np.repeat(local_centre[poly_of_ring], ring_count, axis=0)
    if compat is None:
        dist = np.hypot(offset[:, 0], offset[:, 1])
        radius = np.maximum.reduceat(np.maximum.reduceat(dist, starts), poly_starts)
    else:
        lo = np.minimum.reduceat(np.minimum.reduceat(offset, starts), poly_starts)
        hi = np.maximum.reduceat(np.maximum.reduceat(offset, starts), poly_starts)
        radius = np.hypot(np.maximum(-lo[:, 0], hi[:, 0]), np.maximum(-lo[:, 1], hi[:, 1]))
    return centre, np.ldexp(radius, -exponent)


def _map_shape(obj: Any, fn: Callable[[np.ndarray], np.ndarray]) -> Any:
    """Apply fn to every (V, 2) coordinate array of a polygon, keeping the container type."""
    if hasattr(obj, "__geo_interface__") and not isinstance(obj, dict):
        try:
            shapely = optional_import("shapely", "shapely geometries")
        except ImportError:  # pragma: no cover - other __geo_interface__ providers
            shapely = None
        if shapely is not None and isinstance(obj, shapely.Geometry):
            return shapely.transform(obj, fn)
        return _map_shape(obj.__geo_interface__, fn)
    if isinstance(obj, dict):
        out = dict(obj)
        if obj.get("type") == "Feature":
            out["geometry"] = _map_shape(obj["geometry"], fn)
            return out
        depth = 1 if obj.get("type") == "Polygon" else 2
        out["coordinates"] = _map_nested(obj["coordinates"], fn, depth, as_list=True)
        return out
    arr = None
    try:
        arr = np.asarray(obj, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    if arr is not None and arr.ndim == 2 and arr.shape[1] == 2:
        return fn(arr)
    return [_map_shape(item, fn) for item in obj]


def _map_nested(coords: Any, fn: Callable[[np.ndarray], np.ndarray], depth: int, as_list: bool) -> Any:
    if depth == 0:
        mapped = fn(np.asarray(coords, dtype=np.float64))
        return mapped.tolist() if as_list else mapped
    return [_map_nested(c, fn, depth - 1, as_list) for c in coords]


def _normalize_polygons(shape: Any, margin: float, compat: str | None) -> tuple[Any, np.ndarray]:
    batch, single = split_polygons(shape, "shape")
    packed = pack_polygons(batch, "shape", unit_disk=False)
    with np.errstate(over="ignore", invalid="ignore"):  # huge coordinates: refused below
        centre, radius = _polygon_frames(packed, compat)
        scale = (1.0 - margin) / radius
    overflow = np.flatnonzero(~(np.isfinite(centre).all(axis=1) & np.isfinite(radius) & (scale > 0)))
    if overflow.size:
        b = int(overflow[0])
        raise ValueError(
            f"shape[{b}]: expected coordinates whose products fit in float64, got coordinates whose centroid "
            "or extent overflows float64; rescale the coordinates"
        )
    pose = np.column_stack([centre, scale])

    def mapper(b: int) -> Callable[[np.ndarray], np.ndarray]:
        return lambda xy: (np.asarray(xy, dtype=np.float64) - centre[b]) * scale[b]

    if single:
        return _map_shape(shape, mapper(0)), pose[0]
    if isinstance(shape, np.ndarray) and shape.dtype != object:  # object batches: item by item
        return (np.asarray(shape, dtype=np.float64) - centre[:, None, :]) * scale[:, None, None], pose
    return [_map_shape(item, mapper(b)) for b, item in enumerate(shape)], pose


_MASK_BLOCK_BYTES = 64 * 2**20
"""Temporaries of one block of the mask frames (float64 copies, distances; at most
``paperkernels.limits.max_result_bytes``): memory stays bounded and Ctrl-C gets through between blocks."""


def _mask_frames(masks: np.ndarray, compat: str | None) -> np.ndarray:
    """Rows ``(c_x, c_y, r_max)`` of masks: area centroid and largest distance to a pixel corner.

    The masks are read in blocks whose float64 copies stay within ``_MASK_BLOCK_BYTES`` (at least one
    mask), and the distances in bands of rows: the values are those of the whole batch at once (the
    centroids are taken from the row and column sums of the whole batch, the maxima are exact).
    """
    B, H, W = masks.shape
    check_result_bytes(
        8 * H * W, "shape", f"the float64 working copy of one {H} x {W} mask", "use smaller masks (resample them)"
    )
    block_bytes = min(_MASK_BLOCK_BYTES, int(limits.max_result_bytes))
    x, y = _pixel_centres(H, W)
    total = np.empty(B)
    column_sums = np.empty((B, W))
    row_sums = np.empty((B, H))
    step = max(1, block_bytes // (9 * H * W))  # float64 weights and a bool mask per pixel
    for start in range(0, B, step):
        weights = masks[start : start + step].astype(np.float64, copy=False)
        if weights.min() < 0 or weights.max() > 1 or not np.all(np.isfinite(weights)):
            raise ValueError("shape: expected mask values in [0, 1] (scale 0-255 images by 1/255)")
        total[start : start + step] = weights.sum(axis=(1, 2))
        column_sums[start : start + step] = weights.sum(axis=1)
        row_sums[start : start + step] = weights.sum(axis=2)
        del weights  # the next block's copy (or the distances below) take its place
    empty = np.flatnonzero(total <= 0)
    if empty.size:
        raise ValueError(f"shape: mask {int(empty[0])} has no foreground pixel; nothing to normalise")
    cx = (column_sums @ x) / total
    cy = (row_sums @ y) / total
    reach = np.zeros((B, 2))  # squared radius, or the reach in x and y (compat)
    for start in range(0, B, step):
        block = slice(start, start + step)
        dx = np.abs(x[None, None, :] - cx[block, None, None]) + 1.0 / W
        dy = np.abs(y[None, :, None] - cy[block, None, None]) + 1.0 / H
        band = max(1, block_bytes // (25 * len(dx) * W))  # rows of float64 distances
        for top in range(0, H, band):
            rows = slice(top, top + band)
            support = masks[block, rows] > 0
            if compat is None:
                part = np.where(support, dx**2 + dy[:, rows] ** 2, 0.0).max(axis=(1, 2))
                reach[block, 0] = np.maximum(reach[block, 0], part)
            else:
                reach[block, 0] = np.maximum(reach[block, 0], np.where(support, dx, 0.0).max(axis=(1, 2)))
                reach[block, 1] = np.maximum(reach[block, 1], np.where(support, dy[:, rows], 0.0).max(axis=(1, 2)))
    radius = np.sqrt(reach[:, 0]) if compat is None else np.hypot(reach[:, 0], reach[:, 1])
    return np.column_stack([cx, cy, radius])


def _normalize_masks(
    shape: Any, margin: float, res: Any, supersample: int, compat: str | None, n_threads: int | None
) -> tuple[np.ndarray, np.ndarray]:
    masks, single = as_masks(shape, "shape")
    B, H, W = masks.shape
    R, C = (H, W) if res is None else _as_resolution(res)
    supersample = as_int(supersample, "supersample", low=1, high=16)
    check_output_bytes((B, R, C), "res", "normalise smaller batches or at a lower res")
    frames = _mask_frames(masks, compat)
    scale = (1.0 - margin) / frames[:, 2]
    pose = np.column_stack([frames[:, 0], frames[:, 1], scale])
    unit = _core.shapes.resample(masks, np.ascontiguousarray(pose), R, C, supersample, as_n_threads(n_threads))
    return (unit[0], pose[0]) if single else (unit, pose)


def denormalize(
    unit_shape: Any,
    pose: Any,
    *,
    input: str = "auto",
    res: Any = None,
    supersample: int = 4,
    n_threads: int | None = None,
) -> Any:
    """Inverse of :func:`normalize`: ``world = c + unit / s`` for each pose row ``(c_x, c_y, s)``.

    Parameters
    ----------
    unit_shape
        Polygons (as :func:`normalize` returns them) or masks in the unit frame.
    pose : array_like
        ``(3,)`` or ``(B, 3)`` rows ``(c_x, c_y, s)`` with ``s > 0``.
    input : {"auto", "polygon", "cartesian"}
        How to read ``unit_shape``.
    res : int or (int, int), optional
        Masks: size of the returned masks.
    supersample : int
        Masks: samples per pixel side when resampling.
    n_threads : int, optional
        Threads for a batch of masks (None = all cores).

    Returns
    -------
    world_shape
        Same kind as ``unit_shape``, moved back to world coordinates.

    Raises
    ------
    ValueError, TypeError
        When ``pose`` has the wrong shape or a scale that is not positive and finite, or the shapes
        cannot be read.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> square = shapes.regular_polygon(4, radius=2.0, center=(3.0, 1.0))
    >>> unit, pose = shapes.normalize(square)
    >>> pose
    array([3.    , 1.    , 0.4995])
    >>> bool(np.allclose(shapes.denormalize(unit, pose), square))
    True
    """
    input = as_choice(input, "input", ("auto", "polygon", "cartesian"))
    if input == "auto":
        input = _guess_input(unit_shape, "unit_shape")
    poses = as_array(pose, "pose", ndim=None)
    if poses.ndim not in (1, 2) or poses.shape[-1] != 3:
        raise ValueError(f"pose: expected (3,) or (B, 3) rows (c_x, c_y, s), got shape {poses.shape}")
    if np.any(poses[..., 2] <= 0):
        raise ValueError("pose: expected a positive scale s in the third column")
    if input == "polygon":
        batch, single = split_polygons(unit_shape, "unit_shape")
        rows = np.atleast_2d(poses)
        if len(rows) != len(batch):
            raise ValueError(f"pose: expected {len(batch)} rows, one per polygon, got {len(rows)}")

        def mapper(b: int) -> Callable[[np.ndarray], np.ndarray]:
            return lambda xy: rows[b, :2] + np.asarray(xy, dtype=np.float64) / rows[b, 2]

        with np.errstate(over="ignore"):
            if single:
                out = _map_shape(unit_shape, mapper(0))
            elif isinstance(unit_shape, np.ndarray) and unit_shape.dtype != object:
                out = rows[:, None, :2] + np.asarray(unit_shape, dtype=np.float64) / rows[:, 2, None, None]
            else:
                out = [_map_shape(item, mapper(b)) for b, item in enumerate(unit_shape)]
        try:
            pack_polygons(split_polygons(out, "unit_shape")[0], "unit_shape", unit_disk=False)
        except ValueError:
            raise ValueError("pose: the world coordinates c + unit / s overflow float64 (scale s too small?)") from None
        return out
    masks, single = as_masks(unit_shape, "unit_shape")
    rows = np.atleast_2d(poses)
    if len(rows) != len(masks):
        raise ValueError(f"pose: expected {len(masks)} rows, one per mask, got {len(rows)}")
    inverse = np.column_stack([-rows[:, 0] * rows[:, 2], -rows[:, 1] * rows[:, 2], 1.0 / rows[:, 2]])
    R, C = masks.shape[1:] if res is None else _as_resolution(res)
    supersample = as_int(supersample, "supersample", low=1, high=16)
    check_output_bytes((len(masks), R, C), "res", "denormalise smaller batches or at a lower res")
    world = _core.shapes.resample(masks, np.ascontiguousarray(inverse), R, C, supersample, as_n_threads(n_threads))
    return world[0] if single else world


def rasterize(polygons: Any, res: Any = 128, *, supersample: int = 1, n_threads: int | None = None) -> np.ndarray:
    """Masks of polygons on the ``[-1, 1]^2`` pixel grid (y up): the fraction of each pixel's
    ``s x s`` sample points inside (even-odd rule), so ``supersample=1`` gives a binary mask.

    Parameters
    ----------
    polygons
        One polygon or a batch, in any form :func:`zernike_moments` accepts.
    res : int or (int, int)
        Image size; an int gives a square image.
    supersample : int
        ``s x s`` sample points per pixel, ``>= 1``.
    n_threads : int, optional
        Threads for a batch (None = all cores). Results do not depend on it.

    Returns
    -------
    numpy.ndarray
        float64 ``(H, W)`` for one polygon or ``(B, H, W)`` for a batch, values in [0, 1].

    Raises
    ------
    ValueError, TypeError
        For polygons that cannot be read, a bad ``res`` or ``supersample``, or a raster above
        ``paperkernels.limits.max_result_bytes``.

    Examples
    --------
    >>> from paperkernels import shapes
    >>> mask = shapes.rasterize(shapes.regular_polygon(4), 64)
    >>> mask.shape, float(mask.max())
    ((64, 64), 1.0)
    >>> shapes.rasterize([shapes.regular_polygon(3), shapes.star_polygon()], 32, supersample=4).shape
    (2, 32, 32)
    """
    H, W = _as_resolution(res)
    supersample = as_int(supersample, "supersample", low=1, high=16)
    batch, single = split_polygons(polygons, "polygons")
    packed = pack_polygons(batch, "polygons", unit_disk=False)
    check_output_bytes((packed.count, H, W), "res", "rasterise smaller batches or at a lower res")
    out = _core.shapes.rasterize(
        packed.vertices,
        packed.ring_start,
        packed.ring_sign,
        packed.poly_start,
        H,
        W,
        supersample,
        as_n_threads(n_threads),
    )
    result: np.ndarray = out[0] if single else out
    return result


def star_polygon(
    n_points: int = 5,
    inner: float = 0.5,
    *,
    radius: float = 1.0,
    rotation: float = 0.0,
    center: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Star with ``n_points`` tips (``2 n_points`` vertices, counter-clockwise): tips at ``radius``,
    notches at ``inner * radius``, the first tip at angle ``rotation``.

    Parameters
    ----------
    n_points : int
        Number of tips, ``>= 2``.
    inner : float
        Radius of the notches relative to ``radius``, in ``(0, 1]``.
    radius : float
        Radius of the tips, ``> 0``.
    rotation : float
        Angle of the first tip, in radians.
    center : (float, float)
        Centre of the star.

    Returns
    -------
    numpy.ndarray
        float64 ``(2 n_points, 2)`` vertices.

    Raises
    ------
    ValueError, TypeError
        For out-of-range counts or radii, or values that are not finite.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import star_polygon
    >>> star = star_polygon(5, 0.5, radius=2.0)
    >>> star.shape, np.hypot(*star.T).round(6)[:4]
    ((10, 2), array([2., 1., 2., 1.]))
    """
    n_points = as_int(n_points, "n_points", low=2, high=MAX_POLYGON_VERTICES // 2)
    inner = as_float(inner, "inner", low=0.0, high=1.0, low_open=True)
    radius = as_float(radius, "radius", low=0.0, low_open=True)
    angles = as_float(rotation, "rotation") + np.pi * np.arange(2 * n_points) / n_points
    r = np.where(np.arange(2 * n_points) % 2 == 0, radius, inner * radius)
    c = as_array(center, "center", shape=(2,))
    return np.column_stack([c[0] + r * np.cos(angles), c[1] + r * np.sin(angles)])


def regular_polygon(
    n_sides: int, *, radius: float = 1.0, rotation: float = 0.0, center: tuple[float, float] = (0.0, 0.0)
) -> np.ndarray:
    """Regular polygon with ``n_sides`` vertices on a circle of ``radius`` (counter-clockwise).

    Parameters
    ----------
    n_sides : int
        Number of vertices, ``>= 3``.
    radius : float
        Circumradius, ``> 0``.
    rotation : float
        Angle of the first vertex, in radians.
    center : (float, float)
        Centre of the circle.

    Returns
    -------
    numpy.ndarray
        float64 ``(n_sides, 2)`` vertices.

    Raises
    ------
    ValueError, TypeError
        For a count below 3 or a radius, rotation or centre that is not finite.

    Examples
    --------
    >>> from paperkernels.shapes import regular_polygon
    >>> regular_polygon(4, radius=2.0).round(6) + 0.0
    array([[ 2.,  0.],
           [ 0.,  2.],
           [-2.,  0.],
           [ 0., -2.]])
    """
    n_sides = as_int(n_sides, "n_sides", low=3, high=MAX_POLYGON_VERTICES)
    radius = as_float(radius, "radius", low=0.0, low_open=True)
    angles = as_float(rotation, "rotation") + 2 * np.pi * np.arange(n_sides) / n_sides
    c = as_array(center, "center", shape=(2,))
    return np.column_stack([c[0] + radius * np.cos(angles), c[1] + radius * np.sin(angles)])


def iou(a: Any, b: Any, threshold: float = 0.5) -> Any:
    """Intersection over union of masks binarised at ``>= threshold`` (in [0, 1], like the mask
    values): a float, or ``(B,)`` for batches.

    Parameters
    ----------
    a, b : array_like
        Masks ``(H, W)`` or batches ``(B, H, W)`` of the same shape, values in [0, 1].
    threshold : float
        Binarisation level in [0, 1].

    Returns
    -------
    float or numpy.ndarray
        The IoU in [0, 1] (1 when both masks are empty), or ``(B,)`` for batches.

    Raises
    ------
    ValueError, TypeError
        When the shapes differ, values are not finite, or ``threshold`` leaves [0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> a = shapes.rasterize(shapes.regular_polygon(4), 64)
    >>> b = shapes.rasterize(shapes.regular_polygon(4, rotation=np.pi / 4), 64)
    >>> round(float(shapes.iou(a, b)), 3), shapes.iou(np.stack([a, b]), np.stack([a, a]))
    (0.708, array([1.        , 0.70800821]))
    """
    threshold = as_float(threshold, "threshold", low=0.0, high=1.0)
    A = as_array(a, "a", dtype=np.float64, allow_empty=True) >= threshold
    Bm = as_array(b, "b", dtype=np.float64, allow_empty=True) >= threshold
    if A.ndim < 2:
        raise ValueError(f"a: expected a mask (H, W) or a batch (B, H, W), got shape {A.shape}")
    if A.shape != Bm.shape:
        raise ValueError(f"a, b: expected masks of the same shape, got {A.shape} and {Bm.shape}")
    axes = tuple(range(A.ndim - 2, A.ndim))
    inter = np.logical_and(A, Bm).sum(axis=axes)
    union = np.logical_or(A, Bm).sum(axis=axes)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(union > 0, inter / np.maximum(union, 1), 1.0)
    return float(out) if out.ndim == 0 else out
