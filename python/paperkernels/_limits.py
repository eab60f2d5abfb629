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
from collections.abc import Iterable, Iterator
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

    Each limit has a base value, set by assignment and restored to its default by :meth:`reset`,
    and may have active overrides, one per running :meth:`override` block in any thread. The value
    in force is that of the most recently entered block still running that overrides the limit,
    else the base value. Leaving a block withdraws only that block's value, whatever the order in
    which overlapping blocks end; an assignment made while blocks run is kept and comes into force
    when they have ended.

    Limits cannot be deleted. ``paperkernels.limits`` pickles by reference: unpickling, like
    ``copy.copy`` and ``copy.deepcopy``, gives back the one process-wide object, not a copy (a
    ``Limits()`` built separately copies to a new object with its base values and no running block).

    Attributes
    ----------
    max_result_bytes : int
        Largest memory, in bytes, of the arrays one call may return or build (default 4 GiB).

    Raises
    ------
    AttributeError
        When setting a name that is not a limit, or deleting any attribute.
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
    >>> import copy, pickle
    >>> copy.deepcopy(paperkernels.limits) is paperkernels.limits
    True
    >>> pickle.loads(pickle.dumps(paperkernels.limits)) is paperkernels.limits
    True
    """

    # The value in force of each limit lives in its slot, so that reading it is a plain attribute
    # read; every change (assignment, reset, entering or leaving a block) recomputes it under _lock.
    __slots__ = ("max_result_bytes", "_lock", "_base", "_overrides")
    max_result_bytes: int
    _lock: threading.Lock
    _base: dict[str, int]
    # Active overrides in entry order: (token unique to the block, {limit: value}).
    _overrides: list[tuple[object, dict[str, int]]]

    def __init__(self) -> None:
        object.__setattr__(self, "_lock", threading.Lock())
        object.__setattr__(self, "_base", dict(_DEFAULTS))
        object.__setattr__(self, "_overrides", [])
        self._refresh(_DEFAULTS)

    def _refresh(self, names: Iterable[str]) -> None:
        # Store in the slots the value in force of each limit in names (callers hold _lock, or own self).
        for name in names:
            value = self._base[name]
            for _, values in reversed(self._overrides):
                if name in values:
                    value = values[name]
                    break
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _DEFAULTS:
            raise AttributeError(f"paperkernels.limits has no limit {name!r}; limits: {', '.join(_DEFAULTS)}")
        checked = _as_limit(value, name)
        with self._lock:
            self._base[name] = checked
            self._refresh((name,))

    def __delattr__(self, name: str) -> None:
        raise AttributeError(
            f"cannot delete paperkernels.limits.{name}: limits cannot be deleted "
            "(use paperkernels.limits.reset() to restore the defaults)"
        )

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)}" for name in _DEFAULTS)
        return f"paperkernels.limits({fields})"

    def __reduce__(self) -> str | tuple[Any, ...]:
        if self is limits:
            return "limits"  # by reference: paperkernels.limits (Limits.__module__ is "paperkernels")
        with self._lock:
            return (_limits_with_bases, (dict(self._base),))

    def __copy__(self) -> Limits:
        if self is limits:
            return self
        with self._lock:
            bases = dict(self._base)
        return _limits_with_bases(bases)

    def __deepcopy__(self, memo: dict[int, Any]) -> Limits:
        return self.__copy__()

    def reset(self) -> None:
        """Restore every limit's base value to its default.

        Blocks of :meth:`override` still running, in this thread or another, stay in force until
        they end: the defaults are in force once no block is running.

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
        with self._lock:
            self._base.update(_DEFAULTS)
            self._refresh(_DEFAULTS)

    @contextlib.contextmanager
    def override(self, **limits: int) -> Iterator[Limits]:
        """Set limits for the duration of a ``with`` block.

        The limits are process-wide: other threads see the new values while the block runs. Blocks
        may be nested and may overlap across threads: the value in force is that of the most
        recently entered block still running that sets the limit, else the base value (set by
        assignment or :meth:`reset`). Leaving a block withdraws only its own values, whatever the
        order in which blocks end, and keeps any assignment made meanwhile.

        Parameters
        ----------
        **limits : int
            New values by name, e.g. ``max_result_bytes=16 * 2**30``; each an integer ``>= 0``.

        Yields
        ------
        Limits
            This object, with the new values in force (unless a block entered later is running).

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
        >>> with paperkernels.limits.override(max_result_bytes=2**30):
        ...     paperkernels.limits.max_result_bytes = 8 * 2**30  # the base value, in force after the block
        ...     paperkernels.limits.max_result_bytes // 2**30
        1
        >>> paperkernels.limits.max_result_bytes // 2**30
        8
        >>> paperkernels.limits.reset()
        """
        checked = {}
        for name, value in limits.items():
            if name not in _DEFAULTS:
                raise TypeError(f"override: unknown limit {name!r}; limits: {', '.join(_DEFAULTS)}")
            checked[name] = _as_limit(value, name)
        token = object()
        try:
            with self._lock:
                self._overrides.append((token, checked))
                self._refresh(checked)
            yield self
        finally:
            with self._lock:
                for index, (entry, _) in enumerate(self._overrides):
                    if entry is token:
                        del self._overrides[index]
                        break
                self._refresh(checked)


def _as_limit(value: Any, name: str) -> int:
    from ._validation import as_int

    return as_int(value, name, low=0)


def _limits_with_bases(bases: dict[str, int]) -> Limits:
    # Unpickles or copies a Limits other than paperkernels.limits: the base values, no running block.
    new = Limits()
    for name, value in bases.items():
        setattr(new, name, value)
    return new


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
