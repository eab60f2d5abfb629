"""Exact polygon moments, their input forms, raster convergence and normalisation."""

import numpy as np
import pytest

import paperkernels.shapes as ps
from shapes_reference import polygon_moments_duffy, rectangle_moments_exact, shoelace


def random_polygon(rng, n_vertices, radius=(0.3, 0.95)):
    angles = np.sort(rng.uniform(0, 2 * np.pi, n_vertices))
    r = rng.uniform(*radius, n_vertices)
    return np.column_stack([r * np.cos(angles), r * np.sin(angles)])


@pytest.mark.parametrize("rule", ["boundary", "fan"])
def test_rectangle_against_exact_rational_moments(rule):
    x0, x1, y0, y1 = -0.25, 0.5, -0.375, 0.125
    ring = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
    expected = rectangle_moments_exact(16, x0, x1, y0, y1)
    got = ps.zernike_moments(ring, 16, rule=rule)
    assert np.max(np.abs(got - expected)) < 2e-15


def test_pi_a00_is_the_shoelace_area_and_rules_agree():
    rng = np.random.default_rng(0)
    for _ in range(10):
        ring = random_polygon(rng, int(rng.integers(3, 40)))
        c = ps.zernike_moments(ring, 12)
        assert np.sqrt(np.pi) * c[0].real == pytest.approx(shoelace(ring), abs=1e-15)  # pi A00 = area
        assert np.max(np.abs(c - ps.zernike_moments(ring, 12, rule="fan"))) < 1e-15


def test_against_independent_numpy_duffy_reference():
    rng = np.random.default_rng(1)
    ring = random_polygon(rng, 17)
    assert np.max(np.abs(ps.zernike_moments(ring, 12) - polygon_moments_duffy(ring, 12))) < 1e-13


def test_quadrature_is_exact_at_high_order():
    # more nodes than the rule's floor(N/2) + 2 change nothing: the integrand is a polynomial
    ring = random_polygon(np.random.default_rng(2), 9)
    for N in (3, 8, 13):
        fine = polygon_moments_duffy(ring, N, q=N + 6)
        assert np.max(np.abs(ps.zernike_moments(ring, N) - fine)) < 1e-13
    high = ps.zernike_moments(ring, 80)
    assert np.max(np.abs(high - ps.zernike_moments(ring, 80, rule="fan"))) < 1e-13


def test_rotation_multiplies_by_phase_and_keeps_magnitudes():
    ring = random_polygon(np.random.default_rng(3), 25)
    phi = 0.7345
    rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    c, cr = ps.zernike_moments([ring, ring @ rot.T], 30)
    m = ps.indices(30)[:, 1]
    assert np.max(np.abs(cr - c * np.exp(-1j * m * phi))) < 1e-13
    assert np.max(np.abs(np.abs(cr) - np.abs(c))) < 1e-12


def test_orientation_holes_and_multipolygons():
    outer = ps.regular_polygon(7, radius=0.9)
    hole = ps.regular_polygon(5, radius=0.3, center=(0.1, 0.0))
    other = ps.star_polygon(5, 0.5, radius=0.2, center=(0.0, 0.0))
    c_outer, c_hole = ps.zernike_moments([outer, hole], 10)
    # rings of a polygon with a hole count as outer minus hole, whatever their orientation
    for o, h in [(outer, hole), (outer[::-1], hole), (outer, hole[::-1]), (outer[::-1], hole[::-1])]:
        got = ps.zernike_moments([[o, h]], 10)[0]
        assert np.max(np.abs(got - (c_outer - c_hole))) < 1e-15
    # a MultiPolygon adds its parts (GeoJSON with closed rings)
    geo = {
        "type": "MultiPolygon",
        "coordinates": [
            [np.vstack([outer, outer[:1]]).tolist(), np.vstack([hole, hole[:1]]).tolist()],
            [np.vstack([other * 0.5 + [0.1, 0.0], other[:1] * 0.5 + [0.1, 0.0]]).tolist()],
        ],
    }
    small = ps.zernike_moments(other * 0.5 + [0.1, 0.0], 10)
    assert np.max(np.abs(ps.zernike_moments(geo, 10) - (c_outer - c_hole + small))) < 1e-15
    feature = {"type": "Feature", "geometry": geo, "properties": {}}
    assert np.array_equal(ps.zernike_moments(feature, 10), ps.zernike_moments(geo, 10))


