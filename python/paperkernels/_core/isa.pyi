"""
The instruction set of the SIMD kernels.
"""
from __future__ import annotations
__all__: list[str] = ['cpu_features', 'get', 'set', 'supported']
def cpu_features() -> list[tuple[str, bool]]:
    """
    (name, present) for the x86-64 features the kernels care about (empty elsewhere).
    """
def get() -> str:
    """
    The instruction set the SIMD kernels use: 'avx512', 'avx2' or 'sse2'.
    """
def set(isa: str) -> None:
    """
    Makes every SIMD kernel use `isa` ('avx512', 'avx2' or 'sse2'); ValueError when the CPU lacks it.
    """
def supported() -> list[str]:
    """
    The instruction sets this CPU runs, widest first.
    """
