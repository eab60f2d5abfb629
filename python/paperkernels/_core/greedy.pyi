"""
Greedy forward-selection ensembles.
"""
from __future__ import annotations
import numpy
import numpy.typing
import typing
__all__: list[str] = ['Criterion', 'average_path', 'centred_gram', 'centred_transpose', 'centred_xty', 'fit_columns', 'fit_gram']
class Criterion:
    """
    Score of a candidate feature at each step of a learner.
    
    Members:
    
      fs : Forward selection: the decrease in RSS, (x_j^T r)^2 / ||P_A^perp x_j||^2.
    
      omp : Orthogonal matching pursuit: |x_j^T r|.
    """
    __members__: typing.ClassVar[dict[str, Criterion]]
    fs: typing.ClassVar[Criterion]
    omp: typing.ClassVar[Criterion]
    @typing.overload
    def __eq__(self, other: Criterion) -> bool:
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
    def __ne__(self, other: Criterion) -> bool:
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
def average_path(active: typing.Annotated[numpy.typing.ArrayLike, numpy.int64], coef: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], n_features: typing.SupportsInt | typing.SupportsIndex, identical: bool, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    Ordered average of per-learner paths (active (B, k), packed coef (B, k(k+1)/2)) into (k+1, p).
    """
def centred_gram(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], mean: typing.Annotated[numpy.typing.ArrayLike, numpy.float64] | None, n_threads: typing.SupportsInt | typing.SupportsIndex, y: typing.Annotated[numpy.typing.ArrayLike, numpy.float64] | None = None) -> typing.Any:
    """
    (X - mean)^T (X - mean) for X (n, p) row-major (mean None: X^T X). Each entry sums the samples in
    order, by fused multiply-adds under 'avx2' and 'avx512', by rounded products and sums under 'sse2'
    (paperkernels.set_isa): the same bits for any n_threads, avx2 and avx512 identical, sse2 within
    2 n 2^-53 sqrt(G_ii G_jj) of them. With y (n,), already centred, returns (gram, (X - mean)^T y),
    the latter bit-identical to centred_xty under the same instruction set.
    """
def centred_transpose(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], mean: typing.Annotated[numpy.typing.ArrayLike, numpy.float64] | None, n_threads: typing.SupportsInt | typing.SupportsIndex) -> numpy.typing.NDArray[numpy.float64]:
    """
    (X - mean)^T, (p, n) row-major, for X (n, p) row-major (mean None: X^T): each value is one
    subtraction, the same for any n_threads.
    """
def centred_xty(X: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], mean: typing.Annotated[numpy.typing.ArrayLike, numpy.float64] | None, y: typing.Annotated[numpy.typing.ArrayLike, numpy.float64]) -> numpy.typing.NDArray[numpy.float64]:
    """
    (X - mean)^T y for X (n, p) row-major and y (n,) (mean None: X^T y), samples summed in order as
    in centred_gram (fused multiply-adds under 'avx2' and 'avx512').
    """
def fit_columns(xt: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], xty: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], col_sq: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], k: typing.SupportsInt | typing.SupportsIndex, m: typing.SupportsInt | typing.SupportsIndex, criterion: Criterion, tol: typing.SupportsFloat | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, n_learners: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex, first_learner: typing.SupportsInt | typing.SupportsIndex = 0, max_rank: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    Ensemble of forward selections without a Gram matrix: xt is the centred data transposed (p, n).
    Same outputs as fit_gram.
    """
def fit_gram(gram: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], xty: typing.Annotated[numpy.typing.ArrayLike, numpy.float64], k: typing.SupportsInt | typing.SupportsIndex, m: typing.SupportsInt | typing.SupportsIndex, criterion: Criterion, tol: typing.SupportsFloat | typing.SupportsIndex, seed: typing.SupportsInt | typing.SupportsIndex, n_learners: typing.SupportsInt | typing.SupportsIndex, n_threads: typing.SupportsInt | typing.SupportsIndex, first_learner: typing.SupportsInt | typing.SupportsIndex = 0, max_rank: typing.SupportsInt | typing.SupportsIndex = 0) -> tuple:
    """
    Ensemble of forward selections from the centred Gram matrix X^T X and X^T y: learners
    first_learner .. first_learner + n_learners - 1 (learner b uses stream b of seed).
    No learner takes more than max_rank steps (0: no bound), an upper bound on the design's rank.
    Returns (path (k+1, p), active (B, k), packed coefficients (B, k(k+1)/2), gains (B, k)).
    The same bits under any instruction set (paperkernels.set_isa).
    """