def test_shapely_and_array_batches_agree():
    shapely = pytest.importorskip("shapely", reason="shapely is an optional dependency")
    rng = np.random.default_rng(4)
    rings = [random_polygon(rng, 12) for _ in range(3)]
    geoms = [shapely.Polygon(r) for r in rings]
    expected = ps.zernike_moments(rings, 9)
    assert np.max(np.abs(ps.zernike_moments(geoms, 9) - expected)) < 1e-15
    assert np.max(np.abs(ps.zernike_moments(np.stack(rings), 9) - expected)) < 1e-15
    with_hole = shapely.Polygon(rings[0] * 1.0, [ps.regular_polygon(6, radius=0.1)])
    a = ps.zernike_moments(with_hole, 9)
    b = ps.zernike_moments(rings[0], 9) - ps.zernike_moments(ps.regular_polygon(6, radius=0.1), 9)
    assert np.max(np.abs(a - b)) < 1e-15


def test_polygon_batches_independent_of_threads(n_threads):
    rng = np.random.default_rng(5)
    rings = [random_polygon(rng, int(rng.integers(10, 50))) for _ in range(40)]
    reference = ps.zernike_moments(rings, 20, n_threads=1)
    assert np.array_equal(ps.zernike_moments(rings, 20, n_threads=n_threads), reference)


def test_raster_moments_converge_to_exact_about_4x_per_doubling():
    # Coverage masks (16 x 16 samples per pixel): the pixel-centre rule is second order.
    # Binary masks converge more slowly and erratically (their boundary error is not smooth).
    star, _ = ps.normalize(ps.star_polygon(5, 0.5), input="polygon")
    star = star * 0.9
    exact = ps.zernike_moments(star, 16)
    errors = []
    for res in (64, 128, 256):
        mask = ps.rasterize(star, res, supersample=16)
        errors.append(np.linalg.norm(ps.zernike_moments(mask, 16) - exact) / np.linalg.norm(exact))
    ratios = np.array(errors[:-1]) / np.array(errors[1:])
    assert np.all((ratios > 3.0) & (ratios < 5.5)), ratios


def test_rasterize_coverage_and_area():
    square = np.array([(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])
    mask = ps.rasterize(square, 8)
    assert mask.sum() == 16 and set(np.unique(mask)) == {0.0, 1.0}
    tri = np.array([(-0.9, -0.8), (0.7, -0.6), (0.1, 0.9)])
    fine = ps.rasterize(tri, 64, supersample=8)
    assert fine.sum() * (2 / 64) ** 2 == pytest.approx(shoelace(tri), rel=2e-3)


def test_normalize_polygon_centroid_radius_and_inverse():
    rng = np.random.default_rng(6)
    ring = random_polygon(rng, 15) * 3.0 + [5.0, -2.0]
    unit, pose = ps.normalize(ring)
    c = ps.zernike_moments(unit, 2)
    assert abs(c[1]) < 1e-15  # c_11 ~ integral of (x - i y): zero at the centroid
    assert np.max(np.hypot(unit[:, 0], unit[:, 1])) == pytest.approx(1 - 1e-3, abs=1e-15)
    assert np.allclose(ps.denormalize(unit, pose), ring, atol=1e-13)
    # a hole moves the centroid: still c_11 = 0
    geo = {"type": "Polygon", "coordinates": [ring.tolist(), (ring[:5] * 0.2 + ring.mean(0) * 0.8).tolist()]}
    unit_geo, pose_geo = ps.normalize(geo)
    assert unit_geo["type"] == "Polygon"
    assert abs(ps.zernike_moments(unit_geo, 2)[1]) < 1e-14


@pytest.mark.parametrize("offset", [(1e3, -2e3), (5e5, 4.2e6), (-6.8e5, 5.1e6), (3e7, 3e7)])
def test_normalize_small_polygon_far_from_the_origin(offset):
    # A 20 m footprint in map coordinates: its centroid and size come out as they do at the origin
    # (up to the rounding of the coordinates themselves, ulp(5e6) ~ 1e-9), with a hole as well.
    star = ps.star_polygon(5, 0.5, radius=10.0)
    hole = (ps.regular_polygon(6, radius=1.0) + [1.0, 0.5]).tolist()
    _, pose0 = ps.normalize({"type": "Polygon", "coordinates": [star.tolist(), hole]})
    moved = {"type": "Polygon", "coordinates": [(star + offset).tolist(), (np.asarray(hole) + offset).tolist()]}
    unit, pose = ps.normalize(moved)
    ulp = np.spacing(np.max(np.abs(offset)))
    assert np.max(np.abs(pose[:2] - pose0[:2] - offset)) <= 64 * ulp
    assert pose[2] == pytest.approx(pose0[2], rel=64 * ulp / 10.0)
    assert abs(ps.zernike_moments(unit, 2)[1]) < 1e-6 + 1e3 * ulp  # c_11 = 0 at the centroid
    assert np.max(np.hypot(*np.asarray(unit["coordinates"][0]).T)) == pytest.approx(0.999, abs=1e3 * ulp)


def exact_centroid(rings):
    """Area centroid of counter-clockwise rings in rational arithmetic (the float coordinates as given)."""
    from fractions import Fraction

    area = mx = my = Fraction(0)
    for ring in rings:
        pts = [(Fraction(float(x)), Fraction(float(y))) for x, y in ring]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:] + pts[:1], strict=True):
            cross = x0 * y1 - x1 * y0
            area += cross / 2
            mx += (x0 + x1) * cross / 6
            my += (y0 + y1) * cross / 6
    return np.array([float(mx / area), float(my / area)])


