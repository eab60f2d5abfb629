"""Exact joint activation-region enumeration of several networks on a box.

Regions are kept in vertex representation (each vertex with the set of constraints tight at it) and
split by one neuron's hyperplane at a time with the double-description step; adjacency of two
vertices is decided combinatorially (no third vertex is tight on all their common constraints), so
everything is exact rational arithmetic without linear programming. Lower-dimensional pieces are never
created: a neuron splits a region only when its pre-activation takes both signs at the vertices.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple

import numpy as np

ZERO = Fraction(0)

Vertex = Tuple[Tuple[Fraction, ...], frozenset]


class RegionBudgetExceeded(RuntimeError):
    pass


def box_vertices(lo: Sequence[Fraction], hi: Sequence[Fraction]) -> List[Vertex]:
    n = len(lo)
    out = []
    for corner in itertools.product((0, 1), repeat=n):
        point = tuple(hi[j] if c else lo[j] for j, c in enumerate(corner))
        tight = frozenset(2 * j + c for j, c in enumerate(corner))
        out.append((point, tight))
    return out


def _affine_value(a: Sequence[Fraction], c: Fraction, x: Sequence[Fraction]) -> Fraction:
    s = c
    for ai, xi in zip(a, x):
        if ai:
            s += ai * xi
    return s


def _is_tight(cid: int, point, constraints, lo, hi) -> bool:
    if cid < 2 * len(lo):
        j, upper = divmod(cid, 2)
        return point[j] == (hi[j] if upper else lo[j])
    a, c = constraints[cid]
    return _affine_value(a, c, point) == 0


def split(vertices: List[Vertex], a, c, values: List[Fraction], new_id: int, constraints: dict,
          lo, hi) -> Tuple[List[Vertex], List[Vertex]]:
    """Cut a polytope by a.x + c = 0; returns the vertex lists of the >= 0 and <= 0 parts.

    Every vertex carries the complete set of constraints tight at it (needed by the adjacency test).
    """
    constraints[new_id] = (a, c)
    region_ids = frozenset().union(*(t for _, t in vertices)) | {new_id}
    pos = [i for i, v in enumerate(values) if v > 0]
    neg = [i for i, v in enumerate(values) if v < 0]
    zero = [i for i, v in enumerate(values) if v == 0]
    fresh: List[Vertex] = []
    tights = [t for _, t in vertices]
    for i in pos:
        for j in neg:
            common = tights[i] & tights[j]
            if any(k != i and k != j and common <= tights[k] for k in range(len(vertices))):
                continue
            xi, xj = vertices[i][0], vertices[j][0]
            lam = values[i] / (values[i] - values[j])
            point = tuple(p + lam * (q - p) for p, q in zip(xi, xj))
            tight = frozenset(k for k in region_ids if k in common or k == new_id
                              or _is_tight(k, point, constraints, lo, hi))
            fresh.append((point, tight))
    on = [(vertices[i][0], vertices[i][1] | {new_id}) for i in zero]
    upper = [vertices[i] for i in pos] + on + fresh
    lower = [vertices[i] for i in neg] + on + fresh
    return upper, lower


@dataclass
class Leaf:
    vertices: List[Vertex]
    maps: List[Tuple[np.ndarray, np.ndarray]]  # per network: output = M x + m on the region
    pre: List[List[Tuple[np.ndarray, Fraction, bool]]]  # per network: every neuron's (a, c, active)


def enumerate_regions(layers_per_net, lo, hi, *, max_regions: int = 20000,
                      on_leaf: Optional[Callable[[Leaf], bool]] = None) -> int:
    """Depth-first enumeration of the joint linear regions of several networks on the box [lo, hi].

    ``layers_per_net``: for each network, its list of (W, b) Fraction arrays. ``on_leaf(leaf)`` is
    called for each full-dimensional region; returning True stops the enumeration. Returns the number
    of leaves visited. Raises RegionBudgetExceeded past ``max_regions`` leaves.
    """
    n0 = len(lo)
    counter = itertools.count(2 * n0)
    constraints: dict = {}
    eye = np.empty((n0, n0), dtype=object)
    for i in range(n0):
        for j in range(n0):
            eye[i, j] = Fraction(int(i == j))
    zero_vec = np.array([ZERO] * n0, dtype=object)
    leaves = 0
    # A task: (vertices, net index, layer index, neuron index, per-net z maps, current pre maps, acts, pre log)
    start_maps = [(eye, zero_vec.copy()) for _ in layers_per_net]
    stack = [(box_vertices(lo, hi), 0, 0, 0, start_maps, None, [], [[] for _ in layers_per_net])]
    while stack:
        vertices, n, l, j, zmaps, pre_map, acts, log = stack.pop()
        if n == len(layers_per_net):
            leaves += 1
            if leaves > max_regions:
                raise RegionBudgetExceeded(f"more than {max_regions} regions")
            if on_leaf is not None and on_leaf(Leaf(vertices, zmaps, log)):
                return leaves
            continue
        layers = layers_per_net[n]
        M, m = zmaps[n]
        if pre_map is None:
            W, b = layers[l]
            P = np.dot(W, M)
            p = np.dot(W, m) + b
            if l == len(layers) - 1:  # affine output layer
                new_maps = list(zmaps)
                new_maps[n] = (P, p)
                stack.append((vertices, n + 1, 0, 0, new_maps, None, [], log))
                continue
            pre_map = (P, p)
        P, p = pre_map
        if j == P.shape[0]:
            act = np.array(acts, dtype=bool)
            Z = P.copy()
            z = p.copy()
            Z[~act] = ZERO
            z[~act] = ZERO
            new_maps = list(zmaps)
            new_maps[n] = (Z, z)
            stack.append((vertices, n, l + 1, 0, new_maps, None, [], log))
            continue
        a, c = P[j], p[j]
        values = [_affine_value(a, c, x) for x, _ in vertices]
        if all(v >= 0 for v in values):
            stack.append((vertices, n, l, j + 1, zmaps, pre_map, acts + [True], _logged(log, n, a, c, True)))
        elif all(v <= 0 for v in values):
            stack.append((vertices, n, l, j + 1, zmaps, pre_map, acts + [False], _logged(log, n, a, c, False)))
        else:
            upper, lower = split(vertices, a, c, values, next(counter), constraints, lo, hi)
            stack.append((lower, n, l, j + 1, zmaps, pre_map, acts + [False], _logged(log, n, a, c, False)))
            stack.append((upper, n, l, j + 1, zmaps, pre_map, acts + [True], _logged(log, n, a, c, True)))
    return leaves


def _logged(log, n, a, c, active):
    out = list(log)
    out[n] = log[n] + [(a, c, active)]
    return out
