"""Exact joint activation-region enumeration of several networks, on a box or on all of R^n.

Every region is a polyhedron kept in homogenised generator form: a point ``x`` is the generator
``(x, 1)`` and a ray ``r`` (an unbounded direction) is ``(r, 0)``, so the region is the cone they
span intersected with ``t = 1``. Each generator carries the complete set of constraints tight at it.
A region is split by one neuron's hyperplane at a time with the double-description step; adjacency
of two generators is decided combinatorially (no third generator is tight on all their common
constraints), so everything is exact rational arithmetic without linear programming.
Lower-dimensional pieces are never created: a neuron splits a region only when its pre-activation
takes both signs on the generators.

All of R^n is covered by the n + 1 pointed cones of a simplicial fan (apex 0, rays ``e_1..e_n`` and
``-(e_1 + ... + e_n)``): every cone is a polyhedron without lines, so the generator form applies.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

ZERO = Fraction(0)
ONE = Fraction(1)
AT_INFINITY = -1  # the constraint t >= 0 of the homogenised cone: tight exactly at the rays

# Generators and constraints are integer vectors: a generator (x, t) may be scaled by any positive
# number and a constraint a.x + c t >= 0 too, so both are kept primitive (coprime integers), and
# every sign test is an integer dot product.
Generator = Tuple[Tuple[int, ...], frozenset]


class RegionBudgetExceeded(RuntimeError):
    """More joint regions than the budget allows."""


class RegionTimeLimit(RuntimeError):
    """The time limit ran out during the enumeration."""


def _primitive(v: Sequence[int]) -> Tuple[int, ...]:
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return tuple(x // g for x in v) if g > 1 else tuple(v)


def integer_row(a: Sequence[Fraction], c: Fraction) -> Tuple[int, ...]:
    """The constraint a.x + c >= 0 as a primitive integer vector (a, c) (a positive multiple)."""
    d = 1
    for v in list(a) + [c]:
        d = math.lcm(d, Fraction(v).denominator)
    return _primitive([int(Fraction(v) * d) for v in list(a) + [c]])


def integer_point(x: Sequence[Fraction]) -> Tuple[int, ...]:
    """The homogenised generator (x, 1) of a point as a primitive integer vector."""
    d = 1
    for v in x:
        d = math.lcm(d, Fraction(v).denominator)
    return _primitive([int(Fraction(v) * d) for v in x] + [d])


def _value(row: Sequence[int], g: Sequence[int]) -> int:
    s = 0
    for ai, xi in zip(row, g):
        if ai and xi:
            s += ai * xi
    return s


def _tight(cid: int, g, constraints: Dict[int, Tuple[int, ...]]) -> bool:
    if cid == AT_INFINITY:
        return g[-1] == 0
    return _value(constraints[cid], g) == 0


def _root(generators, rows, counter, constraints: dict) -> List[Generator]:
    ids = []
    for row in rows:
        cid = next(counter)
        constraints[cid] = row
        ids.append(cid)
    ids.append(AT_INFINITY)
    return [(g, frozenset(k for k in ids if _tight(k, g, constraints))) for g in generators]


def box_roots(lo: Sequence[Fraction], hi: Sequence[Fraction], counter, constraints: dict) -> List[List[Generator]]:
    """The box [lo, hi] as one polytope (its 2^n vertices)."""
    n = len(lo)
    rows = []
    for j in range(n):
        e = [ZERO] * n
        e[j] = ONE
        rows.append(integer_row(e, -Fraction(lo[j])))
        rows.append(integer_row([-v for v in e], Fraction(hi[j])))
    vertices = [integer_point([hi[j] if bit else lo[j] for j, bit in enumerate(corner)])
                for corner in itertools.product((0, 1), repeat=n)]
    return [_root(vertices, rows, counter, constraints)]


def space_roots(n: int, counter, constraints: dict):
    """R^n as the n + 1 cones of the fan spanned by e_1..e_n and -(e_1 + ... + e_n), built lazily
    (one callable per cone) with their tight sets written down directly (O(n^2) per cone)."""
    def unit(j, sign=1):
        g = [0] * (n + 1)
        g[j] = sign
        return tuple(g)

    apex = tuple([0] * n + [1])
    minus_one = tuple([-1] * n + [0])

    def orthant():
        ids = []
        for j in range(n):
            cid = next(counter)
            constraints[cid] = unit(j)  # x_j >= 0
            ids.append(cid)
        every = frozenset(ids)
        return [(apex, every)] + [(unit(j), (every - {ids[j]}) | {AT_INFINITY}) for j in range(n)]

    def cone(k):  # without e_k: x = sum_{i != k} l_i e_i + l (-1), l = -x_k, l_i = x_i - x_k
        ids = {}
        cid = next(counter)
        constraints[cid] = unit(k, -1)  # -x_k >= 0
        ids[k] = cid
        for i in range(n):
            if i != k:
                a = [0] * (n + 1)
                a[i], a[k] = 1, -1
                cid = next(counter)
                constraints[cid] = tuple(a)  # x_i - x_k >= 0
                ids[i] = cid
        every = frozenset(ids.values())
        gens = [(apex, every)]
        gens += [(unit(i), (every - {ids[i]}) | {AT_INFINITY}) for i in range(n) if i != k]
        gens.append((minus_one, (every - {ids[k]}) | {AT_INFINITY}))
        return gens

    return [orthant] + [lambda k=k: cone(k) for k in range(n)]


def split(gens: List[Generator], row: Tuple[int, ...], values: List[int], new_id: int,
          constraints: dict, deadline: Optional[float] = None) -> Tuple[List[Generator], List[Generator]]:
    """Cut a region by the hyperplane ``row`` . (x, 1) = 0; returns the generator lists of the >= 0
    and <= 0 parts."""
    constraints[new_id] = row
    region_ids = frozenset().union(*(t for _, t in gens))
    n = len(gens[0][0]) - 1
    pos = [i for i, v in enumerate(values) if v > 0]
    neg = [i for i, v in enumerate(values) if v < 0]
    zero = [i for i, v in enumerate(values) if v == 0]
    tights = [t for _, t in gens]
    fresh: List[Generator] = []
    for i in pos:
        if deadline is not None and time.monotonic() > deadline:
            raise RegionTimeLimit("time limit reached during the region enumeration")
        for j in neg:
            common = tights[i] & tights[j]
            if len(common) < n - 1:  # adjacent extreme rays of a cone in R^{n+1} share n - 1 facets
                continue
            if any(k != i and k != j and common <= tights[k] for k in range(len(gens))):
                continue
            gi, gj = gens[i][0], gens[j][0]
            vi, vj = values[i], -values[j]
            point = _primitive([vi * q + vj * p for p, q in zip(gi, gj)])
            tight = frozenset(k for k in region_ids if k in common or _tight(k, point, constraints)) | {new_id}
            fresh.append((point, tight))
    on = [(gens[i][0], gens[i][1] | {new_id}) for i in zero]
    upper = [gens[i] for i in pos] + on + fresh
    lower = [gens[i] for i in neg] + on + fresh
    return upper, lower


@dataclass
class Leaf:
    generators: List[Generator]
    integer_maps: List[Tuple[np.ndarray, int]]  # per network: output = N[:, :-1] x + N[:, -1], over den

    @property
    def maps(self) -> List[Tuple[np.ndarray, np.ndarray]]:
        """Per network, (M, m) with output = M x + m on the region (object arrays of Fractions)."""
        out = []
        for N, den in self.integer_maps:
            F = np.empty(N.shape, dtype=object)
            for idx, v in np.ndenumerate(N):
                F[idx] = Fraction(v, den)
            out.append((F[:, :-1], F[:, -1]))
        return out

    @property
    def vertices(self) -> List[Tuple[Fraction, ...]]:
        return [tuple(Fraction(v, g[-1]) for v in g[:-1]) for g, _ in self.generators if g[-1]]

    @property
    def rays(self) -> List[Tuple[Fraction, ...]]:
        return [tuple(Fraction(v) for v in g[:-1]) for g, _ in self.generators if not g[-1]]

    def interior_point(self) -> Tuple[Fraction, ...]:
        """The mean of the vertices plus the sum of the rays (a relative interior point)."""
        verts, rays = self.vertices, self.rays
        n = len(self.generators[0][0]) - 1
        p = [sum((v[q] for v in verts), ZERO) / len(verts) for q in range(n)]
        for r in rays:
            p = [x + y for x, y in zip(p, r)]
        return tuple(p)


def _integer_layers(layers):
    """Each (W, b) of Fractions as (N, d, B, e) with W = N / d and b = B / e (Python-int object arrays)."""
    out = []
    for W, b in layers:
        parts = []
        for a in (W, b):
            d = 1
            for v in a.flat:
                d = math.lcm(d, Fraction(v).denominator)
            N = np.empty(a.shape, dtype=object)
            for idx, v in np.ndenumerate(a):
                v = Fraction(v)
                N[idx] = v.numerator * (d // v.denominator)
            parts += [N, d]
        out.append(tuple(parts))
    return out


def _compose(layer, A: np.ndarray, den: int) -> Tuple[np.ndarray, int]:
    """Pre-activations W (A / den)[:, :-1] x + W (A / den)[:, -1] + b as an integer augmented matrix
    over one denominator (both reduced by their gcd)."""
    N, d, B, e = layer
    P = np.dot(N, A) * e
    P[:, -1] = P[:, -1] + B * (d * den)
    new_den = d * den * e
    g = new_den
    for v in P.flat:
        if g == 1:
            break
        g = math.gcd(g, v)
    if g > 1:
        P = P // g
        new_den //= g
    return P, new_den


def enumerate_regions(layers_per_net, lo=None, hi=None, *, n_inputs: Optional[int] = None,
                      max_regions: int = 20000, deadline: Optional[float] = None,
                      on_leaf: Optional[Callable[[Leaf], bool]] = None) -> int:
    """Depth-first enumeration of the joint linear regions of several networks.

    On the box ``[lo, hi]``, or on all of R^n (``lo = hi = None``, ``n_inputs = n``).
    ``layers_per_net``: for each network, its list of (W, b) Fraction arrays. ``on_leaf(leaf)`` is
    called for each full-dimensional region; returning True stops the enumeration. Returns the number
    of leaves visited. Raises RegionBudgetExceeded past ``max_regions`` leaves and RegionTimeLimit
    once ``time.monotonic()`` passes ``deadline``.
    """
    counter = itertools.count(0)
    constraints: dict = {}
    if lo is None:
        n0 = int(n_inputs)
        roots = space_roots(n0, counter, constraints)
    else:
        n0 = len(lo)
        roots = box_roots(lo, hi, counter, constraints)
    int_layers = [_integer_layers(layers) for layers in layers_per_net]
    identity = np.zeros((n0, n0 + 1), dtype=object)
    for i in range(n0):
        identity[i, i] = 1
    leaves = 0
    steps = 0
    start_maps = [(identity, 1) for _ in layers_per_net]
    # A task: (generators, net index, layer index, neuron index, per-net z maps, current pre map, acts)
    stack = [(root, 0, 0, 0, start_maps, None, []) for root in reversed(roots)]
    while stack:
        steps += 1
        if deadline is not None and steps % 16 == 0 and time.monotonic() > deadline:
            raise RegionTimeLimit("time limit reached during the region enumeration")
        gens, n, l, j, zmaps, pre_map, acts = stack.pop()
        if callable(gens):  # a cone of the fan, built when first visited
            gens = gens()
        if n == len(int_layers):
            leaves += 1
            if leaves > max_regions:
                raise RegionBudgetExceeded(f"more than {max_regions} regions")
            if on_leaf is not None and on_leaf(Leaf(gens, zmaps)):
                return leaves
            continue
        layers = int_layers[n]
        if pre_map is None:
            P, den = _compose(layers[l], *zmaps[n])
            if l == len(layers) - 1:  # affine output layer
                new_maps = list(zmaps)
                new_maps[n] = (P, den)
                stack.append((gens, n + 1, 0, 0, new_maps, None, []))
                continue
            pre_map = (P, den)
        P, den = pre_map
        if j == P.shape[0]:
            Z = P.copy()
            for q, active in enumerate(acts):
                if not active:
                    Z[q] = 0
            new_maps = list(zmaps)
            new_maps[n] = (Z, den)
            stack.append((gens, n, l + 1, 0, new_maps, None, []))
            continue
        row = _primitive(list(P[j])) if any(P[j]) else tuple(P[j])
        values = [_value(row, g) for g, _ in gens]
        if all(v >= 0 for v in values):
            stack.append((gens, n, l, j + 1, zmaps, pre_map, acts + [True]))
        elif all(v <= 0 for v in values):
            stack.append((gens, n, l, j + 1, zmaps, pre_map, acts + [False]))
        else:
            upper, lower = split(gens, row, values, next(counter), constraints, deadline)
            stack.append((lower, n, l, j + 1, zmaps, pre_map, acts + [False]))
            stack.append((upper, n, l, j + 1, zmaps, pre_map, acts + [True]))
    return leaves
