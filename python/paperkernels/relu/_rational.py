"""Exact rational helpers: object arrays of ``fractions.Fraction`` and small linear algebra on them.

float64 values are exact dyadic rationals, so ``Fraction(x)`` is exact; everything here is exact.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import is_real


def as_fraction(v: Any) -> Fraction:
    """``Fraction(v)`` with numpy scalars turned into Python numbers first: ``Fraction(np.int64(x))``
    keeps a fixed-width numerator whose arithmetic wraps around."""
    if type(v) is Fraction:
        return v
    if isinstance(v, np.integer):
        return Fraction(int(v))
    if isinstance(v, np.floating):
        return Fraction(float(v))
    return Fraction(v)


def exact_real(value: Any, name: str) -> Fraction:
    """A finite real number given by the user (a Python or numpy integer or float64, or a Fraction) as an
    exact Fraction; TypeError or ValueError naming the argument otherwise. Bools, strings and extended
    precision floats (whose extra digits would be rounded away) are refused."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or (
        isinstance(value, np.floating) and np.dtype(type(value)).itemsize > 8
    ):
        raise TypeError(f"{name}: expected a float64, integer or Fraction, got {type(value).__name__} {value!r}")
    if not is_real(value):
        raise TypeError(f"{name}: expected a real number or Fraction, got {type(value).__name__} {value!r}")
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise ValueError(f"{name}: expected finite values (real numbers or Fractions), got {value!r}")
    return as_fraction(value)


def ratio(num: Any, den: Any) -> Fraction:
    """``Fraction(num, den)`` of two integers (Python or numpy) with Python-int parts."""
    return Fraction(int(num), int(den))


_to_fraction = np.frompyfunc(as_fraction, 1, 1)


class OutOfTime(Exception):
    """Raised by :func:`check_deadline` inside exact loops once the caller's deadline has passed."""


_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("relu_deadline", default=None)


@contextlib.contextmanager
def deadline(when: float | None) -> Iterator[None]:
    """Exact loops run inside this block raise :class:`OutOfTime` after ``time.monotonic() > when``."""
    token = _DEADLINE.set(when)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_deadline() -> None:
    when = _DEADLINE.get()
    if when is not None and time.monotonic() > when:
        raise OutOfTime()


def fraction_array(a: Any) -> np.ndarray:
    """Object array of Fractions with the shape of ``a`` (exact conversion of floats)."""
    arr = np.asarray(a, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    if arr.size:
        out[...] = _to_fraction(arr)
    return out


def float_array(a: np.ndarray) -> np.ndarray:
    """float64 array of the (rounded to nearest) values of an object array of Fractions."""
    if a.dtype != object:
        return np.asarray(a, dtype=np.float64)
    out = np.empty(a.shape, dtype=np.float64)
    for idx, v in np.ndenumerate(a):
        out[idx] = float(v)
    return out


def exactly_float(a: np.ndarray) -> bool:
    """True when every Fraction of ``a`` is a float64 value exactly."""
    for v in a.flat:
        try:
            f = float(v)
        except OverflowError:  # beyond the float64 range
            return False
        if not np.isfinite(f) or Fraction(f) != v:
            return False
    return True


def row_echelon(M: np.ndarray) -> tuple[np.ndarray, list[int]]:
    """Reduced row echelon form of a Fraction matrix and its pivot columns."""
    A = [list(row) for row in M]
    rows = len(A)
    cols = len(A[0]) if rows else 0
    pivots: list[int] = []
    r = 0
    for c in range(cols):
        p = next((i for i in range(r, rows) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        inv = 1 / A[r][c]
        A[r] = [v * inv for v in A[r]]
        for i in range(rows):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], A[r], strict=False)]
        pivots.append(c)
        r += 1
        if r == rows:
            break
    out = np.empty((rows, cols), dtype=object)
    for i in range(rows):
        for j in range(cols):
            out[i, j] = A[i][j]
    return out, pivots


_PRIME = 2_147_483_647  # 2^31 - 1: products of two residues fit in int64


def rank_mod_p(M: np.ndarray, p: int = _PRIME) -> int | None:
    """Rank of the matrix reduced modulo the prime p (None if a denominator vanishes mod p).

    A nonzero minor modulo p is nonzero over the rationals, so rank_mod_p <= rank: full rank modulo
    p certifies full rank exactly, at float-like speed.
    """
    F = fraction_array(M)
    R = np.empty(F.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(F):
        if v.denominator % p == 0:
            return None
        R[idx] = (v.numerator % p) * pow(v.denominator, -1, p) % p
    rows, cols = F.shape[0], F.shape[1]
    r = 0
    for c in range(cols):
        nz = np.flatnonzero(R[r:, c]) if r < rows else np.zeros(0, dtype=np.intp)
        if len(nz) == 0:
            continue
        q = r + int(nz[0])
        R[[r, q]] = R[[q, r]]
        R[r] = R[r] * pow(int(R[r, c]), -1, p) % p
        factors = R[:, c].copy()
        factors[r] = 0
        R = (R - (factors[:, None] * R[r][None, :]) % p) % p
        r += 1
        if r == rows:
            break
    return r


def rank(M: np.ndarray) -> int:
    """Exact rank of a Fraction (or float) matrix (a modular certificate first, then exact elimination)."""
    if M.size == 0:
        return 0
    full = int(min(M.shape))
    if rank_mod_p(M) == full:
        return full
    full_rank: int = len(row_echelon(fraction_array(M))[1])
    return full_rank


def solve_exact(A: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """One exact solution x of A x = b (A: m x n Fractions), or None when the system is inconsistent."""
    A = fraction_array(A)
    b = fraction_array(b).reshape(-1, 1)
    aug = np.concatenate([A, b], axis=1)
    R, pivots = row_echelon(aug)
    n = A.shape[1]
    if n in pivots:
        return None
    x = np.array([Fraction(0)] * n, dtype=object)
    for r, c in enumerate(pivots):
        x[c] = R[r, n]
    return x


def inverse(G: np.ndarray) -> np.ndarray | None:
    """Exact inverse of a square Fraction matrix, or None when it is singular."""
    G = fraction_array(G)
    n = G.shape[0]
    eye = fraction_array(np.eye(n, dtype=np.int64))
    R, pivots = row_echelon(np.concatenate([G, eye], axis=1))
    if pivots[:n] != list(range(n)) or len(pivots) < n:
        return None
    return R[:, n:]


def integer_matrix(A: np.ndarray) -> tuple[np.ndarray, int]:
    """A = N / d for an array of Fractions: N an object array of Python ints, d > 0 the lcm of the
    denominators."""
    d = 1
    for v in A.flat:
        d = math.lcm(d, v.denominator)
    N = np.empty(A.shape, dtype=object)
    for idx, v in np.ndenumerate(A):
        N[idx] = v.numerator * (d // v.denominator)
    return N, d


def exact_matmul(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Exact product of two Fraction matrices through integer matrices (no gcd in the inner loop)."""
    if A.shape[1] == 0:
        out = np.empty((A.shape[0], B.shape[1]), dtype=object)
        out.fill(Fraction(0))
        return out
    NA, dA = integer_matrix(A)
    NB, dB = integer_matrix(B)
    P = np.dot(NA, NB)
    den = dA * dB
    out = np.empty(P.shape, dtype=object)
    for idx, v in np.ndenumerate(P):
        out[idx] = ratio(v, den)
    return out


def max_abs(values: Sequence[Fraction]) -> Fraction:
    return max((abs(v) for v in values), default=Fraction(0))