def test_normalize_parts_far_apart():
    # a MultiPolygon of two copies of a 20 m star, 6400 km apart: the centroid is the midpoint (each
    # part's moments are taken about its own vertex), whatever the order of the parts; two unit
    # squares 1e7 apart are a polygon of area 2, not a degenerate one
    star = ps.star_polygon(5, 0.5, radius=10.0)
    far = np.array([5e6, 4e6])
    parts = [[star.tolist()], [(star + far).tolist()]]
    _, pose = ps.normalize({"type": "MultiPolygon", "coordinates": parts})
    _, swapped = ps.normalize({"type": "MultiPolygon", "coordinates": parts[::-1]})
    exact = exact_centroid([star, star + far])
    for p in (pose, swapped):
        assert np.max(np.abs(p[:2] - exact)) <= 16 * np.spacing(5e6)
        assert p[2] == pytest.approx((1 - 1e-3) / (np.hypot(*far) / 2 + 10.0), rel=1e-12)
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    _, pose = ps.normalize({"type": "MultiPolygon", "coordinates": [[square.tolist()], [(square + 1e7).tolist()]]})
    assert np.max(np.abs(pose[:2] - (1e7 + 1) / 2)) <= 16 * np.spacing(1e7)


@pytest.mark.parametrize("size", [1e-110, 1e-60, 1e60, 1e103, 1e150])
def test_normalize_at_extreme_scales(size):
    # the area and centroid fit in float64 while the moments (of order size^3) would not: they are
    # taken at unit scale, so the pose is the unit square's, scaled
    square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    unit, pose = ps.normalize(square * size)
    np.testing.assert_allclose(pose, [0.5 * size, 0.5 * size, (1 - 1e-3) / (np.sqrt(0.5) * size)], rtol=1e-14)
    np.testing.assert_allclose(unit, ps.normalize(square)[0], atol=1e-15)


def test_normalize_compat_shrinks_a_disk_to_0707():
    disk = ps.regular_polygon(720, radius=2.0, center=(1.0, 1.0))
    unit, pose = ps.normalize(disk)
    assert np.max(np.hypot(*unit.T)) == pytest.approx(0.999)
    unit_ref, pose_ref = ps.normalize(disk, compat="xshapeenc-0.1.2")
    assert np.max(np.hypot(*unit_ref.T)) == pytest.approx(0.999 / np.sqrt(2), rel=1e-4)
    assert np.allclose(pose[:2], pose_ref[:2])


