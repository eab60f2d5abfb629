"""Ensembles of greedy forward selection with per-step feature subsampling.

From "Revisiting Randomization in Greedy Model Search" (Chen, Klusowski, Tan, Yu; arXiv 2506.15643).

- :class:`EnsembleForwardSelection`: the scikit-learn regressor (C++ fit, whole path).
- :func:`cross_validate_path`: cross-validation over (k, m) that reuses the path.
- :func:`exact_weights`, :func:`asymptotic_weights`, :func:`logistic_bounds`: the rank weights under
  an orthogonal design.
- :func:`degrees_of_freedom`, :func:`degrees_of_freedom_orthogonal`, :func:`bias_variance`: Monte
  Carlo degrees of freedom, training error and a bias/variance report.
- :func:`plot_weights`: weight curves (matplotlib optional).
"""

from ._cv import PathCVResult, cross_validate_path
from ._estimator import EnsembleForwardSelection
from ._plot import plot_weights
from ._simulation import (
    BiasVariance,
    DegreesOfFreedom,
    bias_variance,
    degrees_of_freedom,
    degrees_of_freedom_orthogonal,
)
from ._theory import asymptotic_weights, exact_weights, logistic_bounds

__all__ = [
    "EnsembleForwardSelection",
    "cross_validate_path",
    "PathCVResult",
    "exact_weights",
    "asymptotic_weights",
    "logistic_bounds",
    "degrees_of_freedom",
    "degrees_of_freedom_orthogonal",
    "bias_variance",
    "DegreesOfFreedom",
    "BiasVariance",
    "plot_weights",
]

# The public names live here (help(), reprs, pickles and the API reference show
# paperkernels.greedy, not the private module that defines them).
from .._public import export as _export

_export(__name__, globals(), __all__)
