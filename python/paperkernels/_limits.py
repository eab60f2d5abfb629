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
from collections.abc import Iterator
from typing import Any

_DEFAULTS = {
    # Memory of the arrays that one call returns or builds (results, rasters, Gram matrices, tables).
    "max_result_bytes": 4 * 2**30,
}


class Limits:
    """The process-wide size limits of paperkernels.

    There is one instance, ``paperkernels.limits``; every call that would build a large result
    reads it before any work starts and refuses the call with a ``ValueError`` naming the argument,
    the size and the limit. Limits are process-wide: a change is seen by every thread.

    Attributes
    ----------
    max_result_bytes : int
        Largest memory, in bytes, of the arrays one call may return or build (default 4 GiB).

    Raises
    ------
    AttributeError
        When setting a name that is not a limit.
    ValueError, TypeError
        When a limit is set to something other than an integer ``>= 0``.

    Examples
    --------
    >>> import paperkernels
    >>> paperkernels.limits
    paperkernels.limits(max_result_bytes=4294967296)
    >>> with paperkernels.limits.override(max_result_bytes=2**20):
    ...     paperkernels.shapes.rasterize(paperkernels.shapes.regular_polygon(6), 1024)
    Traceback (most recent call last):
        ...
    ValueError: res: the float64 result of shape (1, 1024, 1024) would take ... GiB, above the limit ...
    >>> paperkernels.limits.max_result_bytes = 16 * 2**30   # for the rest of the process
    >>> paperkernels.limits.reset()
    >>> paperkernels.limits.max_result_bytes == 4 * 2**30
    True
    """

    __slots__ = ("max_result_bytes", "_lock")
    max_result_bytes: int
    _lock: threading.Lock

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
        """Restore every limit to its default.

        Returns
        -------
        None

        Examples
        --------
        >>> import paperkernels
        >>> paperkernels.limits.max_result_bytes = 2**20
        >>> paperkernels.limits.reset()
        >>> paperkernels.limits.max_result_bytes
        4294967296
        """
        for name, value in _DEFAULTS.items():
            object.__setattr__(self, name, value)

    @contextlib.contextmanager
    def override(self, **limits: int) -> Iterator[Limits]:
        """Set limits for the duration of a ``with`` block, then restore the previous values.

        The limits are process-wide: other threads see the new values while the block runs.

        Parameters
        ----------
        **limits : int
            New values by name, e.g. ``max_result_bytes=16 * 2**30``; each an integer ``>= 0``.

        Yields
        ------
        Limits
            This object, with the new values in force.

        Raises
        ------
        TypeError
            When a name is not a limit.
        ValueError, TypeError
            When a value is not an integer ``>= 0`` (nothing is changed then).

        Examples
        --------
        >>> import paperkernels
        >>> with paperkernels.limits.override(max_result_bytes=64 * 2**30) as limits:
        ...     limits.max_result_bytes // 2**30
        64
        >>> paperkernels.limits.max_result_bytes // 2**30
        4
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
