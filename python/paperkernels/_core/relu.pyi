"""
Canonical forms of ReLU networks.
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['DeepForm', 'deep_form', 'one_hidden_equal']
class DeepForm:
    """
    Generic deep canonical form (float path)
    """
    def equals(self, arg0: DeepForm) -> int:
        ...
    def materialize(self) -> tuple[bool, list[numpy.typing.NDArray[numpy.float64]], list[numpy.typing.NDArray[numpy.float64]]]:
        ...
    def orders(self) -> list[list[int]]:
        ...
    def pivots(self) -> list[list[int]]:
        ...
    def scales(self) -> list[list[float]]:
        ...
    @property
    def ok(self) -> bool:
        ...
    @property
    def reason(self) -> str:
        ...
    @property
    def relative_error(self) -> list[float]:
        ...
def deep_form(weights: collections.abc.Sequence[typing.Annotated[numpy.typing.ArrayLike, numpy.float64]], biases: collections.abc.Sequence[typing.Annotated[numpy.typing.ArrayLike, numpy.float64]]) -> DeepForm:
    """
    Generic deep canonical form of a float64 network: scales, pivots and orders, with every close decision settled exactly.
    """
def one_hidden_equal(arg0: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg1: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg2: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg3: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg4: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg5: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg6: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], arg7: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> bool:
    """
    Exact equivalence of two one-hidden-layer float64 networks (procedure (a) on their difference).
    """
