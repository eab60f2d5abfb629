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

import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from . import _rational as rat

ZERO = Fraction(0)
ONE = Fraction(1)
AT_INFINITY = 1  # bit 0: the constraint t >= 0 of the homogenised cone, tight exactly at the rays

# Generators and constraints are integer vectors: a generator (x, t) may be scaled by any positive
# number and a constraint a.x + c t >= 0 too, so both are kept primitive (coprime integers), and
# every sign test is an integer dot product. The constraints tight at a generator are a bitmask
# (Python int): bit 0 is t >= 0, then the region's root constraints, then one bit per neuron (a
# neuron splits a region at most once along a path, so the bit is unique on the path; the rows of
# a path's constraints travel with its regions).
Generator = tuple[tuple[int, ...], int]
IntegerLayer = tuple[np.ndarray, int, np.ndarray, int]  # W = N / d, b = B / e
Rows = dict[int, tuple[int, ...]]  # constraint rows by bit
Root = Callable[[], tuple[list[Generator], Rows]]  # one polyhedron, built when first visited


class RegionBudgetExceeded(RuntimeError):
    """More joint regions than the budget allows."""


class RegionTimeLimit(RuntimeError):
    """The time limit ran out during the enumeration."""


def _primitive(v: Sequence[int]) -> tuple[int, ...]:
    g = 0
    for x in v:
        g = math.gcd(g, x)
    return tuple(x // g for x in v) if g > 1 else tuple(v)


def integer_row(a: Sequence[Fraction], c: Fraction) -> tuple[int, ...]:
    """The constraint a.x + c >= 0 as a primitive integer vector (a, c) (a positive multiple)."""
    d = 1
    for v in list(a) + [c]:
        d = math.lcm(d, Fraction(v).denominator)
    return _primitive([int(Fraction(v) * d) for v in list(a) + [c]])


def integer_point(x: Sequence[Fraction]) -> tuple[int, ...]:
    """The homogenised generator (x, 1) of a point as a primitive integer vector."""
    d = 1
    for v in x:
        d = math.lcm(d, Fraction(v).denominator)
    return _primitive([int(Fraction(v) * d) for v in x] + [d])


def _value(row: Sequence[int], g: Sequence[int]) -> int:
    s = 0
    for ai, xi in zip(row, g, strict=False):
        if ai and xi:
            s += ai * xi
    return s


def box_roots(lo: Sequence[Fraction], hi: Sequence[Fraction]) -> tuple[list[Root], int]:
    """The box [lo, hi] as one polytope (its 2^n vertices): [(generators, rows)], rows by bit."""
    n = len(lo)
    rows: Rows = {}
    for j in range(n):
        e = [ZERO] * n
        e[j] = ONE
        rows[1 << (1 + 2 * j)] = integer_row(e, -Fraction(lo[j]))
        rows[1 << (2 + 2 * j)] = integer_row([-v for v in e], Fraction(hi[j]))
    gens: list[Generator] = []
    for corner in itertools.product((0, 1), repeat=n):
        g = integer_point([hi[j] if bit else lo[j] for j, bit in enumerate(corner)])
        mask = 0
        for j, bit in enumerate(corner):
            mask |= 1 << (2 + 2 * j) if bit else 1 << (1 + 2 * j)
        gens.append((g, mask))
    return [lambda: (gens, rows)], 2 * n


def space_roots(n: int) -> tuple[list[Root], int]:
    """R^n as the n + 1 cones of the fan spanned by e_1..e_n and -(e_1 + ... + e_n), built lazily
    (one callable per cone) with their tight sets written down directly."""

    def unit(j: int, sign: int = 1) -> tuple[int, ...]:
        g = [0] * (n + 1)
        g[j] = sign
        return tuple(g)

    apex = tuple([0] * n + [1])
    minus_one = tuple([-1] * n + [0])
    every = sum(1 << (1 + i) for i in range(n))

    def orthant() -> tuple[list[Generator], Rows]:
        rows = {1 << (1 + j): unit(j) for j in range(n)}  # x_j >= 0
        return [(apex, every)] + [(unit(j), (every & ~(1 << (1 + j))) | AT_INFINITY) for j in range(n)], rows

    def cone(
        k: int,
    ) -> tuple[list[Generator], Rows]:  # without e_k: x = sum_{i != k} l_i e_i + l (-1), l = -x_k, l_i = x_i - x_k
        rows: Rows = {1 << (1 + k): unit(k, -1)}  # -x_k >= 0
        for i in range(n):
            if i != k:
                a = [0] * (n + 1)
                a[i], a[k] = 1, -1
                rows[1 << (1 + i)] = tuple(a)  # x_i - x_k >= 0
        gens: list[Generator] = [(apex, every)]
        gens += [(unit(i), (every & ~(1 << (1 + i))) | AT_INFINITY) for i in range(n) if i != k]
        gens.append((minus_one, (every & ~(1 << (1 + k))) | AT_INFINITY))
        return gens, rows

    return [orthant] + [functools.partial(cone, k) for k in range(n)], n


def split(
    gens: list[Generator], row: tuple[int, ...], values: list[int], bit: int, rows: Rows, deadline: float | None = None
) -> tuple[list[Generator], list[Generator], Rows]:
    """Cut a region by the hyperplane ``row`` . (x, 1) = 0 (constraint ``bit``); returns the
    generator lists of the >= 0 and <= 0 parts and the constraint rows of both."""
    rows = dict(rows)
    rows[bit] = row
    region = 0
    for _, t in gens:
        region |= t
    n = len(gens[0][0]) - 1
    pos = [i for i, v in enumerate(values) if v > 0]
    neg = [i for i, v in enumerate(values) if v < 0]
    zero = [i for i, v in enumerate(values) if v == 0]
    tights = [t for _, t in gens]
    fresh: list[Generator] = []
    for i in pos:
        if deadline is not None and time.monotonic() > deadline:
            raise RegionTimeLimit("time limit reached during the region enumeration")
        ti = tights[i]
        for j in neg:
            common = ti & tights[j]
            if common.bit_count() < n - 1:  # adjacent extreme rays of a cone in R^{n+1} share n - 1 facets
                continue
            holders = 0  # generators tight on all the common constraints (i and j are two of them)
            for t in tights:
                if t & common == common:
                    holders += 1
                    if holders > 2:
                        break
            if holders > 2:
                continue
            gi, gj = gens[i][0], gens[j][0]
            vi, vj = values[i], -values[j]
            point = _primitive([vi * q + vj * p for p, q in zip(gi, gj, strict=False)])
            tight = common | bit
            rest = region & ~common
            while rest:
                low = rest & -rest
                rest ^= low
                if low == AT_INFINITY:
                    if point[-1] == 0:
                        tight |= low
                elif _value(rows[low], point) == 0:
                    tight |= low
            fresh.append((point, tight))
    on = [(gens[i][0], gens[i][1] | bit) for i in zero]
    upper = [gens[i] for i in pos] + on + fresh
    lower = [gens[i] for i in neg] + on + fresh
    return upper, lower, rows


@dataclass
class Leaf:
    generators: list[Generator]
    integer_maps: list[tuple[np.ndarray, int]]  # per network: output = N[:, :-1] x + N[:, -1], over den

    @property
    def maps(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per network, (M, m) with output = M x + m on the region (object arrays of Fractions)."""
        out = []
        for N, den in self.integer_maps:
            F = np.empty(N.shape, dtype=object)
            for idx, v in np.ndenumerate(N):
                F[idx] = Fraction(v, den)
            out.append((F[:, :-1], F[:, -1]))
        return out

    @property
    def vertices(self) -> list[tuple[Fraction, ...]]:
        return [tuple(Fraction(v, g[-1]) for v in g[:-1]) for g, _ in self.generators if g[-1]]

    @property
    def rays(self) -> list[tuple[Fraction, ...]]:
        return [tuple(Fraction(v) for v in g[:-1]) for g, _ in self.generators if not g[-1]]

    def interior_point(self) -> tuple[Fraction, ...]:
        """The mean of the vertices plus the sum of the rays (a relative interior point)."""
        verts, rays = self.vertices, self.rays
        n = len(self.generators[0][0]) - 1
        p = [sum((v[q] for v in verts), ZERO) / len(verts) for q in range(n)]
        for r in rays:
            p = [x + y for x, y in zip(p, r, strict=False)]
        return tuple(p)


def _integer_layers(layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[IntegerLayer]:
    """Each (W, b) of Fractions as (N, d, B, e) with W = N / d and b = B / e (Python-int object arrays)."""
    return [rat.integer_matrix(W) + rat.integer_matrix(b) for W, b in layers]


def _compose(layer: IntegerLayer, A: np.ndarray, den: int) -> tuple[np.ndarray, int]:
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


def enumerate_regions(
    layers_per_net: Sequence[Sequence[tuple[np.ndarray, np.ndarray]]],
    lo: Sequence[Fraction] | None = None,
    hi: Sequence[Fraction] | None = None,
    *,
    n_inputs: int | None = None,
    max_regions: int = 20000,
    deadline: float | None = None,
    on_leaf: Callable[[Leaf], bool] | None = None,
) -> int:
    """Depth-first enumeration of the joint linear regions of several networks.

    On the box ``[lo, hi]``, or on all of R^n (``lo = hi = None``, ``n_inputs = n``).
    ``layers_per_net``: for each network, its list of (W, b) Fraction arrays. ``on_leaf(leaf)`` is
    called for each full-dimensional region; returning True stops the enumeration. Returns the number
    of leaves visited. Raises RegionBudgetExceeded past ``max_regions`` leaves and RegionTimeLimit
    once ``time.monotonic()`` passes ``deadline``.
    """
    if lo is None or hi is None:
        assert n_inputs is not None
        n0 = n_inputs
        roots, n_root = space_roots(n0)
    else:
        n0 = len(lo)
        roots, n_root = box_roots(lo, hi)
    int_layers = [_integer_layers(layers) for layers in layers_per_net]
    first_bit: list[list[int]] = []  # per network and hidden layer: the bit of its neuron 0
    position = 1 + n_root
    for layers in int_layers:
        first_bit.append([])
        for layer in layers[:-1]:
            first_bit[-1].append(position)
            position += layer[0].shape[0]
    identity = np.zeros((n0, n0 + 1), dtype=object)
    for i in range(n0):
        identity[i, i] = 1
    leaves = 0
    steps = 0
    start_maps = [(identity, 1) for _ in layers_per_net]
    # A task: (generators, constraint rows, net index, layer index, neuron index, per-net z maps,
    # current pre map, acts)
    stack: list[tuple[Any, ...]] = [(root, None, None, 0, 0, 0, start_maps, None, []) for root in reversed(roots)]
    while stack:
        steps += 1
        if deadline is not None and steps % 16 == 0 and time.monotonic() > deadline:
            raise RegionTimeLimit("time limit reached during the region enumeration")
        gens, garr, rows, n, l, j, zmaps, pre_map, acts = stack.pop()
        if callable(gens):  # a cone of the fan (or the box), built when first visited
            gens, rows = gens()
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
                stack.append((gens, garr, rows, n + 1, 0, 0, new_maps, None, []))
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
            stack.append((gens, garr, rows, n, l + 1, 0, new_maps, None, []))
            continue
        row = _primitive(list(P[j])) if any(P[j]) else tuple(P[j])
        if garr is None:  # the generators as one object matrix: one C-level dot per neuron
            garr = np.empty((len(gens), n0 + 1), dtype=object)
            for q, (g, _) in enumerate(gens):
                garr[q] = g
        values = list(np.dot(garr, np.array(row, dtype=object)))
        if all(v >= 0 for v in values):
            stack.append((gens, garr, rows, n, l, j + 1, zmaps, pre_map, acts + [True]))
        elif all(v <= 0 for v in values):
            stack.append((gens, garr, rows, n, l, j + 1, zmaps, pre_map, acts + [False]))
        else:
            bit = 1 << (first_bit[n][l] + j)
            upper, lower, rows = split(gens, row, values, bit, rows, deadline)
            stack.append((lower, None, rows, n, l, j + 1, zmaps, pre_map, acts + [False]))
            stack.append((upper, None, rows, n, l, j + 1, zmaps, pre_map, acts + [True]))
    return leaves
