"""Turning user shapes (masks, polar grids, polygons in several spellings) into the clean arrays the
C++ core expects, with error messages that name the argument."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._limits import check_result_bytes
from .._validation import NON_NUMERIC_KINDS, aligned, as_int, is_real, plain_array, refuse_masked

MAX_ORDER = 200
"""Largest supported order N (the radial recurrences stay accurate to ~1e-15 well beyond)."""

MAX_RADIAL_DEGREE = 100_000
"""Largest n accepted by :func:`radial` (its table holds (n - |m|) / 2 + 1 values per radius)."""

MAX_GAUSS_NODES = 20_000
"""Largest Gauss-Legendre rule (building it costs O(nodes^2))."""

_MASK_DTYPES = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.uint8), np.dtype(np.bool_))
_UNIT_DISK_TOLERANCE = 1e-9


def as_order(N: Any, name: str = "N") -> int:
    return as_int(N, name, low=0, high=MAX_ORDER)


def check_output_bytes(
    shape: tuple[int, ...], name: str, hint: str, *, dtype: Any = np.float64, what: str = "result"
) -> None:
    """Refuse up front an array of ``shape`` and ``dtype`` larger than ``paperkernels.limits.max_result_bytes``."""
    dtype = np.dtype(dtype)
    size = dtype.itemsize
    for extent in shape:
        size *= int(extent)
    dims = tuple(int(e) for e in shape)
    check_result_bytes(size, name, f"the {dtype.name} {what} of shape {dims}", hint)


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    return type(value).__name__


_CHANNELS = (1, 3, 4)


def refuse_images(arr: np.ndarray, name: str, escape: str) -> None:
    """Refuse a 3-d array whose last axis looks like colour channels: ``(H, W, 1)``, ``(H, W, 3)``
    (RGB) or ``(H, W, 4)`` (RGBA) would otherwise be read as H masks only 1, 3 or 4 pixels wide.
    The rule looks at the last two axes only, so any split of a batch gets the same answer."""
    if arr.ndim == 3 and arr.shape[2] in _CHANNELS and arr.shape[1] > 4:
        raise ValueError(
            f"{name}: got shape {arr.shape}, which looks like an image with {arr.shape[2]} colour channel(s) "
            f"(H, W, C), not masks (H, W) or a batch (B, H, W); reduce it to one channel in [0, 1] first "
            f"(e.g. image[..., 0] / 255 or image.mean(axis=-1) / 255). {escape}"
        )


def _looks_transposed(arr: np.ndarray) -> bool:
    """A numeric (2, V) or (B, 2, V) array with negative entries: polygon vertices as columns."""
    return (
        arr.ndim in (2, 3)
        and arr.shape[-2] == 2
        and arr.shape[-1] > 2
        and arr.dtype.kind in "iuf"
        and arr.size > 0
        and bool(arr.min() < 0)
    )


def _transposed_message(name: str, shape: tuple[int, ...]) -> str:
    wanted = "(V, 2)" if len(shape) == 2 else "(B, V, 2)"
    return (
        f"{name}: got shape {shape}, which looks like polygon vertices stored as columns (2, V); "
        f"a polygon is a {wanted} array of (x, y) rows: pass its transpose (polygon.T)"
    )


def as_masks(value: Any, name: str = "masks", *, images: str = "") -> tuple[np.ndarray, bool]:
    """(B, H, W) C-contiguous array of a dtype the core reads, and whether a single mask was given.

    float64, float32, uint8 and bool are passed through without copying (torch CPU tensors and other
    objects with ``__array__`` included); other integer and float types are converted. Values are
    checked against [0, 1] by the core. Masked arrays are refused (their mask would be lost). With
    ``images`` (the hint naming the way around), arrays that look like colour images are refused.
    """
    if value is None:
        raise TypeError(f"{name}: expected an array, got None")
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected masks as an array of numbers in [0, 1], got {type(value).__name__}")
    arr = plain_array(value, name)
    if arr.dtype == object or arr.dtype.kind not in "biuf":
        raise TypeError(f"{name}: expected real numbers in [0, 1], got {_describe(arr)}")
    if arr.ndim not in (2, 3):
        raise ValueError(f"{name}: expected a 2-d mask (H, W) or a 3-d batch (B, H, W), got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty mask, got shape {arr.shape}")
    if images:
        refuse_images(arr, name, images)
    if _looks_transposed(arr):
        raise ValueError(
            f"{name}: got shape {arr.shape} with negative values, which looks like polygon vertices stored as "
            "columns (2, V), not masks (values in [0, 1]); polygons are (V, 2) arrays of (x, y) rows: pass "
            "polygon.T where polygons are read (input='polygon'), or rasterize() it first"
        )
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

    def scaled_rings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(local, shift, origins, exponent)``: every vertex relative to its ring's first vertex
        (``origins``, ``(R, 2)``) and each ring's origin relative to its polygon's (that of the first
        ring, ``shift``), both times ``2**exponent[b]`` for their polygon b (an exact scaling that
        brings the polygon's largest offset, vertex from its ring's origin or ring origin from the
        polygon's, to [0.5, 1)).

        Areas and moments are sums of products of coordinates. About a far-away origin (map
        coordinates of a small footprint) their terms are huge and cancel; at extreme scales (sides
        of 1e-110 or 1e103) the products underflow or overflow although the area and centroid fit.
        About each ring's own vertex, at unit scale, they do neither.
        """
        ring_count = np.diff(self.ring_start)
        poly_of_ring = np.repeat(np.arange(self.count), np.diff(self.poly_start))
        origins = self.vertices[self.ring_start[:-1]]
        local = self.vertices - np.repeat(origins, ring_count, axis=0)
        shift = origins - origins[self.poly_start[:-1]][poly_of_ring]
        with np.errstate(invalid="ignore"):  # infinite offsets: refused by the callers
            reach = np.maximum(np.max(np.abs(local), axis=1), np.repeat(np.max(np.abs(shift), axis=1), ring_count))
            reach = np.maximum.reduceat(np.maximum.reduceat(reach, self.ring_start[:-1]), self.poly_start[:-1])
        _, exponent = np.frexp(np.where(np.isfinite(reach), reach, 1.0))
        exponent = -exponent.astype(np.int64)
        ring_exponent = exponent[poly_of_ring][:, None]
        scaled = np.ldexp(local, np.repeat(ring_exponent, ring_count, axis=0))
        return scaled, np.ldexp(shift, ring_exponent), origins, exponent

    def edge_cross(self, local: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(next, cross)``: the index of each vertex's successor on its (closed) ring and the cross
        product ``x_i y_next - x_next y_i`` of each edge, for vertices ``local``."""
        x, y = local[:, 0], local[:, 1]
        nxt = np.arange(len(x)) + 1
        nxt[self.ring_start[1:] - 1] = self.ring_start[:-1]  # close every ring
        return nxt, x * y[nxt] - x[nxt] * y

    def scaled_signed_ring_areas(self, local: np.ndarray) -> np.ndarray:
        """Signed ring areas (counter-clockwise positive) of the scaled rings of ``scaled_rings``."""
        _, cross = self.edge_cross(local)
        return 0.5 * np.add.reduceat(cross, self.ring_start[:-1]) if len(cross) else np.zeros(0)


def _is_geo(obj: Any) -> bool:
    return hasattr(obj, "__geo_interface__") or isinstance(obj, dict)


def _geo_dict(obj: Any, name: str) -> dict[str, Any]:
    geo = obj.__geo_interface__ if hasattr(obj, "__geo_interface__") else obj
    if not isinstance(geo, dict):
        raise TypeError(f"{name}: expected __geo_interface__ to be a GeoJSON dict, got {type(geo).__name__}")
    return geo


def _coordinate_list(coords: Any, name: str, what: str) -> list[Any]:
    if isinstance(coords, (str, bytes, dict)) or not isinstance(coords, (list, tuple, np.ndarray)):
        raise TypeError(
            f"{name}: expected the 'coordinates' of a GeoJSON {what} as a list, got {type(coords).__name__}"
        )
    return list(coords)


def _geo_parts(obj: Any, name: str, in_feature: bool = False) -> list[list[Any]]:
    geo = _geo_dict(obj, name)
    kind = geo.get("type")
    if kind == "Feature" and not in_feature:
        geometry = geo.get("geometry")
        if geometry is None:
            raise ValueError(f"{name}: expected a GeoJSON Feature with a Polygon or MultiPolygon geometry, got none")
        # A Feature's geometry is a geometry object, never another Feature (RFC 7946, section 3.2):
        # one level only, which also ends self-referencing dicts.
        return _geo_parts(geometry, name, in_feature=True)
    if kind in ("Polygon", "MultiPolygon"):
        if "coordinates" not in geo:
            raise ValueError(f"{name}: expected a GeoJSON {kind} with 'coordinates', got keys {sorted(map(str, geo))}")
        coords = _coordinate_list(geo["coordinates"], name, kind)
        if kind == "Polygon":
            return [coords]
        return [_coordinate_list(part, name, "MultiPolygon part") for part in coords]
    where = "the geometry of a Feature" if in_feature else "a GeoJSON object or __geo_interface__"
    raise ValueError(f"{name}: expected a Polygon or MultiPolygon as {where}, got type {_short(kind)}")


def _short(value: Any) -> str:
    text = repr(value) if isinstance(value, (str, type(None), numbers.Number)) else type(value).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _as_ring(value: Any, name: str) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name}: expected a ring of (x, y) vertices as a (V, 2) array, got {type(value).__name__}")
    raw = plain_array(value, name)
    _check_coordinate_dtype(raw, name)
    if raw.dtype.kind == "O":
        try:  # exact numbers (Fraction, Decimal) and other objects that convert to float
            raw = np.asarray(raw, dtype=np.float64)
        except Exception:
            raise TypeError(f"{name}: expected a ring of (x, y) vertices as a (V, 2) array of real numbers") from None
    if raw.ndim == 2 and raw.shape[0] == 2 and raw.shape[1] > 2:
        raise ValueError(_transposed_message(name, raw.shape))
    if raw.ndim != 2 or raw.shape[1] != 2:
        raise ValueError(f"{name}: expected a ring of (x, y) vertices with shape (V, 2), got shape {raw.shape}")
    return np.asarray(raw, dtype=np.float64)


def _check_coordinate_dtype(arr: np.ndarray, name: str) -> None:
    if arr.dtype.kind in "bc" + NON_NUMERIC_KINDS:
        raise TypeError(
            f"{name}: expected real (x, y) vertex coordinates, got an array of dtype {arr.dtype} (shape {arr.shape})"
        )


def _unbox_objects(value: Any, name: str) -> Any:
    """An object array read as numpy would read it, element by element: a 1-D one is a sequence
    (of polygons or rings), a deeper one holds coordinates, converted to float64 when every element
    is a real number (not a boolean, date or duration). Anything else is returned unchanged."""
    if not (isinstance(value, np.ndarray) and value.dtype == object):
        return value
    if value.ndim == 1:
        return list(value)
    for element in value.flat:
        if not is_real(element) or isinstance(element, (bool, np.bool_)):
            raise TypeError(
                f"{name}: expected real (x, y) vertex coordinates, got an object array holding "
                f"{type(element).__name__} (shape {value.shape})"
            )
    try:
        return value.astype(np.float64)
    except OverflowError:  # Python integers beyond float64
        raise ValueError(f"{name}: expected coordinates within float64, got an integer beyond it") from None


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


def _polygon_parts(obj: Any, name: str) -> list[list[Any]]:
    """One polygon: a list of parts, each a list of rings (outer ring first)."""
    if (
        not isinstance(obj, (np.ndarray, list, tuple, dict, str, bytes))
        and not _is_geo(obj)
        and hasattr(obj, "__array__")
    ):
        obj = plain_array(obj, name)  # torch tensors and other array-likes
    obj = _unbox_objects(obj, name)
    if _is_geo(obj):
        return _geo_parts(obj, name)
    if _looks_like_ring(obj):
        return [[obj]]
    if isinstance(obj, (list, tuple)) and obj and all(_looks_like_ring(r) for r in obj):
        return [list(obj)]
    _explain_not_polygon(obj, name)
    raise TypeError(
        f"{name}: expected a polygon as a (V, 2) array, a list of rings [outer, hole, ...], "
        f"a GeoJSON dict or an object with __geo_interface__, got {_describe(obj)}"
    )


def _explain_not_polygon(obj: Any, name: str) -> None:
    """Raise a precise error for a numeric array that is almost a polygon: vertices stored as
    columns (2, V), or (V, 2) coordinates of a non-real dtype. Returns quietly otherwise."""
    if isinstance(obj, (str, bytes, dict)):
        return
    refuse_masked(obj, name)
    try:
        arr = obj if isinstance(obj, np.ndarray) else np.asarray(obj)
    except Exception:  # ragged, self-referencing or unconvertible: the caller's message applies
        return
    if arr.ndim == 2 and arr.shape[1] == 2:
        _check_coordinate_dtype(arr, name)
    if arr.ndim == 2 and arr.shape[0] == 2 and arr.shape[1] > 2 and arr.dtype.kind in "iuf":
        raise ValueError(_transposed_message(name, arr.shape))


def split_polygons(value: Any, name: str = "polygons") -> tuple[list[list[list[Any]]], bool]:
    """A batch of polygons (each a list of parts of rings) and whether a single polygon was given.

    A single polygon is a (V, 2) array, a GeoJSON dict or a __geo_interface__ object; a (B, V, 2)
    array or a list is a batch whose items are single polygons or lists of rings [outer, hole, ...].
    """
    if value is None:
        raise TypeError(f"{name}: expected polygons, got None")
    if isinstance(value, (str, bytes)):
        raise TypeError(
            f"{name}: expected polygons as arrays, GeoJSON dicts or geometries, got {type(value).__name__}; "
            "parse GeoJSON text with json.loads(text) (or WKT with shapely.from_wkt(text)) first"
        )
    refuse_masked(value, name)
    if not isinstance(value, (np.ndarray, list, tuple, dict)) and not _is_geo(value) and hasattr(value, "__array__"):
        value = plain_array(value, name)  # torch tensors and other array-likes
    value = _unbox_objects(value, name)
    if _is_geo(value) or _looks_like_ring(value):
        return [_polygon_parts(value, name)], True
    if isinstance(value, np.ndarray):
        if value.ndim in (2, 3) and value.shape[-1] == 2:
            _check_coordinate_dtype(value, name)
        if value.ndim == 3 and value.shape[2] == 2:
            if value.shape[0] == 0:
                raise ValueError(f"{name}: expected at least one polygon, got an empty batch of shape {value.shape}")
            return [[[ring]] for ring in value], False
        if value.ndim in (2, 3) and value.shape[-2] == 2 and value.shape[-1] > 2:
            raise ValueError(_transposed_message(name, value.shape))
        raise ValueError(f"{name}: expected a (V, 2) polygon or a (B, V, 2) batch, got shape {value.shape}")
    if isinstance(value, (list, tuple)):
        if not value:
            raise ValueError(f"{name}: expected at least one polygon, got an empty sequence")
        if len(value) == 2 and not any(_is_geo(item) or _looks_like_ring(item) for item in value):
            _explain_not_polygon(value, name)  # [[x0, x1, ...], [y0, y1, ...]]
        return [_polygon_parts(item, f"{name}[{i}]") for i, item in enumerate(value)], False
    raise TypeError(f"{name}: expected a polygon or a sequence of polygons, got {_describe(value)}")


def pack_polygons(batch: Sequence[list[list[Any]]], name: str = "polygons", unit_disk: bool = True) -> PackedPolygons:
    """Validate and pack polygons; rings lose a repeated closing vertex. Raises on non-finite or
    too few vertices, zero area, areas that overflow or underflow float64, and (when unit_disk)
    vertices outside the closed unit disk."""
    if not batch:
        raise ValueError(f"{name}: expected at least one polygon, got none")
    rings: list[np.ndarray] = []
    is_hole: list[bool] = []
    poly_start = [0]
    for b, parts in enumerate(batch):
        if not parts or any(len(part) == 0 for part in parts):
            raise ValueError(f"{name}[{b}]: expected a non-empty polygon, got one without rings (an empty geometry?)")
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
    # Outer rings count positively and holes negatively, whatever their orientation. Areas are
    # computed on the scaled rings (see PackedPolygons.scaled_rings) and scaled back for the checks.
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):  # huge coordinates: refused below
        local, _, _, exponent = packed.scaled_rings()
        raw = packed.scaled_signed_ring_areas(local)
        role = np.where(packed.ring_is_hole, -1.0, 1.0)
        packed.ring_sign = role * np.where(raw < 0, -1.0, 1.0)
        scaled_areas = np.add.reduceat(packed.ring_sign * raw, packed.poly_start[:-1])
        areas = np.ldexp(scaled_areas, -2 * exponent)
        # Each ring's own bounding box (scaled): parts of a polygon far apart do not make it thin.
        ring_lo = np.minimum.reduceat(local, ring_start[:-1])
        ring_hi = np.maximum.reduceat(local, ring_start[:-1])
        boxes = np.add.reduceat(np.prod(ring_hi - ring_lo, axis=1), packed.poly_start[:-1])
        lo = np.minimum.reduceat(np.minimum.reduceat(vertices, ring_start[:-1]), packed.poly_start[:-1])
        hi = np.maximum.reduceat(np.maximum.reduceat(vertices, ring_start[:-1]), packed.poly_start[:-1])
    overflow = np.flatnonzero(~(np.isfinite(areas) & np.isfinite(scaled_areas) & np.isfinite(boxes)))
    if overflow.size:
        b = int(overflow[0])
        reach = float(np.max(np.abs(np.stack([lo[b], hi[b]]))))
        raise ValueError(
            f"{name}[{b}]: expected coordinates whose products fit in float64, got coordinates up to {reach:.3g} "
            "(the polygon's area overflows float64); rescale the coordinates"
        )
    degenerate = np.flatnonzero(~(scaled_areas > 1e-12 * boxes))
    if degenerate.size:
        b = int(degenerate[0])
        raise ValueError(f"{name}[{b}]: expected a polygon of positive area, got area {areas[b]:.3g}")
    underflow = np.flatnonzero(~(areas >= np.finfo(np.float64).tiny))
    if underflow.size:
        b = int(underflow[0])
        reach = float(np.max(np.abs(np.stack([lo[b], hi[b]]))))
        raise ValueError(
            f"{name}[{b}]: expected coordinates whose products fit in float64, got coordinates up to "
            f"{reach:.3g} (the polygon's area underflows float64); rescale the coordinates"
        )
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
