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


class _IsaContext:
    """Returned by :func:`set_isa`; as a context manager it restores the previous setting on exit."""

    def __init__(self, previous: str, current: str) -> None:
        self._previous = previous
        self._current = current

    def __enter__(self) -> str:
        return self._current

    def __exit__(self, *exc: object) -> None:
        _extension().isa.set(self._previous)

    def __repr__(self) -> str:
        return f"set_isa({self._current!r})"


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
        ``with`` statement it is undone when the block exits (``with paperkernels.set_isa("avx2"):``).

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
    previous = get_isa()
    _extension().isa.set(key)
    return _IsaContext(previous, key)


def apply_environment() -> None:
    """Apply ``PAPERKERNELS_ISA`` (called once when paperkernels is imported)."""
    value = os.environ.get(ENVIRONMENT_VARIABLE, "").strip()
    if value:
        _extension().isa.set(_resolve(value, ENVIRONMENT_VARIABLE))


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
            "environment": os.environ.get(ENVIRONMENT_VARIABLE),
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
