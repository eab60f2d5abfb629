"""Demo of paperkernels.shapes: encode synthetic shapes, decode them, rotation invariance, poses."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .._report import Report, best_time


def _shapes() -> tuple[list[Any], str]:
    from .. import shapes as ps

    try:
        return ps.synthetic_shapes(6, seed=2024), "synthetic corpus (shapely boolean operations)"
    except ImportError:
        rings = [ps.star_polygon(5, 0.5), ps.star_polygon(7, 0.6, rotation=0.2), ps.regular_polygon(3)]
        return [ps.normalize(r)[0] for r in rings], "stars and a triangle (install shapely for the corpus)"


def run(report: Report) -> None:
    from .. import shapes as ps

    shapes, origin = _shapes()
    truth = ps.rasterize(shapes, 192)
    report.line(f"{len(shapes)} shapes: {origin}, normalised into the unit disk")

    report.heading("Reconstruction IoU against N (exact polygon moments, decoded at 192 x 192)")
    rows = []
    for N in (6, 10, 14, 20, 30, 40):
        enc = ps.XShapeEncoder(N, input="polygon")
        decoded = enc.decode_geometry(enc.encode_geometry(shapes), 192)
        scores = ps.iou(decoded.mask, truth)
        rows.append([N, enc.length, float(scores.mean()), float(scores.min())])
    report.table(["N", "code length", "mean IoU", "worst IoU"], rows)

    report.heading("Rotation invariance of invariant=True features (magnitudes, radial propagation)")
    enc = ps.XShapeEncoder(20, input="polygon", invariant=True, dtype=np.float64)
    reference = enc.encode_geometry(shapes)
    worst = 0.0
    for phi in (0.3, 1.1, 2.9):
        rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
        rotated = [_rotate(s, rot) for s in shapes]
        worst = max(worst, float(np.max(np.abs(enc.encode_geometry(rotated) - reference))))
    report.figure("max |feature change| over 3 rotations", worst)
    full = ps.XShapeEncoder(20, input="polygon", dtype=np.float64)
    rot = np.array([[np.cos(1.1), -np.sin(1.1)], [np.sin(1.1), np.cos(1.1)]])
    drift = np.max(np.abs(full.encode_geometry([_rotate(s, rot) for s in shapes]) - full.encode_geometry(shapes)))
    report.figure("same for full codes (phases rotate)", float(drift))

    report.heading("Pose and joint codes")
    poses = np.array([[0.1, -0.2, 1.5]] * len(shapes))
    pose_enc = ps.PoseEncoder(3)
    report.figure(
        "pose round trip error (K=3, m_p=17, L=128)",
        float(np.max(np.abs(pose_enc.decode(pose_enc.encode(poses)) - poses))),
    )
    enc = ps.XShapeEncoder(14, input="polygon", dtype=np.float64)
    geometry = enc.encode_geometry(shapes)
    for beta in (0.5, 1.0, 2.0):
        joint = enc.encode_joint(shapes, poses, beta, freqprop=0.2)
        recovered = enc.decode_joint(joint, poses, beta, freqprop=0.2)
        fit = enc.fit_pose(joint, geometry, 3, beta, freqprop=0.2)
        report.line(
            f"beta={beta}: geometry recovered to {np.max(np.abs(recovered - geometry)):.1e}, "
            f"pose fitted to {np.max(np.abs(fit.pose - poses)):.1e}"
        )

    report.heading("Throughput (N = 20, 128 x 128 masks, all threads)")
    masks = ps.rasterize(shapes * 50, 128)
    enc = ps.XShapeEncoder(20)
    enc.encode_geometry(masks[:2])
    seconds = best_time(lambda: enc.encode_geometry(masks), repeat=2, min_time=0.1)
    report.figure("shapes/s", round(len(masks) / seconds))


def _rotate(shape: Any, rot: npt.NDArray[np.float64]) -> Any:
    from ..shapes._geometry import _map_shape

    return _map_shape(shape, lambda xy: np.asarray(xy) @ rot.T)
