"""From complex moments to real codes: frequency propagation, its exact inverse, the output layout
and code lengths."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from .._validation import as_float, as_int, plain_array
from ._inputs import MAX_ORDER, as_order
from ._zernike import order_of

__all__ = [
    "freqprop",
    "inverse_freqprop",
    "code_length",
    "order_for_length",
    "to_codes",
    "from_codes",
]


def _as_coefficients(z: Any, name: str = "z") -> tuple[np.ndarray, bool]:
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

    Parameters
    ----------
    z : array_like of complex
        Half-set coefficients ``(..., S(N))`` (e.g. from :func:`zernike_moments`); N is inferred from
        the last axis.
    lam : float
        Propagation weight (default 0.6, the paper's).
    angular : bool
        Also apply the angular step.

    Returns
    -------
    numpy.ndarray
        complex128 array of the shape of ``z``.

    Raises
    ------
    ValueError, TypeError
        When the last axis is not a half-set size ``S(N)``, or ``z`` or ``lam`` is not finite.

    See Also
    --------
    inverse_freqprop : the exact inverse.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels import shapes
    >>> z = shapes.zernike_moments(shapes.regular_polygon(5), 4, input="polygon")
    >>> propagated = shapes.freqprop(z)
    >>> propagated.shape, bool(np.allclose(shapes.inverse_freqprop(propagated), z))
    ((9,), True)
    """
    lam = as_float(lam, "lam")
    arr, single = _as_coefficients(z)
    out = _finite(_core.shapes.freqprop(arr, order_of(arr, "z"), lam, True, bool(angular), False))
    return out[0] if single else out


def inverse_freqprop(z: Any, lam: float = 0.6, *, angular: bool = True) -> np.ndarray:
    """Exact inverse of :func:`freqprop` (angular step undone first, then the radial step).

    Parameters
    ----------
    z : array_like of complex
        Propagated half-set coefficients ``(..., S(N))``.
    lam : float
        The weight used by :func:`freqprop`.
    angular : bool
        Whether :func:`freqprop` applied the angular step.

    Returns
    -------
    numpy.ndarray
        complex128 array of the shape of ``z``: the coefficients before propagation (round trip
        within about 1e-14).

    Raises
    ------
    ValueError, TypeError
        As :func:`freqprop`.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import freqprop, inverse_freqprop
    >>> z = np.arange(1, 10) * (1 + 1j)          # S(4) = 9 coefficients
    >>> bool(np.allclose(inverse_freqprop(freqprop(z, 0.6), 0.6), z))
    True
    """
    lam = as_float(lam, "lam")
    arr, single = _as_coefficients(z)
    out = _finite(_core.shapes.freqprop(arr, order_of(arr, "z"), lam, True, bool(angular), True))
    return out[0] if single else out


def _finite(out: np.ndarray) -> np.ndarray:
    if not np.all(np.isfinite(out)):
        raise ValueError("lam: the propagated coefficients overflow float64; use a smaller |lam| or rescale z")
    return out


def code_length(N: int, invariant: bool = False) -> int:
    """Length of a code of order N: ``2 S(N)`` (real and imaginary parts), or ``S(N)`` magnitudes.

    Parameters
    ----------
    N : int
        Largest radial order, ``0 <= N <= MAX_ORDER``.
    invariant : bool
        Rotation-invariant codes (magnitudes only).

    Returns
    -------
    int
        ``2 S(N)``, or ``S(N)`` when ``invariant``.

    Raises
    ------
    ValueError, TypeError
        When ``N`` is not an integer in ``[0, MAX_ORDER]``.

    Examples
    --------
    >>> from paperkernels.shapes import code_length
    >>> code_length(20), code_length(20, invariant=True)
    (242, 121)
    """
    N = as_order(N)
    S = (N + 2) ** 2 // 4
    return S if invariant else 2 * S


def order_for_length(encode_len: int, invariant: bool = False) -> int:
    """Smallest N whose code holds at least ``encode_len`` numbers (64 -> 10, 128 -> 14, 256 -> 21,
    512 -> 30 for geometry codes).

    Parameters
    ----------
    encode_len : int
        Wanted code length, ``>= 1``.
    invariant : bool
        Count magnitudes (``S(N)``) instead of real and imaginary parts (``2 S(N)``).

    Returns
    -------
    int
        The smallest order N with ``code_length(N, invariant) >= encode_len``.

    Raises
    ------
    ValueError, TypeError
        When ``encode_len`` is not a positive integer or needs an order above ``MAX_ORDER``.

    Examples
    --------
    >>> from paperkernels.shapes import order_for_length
    >>> order_for_length(64), order_for_length(512)
    (10, 30)
    """
    encode_len = as_int(encode_len, "encode_len", low=1, high=code_length(MAX_ORDER, invariant))
    N = 0
    while code_length(N, invariant) < encode_len:
        N += 1
    return N


def to_codes(z: Any) -> np.ndarray:
    """Real layout ``[Re z_k, Im z_k]`` for k in the half set: float64 ``(..., 2 S)``.

    Parameters
    ----------
    z : array_like of complex
        Half-set coefficients ``(..., S)``.

    Returns
    -------
    numpy.ndarray
        float64 ``(..., 2 S)``: real and imaginary parts interleaved per coefficient.

    Raises
    ------
    ValueError, TypeError
        When ``z`` is not numeric or not finite.

    See Also
    --------
    from_codes : the inverse.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import to_codes
    >>> to_codes(np.array([1 + 2j, 3 - 4j]))
    array([ 1.,  2.,  3., -4.])
    """
    arr, single = _as_coefficients(z)
    codes = arr.view(np.float64).copy()
    result: np.ndarray = codes[0] if single else codes
    return result


def from_codes(codes: Any, N: int, name: str = "codes") -> np.ndarray:
    """Complex half-set coefficients from real codes of order N; shorter codes (``exact_len``
    truncation) are zero-padded and longer ones (``exact_len`` padding) cut at ``2 S(N)``.

    Parameters
    ----------
    codes : array_like of float
        Real codes ``(D,)`` or ``(B, D)``.
    N : int
        Order of the codes.
    name : str
        Argument name used in error messages.

    Returns
    -------
    numpy.ndarray
        complex128 ``(B, S(N))``; a single code gives ``(1, S(N))``.

    Raises
    ------
    ValueError, TypeError
        When ``codes`` is not a finite real array or ``N`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from paperkernels.shapes import from_codes, to_codes
    >>> z = np.arange(1, 10) * (1 - 1j)
    >>> bool(np.array_equal(from_codes(to_codes(z), 4)[0], z))
    True
    >>> from_codes(np.array([1.0, 2.0]), 4)[0, :2]   # a truncated code is zero-padded
    array([1.+2.j, 0.+0.j])
    """
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
