"""Small, slow, obviously correct references for paperkernels.shapes tests (independent of the C++)."""

from fractions import Fraction
from math import comb, factorial

import numpy as np


def half_set(N):
    return [(n, m) for n in range(N + 1) for m in range(n % 2, n + 1, 2)]


def radial_coefficients(n, m):
    """Exact coefficients {power: Fraction} of R_n^m(rho) from the factorial sum."""
    out = {}
    for s in range((n - m) // 2 + 1):
        out[n - 2 * s] = Fraction(
            (-1) ** s * factorial(n - s), factorial(s) * factorial((n + m) // 2 - s) * factorial((n - m) // 2 - s)
        )
    return out


def radial_exact(n, m, rho):
    """R_n^m at a rational rho, exactly."""
    rho = Fraction(rho)
    return sum(c * rho**p for p, c in radial_coefficients(n, m).items())


def radial_float(n, m, rho):
    """The factorial sum in floating point (fine for n <= 20)."""
    rho = np.asarray(rho, dtype=np.float64)
    return sum(float(c) * rho**p for p, c in radial_coefficients(n, m).items())


def pixel_grid(H, W):
    x = (2 * np.arange(W) + 1 - W) / W
    y = (H - 1 - 2 * np.arange(H)) / H
    return np.meshgrid(x, y)


def mask_moments(mask, N):
    """c_nm = sum over disk pixels of f conj(Z_nm) dA, pixel by pixel with the factorial radials."""
    H, W = mask.shape
    X, Y = pixel_grid(H, W)
    rho, theta = np.hypot(X, Y), np.arctan2(Y, X)
    inside = rho <= 1.0
    out = []
    for n, m in half_set(N):
        z = np.sqrt((n + 1) / np.pi) * radial_float(n, m, rho[inside]) * np.exp(-1j * m * theta[inside])
        out.append(np.sum(mask[inside] * z) * 4.0 / (H * W))
    return np.array(out)


def _monomial_expansion(n, m):
    """conj(Z_nm) / sqrt((n+1)/pi) = sum of coeff * x^a y^b with complex rational coeffs:
    returns {(a, b): (re Fraction, im Fraction)}."""
    terms = {}
    for power, c in radial_coefficients(n, m).items():
        h = (power - m) // 2  # rho^power e^{-i m theta} = (x^2 + y^2)^h (x - i y)^m
        for i in range(h + 1):
            ci = c * comb(h, i)  # x^{2i} y^{2(h-i)}
            for k in range(m + 1):
                # (x - i y)^m = sum_k C(m,k) x^{m-k} (-i y)^k
                ck = ci * comb(m, k)
                unit = [(1, 0), (0, -1), (-1, 0), (0, 1)][k % 4]  # (-i)^k
                key = (2 * i + m - k, 2 * (h - i) + k)
                re, im = terms.get(key, (Fraction(0), Fraction(0)))
                terms[key] = (re + ck * unit[0], im + ck * unit[1])
    return terms


def rectangle_moments_exact(N, x0, x1, y0, y1):
    """Exact moments of the axis-aligned rectangle [x0, x1] x [y0, y1] (rational corners inside the
    disk): integrals of monomials in closed form, in rational arithmetic; returns complex floats."""
    x0, x1, y0, y1 = map(Fraction, (x0, x1, y0, y1))
    out = []
    for n, m in half_set(N):
        re = im = Fraction(0)
        for (a, b), (cr, ci) in _monomial_expansion(n, m).items():
            integral = (x1 ** (a + 1) - x0 ** (a + 1)) / (a + 1) * (y1 ** (b + 1) - y0 ** (b + 1)) / (b + 1)
            re += cr * integral
            im += ci * integral
        scale = np.sqrt((n + 1) / np.pi)
        out.append(complex(float(re) * scale, float(im) * scale))
    return np.array(out)


def polygon_moments_duffy(ring, N, q=None):
    """Fan triangulation from the origin with the Duffy map and tensor Gauss-Legendre (numpy
    nodes), radials by the factorial sum: an independent implementation for N <= 20."""
    q = N // 2 + 2 if q is None else q
    x, w = np.polynomial.legendre.leggauss(q)
    u, wu = 0.5 * (x + 1), 0.5 * w
    U, V = np.meshgrid(u, u, indexing="ij")
    WW = np.outer(wu, wu)
    ring = np.asarray(ring, dtype=np.float64)
    out = np.zeros(len(half_set(N)), dtype=complex)
    for a, b in zip(ring, np.roll(ring, -1, axis=0), strict=False):
        det = a[0] * b[1] - a[1] * b[0]
        px = U * ((1 - V) * a[0] + V * b[0])
        py = U * ((1 - V) * a[1] + V * b[1])
        weight = WW * U * det
        rho, theta = np.hypot(px, py), np.arctan2(py, px)
        for k, (n, m) in enumerate(half_set(N)):
            z = np.sqrt((n + 1) / np.pi) * radial_float(n, m, rho) * np.exp(-1j * m * theta)
            out[k] += np.sum(weight * z)
    return out


def shoelace(ring):
    x, y = np.asarray(ring, dtype=np.float64).T
    return 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
