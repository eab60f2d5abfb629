"""The instruction set of the SIMD kernels, and a report of the build and the machine.

Every SIMD kernel of the C++ core (the shapes moments and field synthesis, the greedy Gram matrix
and learner updates, the toptwo cost index, the relu deep canonical form) is compiled for AVX-512,
AVX2 and the SSE2 baseline and runs the variant of the instruction set in use: the widest this CPU supports, unless the environment variable
``PAPERKERNELS_ISA`` (read when paperkernels is imported) or :func:`set_isa` chose another. Every
instruction set returns the same bits (the kernels only reorder work across vector lanes, never
the sums), so the choice changes the speed only, except the greedy Gram matrix: fused multiply-adds
under avx512 and avx2 (the same bits for both), products then sums under sse2 (within the rounding
bound of the greedy guide).
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import weakref
from typing import Any

from ._version import __version__

ISAS = ("avx512", "avx2", "sse2")
ENVIRONMENT_VARIABLE = "PAPERKERNELS_ISA"


def _extension() -> Any:
    """The extension, imported on first use (importing paperkernels does not load it otherwise)."""
    from . import _core as core

    return core


def supported_isas() -> list[str]:
    """The instruction sets this CPU runs, widest first (a subset of ``("avx512", "avx2", "sse2")``)."""
    return list(_extension().isa.supported())


def get_isa() -> str:
    """The instruction set the SIMD kernels use now: ``"avx512"``, ``"avx2"`` or ``"sse2"``."""
    return str(_extension().isa.get())


class _Setting:
    """The instruction set in force: that of the most recently entered ``with set_isa(...)`` block
    still running, else the base value. Blocks may be nested and may overlap across threads;
    leaving one withdraws only its own value, as :meth:`paperkernels.limits.override` does.

    The base value is that of the latest call of :func:`set_isa` whose context was not entered (a
    call used in a ``with`` statement is withdrawn from the base when its block starts), else the
    value at import. Calls are kept in order with a weak reference to their context: a context
    that died without being entered can no longer be withdrawn, so the calls before it are
    dropped and it becomes the import-time value's successor."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.initial: str | None = None  # None: the extension's default, the widest supported
        self.initial_from_environment = False
        self.calls: list[tuple[weakref.ref[_IsaContext], str]] = []  # in call order
        self.blocks: list[tuple[object, str]] = []  # (token unique to the block, isa), entry order

    def _settle(self) -> None:
        # The calls before the last one whose context died unentered can never be in force again.
        for index in range(len(self.calls) - 1, -1, -1):
            if self.calls[index][0]() is None:
                self.initial, self.initial_from_environment = self.calls[index][1], False
                del self.calls[: index + 1]
                break

    def base(self) -> str | None:
        self._settle()
        return self.calls[-1][1] if self.calls else self.initial

    def apply(self) -> None:
        # Callers hold the lock.
        if self.blocks:
            isa = self.blocks[-1][1]
        else:
            base = self.base()
            isa = base if base is not None else supported_isas()[0]
        _extension().isa.set(isa)

    def environment_in_force(self) -> str | None:
        with self.lock:
            self._settle()
            if self.initial_from_environment and not self.calls and not self.blocks:
                return self.initial
        return None


_SETTING = _Setting()


class _IsaContext:
    """Returned by :func:`set_isa`. Used in a ``with`` statement, the block runs under its
    instruction set, and leaving the block withdraws it: the setting before the call returns,
    unless another block entered later is still running. One block at a time: a context may be
    entered again once its block has ended (any thread may end it)."""

    def __init__(self, isa: str) -> None:
        self._isa = isa
        self._token: object | None = None  # the running block of this context, if any

    def __enter__(self) -> str:
        with _SETTING.lock:
            if self._token is not None:
                raise RuntimeError(
                    f"set_isa({self._isa!r}): this context's block is still running; "
                    "call set_isa again for another block"
                )
            self._token = object()
            # The call is withdrawn from the base value: the block holds its ISA instead.
            _SETTING.calls[:] = [call for call in _SETTING.calls if call[0]() is not self]
            _SETTING.blocks.append((self._token, self._isa))
            _SETTING.apply()
        return self._isa

    def __exit__(self, *exc: object) -> None:
        with _SETTING.lock:
            token, self._token = self._token, None
            _SETTING.blocks[:] = [entry for entry in _SETTING.blocks if entry[0] is not token]
            _SETTING.apply()

    def __repr__(self) -> str:
        return f"set_isa({self._isa!r})"


def _resolve(isa: object, name: str) -> str:
    if not isinstance(isa, str):
        raise TypeError(f"{name}: expected one of 'avx512', 'avx2', 'sse2' or 'auto', got {type(isa).__name__}")
    key = isa.strip().lower()
    if key == "auto":
        return supported_isas()[0]
    if key not in ISAS:
        raise ValueError(f"{name}: expected one of 'avx512', 'avx2', 'sse2' or 'auto', got {isa!r}")
    if key not in supported_isas():
        raise ValueError(f"{name}: this CPU does not support {key!r} (supported: {', '.join(supported_isas())})")
    return key


