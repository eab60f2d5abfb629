"""paperkernels.shapes against mahotas and the xshapeenc reference package.

Shapes/s at N = 20 on 128 x 128 masks (1 thread and all threads) against mahotas
``features.zernike_moments`` and ``xshapeenc`` on the same shapes, after checking that the answers
agree (mahotas: magnitudes up to its normalisation; xshapeenc: our compat mode to 1e-10), and
polygons/s for the exact polygon path (10-50 vertices) against the fan rule (Duffy quadrature).
One-thread rows of paperkernels are measured under every instruction set the CPU supports, and the
masks' dense product (the stored basis times the masks' features) is also reported as an arithmetic
rate next to the machine's one-thread dgemm.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np

from .. import _core
from .. import shapes as ps
from .._validation import available_cores
from ..shapes._zernike import DEFAULT_MAX_BASIS_BYTES, cartesian_basis
from ._harness import Recorder, Timer, blas_threads, measure

N = 20
RES = 128


def corpus(n: int, seed: int) -> tuple[list[Any], str]:
    """Synthetic shapes (shapely boolean operations) or, without shapely, random star polygons."""
    try:
        return ps.synthetic_shapes(n, seed=seed), "synthetic corpus"
    except ImportError:
        rng = np.random.default_rng(seed)
        rings = [
            ps.normalize(ps.star_polygon(int(rng.integers(4, 9)), rng.uniform(0.3, 0.8), rotation=rng.uniform(0, 6)))[0]
            for _ in range(n)
        ]
        return rings, "random stars (install shapely for the corpus)"


def random_polygons(n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    for _ in range(n):
        v = int(rng.integers(10, 51))
        angles = np.sort(rng.uniform(0, 2 * np.pi, v))
        radii = rng.uniform(0.3, 0.99, v)
        out.append(np.column_stack([radii * np.cos(angles), radii * np.sin(angles)]))
    return out


def product_rate(rec: Recorder, masks: np.ndarray, repeat: int, min_time: float) -> None:
    """The masks' moments on one thread under every instruction set, as the arithmetic rate of their
    dense product (a multiply and an add per stored basis value and mask: 2 basis_bytes / 8
    operations per mask), next to the one-thread dgemm of a product of the same size (2S moments by
    basis_bytes / (8 * 2S) features by up to 64 masks)."""
    basis = cartesian_basis(N, RES, RES, 1, False, DEFAULT_MAX_BASIS_BYTES, 1)
    if not basis.precomputed:
        return
    values = basis.basis_bytes / 8
    workload = f"masks {RES}x{RES} N={N}: dense product"
    for _ in rec.each_isa():
        rec.rate(
            workload,
            "paperkernels",
            measure(
                lambda: ps.zernike_moments(masks, N, n_threads=1),
                repeat=repeat,
                min_time=min_time,
                units=len(masks) * 2 * values / 1e9,
                clock="cpu",
            ),
            unit="GFLOP/s",
            metric="arithmetic rate",
            threads=1,
            detail=f"stored basis of {values:,.0f} values, 2 operations per value and mask",
        )
    moments = 2 * _core.shapes.half_size(N)
    rec.dgemm(
        workload, moments, max(1, int(round(values / moments))), min(len(masks), 64), repeat=repeat, min_time=min_time
    )


def run(rec: Recorder) -> None:
    with blas_threads(1):  # the peers on one core; paperkernels' threads are its own
        _run(rec)


def _clock(threads: int) -> str:
    return "cpu" if threads == 1 else "wall"  # one thread: CPU time, robust to other work on the machine


def _run(rec: Recorder) -> None:
    quick = rec.quick
    repeat, min_time = (2, 0.02) if quick else (3, 0.3)
    cores = available_cores()
    threads = sorted({1, cores})
    shapes, origin = corpus(40 if quick else 2000, seed=11)
    masks = ps.rasterize(shapes, RES).astype(np.float32)
    workload = f"masks {RES}x{RES} N={N}"
    rec.note(f"{len(masks)} masks of {RES} x {RES} ({origin}), N = {N}")

    mahotas: Any = None  # the module when installed (no type information)
    if importlib.util.find_spec("mahotas") is None:
        rec.skip("mahotas", "not installed", "pip install mahotas")
    else:
        mahotas = importlib.import_module("mahotas")

        coefficients = ps.zernike_moments(masks[:5], N)
        n = ps.indices(N)[:, 0]
        worst = 0.0
        for mask, c in zip(masks[:5], coefficients, strict=False):
            theirs = mahotas.features.zernike_moments(mask, RES / 2, degree=N, cm=((RES - 1) / 2, (RES - 1) / 2))
            mine = np.sqrt(n + 1) * np.abs(c) / (np.pi * c[0].real)  # mahotas: |A_nm| / sum f
            worst = max(worst, float(np.max(np.abs(theirs - mine))))
        rec.check(
            workload,
            "mahotas zernike_moments vs sqrt(n+1) |c_nm| / (pi c_00), 5 masks",
            "max |magnitude difference|",
            worst,
            1e-9,
        )

    if importlib.util.find_spec("xshapeenc") is None:
        rec.skip("xshapeenc", "not installed", "pip install xshapeenc")
        reference = None
    else:
        import xshapeenc

        reference = xshapeenc.ShapeGeometryEncoder(n_max=N, res=RES, lam=0.6, encode_len=None)
        compat = ps.XShapeEncoder(N, res=RES, compat=ps.COMPAT_XSHAPEENC, dtype=np.float64)
        few = masks[: 2 if quick else 6]
        worst = max(
            float(np.max(np.abs(compat.encode_geometry(m) - np.array(reference.encode(m, mask_in_euclidean=True)))))
            for m in few
        )
        rec.check(
            workload,
            f"compat mode vs xshapeenc ShapeGeometryEncoder.encode, {len(few)} masks",
            "max |code difference|",
            worst,
            1e-10,
        )

    for t in threads:
        encoder = ps.XShapeEncoder(N, n_threads=t)
        encoder.encode_geometry(masks[:2])  # builds and caches the basis
        for _ in rec.each_isa() if t == 1 else [None]:
            rec.rate(
                workload,
                "paperkernels",
                measure(
                    lambda: encoder.encode_geometry(masks),
                    repeat=repeat,
                    min_time=min_time,
                    units=len(masks),
                    clock=_clock(t),
                ),
                unit="shapes/s",
                threads=t,
            )
    product_rate(rec, masks, repeat, min_time)
    if mahotas is not None:
        few = masks[: 4 if quick else 20]
        rec.rate(
            workload,
            "mahotas features.zernike_moments (magnitudes)",
            measure(
                lambda: [mahotas.features.zernike_moments(m, RES / 2, degree=N, cm=((RES - 1) / 2,) * 2) for m in few],
                repeat=repeat,
                min_time=min_time,
                units=len(few),
                clock="cpu",
            ),
            unit="shapes/s",
            threads=1,
            peer=True,
        )
    if reference is not None:
        few = masks[: 2 if quick else 6]
        timer = Timer("cpu")
        for m in few:
            timer.run(lambda: reference.encode(m, mask_in_euclidean=True))
        rec.rate(workload, "xshapeenc ShapeGeometryEncoder.encode", timer, unit="shapes/s", threads=1, peer=True)
        batch = masks[:50]
        rec.rate(
            workload,
            "paperkernels (xshapeenc compat mode)",
            measure(
                lambda: compat.encode_geometry(batch),
                repeat=repeat,
                min_time=min_time,
                units=len(batch),
                clock=_clock(cores),
            ),
            unit="shapes/s",
            threads=cores,
            detail="float64, the reference's grid normalisation",
        )

    polygons = random_polygons(100 if quick else 5000, seed=3)
    workload = f"polygons 10-50 vertices N={N}"
    exact = ps.zernike_moments(polygons[:20], N)
    fan = ps.zernike_moments(polygons[:20], N, rule="fan")
    rec.check(
        workload, "boundary rule vs fan rule, 20 polygons", "max |moment difference|", np.max(np.abs(exact - fan)), 1e-9
    )
    few_polygons = polygons[:20] if quick else polygons[:200]
    for t in threads:
        rec.rate(
            workload,
            "paperkernels",
            measure(
                lambda: ps.zernike_moments(polygons, N, n_threads=t),
                repeat=repeat,
                min_time=min_time,
                units=len(polygons),
                clock=_clock(t),
            ),
            unit="polygons/s",
            threads=t,
            detail="exact boundary rule",
        )
        rec.rate(
            workload,
            "fan rule (Duffy quadrature)",
            measure(
                lambda: ps.zernike_moments(few_polygons, N, rule="fan", n_threads=t),
                repeat=repeat,
                min_time=min_time,
                units=len(few_polygons),
                clock=_clock(t),
            ),
            unit="polygons/s",
            threads=t,
            peer=True,
        )
