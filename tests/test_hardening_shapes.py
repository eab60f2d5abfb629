"""Hardening of paperkernels.shapes: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paperkernels.shapes as S
from paperkernels.shapes import _inputs

from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    interrupted_quickly,
    misaligned,
    non_contiguous_copies,
    poisoned,
    run_in_threads,
)
from test_resources import needs_proc, rss_growth

MODULE = "shapes"


_hostile_counts, bad = hostile_checks(MODULE)


@st.composite
def stars(draw):
    """A star polygon inside the unit disk."""
    n = draw(st.integers(2, 12))
    inner = draw(st.floats(0.2, 0.95))
    radius = draw(st.floats(0.2, 0.6))  # with the centre offset, stays inside the unit disk
    rotation = draw(st.floats(-np.pi, np.pi))
    cx, cy = draw(st.floats(-0.25, 0.25)), draw(st.floats(-0.25, 0.25))
    return S.star_polygon(n, inner, radius=radius, rotation=rotation, center=(cx, cy))


def polygon_area(v):
    x, y = v[:, 0], v[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))


# ---- valid inputs: finite, shaped, invariant ---------------------------------------------------


@SOME
@given(poly=stars(), N=st.integers(0, 24), phi=st.floats(-np.pi, np.pi))
def test_polygon_moments_invariants(poly, N, phi):
    z = S.zernike_moments(poly, N)
    assert z.shape == (S.n_coefficients(N),) and np.all(np.isfinite(z))
    assert z[0] == pytest.approx(polygon_area(poly) / np.sqrt(np.pi), rel=1e-12)  # c_00 = area / sqrt(pi)
    rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    turned = S.zernike_moments(poly @ rot.T, N)
    np.testing.assert_allclose(np.abs(turned), np.abs(z), atol=1e-12)
    np.testing.assert_allclose(turned, z * np.exp(-1j * S.indices(N)[:, 1] * phi), atol=1e-12)
    np.testing.assert_allclose(S.zernike_moments(poly, N, rule="fan"), z, atol=1e-12)
    np.testing.assert_allclose(S.zernike_moments(poly[::-1], N), z, atol=1e-15)  # orientation does not matter


@FEW
@given(poly=stars())
def test_polygon_layouts_agree(poly):
    expected = S.zernike_moments(poly, 10)
    for variant in non_contiguous_copies(poly):
        np.testing.assert_array_equal(S.zernike_moments(variant, 10), expected)
    np.testing.assert_array_equal(S.rasterize(np.asfortranarray(poly), 24), S.rasterize(poly, 24))


@FEW
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.tuples(st.integers(1, 3), st.integers(1, 24), st.integers(1, 24)),
    dtype=st.sampled_from([np.float64, np.float32, np.uint8, np.bool_]),
    N=st.integers(0, 12),
)
def test_mask_moments_finite_and_layout_free(seed, shape, dtype, N):
    rng = np.random.default_rng(seed)
    masks = (rng.random(shape) > 0.5).astype(dtype) if dtype in (np.uint8, np.bool_) else rng.random(shape).astype(dtype)
    z = S.zernike_moments(masks, N, input="cartesian", n_threads=1)
    assert z.shape == (shape[0], S.n_coefficients(N)) and np.all(np.isfinite(z))
    for variant in non_contiguous_copies(masks):
        np.testing.assert_array_equal(S.zernike_moments(variant, N, input="cartesian", n_threads=1), z)
    for threads in (2, 7):
        np.testing.assert_array_equal(S.zernike_moments(masks, N, input="cartesian", n_threads=threads), z)


@FEW
@given(
    z=st.lists(st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False), min_size=25, max_size=25),
    lam=st.floats(-1.0, 1.0),
    angular=st.booleans(),
)
def test_freqprop_round_trip_and_codes(z, lam, angular):
    z = np.array(z)  # S(8) = 25
    out = S.freqprop(z, lam, angular=angular)
    assert out.shape == z.shape and np.all(np.isfinite(out))
    np.testing.assert_allclose(S.inverse_freqprop(out, lam, angular=angular), z, atol=1e-9 * (1 + np.abs(z).max()))
    codes = S.to_codes(z)
    assert codes.shape == (50,)
    np.testing.assert_array_equal(S.from_codes(codes, 8)[0], z)


@FEW
@given(poly=stars(), res=st.integers(4, 40), ss=st.integers(1, 4))
def test_rasterize_and_normalize(poly, res, ss):
    mask = S.rasterize(poly, res, supersample=ss)
    assert mask.shape == (res, res) and mask.min() >= 0 and mask.max() <= 1
    assert np.all(np.isfinite(S.zernike_moments(mask, 6, input="cartesian")))  # masks feed back in
    unit, pose = S.normalize(poly * 3.0 + 5.0)
    assert np.hypot(unit[:, 0], unit[:, 1]).max() <= 1.0 + 1e-12
    np.testing.assert_allclose(S.denormalize(unit, pose), poly * 3.0 + 5.0, atol=1e-12)


@FEW
@given(N=st.integers(0, 10), res=st.integers(1, 20), seed=st.integers(0, 2**32 - 1))
def test_synthesize_finite(N, res, seed):
    rng = np.random.default_rng(seed)
    S_ = S.n_coefficients(N)
    field = S.synthesize(rng.standard_normal(S_) + 1j * rng.standard_normal(S_), res)
    assert field.shape == (res, res) and np.all(np.isfinite(field))


def test_misaligned_arrays_read_safely():
    # regression (UBSan, arrays unpickled on dask workers): masks were read in place at odd addresses
    masks = np.random.default_rng(0).random((2, 12, 12))
    want = S.zernike_moments(masks, 6, input="cartesian")
    np.testing.assert_array_equal(S.zernike_moments(misaligned(masks), 6, input="cartesian"), want)
    poly = S.star_polygon(5, 0.5, radius=0.8)
    np.testing.assert_array_equal(S.zernike_moments(misaligned(poly), 6), S.zernike_moments(poly, 6))


# ---- hostile inputs ----------------------------------------------------------------------------

SQUARE = np.array([[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]])


@FEW
@given(data=st.data())
def test_poisoned_arrays_refused(data):
    bad("polygons", S.zernike_moments, data.draw(poisoned(SQUARE)), 4)
    bad("polygons", S.rasterize, data.draw(poisoned(SQUARE)), 8)
    bad("shape", S.normalize, data.draw(poisoned(SQUARE)))
    bad("masks", S.zernike_moments, data.draw(poisoned(np.full((5, 5), 0.5))), 4, input="cartesian")
    bad("z", S.freqprop, data.draw(poisoned(np.ones(6))))
    bad("z", S.to_codes, data.draw(poisoned(np.ones(6))))
    bad("codes", S.from_codes, data.draw(poisoned(np.ones(12))), 2)
    bad("coefficients", S.synthesize, data.draw(poisoned(np.ones(6))), 8)
    bad("rho", S.radial_table, 4, data.draw(poisoned(np.full(3, 0.5))))
    bad("a", S.iou, data.draw(poisoned(np.ones((4, 4)))), np.ones((4, 4)))
    bad("pose", S.denormalize, SQUARE, data.draw(poisoned(np.array([0.0, 0.0, 1.0]))))


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=repr)
def test_bad_arrays_refused(value):
    bad("polygons", S.zernike_moments, value, 4, input="polygon")
    bad("masks", S.zernike_moments, value, 4, input="cartesian")
    bad("polygons", S.rasterize, value, 8)
    if not (isinstance(value, np.ndarray) and value.dtype.kind == "c"):  # complex coefficients are valid
        bad("z", S.freqprop, value)
        bad("z", S.to_codes, value)
        bad("coefficients", S.synthesize, value, 8)
    bad("rho", S.radial_table, 3, value) if value is not None and np.size(value) else None
    bad("a", S.iou, value, np.ones((2, 2)))


@pytest.mark.parametrize("value", BAD_COUNTS, ids=repr)
def test_bad_counts_refused(value):
    bad("N", S.zernike_moments, SQUARE, value)
    bad("N", S.n_coefficients, value)
    bad("n", S.radial, value, 0, [0.5])
    bad("res", S.rasterize, SQUARE, value)
    bad("res", S.synthesize, np.ones(6), value)
    bad("supersample", S.zernike_moments, np.ones((4, 4)), 2, supersample=value)
    bad("n_theta", S.polar_grid, value, 8)
    bad("n_rho", S.polar_grid, 8, value)
    bad("K", S.PoseEncoder, value)
    bad("n_sides", S.regular_polygon, value)
    bad("n_points", S.star_polygon, value)
    bad("n_threads", S.zernike_moments, SQUARE, 4, n_threads=value) if value not in (-1, True, None) else None


@pytest.mark.parametrize("value", BAD_REALS, ids=repr)
def test_bad_reals_refused(value):
    bad("lam", S.freqprop, np.ones(6), value)
    bad("margin", S.normalize, SQUARE, margin=value)
    bad("rotation", S.star_polygon, 5, rotation=value)
    bad("rotation", S.regular_polygon, 5, rotation=value)
    bad("threshold", S.iou, np.ones((2, 2)), np.ones((2, 2)), value)
    bad("max_basis_bytes", S.zernike_moments, np.ones((4, 4)), 2, max_basis_bytes=value)
    bad("sigma", S.PoseEncoder, 4, sigma=value)


def test_wrong_shapes_and_options_refused():
    bad("masks", S.zernike_moments, np.ones(5), 3, input="cartesian")
    bad("masks", S.zernike_moments, np.ones((2, 2, 2, 2)), 3, input="cartesian")
    bad("masks", S.zernike_moments, np.full((3, 3), 1.5), 3, input="cartesian")
    bad("masks", S.zernike_moments, -np.ones((3, 3)), 3, input="cartesian")
    bad("polygons", S.zernike_moments, SQUARE * 3, 3)  # outside the unit disk
    bad("polygons", S.zernike_moments, SQUARE[:2], 3, input="polygon")
    bad("polygons", S.zernike_moments, np.zeros((4, 2)), 3, input="polygon")  # zero area
    bad("input", S.zernike_moments, SQUARE, 3, input="hexagonal")
    bad("rule", S.zernike_moments, SQUARE, 3, rule="simpson")
    bad("coefficients", S.synthesize, np.ones(5), 8)  # not a length S(N)
    bad("z", S.freqprop, np.ones((2, 2, 6)))
    bad("codes", S.from_codes, np.ones((2, 2, 4)), 2)
    bad("codes", S.from_codes, [], 2)
    bad("a, b", S.iou, np.ones((2, 2)), np.ones((3, 3)))
    bad("m", S.radial, 4, 1, [0.5])
    bad("rho", S.radial, 4, 0, [1.5])
    bad("res", S.rasterize, SQUARE, (4, 4, 4))
    bad("pose", S.denormalize, SQUARE, [0.0, 0.0, -1.0])
    bad("pose", S.denormalize, SQUARE, [0.0, 0.0, 1e-320])  # regression: overflowed to inf silently
    bad("shape", S.normalize, np.zeros((4, 4)), input="cartesian")


def test_full_coverage_is_exactly_one():
    # regression: s x s shares of 1 / s^2 summed to 1 + ulp, which zernike_moments then refused
    square = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    for ss in range(1, 17):
        mask = S.rasterize(square, 4, supersample=ss)
        assert np.all(mask == 1.0), ss
        unit, _ = S.normalize(mask, input="cartesian", supersample=ss)
        assert unit.max() <= 1.0
        S.zernike_moments(unit, 4, input="cartesian")


def test_overflowing_results_refused():
    # regressions: these returned infinities without a word
    bad("lam", S.freqprop, np.full(121, 1.0 + 0j), 1e300)
    bad("coefficients", S.synthesize, np.full(6, 1e308 + 0j), 8)


def test_encoder_hostile_inputs():
    enc = S.XShapeEncoder(8, input="polygon")
    codes = enc.encode_geometry(SQUARE)
    bad("codes", enc.decode_geometry, np.full(codes.shape, np.nan), 16)
    bad("codes", enc.decode_geometry, "abc", 16)
    bad("codes", enc.decode_geometry, None, 16)
    bad("codes", enc.decode_geometry, codes[:-1], 16)
    bad("res", enc.decode_geometry, codes, 0)
    bad("grid", enc.decode_geometry, codes, 16, grid="hex")
    bad("poses", enc.encode_joint, SQUARE, [np.nan, 0.2, 0.3])
    bad("poses", enc.encode_joint, SQUARE, None)
    bad("beta", enc.encode_joint, SQUARE, [0.1, 0.2, 0.3], float("nan"))
    bad("beta", enc.encode_joint, SQUARE, [0.1, 0.2, 0.3], 3.0)
    bad("K", enc.fit_pose, codes, codes, -1)
    bad("shapes", enc.encode_geometry, SQUARE * 3)
    bad("masks", S.XShapeEncoder(8).encode_geometry, np.full((8, 8), np.nan))
    bad("shapes", S.XShapeEncoder(8).encode_geometry, "x")
    bad("N", S.XShapeEncoder, 201)
    bad("encode_len", S.XShapeEncoder, encode_len=0)
    bad("dtype", S.XShapeEncoder, 8, dtype=np.int32)
    bad("freqprop", S.XShapeEncoder, 8, freqprop=float("inf"))
    pose = S.PoseEncoder(4)
    bad("pose", pose.encode, [np.nan] * 4)
    bad("pose", pose.encode, [1.0] * 5)
    bad("codes", pose.decode, [np.inf] * 128)
    bad("n", S.synthetic_shapes, -1)
    bad("n_operations", S.synthetic_shapes, 2, n_operations=(3, 1))
    bad("primitives", S.synthetic_shapes, 2, primitives=["blob"])


def test_encoder_overflow_refused():
    # regressions: float32 codes of a huge propagation and fields of huge codes were inf without a word
    bad("freqprop", S.XShapeEncoder(30, input="polygon", freqprop=50).encode_geometry, SQUARE)
    enc = S.XShapeEncoder(8, input="polygon")
    bad("codes", enc.decode_geometry, np.full(enc.length, 1e308), 16)
    bad("pose", S.PoseEncoder(4).encode, [1e308] * 4)


# ---- resource limits ---------------------------------------------------------------------------


def test_exploding_outputs_refused_up_front():
    limit = "MAX_OUTPUT_BYTES"
    assert limit in str(bad("res", S.rasterize, SQUARE, 1 << 15))
    assert limit in str(bad("res", S.synthesize, np.ones(6), 1 << 15))
    assert limit in str(bad("res", S.normalize, np.ones((4, 4)), input="cartesian", res=1 << 15))
    assert limit in str(bad("res", S.denormalize, np.ones((4, 4)), [0.0, 0.0, 1.0], input="cartesian", res=1 << 15))
    assert "100000" in str(bad("n", S.radial, 10**9, 0, [0.5]))
    assert "midpoint" in str(bad("n_rho", S.polar_grid, 4, 10**6, "gauss"))
    bad("n_sides", S.regular_polygon, 10**13)
    bad("n_nodes", S.PoseEncoder, 4, n_nodes=10**9)
    assert "MAX_OUTPUT_BYTES" in str(bad("res", S.XShapeEncoder(8, input="polygon").decode_geometry, np.ones(50), 1 << 15))
    bad("n", S.synthetic_shapes, 10**12)


def test_output_limit_is_configurable(monkeypatch):
    monkeypatch.setattr(_inputs, "MAX_OUTPUT_BYTES", 8 * 16 * 16 - 1)
    bad("res", S.rasterize, SQUARE, 16)
    monkeypatch.setattr(_inputs, "MAX_OUTPUT_BYTES", 8 * 16 * 16)
    assert S.rasterize(SQUARE, 16).shape == (16, 16)


# ---- threads, Ctrl-C, memory -------------------------------------------------------------------


def test_concurrent_calls_match_sequential():
    rng = np.random.default_rng(1)
    batches = [rng.random((6, 48, 48)) for _ in range(4)]
    polys = [[S.star_polygon(7, 0.5, radius=0.8, rotation=0.1 * i + j) for j in range(5)] for i in range(4)]

    def work(i):
        return (
            S.zernike_moments(batches[i], 20, input="cartesian", n_threads=2),
            S.zernike_moments(polys[i], 30, n_threads=2),
            S.rasterize(polys[i], 40, n_threads=2),
        )

    expected = [work(i) for i in range(4)]
    for got, want in zip(run_in_threads(work, list(range(4))), expected):
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


def test_thread_counts_identical():
    polys = [S.star_polygon(9, 0.4, radius=0.9, rotation=0.3 * j) for j in range(9)]
    ref = S.zernike_moments(polys, 40, n_threads=1)
    raster = S.rasterize(polys, 32, supersample=3, n_threads=1)
    for threads in (2, 7):
        np.testing.assert_array_equal(S.zernike_moments(polys, 40, n_threads=threads), ref)
        np.testing.assert_array_equal(S.rasterize(polys, 32, supersample=3, n_threads=threads), raster)


@pytest.mark.parametrize("threads", [1, 2])
def test_polygon_moments_interruptible(threads):
    polys = [S.star_polygon(50, 0.5, radius=0.9, rotation=0.01 * i) for i in range(400)]  # ~40 s of work
    interrupted_quickly(lambda: S.zernike_moments(polys, 200, n_threads=threads))


def test_mask_moments_interruptible():
    masks = np.random.default_rng(0).random((3000, 128, 128)).astype(np.float32)  # ~30 s of work
    interrupted_quickly(lambda: S.zernike_moments(masks, 120, input="cartesian", n_threads=2))


@needs_proc
@pytest.mark.skipif(__import__("os").environ.get("PAPERKERNELS_SANITIZED") == "1", reason="ASan quarantines freed memory")
def test_no_memory_growth():
    mask = np.random.default_rng(0).random((2, 32, 32))
    poly = S.star_polygon(6, 0.5, radius=0.8)

    def call():
        S.zernike_moments(mask, 12, input="cartesian", n_threads=2)
        S.zernike_moments(poly, 20)
        S.rasterize(poly, 32)
        S.synthesize(np.ones(16, complex), 16)
        S.freqprop(np.ones(16, complex))
        try:
            S.zernike_moments(np.full((4, 4), 2.0), 3, input="cartesian")
        except ValueError:
            pass

    assert rss_growth(call, 400) < 8 * 2**20
