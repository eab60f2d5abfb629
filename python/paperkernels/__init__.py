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
import importlib.util
from typing import Any, List

from ._isa import apply_environment as _apply_isa_environment
from ._isa import get_isa, set_isa, show_config, supported_isas
from ._limits import Limits, limits
from ._version import __version__

MODULES = ("toptwo", "cascade", "greedy", "shapes", "relu")
# Imported on first attribute access like the paper modules (dask is imported only then).
_LAZY_MODULES = (*MODULES, "distributed")

__all__ = [
    "__version__",
    "available_modules",
    "limits",
    "Limits",
    "get_isa",
    "set_isa",
    "show_config",
    "supported_isas",
    *_LAZY_MODULES,
]

_apply_isa_environment()  # PAPERKERNELS_ISA, if set


def available_modules() -> List[str]:
    """Names of the paper modules present in this build, in the package's canonical order.

    Returns
    -------
    list of str
        A subset of ``["toptwo", "cascade", "greedy", "shapes", "relu"]``, in that order. The
        modules are found without being imported.

    Examples
    --------
    >>> import paperkernels
    >>> paperkernels.available_modules()
    ['toptwo', 'cascade', 'greedy', 'shapes', 'relu']
    """
    found = []
    for name in MODULES:
        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            found.append(name)
    return found


def __getattr__(name: str) -> Any:
    if name in _LAZY_MODULES:
        module = importlib.import_module(f"{__name__}.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_LAZY_MODULES))
