"""Argument checks shared by every module. Each error message names the argument and what was
expected, so that users can fix the call without reading the source."""

from __future__ import annotations

import datetime
import numbers
import os
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np

_T = TypeVar("_T")


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# Dates and durations. numpy's timedelta64 is a numbers.Integral (it subclasses signedinteger) and
# float() reads it as a count of its unit: they are refused wherever numbers are expected.
TIMES = (np.datetime64, np.timedelta64, datetime.date, datetime.time, datetime.timedelta)


# numpy dtype kinds that are not numbers: strings (fixed and variable width), bytes, void records,
# datetimes and timedeltas.
NON_NUMERIC_KINDS = "USVTMm"


def is_real(value: Any) -> bool:
    """Whether ``value`` is a real number (numbers.Real), not a date or a duration."""
    return isinstance(value, numbers.Real) and not isinstance(value, TIMES)


def as_int(value: Any, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as a Python int in ``[low, high]`` (bounds inclusive, None = unbounded)."""
    if isinstance(value, (bool, np.bool_, *TIMES)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name}: expected an integer, got {type(value).__name__} {_describe(value)}")
    number = int(value)
    if (low is not None and number < low) or (high is not None and number > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(f"{name}: expected an integer in [{lo}, {hi}], got {number}")
    return number


def as_float(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a finite float in the given interval (open or closed at each end)."""
    if isinstance(value, (bool, np.bool_)) or not is_real(value):
        raise TypeError(f"{name}: expected a real number, got {type(value).__name__} {_describe(value)}")
    number = float(value)
    if not np.isfinite(number):
        raise ValueError(f"{name}: expected a finite number, got {number}")
    too_low = low is not None and (number <= low if low_open else number < low)
    too_high = high is not None and (number >= high if high_open else number > high)
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(f"{name}: expected a number in {left}{lo}, {hi}{right}, got {number!r}")
    return number


def aligned(arr: np.ndarray) -> np.ndarray:
    """``arr`` itself, or an aligned copy: arrays unpickled from out-of-band buffers (dask, pickle
    protocol 5) or views at odd byte offsets can be misaligned, which the C++ core may not read."""
    if arr.flags.aligned:
        return arr
    out: np.ndarray = np.ascontiguousarray(arr).copy()
    out.flags.writeable = arr.flags.writeable
    return out


def realign_state(state: dict[str, Any]) -> dict[str, Any]:
    """An object's pickled ``__dict__`` with every array aligned (see :func:`aligned`)."""
    return {k: aligned(v) if isinstance(v, np.ndarray) else v for k, v in state.items()}


def refuse_masked(value: Any, name: str) -> None:
    """Refuse a numpy masked array: converting it would silently drop its mask."""
    if isinstance(value, np.ma.MaskedArray):
        raise TypeError(
            f"{name}: expected a plain array, got a numpy masked array (its mask would be ignored); "
            "pass value.filled(...) or value.compressed() instead"
        )


def plain_array(value: Any, name: str, dtype: Any = None) -> np.ndarray:
    """``np.asarray(value, dtype)`` for code paths that do their own checks: masked arrays are refused,
    and any failure of the conversion (a ragged list, an ``__array__`` that raises, a dtype that does
    not apply) becomes a TypeError naming the argument."""
    refuse_masked(value, name)
    try:
        return np.asarray(value) if dtype is None else np.asarray(value, dtype=dtype)
    except Exception as exc:  # ragged lists, objects numpy cannot hold, a raising __array__
        raise TypeError(f"{name}: expected an array-like of numbers ({type(exc).__name__}: {exc})") from None


def as_array(
    value: Any,
    name: str,
    *,
    dtype: Any = np.float64,
    ndim: int | None = None,
    shape: Sequence[int | None] | None = None,
    finite: bool = True,
    low: float | None = None,
    high: float | None = None,
    allow_empty: bool = False,
) -> np.ndarray:
    """Return a C-contiguous array of ``dtype`` after checking it.

    ``shape`` may hold ``None`` for free axes. Integer dtypes refuse non-integral input instead of
    truncating it; float dtypes refuse complex input. ``finite`` refuses NaN and infinities;
    ``low``/``high`` are inclusive bounds on every element.
    """
    if value is None:
        raise TypeError(f"{name}: expected an array, got None")
    raw = plain_array(value, name)
    target = np.dtype(dtype)
    if raw.dtype == object or raw.dtype.kind in NON_NUMERIC_KINDS:
        raise TypeError(f"{name}: expected numbers, got an array of dtype {raw.dtype}")
    if raw.dtype.kind == "c" and target.kind != "c":
        raise TypeError(f"{name}: expected real numbers, got complex dtype {raw.dtype}")
    if target.kind in "iu":
        if raw.dtype.kind == "f":
            if raw.size and not np.all(np.isfinite(raw)):
                raise ValueError(f"{name}: expected integers, got non-finite values")
            if raw.size and not np.all(raw == np.round(raw)):
                raise TypeError(f"{name}: expected integers, got non-integral values of dtype {raw.dtype}")
        elif raw.dtype.kind not in "iub":
            raise TypeError(f"{name}: expected integers, got dtype {raw.dtype}")
        if raw.size and not np.can_cast(raw.dtype, target, casting="safe"):
            # Values the cast would wrap (uint64 or float values beyond the target's range).
            info = np.iinfo(target)
            smallest, largest = int(np.min(raw)), int(np.max(raw))
            if smallest < info.min or largest > info.max:
                bottom = info.min if low is None else max(low, info.min)
                top = info.max if high is None else min(high, info.max)
                raise ValueError(f"{name}: expected values in [{bottom}, {top}], got values in [{smallest}, {largest}]")
    if ndim is not None and raw.ndim != ndim:
        raise ValueError(f"{name}: expected a {ndim}-d array, got {raw.ndim}-d with shape {raw.shape}")
    if shape is not None:
        expected = tuple(shape)
        if raw.ndim != len(expected) or any(
            e is not None and e != s for e, s in zip(expected, raw.shape, strict=False)
        ):
            pretty = (
                "(" + ", ".join("*" if e is None else str(e) for e in expected) + (",)" if len(expected) == 1 else ")")
            )
            raise ValueError(f"{name}: expected shape {pretty}, got {raw.shape}")
    if raw.size == 0 and not allow_empty:
        raise ValueError(f"{name}: expected a non-empty array, got shape {raw.shape}")
    arr = aligned(np.ascontiguousarray(raw, dtype=target))
    if finite and target.kind in "fc" and arr.size and not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: expected finite values, got NaN or infinity")
    if arr.size and (low is not None or high is not None):
        lo = np.min(arr)
        hi = np.max(arr)
        if (low is not None and lo < low) or (high is not None and hi > high):
            raise ValueError(
                f"{name}: expected values in [{'-inf' if low is None else low}, "
                f"{'inf' if high is None else high}], got values in [{lo}, {hi}]"
            )
    return arr


def as_probabilities(value: Any, name: str, **kwargs: Any) -> np.ndarray:
    """A float64 array whose entries are probabilities in [0, 1]."""
    return as_array(value, name, dtype=np.float64, low=0.0, high=1.0, **kwargs)


def as_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """One of a fixed set of string options."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name}: expected one of {options}, got {_describe(value)}")
    return value


def as_bool(value: Any, name: str) -> bool:
    """A Python or numpy bool (not 0/1, not a string: a flag passed by position by mistake is refused)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected a bool, got {type(value).__name__} {_describe(value)}")
    return bool(value)


def as_instance(value: Any, name: str, cls: type[_T]) -> _T:
    """``value`` itself when it is an instance of ``cls``; TypeError naming the argument and the class otherwise."""
    if not isinstance(value, cls):
        raise TypeError(f"{name}: expected a {cls.__name__}, got {type(value).__name__}")
    return value


def available_cores() -> int:
    """Cores this process may run on (affinity-aware where the platform says)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


MAX_THREADS = 4096


def as_n_threads(value: Any, name: str = "n_threads") -> int:
    """Thread count for the C++ core: None or -1 = all available cores, else a positive int.

    Negative values follow scikit-learn's ``n_jobs`` convention: -1 is all cores, -2 all but one.
    """
    if value is None:
        return available_cores()
    n = as_int(value, name, high=MAX_THREADS)
    if n == 0:
        raise ValueError(
            f"{name}: expected a positive integer, None or a negative count from the end (-1 = all cores), got 0"
        )
    if n < 0:
        n = available_cores() + 1 + n
        if n < 1:
            raise ValueError(f"{name}: {value} leaves no core to run on ({available_cores()} available)")
    return n


def check_same_length(pairs: Sequence[tuple[str, int]]) -> None:
    """Raise if the named lengths differ: ``[("X", len(X)), ("y", len(y))]``."""
    lengths = {length for _, length in pairs}
    if len(lengths) > 1:
        listing = ", ".join(f"{n} has {l}" for n, l in pairs)
        raise ValueError(f"inconsistent lengths: {listing}; expected the same number of samples")
