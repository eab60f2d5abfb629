"""From complex moments to real codes: frequency propagation, its exact inverse, the output layout
and code lengths."""

from __future__ import annotations

from typing import Any, Tuple

import numpy as np

from .. import _core
from .._validation import as_float, as_int, plain_array
from ._inputs import MAX_ORDER, as_order
from .zernike import order_of

__all__ = [
    "freqprop",
    "inverse_freqprop",
    "code_length",
    "order_for_length",
    "to_codes",
    "from_codes",
]


def _as_coefficients(z: Any, name: str = "z") -> Tuple[np.ndarray, bool]:
    arr = plain_array(z, name)
    if arr.dtype.kind not in "fc":
        raise TypeError(f"{name}: expected complex coefficients, got dtype {arr.dtype}")
    if arr.ndim not in (1, 2) or arr.size == 0:
        raise ValueError(f"{name}: expected shape (S,) or (B, S), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: expected finite values, got NaN or infinity")
    single = arr.ndim == 1
    return np.ascontiguousarray(np.atleast_2d(arr), dtype=np.complex128), single


def freqprop(z: Any, lam: float = 0.6, *, angular: bool = True) -> np.ndarray:
    """Frequency propagation of half-set coefficients (order inferred from the length).

    Radial step (n ascending): ``z'_nm = z_nm + lam z'_{n-2,m}`` when ``m <= n - 2``; then, unless
    ``angular=False``, the angular step (m ascending): ``z''_nm = z'_nm + lam z''_{n,m-2}`` for
    ``m >= 2``. The radial step alone keeps ``|z|`` rotation-invariant; the angular step does not.
    """
    lam = as_float(lam, "lam")
    arr, single = _as_coefficients(z)
    out = _finite(_core.shapes_freqprop(arr, order_of(arr, "z"), lam, True, bool(angular), False))
    return out[0] if single else out


def inverse_freqprop(z: Any, lam: float = 0.6, *, angular: bool = True) -> np.ndarray:
    """Exact inverse of :func:`freqprop` (angular step undone first, then the radial step)."""
    lam = as_float(lam, "lam")
    arr, single = _as_coefficients(z)
    out = _finite(_core.shapes_freqprop(arr, order_of(arr, "z"), lam, True, bool(angular), True))
    return out[0] if single else out


def _finite(out: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(out)):
        raise ValueError("lam: the propagated coefficients overflow float64; use a smaller |lam| or rescale z")
    return out


def code_length(N: int, invariant: bool = False) -> int:
    """Length of a code of order N: ``2 S(N)`` (real and imaginary parts), or ``S(N)`` magnitudes."""
    N = as_order(N)
    S = (N + 2) ** 2 // 4
    return S if invariant else 2 * S


def order_for_length(encode_len: int, invariant: bool = False) -> int:
    """Smallest N whose code holds at least ``encode_len`` numbers (64 -> 10, 128 -> 14, 256 -> 21,
    512 -> 30 for geometry codes)."""
    encode_len = as_int(encode_len, "encode_len", low=1, high=code_length(MAX_ORDER, invariant))
    N = 0
    while code_length(N, invariant) < encode_len:
        N += 1
    return N


def to_codes(z: Any) -> np.ndarray:
    """Real layout ``[Re z_k, Im z_k]`` for k in the half set: float64 ``(..., 2 S)``."""
    arr, single = _as_coefficients(z)
    codes = arr.view(np.float64).copy()
    return codes[0] if single else codes


def from_codes(codes: Any, N: int, name: str = "codes") -> np.ndarray:
    """Complex half-set coefficients from real codes of order N; shorter codes (``exact_len``
    truncation) are zero-padded and longer ones (``exact_len`` padding) cut at ``2 S(N)``."""
    arr = plain_array(codes, name)
    if arr.dtype.kind not in "fiu":
        raise TypeError(f"{name}: expected real numbers, got dtype {arr.dtype}")
    arr = np.atleast_2d(np.asarray(arr, dtype=np.float64))
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected shape (D,) or (B, D), got {np.shape(codes)}")
    if arr.size == 0:
        raise ValueError(f"{name}: expected a non-empty array, got shape {np.shape(codes)}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: expected finite values, got NaN or infinity")
    full = code_length(N)
    if arr.shape[1] < full:
        arr = np.concatenate([arr, np.zeros((arr.shape[0], full - arr.shape[1]))], axis=1)
    elif arr.shape[1] > full:
        arr = arr[:, :full]
    return np.ascontiguousarray(arr).view(np.complex128)
