"""paperkernels: fast, exact and tested implementations of five recent machine-learning papers.

Modules (each imported on first use):

- :mod:`paperkernels.toptwo`  -- beta-EB-TCI best-arm identification
- :mod:`paperkernels.cascade` -- topic-order cascading bandits, exact planning and learning
- :mod:`paperkernels.greedy`  -- ensembles of greedy forward selection with feature subsampling
- :mod:`paperkernels.shapes`  -- XShapeEnc Zernike-moment shape and pose encoding
- :mod:`paperkernels.relu`    -- ReLU-network symmetries and exact functional equivalence

The SIMD kernels run under the widest instruction set the CPU supports; ``PAPERKERNELS_ISA`` (read
at import) or :func:`set_isa` picks another (``"avx512"``, ``"avx2"``, ``"sse2"``), with the same
results. :func:`show_config` prints the version, the build and the CPU's features.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._isa import apply_environment as _apply_isa_environment
from ._isa import get_isa, set_isa, show_config, supported_isas
from ._limits import Limits, limits
from ._version import __version__

MODULES = ("toptwo", "cascade", "greedy", "shapes", "relu")
# Imported on first attribute access like the paper modules (dask is imported only then).
_LAZY_MODULES = (*MODULES, "distributed")

__all__ = [
    "__version__",
    "MODULES",
    "limits",
    "Limits",
    "get_isa",
    "set_isa",
    "show_config",
    "supported_isas",
    *_LAZY_MODULES,
]

_apply_isa_environment()  # PAPERKERNELS_ISA, if set

from ._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    if name == "available_modules":  # before 0.2: every module is always built
        import warnings

        warnings.warn(
            "paperkernels.available_modules() is deprecated: every module is always present, see paperkernels.MODULES",
            DeprecationWarning,
            stacklevel=2,
        )
        return lambda: list(MODULES)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES))
