"""Benchmark of paperkernels.shapes against mahotas and the xshapeenc reference package.

Shapes/s at N = 20 on 128 x 128 masks (1 thread and all threads) against mahotas
``features.zernike_moments`` and ``xshapeenc`` on the same shapes, after checking that the answers
agree (mahotas: magnitudes up to its normalisation; xshapeenc: our compat mode to 1e-10), and
polygons/s for the exact polygon path (10-50 vertices).

    python bench/bench_shapes.py [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import time

import numpy as np

from paperkernels import shapes as ps
from paperkernels._report import Report, best_time
from paperkernels._validation import available_cores

N = 20
RES = 128


def corpus(n: int, seed: int):
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


def random_polygons(n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        v = int(rng.integers(10, 51))
        angles = np.sort(rng.uniform(0, 2 * np.pi, v))
        radii = rng.uniform(0.3, 0.99, v)
        out.append(np.column_stack([radii * np.cos(angles), radii * np.sin(angles)]))
    return out


def rate(fn, count: int, quick: bool) -> float:
    return count / best_time(fn, repeat=2 if quick else 3, min_time=0.05 if quick else 0.3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run of a few seconds")
    args = parser.parse_args()
    quick = args.quick
    report = Report()
    cores = available_cores()
    n_shapes = 200 if quick else 2000
    shapes, origin = corpus(n_shapes, seed=11)
    masks = ps.rasterize(shapes, RES).astype(np.float32)
    report.line(f"{len(masks)} masks of {RES} x {RES} ({origin}), N = {N}, {cores} cores available")

    rows = []
    encoders = {t: ps.XShapeEncoder(N, n_threads=t) for t in sorted({1, cores})}
    for enc in encoders.values():
        enc.encode_geometry(masks[:2])  # builds and caches the basis
    ours = {t: rate(lambda e=enc: e.encode_geometry(masks), len(masks), quick) for t, enc in encoders.items()}

    # --- mahotas -----------------------------------------------------------------------------
    if importlib.util.find_spec("mahotas") is None:
        report.line("mahotas is not installed: skipped (pip install mahotas)")
    else:
        import mahotas

        coefficients = ps.zernike_moments(masks[:5], N)
        n = ps.indices(N)[:, 0]
        worst = 0.0
        for mask, c in zip(masks[:5], coefficients):
            theirs = mahotas.features.zernike_moments(mask, RES / 2, degree=N, cm=((RES - 1) / 2, (RES - 1) / 2))
            # mahotas divides by the mass and scales by (n + 1) / pi: |A_nm| / sum f
            mine = np.sqrt(n + 1) * np.abs(c) / (np.pi * c[0].real)
            worst = max(worst, float(np.max(np.abs(theirs - mine))))
        report.figure("mahotas agreement: max |magnitude difference|", worst)
        if worst > 1e-9:
            raise SystemExit("mahotas and paperkernels disagree: benchmark aborted")
        few = masks[: 4 if quick else 20]
        peer = rate(
            lambda: [mahotas.features.zernike_moments(m, RES / 2, degree=N, cm=((RES - 1) / 2,) * 2) for m in few],
            len(few),
            quick,
        )
        for t, value in ours.items():
            rows.append(
                [
                    f"masks N={N}, {t} thread(s)",
                    "mahotas zernike_moments (magnitudes)",
                    round(value),
                    round(peer),
                    f"{value / peer:.0f}x",
                ]
            )

    # --- xshapeenc -----------------------------------------------------------------------------
    if importlib.util.find_spec("xshapeenc") is None:
        report.line("xshapeenc is not installed: skipped (pip install xshapeenc)")
    else:
        import xshapeenc

        reference = xshapeenc.ShapeGeometryEncoder(n_max=N, res=RES, lam=0.6, encode_len=None)
        compat = ps.XShapeEncoder(N, res=RES, compat=ps.COMPAT_XSHAPEENC, dtype=np.float64)
        few = masks[: 2 if quick else 6]
        worst = max(
            float(np.max(np.abs(compat.encode_geometry(m) - np.array(reference.encode(m, mask_in_euclidean=True)))))
            for m in few
        )
        report.figure("xshapeenc agreement (compat mode): max |code difference|", worst)
        if worst > 1e-10:
            raise SystemExit("xshapeenc and paperkernels (compat) disagree: benchmark aborted")
        start = time.perf_counter()
        for m in few:
            reference.encode(m, mask_in_euclidean=True)
        peer = len(few) / (time.perf_counter() - start)
        compat_rate = rate(lambda: compat.encode_geometry(masks[:50]), 50, quick)
        for t, value in ours.items():
            rows.append(
                [
                    f"masks N={N}, {t} thread(s)",
                    "xshapeenc ShapeGeometryEncoder.encode",
                    round(value),
                    round(peer),
                    f"{value / peer:.0f}x",
                ]
            )
        rows.append(
            [
                "compat mode, all threads",
                "xshapeenc ShapeGeometryEncoder.encode",
                round(compat_rate),
                round(peer),
                f"{compat_rate / peer:.0f}x",
            ]
        )

    # --- exact polygons --------------------------------------------------------------------------
    polygons = random_polygons(500 if quick else 5000, seed=3)
    exact = ps.zernike_moments(polygons[:20], N)
    duffy = ps.zernike_moments(polygons[:20], N, rule="fan")
    report.figure("polygon rules agreement (boundary vs fan)", float(np.max(np.abs(exact - duffy))))
    for t in sorted({1, cores}):
        value = rate(lambda t=t: ps.zernike_moments(polygons, N, n_threads=t), len(polygons), quick)
        fan = rate(lambda t=t: ps.zernike_moments(polygons[:200], N, rule="fan", n_threads=t), 200, quick)
        rows.append(
            [
                f"polygons (10-50 vertices) N={N}, {t} thread(s)",
                "fan rule (specification's Duffy quadrature)",
                round(value),
                round(fan),
                f"{value / fan:.0f}x",
            ]
        )

    report.heading(f"paperkernels.shapes throughput (items/s, N = {N})")
    report.table(["workload", "peer", "paperkernels", "peer", "ratio"], rows)


if __name__ == "__main__":
    main()
