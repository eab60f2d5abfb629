"""Size limits checked before any work starts, readable and adjustable in one public place.

Every call that would build a very large result (per-run arrays, rasters, Gram matrices, tables)
computes its size first and refuses it with a ``ValueError`` when it exceeds
``paperkernels.limits.max_result_bytes``; the message names the argument, the size and how to get
around the limit. Raise a limit for the whole process by assignment, or for a block of code::

    import paperkernels
    paperkernels.limits.max_result_bytes = 16 * 2**30
    with paperkernels.limits.override(max_result_bytes=64 * 2**30):
        ...
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

_DEFAULTS = {
    # Memory of the arrays that one call returns or builds (results, rasters, Gram matrices, tables).
    "max_result_bytes": 4 * 2**30,
}


class Limits:
    """The process-wide size limits of paperkernels.

    Attributes
    ----------
    max_result_bytes : int
        Largest memory, in bytes, of the arrays one call may return or build (default 4 GiB).
    """

    __slots__ = ("max_result_bytes", "_lock")

    def __init__(self) -> None:
        object.__setattr__(self, "_lock", threading.Lock())
        for name, value in _DEFAULTS.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _DEFAULTS:
            raise AttributeError(f"paperkernels.limits has no limit {name!r}; limits: {', '.join(_DEFAULTS)}")
        object.__setattr__(self, name, _as_limit(value, name))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in _DEFAULTS)
        return f"paperkernels.limits({fields})"

    def reset(self) -> None:
        """Restore every limit to its default."""
        for name, value in _DEFAULTS.items():
            object.__setattr__(self, name, value)

    @contextlib.contextmanager
    def override(self, **limits: int) -> Iterator["Limits"]:
        """Set limits for the duration of a ``with`` block, then restore the previous values.

        The limits are process-wide: other threads see the new values while the block runs.
        """
        checked = {}
        for name, value in limits.items():
            if name not in _DEFAULTS:
                raise TypeError(f"override: unknown limit {name!r}; limits: {', '.join(_DEFAULTS)}")
            checked[name] = _as_limit(value, name)
        with self._lock:
            previous = {name: getattr(self, name) for name in checked}
            for name, value in checked.items():
                object.__setattr__(self, name, value)
        try:
            yield self
        finally:
            with self._lock:
                for name, value in previous.items():
                    object.__setattr__(self, name, value)


def _as_limit(value: Any, name: str) -> int:
    from ._validation import as_int

    return as_int(value, name, low=0)


limits = Limits()


def check_result_bytes(n_bytes: int, name: str, what: str, hint: str) -> None:
    """Refuse up front a call whose results would take more than ``limits.max_result_bytes``.

    ``name`` is the argument to blame, ``what`` describes the result ("the float64 raster of shape
    (4, 8192, 8192)"), ``hint`` says how to get the same work done within the limit.
    """
    limit = limits.max_result_bytes
    if n_bytes > limit:
        raise ValueError(
            f"{name}: {what} would take {n_bytes / 2**30:.3g} GiB, above the limit of {limit / 2**30:.3g} GiB "
            f"(paperkernels.limits.max_result_bytes); {hint}"
        )