def set_isa(isa: str) -> _IsaContext:
    """Make every SIMD kernel use the instruction set `isa`.

    Parameters
    ----------
    isa : {"avx512", "avx2", "sse2", "auto"}
        The instruction set; ``"auto"`` is the widest this CPU supports (the default at import,
        unless the environment variable ``PAPERKERNELS_ISA`` names another).

    Returns
    -------
    context
        The setting holds for the whole process (every thread) from this call on; used in a
        ``with`` statement it holds for the block and is undone when the block exits
        (``with paperkernels.set_isa("avx2"):``). Blocks may be nested and may overlap across
        threads: the instruction set in force is that of the most recently entered block still
        running, else that of the last call outside a block. Leaving a block withdraws only its own
        setting, whatever the order in which blocks end, so a call made while a block runs takes
        effect once no block is running. A context runs one block at a time (entering it again
        while its block runs is a RuntimeError); call ``set_isa`` again for another block.

    Raises
    ------
    ValueError
        If `isa` is not one of the names above or this CPU lacks it.

    Notes
    -----
    Results are bit-identical under every instruction set, except the greedy Gram matrix under
    ``"sse2"`` (no fused multiply-add: it differs from ``"avx2"``/``"avx512"`` by rounding, within
    the bound of the greedy guide); otherwise only the speed changes. A call that is
    already running keeps the instruction set it started with.
    """
    key = _resolve(isa, "isa")
    context = _IsaContext(key)
    with _SETTING.lock:
        _SETTING.calls.append((weakref.ref(context), key))
        _SETTING.apply()
    return context


def apply_environment() -> None:
    """Apply ``PAPERKERNELS_ISA`` (called once when paperkernels is imported)."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if value:
        key = _resolve(value, ENVIRONMENT_VARIABLE)
        with _SETTING.lock:
            _SETTING.initial, _SETTING.initial_from_environment = key, True
            _SETTING.apply()


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def config() -> dict[str, Any]:
    """The facts :func:`show_config` prints, as nested dictionaries."""
    build = dict(_extension().build_info())
    features = list(_extension().isa.cpu_features())
    return {
        "paperkernels": {"version": __version__},
        "python": {"version": sys.version.split()[0], "implementation": platform.python_implementation()},
        "build": build,
        "cpu": {
            "model": _cpu_model(),
            "machine": platform.machine(),
            "features": [name for name, present in features if present],
            "missing": [name for name, present in features if not present],
        },
        "simd": {
            "supported": supported_isas(),
            "in_use": get_isa(),
            # The variable's value read at import, while that choice is the one in force.
            "environment": _SETTING.environment_in_force(),
        },
    }


def show_config(mode: str = "stdout") -> dict[str, Any] | None:
    """Print the version, the build (compiler, flags), the CPU's features and the instruction set in use.

    Parameters
    ----------
    mode : {"stdout", "dicts"}
        ``"stdout"`` prints a report (quote it with benchmark figures and bug reports); ``"dicts"``
        returns the same facts as nested dictionaries instead.

    Returns
    -------
    dict or None
        The dictionaries in ``"dicts"`` mode, else None.
    """
    if mode not in ("stdout", "dicts"):
        raise ValueError(f"mode: expected 'stdout' or 'dicts', got {mode!r}")
    info = config()
    if mode == "dicts":
        return info
    build, cpu, simd = info["build"], info["cpu"], info["simd"]
    lines = [
        f"paperkernels {__version__} (Python {info['python']['version']}, {info['python']['implementation']})",
        "Build:",
        f"  compiler: {build.get('compiler_id', '?')} {build.get('compiler_version', '?')}"
        f" (C++ {str(build.get('cxx_standard', '?'))[:4]})",
        f"  build type: {build.get('build_type') or 'unknown'}",
        f"  flags: {build.get('cxx_flags') or 'unknown'}",
        f"  source commit: {build.get('git_commit') or 'unknown'}",
        "  SIMD variants compiled: " + ("avx512, avx2, sse2" if build.get("dispatch") else "baseline only"),
        "CPU:",
        f"  model: {cpu['model']} ({cpu['machine']})",
        f"  features found: {' '.join(cpu['features']) or 'none checked'}",
        f"  features not found: {' '.join(cpu['missing']) or 'none'}",
        "SIMD kernels:",
        f"  supported: {', '.join(simd['supported'])}",
        f"  in use: {simd['in_use']}"
        + (f" ({ENVIRONMENT_VARIABLE}={simd['environment']})" if simd["environment"] else ""),
    ]
    print("\n".join(lines))
    return None
