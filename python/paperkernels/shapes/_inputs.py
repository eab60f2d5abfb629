"""Turning user shapes (masks, polar grids, polygons in several spellings) into the clean arrays the
C++ core expects, with error messages that name the argument."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, List, Sequence, Tuple

import numpy as np

from .._validation import aligned, as_int

MAX_ORDER = 200
"""Largest supported order N (the radial recurrences stay accurate to ~1e-15 well beyond)."""

MAX_OUTPUT_BYTES = 2 * 2**30
"""Largest array (bytes) that rasterising, resampling or synthesising may return in one call."""

MAX_RADIAL_DEGREE = 100_000
"""Largest n accepted by :func:`radial` (its table holds (n - |m|) / 2 + 1 values per radius)."""

MAX_GAUSS_NODES = 20_000
"""Largest Gauss-Legendre rule (building it costs O(nodes^2))."""

_MASK_DTYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.bool_))
_UNIT_DISK_TOLERANCE = 1e-9


def as_order(N: Any, name: str = "N") -> int:
    return as_int(N, name, low=0, high=MAX_ORDER)


def check_output_bytes(shape: Tuple[int, ...], name: str, hint: str) -> None:
    """Refuse up front a float64 result of ``shape`` larger than :data:`MAX_OUTPUT_BYTES`."""
    size = 8
    for extent in shape:
        size *= int(extent)
    if size > MAX_OUTPUT_BYTES:
        raise ValueError(
            f"{name}: the float64 result of shape {tuple(int(e) for e in shape)} would take {size / 2**30:.3g} GiB, "
            f"above the limit of {MAX_OUTPUT_BYTES / 2**30:.3g} GiB (paperkernels.shapes._inputs.MAX_OUTPUT_BYTES); {hint}"
        )


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


def as_masks(value: Any, name: str = "masks") -> Tuple[np.ndarray, bool]:
    """(B, H, W) C-contiguous array of a dtype the core reads, and whether a single mask was given.

    float64, float32, uint8 and bool are passed through without copying (torch CPU tensors and other
    objects with ``__array__`` included); other integer and float types are converted. Values are
    checked against [0, 1] by the core.
    """
    if value is None:
        raise TypeError(f"{name}: expected an array, got None")
    try:
        arr = np.asarray(value)
    except Exception as exc:
        raise TypeError(f"{name}: expected an array-like of numbers ({exc})") from None
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers in [0, 1], got {_describe(arr)}")
    if arr.ndim not in (2, 3):
        raise ValueError(f"{name}: expected a 2-d mask (H, W) or a 3-d batch (B, H, W), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty mask, got shape {arr.shape}")
    if arr.dtype not in _MASK_DTYPES:
        arr = arr.astype(np.float32 if arr.dtype == np.float16 else np.float64)
    single = arr.ndim == 2
    if single:
        arr = arr[None]
    return aligned(np.ascontiguousarray(arr)), single


@dataclass
class PackedPolygons:
    """Polygons as flat arrays: ring r spans vertices[ring_start[r]:ring_start[r+1]] and counts
    with ring_sign[r] (outer rings +1, holes -1, times their orientation); polygon b owns rings
    poly_start[b]:poly_start[b+1]."""

    vertices: np.ndarray
    ring_start: np.ndarray
    ring_sign: np.ndarray
    poly_start: np.ndarray
    ring_is_hole: np.ndarray

    @property
    def count(self) -> int:
        return len(self.poly_start) - 1

    def signed_ring_areas(self) -> np.ndarray:
        x, y = self.vertices[:, 0], self.vertices[:, 1]
        nxt = np.arange(len(x)) + 1
        ends = self.ring_start[1:]
        nxt[ends - 1] = self.ring_start[:-1]  # close every ring
        cross = x * y[nxt] - x[nxt] * y
        return 0.5 * np.add.reduceat(cross, self.ring_start[:-1]) if len(cross) else np.zeros(0)

    def areas(self) -> np.ndarray:
        per_ring = self.ring_sign * self.signed_ring_areas()
        return np.add.reduceat(per_ring, self.poly_start[:-1])


def _is_geo(obj: Any) -> bool:
    return hasattr(obj, "__geo_interface__") or isinstance(obj, dict)


def _geo_parts(obj: Any, name: str) -> List[List[Any]]:
    geo = obj.__geo_interface__ if hasattr(obj, "__geo_interface__") else obj
    kind = geo.get("type") if isinstance(geo, dict) else None
    if kind == "Feature":
        return _geo_parts(geo.get("geometry"), name)
    if kind == "Polygon":
        return [list(geo["coordinates"])]
    if kind == "MultiPolygon":
        return [list(part) for part in geo["coordinates"]]
    raise ValueError(f"{name}: expected a Polygon or MultiPolygon (GeoJSON or __geo_interface__), got type {kind!r}")


def _as_ring(value: Any, name: str) -> np.ndarray:
    try:
        ring = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name}: expected a ring of (x, y) vertices as a (V, 2) array") from None
    if ring.ndim != 2 or ring.shape[1] != 2:
        raise ValueError(f"{name}: expected a ring of (x, y) vertices with shape (V, 2), got shape {ring.shape}")
    return ring


def _looks_like_ring(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 2 and value.shape[-1] == 2 and value.dtype.kind in "iuf"
    if isinstance(value, (list, tuple)) and value:
        first = value[0]
        return (
            isinstance(first, (list, tuple, np.ndarray))
            and len(first) == 2
            and all(isinstance(c, numbers.Real) for c in first)
        )
    return False


def _polygon_parts(obj: Any, name: str) -> List[List[Any]]:
    """One polygon: a list of parts, each a list of rings (outer ring first)."""
    if _is_geo(obj):
        return _geo_parts(obj, name)
    if _looks_like_ring(obj):
        return [[obj]]
    if isinstance(obj, (list, tuple)) and obj and all(_looks_like_ring(r) for r in obj):
        return [list(obj)]
    raise TypeError(
        f"{name}: expected a polygon as a (V, 2) array, a list of rings [outer, hole, ...], "
        f"a GeoJSON dict or an object with __geo_interface__, got {_describe(obj)}"
    )


def split_polygons(value: Any, name: str = "polygons") -> Tuple[List[List[List[Any]]], bool]:
    """A batch of polygons (each a list of parts of rings) and whether a single polygon was given.

    A single polygon is a (V, 2) array, a GeoJSON dict or a __geo_interface__ object; a (B, V, 2)
    array or a list is a batch whose items are single polygons or lists of rings [outer, hole, ...].
    """
    if value is None:
        raise TypeError(f"{name}: expected polygons, got None")
    if _is_geo(value) or _looks_like_ring(value):
        return [_polygon_parts(value, name)], True
    if isinstance(value, np.ndarray):
        if value.ndim == 3 and value.shape[2] == 2:
            return [[[ring]] for ring in value], False
        raise ValueError(f"{name}: expected a (V, 2) polygon or a (B, V, 2) batch, got shape {value.shape}")
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{name}: expected at least one polygon, got an empty sequence")
        return [_polygon_parts(item, f"{name}[{i}]") for i, item in enumerate(value)], False
    raise TypeError(f"{name}: expected a polygon or a sequence of polygons, got {_describe(value)}")


def pack_polygons(batch: Sequence[List[List[Any]]], name: str = "polygons", unit_disk: bool = True) -> PackedPolygons:
    """Validate and pack polygons; rings lose a repeated closing vertex. Raises on non-finite or
    too few vertices, zero area, and (when unit_disk) vertices outside the closed unit disk."""
    rings: List[np.ndarray] = []
    is_hole: List[bool] = []
    poly_start = [0]
    for b, parts in enumerate(batch):
        if not parts:
            raise ValueError(f"{name}[{b}]: expected a non-empty polygon")
        for p, part in enumerate(parts):
            for r, raw in enumerate(part):
                ring = _as_ring(raw, f"{name}[{b}]")
                if len(ring) > 1 and np.array_equal(ring[0], ring[-1]):
                    ring = ring[:-1]
                if len(ring) < 3:
                    raise ValueError(
                        f"{name}[{b}]: expected rings of at least 3 distinct vertices, "
                        f"got {len(ring)} in ring {r} of part {p}"
                    )
                rings.append(ring)
                is_hole.append(r > 0)
        poly_start.append(len(rings))
    vertices = np.ascontiguousarray(np.concatenate(rings))
    ring_start = np.concatenate([[0], np.cumsum([len(r) for r in rings])]).astype(np.int64)
    poly_of_ring = np.repeat(np.arange(len(batch)), np.diff(poly_start))
    finite = np.logical_and.reduceat(np.isfinite(vertices).all(axis=1), ring_start[:-1])
    if not finite.all():
        raise ValueError(f"{name}[{poly_of_ring[np.argmin(finite)]}]: expected finite vertices, got NaN or infinity")
    packed = PackedPolygons(
        vertices=vertices,
        ring_start=ring_start,
        ring_sign=np.ones(len(rings)),
        poly_start=np.asarray(poly_start, dtype=np.int64),
        ring_is_hole=np.asarray(is_hole),
    )
    # Outer rings count positively and holes negatively, whatever their orientation.
    raw = packed.signed_ring_areas()
    role = np.where(packed.ring_is_hole, -1.0, 1.0)
    packed.ring_sign = role * np.where(raw < 0, -1.0, 1.0)
    areas = packed.areas()
    lo = np.minimum.reduceat(np.minimum.reduceat(vertices, ring_start[:-1]), packed.poly_start[:-1])
    hi = np.maximum.reduceat(np.maximum.reduceat(vertices, ring_start[:-1]), packed.poly_start[:-1])
    box = np.prod(hi - lo, axis=1)
    degenerate = np.flatnonzero(~(areas > 1e-12 * box))
    if degenerate.size:
        b = int(degenerate[0])
        raise ValueError(f"{name}[{b}]: expected a polygon of positive area, got area {areas[b]:.3g}")
    if unit_disk:
        radius = np.hypot(vertices[:, 0], vertices[:, 1])
        per_ring = np.maximum.reduceat(radius, ring_start[:-1])
        per_poly = np.maximum.reduceat(per_ring, packed.poly_start[:-1])
        outside = np.flatnonzero(per_poly > 1.0 + _UNIT_DISK_TOLERANCE)
        if outside.size:
            b = int(outside[0])
            raise ValueError(
                f"{name}[{b}]: expected vertices in the closed unit disk, got radius {per_poly[b]:.6g}; "
                "map the shape into the disk first with normalize()"
            )
    return packed
