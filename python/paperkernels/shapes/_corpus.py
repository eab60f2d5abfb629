"""A seeded corpus of synthetic shapes for tests, demos and benchmarks: random primitives combined
by shapely boolean operations, then normalised into the unit disk. Nothing is downloaded."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

from .._optional import optional_import
from .._seed import SeedLike, as_seed
from .._validation import as_choice, as_int
from ._geometry import normalize, regular_polygon, star_polygon

__all__ = ["synthetic_shapes", "PRIMITIVES", "OPERATIONS"]

MAX_CORPUS = 1_000_000
"""Largest corpus synthetic_shapes draws in one call (each shape takes about a millisecond)."""

PRIMITIVES = ("circle", "square", "rectangle", "triangle", "ellipse", "diamond", "sector", "pentagon", "star")
OPERATIONS = ("union", "difference", "intersection", "symmetric_difference")


def _shapely() -> ModuleType:
    shapely = optional_import("shapely", "synthetic_shapes")
    optional_import("shapely.affinity", "synthetic_shapes", extra="shapes")  # submodules used as attributes
    optional_import("shapely.geometry", "synthetic_shapes")
    return shapely


def _primitive(kind: str, rng: np.random.Generator) -> Any:
    shapely = _shapely()
    geometry = shapely.geometry
    if kind == "circle":
        return geometry.Polygon(regular_polygon(48))
    if kind == "square":
        return geometry.Polygon(regular_polygon(4, rotation=np.pi / 4))
    if kind == "rectangle":
        aspect = rng.uniform(0.3, 0.8)
        return geometry.Polygon([(-1, -aspect), (1, -aspect), (1, aspect), (-1, aspect)])
    if kind == "triangle":
        return geometry.Polygon(regular_polygon(3, rotation=np.pi / 2))
    if kind == "ellipse":
        return shapely.affinity.scale(geometry.Polygon(regular_polygon(48)), 1.0, rng.uniform(0.35, 0.8))
    if kind == "diamond":
        return geometry.Polygon([(0, -1), (0.6, 0), (0, 1), (-0.6, 0)])
    if kind == "sector":
        opening = rng.uniform(0.4, 1.6) * np.pi
        arc = np.linspace(0.0, opening, 24)
        return geometry.Polygon([(0.0, 0.0)] + [(np.cos(a), np.sin(a)) for a in arc])
    if kind == "pentagon":
        return geometry.Polygon(regular_polygon(5, rotation=np.pi / 2))
    return geometry.Polygon(star_polygon(int(rng.integers(4, 8)), rng.uniform(0.35, 0.65)))


def _place(shape: Any, rng: np.random.Generator, scale: tuple[float, float], shift: float) -> Any:
    affinity = _shapely().affinity
    shape = affinity.rotate(shape, rng.uniform(0.0, 360.0), origin=(0, 0))
    s = rng.uniform(*scale)
    shape = affinity.scale(shape, s * rng.uniform(0.8, 1.25), s, origin=(0, 0))
    angle, distance = rng.uniform(0, 2 * np.pi), rng.uniform(0.0, shift)
    return affinity.translate(shape, distance * np.cos(angle), distance * np.sin(angle))


def _largest_polygon(geometry: Any) -> Any:
    if geometry.geom_type == "Polygon":
        return geometry
    parts = [g for g in getattr(geometry, "geoms", []) if g.geom_type == "Polygon"]
    return max(parts, key=lambda g: g.area) if parts else None


def synthetic_shapes(
    n: int,
    seed: SeedLike = 0,
    *,
    n_operations: tuple[int, int] = (1, 3),
    primitives: Sequence[str] = PRIMITIVES,
    operations: Sequence[str] = OPERATIONS,
    connected: bool = True,
) -> list[Any]:
    """``n`` random shapely geometries inside the unit disk (normalised with :func:`normalize`).

    Each starts from a random primitive (rotated, scaled, shifted) and undergoes between
    ``n_operations[0]`` and ``n_operations[1]`` boolean operations with further random primitives;
    results that lose more than 80% of their area are rejected and drawn again. Holes appear
    naturally (a partner inside the shape and a difference). With ``connected`` only the largest
    part of a MultiPolygon is kept. The same seed gives the same corpus.

    Parameters
    ----------
    n : int
        Number of shapes, ``>= 1``.
    seed : None, int or numpy.random.Generator
        Seed of the corpus (default 0).
    n_operations : (int, int)
        Smallest and largest number of boolean operations per shape.
    primitives : sequence of str
        Primitive kinds to draw from.
    operations : sequence of str
        Boolean operations to draw from.
    connected : bool
        Keep only the largest part of a MultiPolygon.

    Returns
    -------
    list of shapely.Polygon or shapely.MultiPolygon
        ``n`` valid geometries inside the unit disk.

    Raises
    ------
    ImportError
        When shapely is not installed.
    ValueError, TypeError
        For a bad count, an unknown primitive or operation, or ``n_operations`` out of order.

    Examples
    --------
    >>> from paperkernels import shapes
    >>> corpus = shapes.synthetic_shapes(3, seed=0)
    >>> len(corpus), all(shape.is_valid for shape in corpus)
    (3, True)
    >>> shapes.rasterize(corpus, 32).shape
    (3, 32, 32)
    """
    n = as_int(n, "n", low=1, high=MAX_CORPUS)
    lo, hi = (as_int(v, "n_operations", low=0, high=1000) for v in n_operations)
    if hi < lo:
        raise ValueError(f"n_operations: expected (low, high) with low <= high, got {n_operations}")
    primitives = [as_choice(p, "primitives", PRIMITIVES) for p in primitives]
    operations = [as_choice(o, "operations", OPERATIONS) for o in operations]
    if not primitives or not operations:
        raise ValueError("primitives, operations: expected at least one of each")
    rng = np.random.default_rng(as_seed(seed))
    shapes: list[Any] = []
    while len(shapes) < n:
        current = _place(_primitive(primitives[rng.integers(len(primitives))], rng), rng, (0.6, 1.0), 0.1)
        for _ in range(int(rng.integers(lo, hi + 1))):
            partner = _place(_primitive(primitives[rng.integers(len(primitives))], rng), rng, (0.3, 0.7), 0.8)
            op = operations[rng.integers(len(operations))]
            candidate = getattr(current, op)(partner).buffer(0)
            if connected:
                candidate = _largest_polygon(candidate)
            if candidate is None or candidate.is_empty or candidate.area < 0.2 * current.area:
                continue
            current = candidate
        current = current.buffer(0)
        if connected:
            current = _largest_polygon(current)
        if current is None or current.is_empty or current.area <= 1e-6:
            continue
        shapes.append(normalize(current, input="polygon")[0])
    return shapes
