"""XShapeEnc shape and pose encoding on exact Zernike moments.

A 2D shape is split into its geometry, normalised into the unit disk (:func:`normalize`), and a
pose vector. Geometry is encoded by its coefficients on the orthonormal Zernike basis, computed
exactly for polygons and in batches for masks; a pose becomes a harmonic field in the disk
(:class:`PoseEncoder`); the two can be encoded jointly with an emphasis beta, and an invertible
frequency propagation adds high-frequency content (:class:`XShapeEncoder`).

Paper: Yuhang He, "Training-free Spatially Grounded Geometric Shape Encoding" (arXiv 2604.07522).
The reference implementation is reproduced by ``compat="xshapeenc-0.1.2"``.
"""

from ._codes import code_length, freqprop, from_codes, inverse_freqprop, order_for_length, to_codes
from ._corpus import synthetic_shapes
from ._encoder import GeometryDecoding, PoseFit, XShapeEncoder
from ._geometry import COMPAT_XSHAPEENC, denormalize, iou, normalize, rasterize, regular_polygon, star_polygon
from ._pose import PoseEncoder
from ._zernike import (
    MAX_ORDER,
    PolarGrid,
    indices,
    n_coefficients,
    polar_grid,
    radial,
    radial_table,
    synthesize,
    zernike_basis,
    zernike_moments,
)

__all__ = [
    "COMPAT_XSHAPEENC",
    "MAX_ORDER",
    "GeometryDecoding",
    "PolarGrid",
    "PoseEncoder",
    "PoseFit",
    "XShapeEncoder",
    "code_length",
    "denormalize",
    "freqprop",
    "from_codes",
    "indices",
    "inverse_freqprop",
    "iou",
    "n_coefficients",
    "normalize",
    "order_for_length",
    "polar_grid",
    "radial",
    "radial_table",
    "rasterize",
    "regular_polygon",
    "star_polygon",
    "synthesize",
    "synthetic_shapes",
    "to_codes",
    "zernike_basis",
    "zernike_moments",
]


from .._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)

# Before 0.2 the defining files were public submodules; pickles made then name them
# (paperkernels.shapes.encoder.XShapeEncoder). Their old names stay importable for those pickles.
import sys as _sys  # noqa: E402

for _old in ("codes", "corpus", "encoder", "geometry", "pose", "zernike"):
    _sys.modules.setdefault(f"{__name__}.{_old}", _sys.modules[f"{__name__}._{_old}"])
del _old
