"""
paperkernels C++ core (private: import paperkernels instead)
"""
from __future__ import annotations
from . import common
from . import isa
from . import shapes
from . import greedy
from . import relu
from . import cascade
from . import toptwo
__all__: list[str] = ['build_info', 'cascade', 'common', 'greedy', 'isa', 'relu', 'shapes', 'toptwo']
def build_info() -> dict:
    """
    Compiler id and version, compile flags, build type, and the instruction set ('avx512', 'avx2', 'sse2') the kernels use now (the widest this CPU runs unless paperkernels.set_isa chose another).
    """
__version__: str
