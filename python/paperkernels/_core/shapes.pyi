"""
Zernike moments and XShapeEnc codes.
"""
from __future__ import annotations
import collections.abc
import numpy
import numpy.typing
import typing
__all__: list[str] = ['BasisPurpose', 'CartesianBasis', 'PolarBasis', 'PolygonRule', 'freqprop', 'gauss_legendre', 'half_size', 'polygon_moments', 'radial_band', 'radial_table', 'rasterize', 'resample']
class PolygonRule:
    """
    Quadrature of the exact polygon moments.
    
    Members:
    
      boundary : Line integrals along the edges (Green's theorem).
    
      fan : Triangles fanned from the origin.
    """
    __members__: typing.ClassVar[dict[str, PolygonRule]]
    boundary: typing.ClassVar[PolygonRule]
    fan: typing.ClassVar[PolygonRule]
    @typing.overload
    def __eq__(self, other: PolygonRule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: PolygonRule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class BasisPurpose:
    """
    What a CartesianBasis is built for.
    
    Members:
    
      analysis : Moments of masks (analyse).
    
      synthesis : Fields from coefficients (synthesize).
    """
    __members__: typing.ClassVar[dict[str, BasisPurpose]]
    analysis: typing.ClassVar[BasisPurpose]
    synthesis: typing.ClassVar[BasisPurpose]
    @typing.overload
    def __eq__(self, other: BasisPurpose) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: BasisPurpose) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class CartesianBasis:
    def __init__(self, N: typing.SupportsInt | typing.SupportsIndex, H: typing.SupportsInt | typing.SupportsIndex, W: typing.SupportsInt | typing.SupportsIndex, supersample: typing.SupportsInt | typing.SupportsIndex, purpose: BasisPurpose, max_basis_bytes: typing.SupportsFloat | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def analyse(self, masks: numpy.ndarray, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.complex128]:
        """
        Zernike moments (B, S) of masks (B, H, W).
        """
    def synthesize(self, coefficients: typing.Annotated[numpy.typing.ArrayLike, numpy.complex128], n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
        """
        Real field (B, H, W) of half-set coefficients (B, S).
        """
    @property
    def H(self) -> int:
        ...
    @property
    def N(self) -> int:
        ...
    @property
    def W(self) -> int:
        ...
    @property
    def basis_bytes(self) -> int:
        ...
    @property
    def folded(self) -> bool:
        ...
    @property
    def n_pixels(self) -> int:
        ...
    @property
    def precomputed(self) -> bool:
        ...
class PolarBasis:
    def __init__(self, N: typing.SupportsInt | typing.SupportsIndex, theta: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], wtheta: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], rho: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], wrho: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex], scale: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex]) -> None:
        ...
    def analyse(self, values: numpy.ndarray, n_threads: typing.SupportsInt | typing.SupportsIndex, S: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.complex128]:
        """
        Zernike moments (B, S) of polar grids.
        """
    @property
    def n_rho(self) -> int:
        ...
    @property
    def n_theta(self) -> int:
        ...
def freqprop(z: typing.Annotated[numpy.typing.ArrayLike, numpy.complex128], N: typing.SupportsInt | typing.SupportsIndex, lam: typing.SupportsFloat | typing.SupportsIndex, radial: bool, angular: bool, inverse: bool) -> numpy.typing.NDArray[numpy.complex128]:
    """
    Frequency propagation (or its inverse) of half-set coefficients (B, S).
    """
def gauss_legendre(q: typing.SupportsInt | typing.SupportsIndex) -> tuple[numpy.typing.NDArray[numpy.float64], numpy.typing.NDArray[numpy.float64]]:
    """
    Gauss-Legendre nodes and weights on [-1, 1].
    """
def half_size(N: typing.SupportsInt | typing.SupportsIndex) -> int:
    """
    S(N) = floor((N + 2)^2 / 4), the number of (n, m >= 0) pairs of order <= N.
    """
def polygon_moments(N: typing.SupportsInt | typing.SupportsIndex, vertices: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], ring_start: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], ring_sign: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], poly_start: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], rule: PolygonRule, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.complex128]:
    """
    Exact Zernike moments (B, S) of polygons given as packed rings.
    """
def radial_band(m: typing.SupportsInt | typing.SupportsIndex, L: typing.SupportsInt | typing.SupportsIndex, rho: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    R_{m+2j}^m(rho) for j < L (Kintner recurrence): shape (len(rho), L).
    """
def radial_table(N: typing.SupportsInt | typing.SupportsIndex, rho: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    R_n^m(rho) for the half set of order N (Prata recurrence): shape (len(rho), S(N)).
    """
def rasterize(vertices: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], ring_start: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], ring_sign: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], poly_start: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], H: typing.SupportsInt | typing.SupportsIndex, W: typing.SupportsInt | typing.SupportsIndex, supersample: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Coverage masks (B, H, W) of packed polygons.
    """
def resample(masks: numpy.ndarray, transform: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], R: typing.SupportsInt | typing.SupportsIndex, C: typing.SupportsInt | typing.SupportsIndex, supersample: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Masks resampled at c + unit / scale for transform rows (c_x, c_y, scale).
    """