def test_normalize_masks_and_denormalize():
    square = np.array([(0.125, -0.1875), (0.625, -0.1875), (0.625, 0.3125), (0.125, 0.3125)])  # on pixel edges
    mask = ps.rasterize(square, 64)
    unit, pose = ps.normalize(mask)
    assert pose[:2] == pytest.approx([0.375, 0.0625], abs=1e-12)
    # the farthest pixel corner lands on the circle of radius 1 - margin
    assert pose[2] == pytest.approx(0.999 / np.hypot(0.25, 0.25), rel=1e-12)
    assert unit.shape == (64, 64) and unit.max() <= 1.0
    assert ps.zernike_moments(unit, 1)[1] == pytest.approx(0, abs=2e-3)  # centred up to resampling
    back = ps.denormalize(unit, pose)
    assert ps.iou(back, mask) > 0.9
    batch_unit, batch_pose = ps.normalize(np.stack([mask, mask]))
    assert batch_unit.shape == (2, 64, 64) and np.allclose(batch_pose[1], pose)


def test_corpus_is_seeded_and_inside_the_disk():
    pytest.importorskip("shapely", reason="the corpus generator uses shapely")
    a = ps.synthetic_shapes(12, seed=7)
    b = ps.synthetic_shapes(12, seed=7)
    assert all(x.equals_exact(y, 0.0) for x, y in zip(a, b, strict=False))
    assert not all(x.equals_exact(y, 0.0) for x, y in zip(a, ps.synthetic_shapes(12, seed=8), strict=False))
    for shape in a:
        assert shape.is_valid and shape.area > 0
        radius = np.max(np.hypot(*np.asarray(shape.exterior.coords).T))
        assert radius == pytest.approx(0.999, abs=1e-12)
    c = ps.zernike_moments(a, 10)
    assert np.all(np.abs(c[:, 1]) < 1e-13)  # centred at their centroids
    assert sum(len(s.interiors) for s in ps.synthetic_shapes(40, seed=1)) > 0  # holes occur


def test_boundary_rule_identity_in_exact_arithmetic():
    # d/dz [U_{n+1}^{k+1} - U_{n-1}^{k+1}] = (n + 1) U_n^k with U_n^k = R_n^|k| e^{i k theta},
    # checked on polynomials in (z, zbar) with rational coefficients.
    from collections import defaultdict

    from shapes_reference import radial_coefficients

    def U(n, k):
        poly = defaultdict(int)
        if abs(k) > n or (n - abs(k)) % 2:
            return poly
        for power, c in radial_coefficients(n, abs(k)).items():
            h = (power - abs(k)) // 2
            poly[(h + k, h) if k >= 0 else (h, h - k)] += c
        return poly

    def d_dz(poly):
        out = defaultdict(int)
        for (a, b), c in poly.items():
            if a:
                out[(a - 1, b)] += a * c
        return out

    for n in range(12):
        for k in range(-n, n + 1, 2):
            lhs = d_dz(U(n + 1, k + 1))
            for key, c in d_dz(U(n - 1, k + 1)).items():
                lhs[key] -= c
            rhs = U(n, k)
            assert all(lhs[key] == (n + 1) * rhs[key] for key in set(lhs) | set(rhs)), (n, k)


def test_options_cross_into_the_core_as_enum_members():
    from paperkernels import _core
    from paperkernels.shapes._inputs import pack_polygons, split_polygons

    packed = pack_polygons(split_polygons(ps.regular_polygon(5))[0])
    args = (packed.vertices, packed.ring_start, packed.ring_sign, packed.poly_start)
    assert set(_core.shapes.PolygonRule.__members__) == {"boundary", "fan"}
    fan = _core.shapes.polygon_moments(6, *args, _core.shapes.PolygonRule.fan, 1)
    assert np.array_equal(fan, ps.zernike_moments(ps.regular_polygon(5), 6, input="polygon", rule="fan")[None])
    for rule in ("fan", 1):  # strings and bare codes are not rules
        with pytest.raises(TypeError):
            _core.shapes.polygon_moments(6, *args, rule, 1)
    assert set(_core.shapes.BasisPurpose.__members__) == {"analysis", "synthesis"}
    basis = _core.shapes.CartesianBasis(4, 16, 16, 1, _core.shapes.BasisPurpose.synthesis, 1e9, 1)
    assert basis.synthesize(np.ones((1, 9), dtype=complex), 1).shape == (1, 16, 16)
    with pytest.raises(TypeError):
        _core.shapes.CartesianBasis(4, 16, 16, 1, True, 1e9, 1)  # a flag is not a purpose
