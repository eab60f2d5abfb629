"""Turning the user's ``seed`` argument into the 64-bit seed the C++ core uses."""

from __future__ import annotations

import numbers

import numpy as np

SeedLike = int | np.integer | np.random.Generator | None

_UINT64_LIMIT = 2**64


def as_seed(seed: SeedLike, name: str = "seed") -> int:
    """Return a seed in ``[0, 2**64)`` for the C++ core.

    Parameters
    ----------
    seed : None, int or numpy.random.Generator
        ``None`` draws fresh entropy from the operating system. A non-negative integer below
        ``2**64`` is used as is. A ``numpy.random.Generator`` supplies one 64-bit integer (its state
        advances), so a given generator state always yields the same results.
    name : str
        Argument name used in error messages.

    Raises
    ------
    TypeError
        If ``seed`` is of another type (floats, strings and booleans are refused).
    ValueError
        If an integer seed is negative or not below ``2**64``.
    """
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0])
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, _UINT64_LIMIT, dtype=np.uint64))
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"{name}: expected None, a non-negative int or a numpy.random.Generator, got {type(seed).__name__} {seed!r}"
        )
    value = int(seed)
    if not 0 <= value < _UINT64_LIMIT:
        raise ValueError(f"{name}: expected an integer in [0, 2**64), got {value}")
    return value
