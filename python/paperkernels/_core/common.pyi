"""
Random streams and the deterministic parallel-for.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['hardware_threads', 'random_uint64', 'random_uniform']
def hardware_threads() -> int:
    """
    Number of hardware threads seen by the C++ core.
    """
def random_uint64(seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex, n: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.uint64]:
    """
    First n raw 64-bit outputs of stream `stream` of `seed` (xoshiro256**).
    """
def random_uniform(seed: typing.SupportsInt | typing.SupportsIndex, stream: typing.SupportsInt | typing.SupportsIndex, n: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    First n uniforms on [0, 1) of a stream.
    """
