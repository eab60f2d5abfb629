"""Hardening of paperkernels.shapes: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import copy
import importlib
import json
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paperkernels
import paperkernels.shapes as S
from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    misaligned,
    non_contiguous_copies,
    poisoned,
    rss_growth,
    run_in_threads,
)
from sigint_helpers import assert_interrupts

MODULE = "shapes"


bad = hostile_checks(MODULE)


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
    masks = (
        (rng.random(shape) > 0.5).astype(dtype) if dtype in (np.uint8, np.bool_) else rng.random(shape).astype(dtype)
    )
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
    bad("shapes", S.zernike_moments, data.draw(poisoned(SQUARE)), 4)
    bad("polygons", S.rasterize, data.draw(poisoned(SQUARE)), 8)
    bad("shape", S.normalize, data.draw(poisoned(SQUARE)))
    bad("shapes", S.zernike_moments, data.draw(poisoned(np.full((5, 5), 0.5))), 4, input="cartesian")
    bad("z", S.freqprop, data.draw(poisoned(np.ones(6))))
    bad("z", S.to_codes, data.draw(poisoned(np.ones(6))))
    bad("codes", S.from_codes, data.draw(poisoned(np.ones(12))), 2)
    bad("coefficients", S.synthesize, data.draw(poisoned(np.ones(6))), 8)
    bad("rho", S.radial_table, 4, data.draw(poisoned(np.full(3, 0.5))))
    bad("a", S.iou, data.draw(poisoned(np.ones((4, 4)))), np.ones((4, 4)))
    bad("pose", S.denormalize, SQUARE, data.draw(poisoned(np.array([0.0, 0.0, 1.0]))))


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=repr)
def test_bad_arrays_refused(value):
    bad("shapes", S.zernike_moments, value, 4, input="polygon")
    bad("shapes", S.zernike_moments, value, 4, input="cartesian")
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
    bad("shapes", S.zernike_moments, np.ones(5), 3, input="cartesian")
    bad("shapes", S.zernike_moments, np.ones((2, 2, 2, 2)), 3, input="cartesian")
    bad("shapes", S.zernike_moments, np.full((3, 3), 1.5), 3, input="cartesian")
    bad("shapes", S.zernike_moments, -np.ones((3, 3)), 3, input="cartesian")
    bad("shapes", S.zernike_moments, SQUARE * 3, 3)  # outside the unit disk
    bad("shapes", S.zernike_moments, SQUARE[:2], 3, input="polygon")
    bad("shapes", S.zernike_moments, np.zeros((4, 2)), 3, input="polygon")  # zero area
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
    bad("shapes", S.XShapeEncoder(8).encode_geometry, np.full((8, 8), np.nan))
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
    limit = "paperkernels.limits.max_result_bytes"
    assert limit in str(bad("res", S.rasterize, SQUARE, 1 << 15))
    assert limit in str(bad("res", S.synthesize, np.ones(6), 1 << 15))
    assert limit in str(bad("res", S.normalize, np.ones((4, 4)), input="cartesian", res=1 << 15))
    assert limit in str(bad("res", S.denormalize, np.ones((4, 4)), [0.0, 0.0, 1.0], input="cartesian", res=1 << 15))
    assert "100000" in str(bad("n", S.radial, 10**9, 0, [0.5]))
    assert "midpoint" in str(bad("n_rho", S.polar_grid, 4, 10**6, "gauss"))
    bad("n_sides", S.regular_polygon, 10**13)
    bad("n_nodes", S.PoseEncoder, 4, n_nodes=10**9)
    assert limit in str(bad("res", S.XShapeEncoder(8, input="polygon").decode_geometry, np.ones(50), 1 << 15))
    bad("n", S.synthetic_shapes, 10**12)


def test_tables_and_pose_integrands_refused_up_front():
    # regressions: 76 GiB and 7.6 GiB requests reached numpy (MemoryError) or ran for minutes
    limit = "paperkernels.limits.max_result_bytes"
    assert limit in str(bad("rho", S.radial_table, 200, np.zeros(10**6)))
    assert limit in str(bad("rho, theta", S.zernike_basis, 200, np.zeros((1000, 1)), np.zeros((1, 1000))))
    assert limit in str(bad("K, L, res", S.PoseEncoder, 4096, L=4096, compat=S.COMPAT_XSHAPEENC, res=10_000))
    assert limit in str(bad("K, L, res", S.PoseEncoder, 2000, L=1000, compat=S.COMPAT_XSHAPEENC))
    bad("rho, theta", S.zernike_basis, 4, np.zeros(3), np.zeros(4))  # shapes that do not broadcast
    # joint codes of a compat encoder build K x (N/2 + 1) x res integrands
    enc = S.XShapeEncoder(200, res=1 << 15, compat=S.COMPAT_XSHAPEENC)
    assert limit in str(bad("res", enc.pose_encoder, 4096))


def test_output_limits_follow_the_shared_setting():
    with paperkernels.limits.override(max_result_bytes=8 * 16 * 16 - 1):
        bad("res", S.rasterize, SQUARE, 16)
    assert S.rasterize(SQUARE, 16).shape == (16, 16)
    S_4 = S.n_coefficients(4)
    with paperkernels.limits.override(max_result_bytes=8 * 10 * S_4 - 1):
        bad("rho", S.radial_table, 4, np.linspace(0, 1, 10))
        bad("rho, theta", S.zernike_basis, 4, np.linspace(0, 1, 5), 0.0)
        bad("shapes", S.zernike_moments, np.zeros((8, 400)), 4, input="polar")  # the polar basis tables
        bad("K, L, res", S.PoseEncoder, 3, L=8, compat=S.COMPAT_XSHAPEENC)
    with paperkernels.limits.override(max_result_bytes=8 * 10 * S_4):
        assert S.radial_table(4, np.linspace(0, 1, 10)).shape == (10, S_4)
    with paperkernels.limits.override(max_result_bytes=2**20):  # pixel tables of a 400 x 400 grid: ~1.4 MB
        bad("shapes", S.zernike_moments, np.zeros((400, 400), dtype=np.uint8), 4, input="cartesian")
        bad("shapes", S.XShapeEncoder(4).encode_geometry, np.zeros((400, 400), dtype=np.uint8))
        assert S.zernike_moments(np.zeros((200, 200), dtype=np.uint8), 4, input="cartesian").shape == (S_4,)


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
    for got, want in zip(run_in_threads(work, list(range(4))), expected, strict=False):
        for g, w in zip(got, want, strict=False):
            np.testing.assert_array_equal(g, w)


def test_thread_counts_identical():
    polys = [S.star_polygon(9, 0.4, radius=0.9, rotation=0.3 * j) for j in range(9)]
    ref = S.zernike_moments(polys, 40, n_threads=1)
    raster = S.rasterize(polys, 32, supersample=3, n_threads=1)
    for threads in (2, 7):
        np.testing.assert_array_equal(S.zernike_moments(polys, 40, n_threads=threads), ref)
        np.testing.assert_array_equal(S.rasterize(polys, 32, supersample=3, n_threads=threads), raster)


# Ctrl-C as a user sends it: a real SIGINT from another process, 0.5 s into a call that runs for
# several seconds (the sizes below), must stop it within 0.5 s.

_SETUP = "import numpy as np\nimport paperkernels.shapes as S\n"


@pytest.mark.parametrize("threads", [1, 2])
def test_polygon_batch_interruptible(threads):
    setup = _SETUP + "polys = [S.star_polygon(50, 0.5, radius=0.9, rotation=0.01 * i) for i in range(400)]"
    assert_interrupts(setup, f"S.zernike_moments(polys, 200, n_threads={threads})")  # ~40 s of work


@pytest.mark.parametrize("threads", [1, 2])
def test_one_large_polygon_interruptible(threads):
    # regression: one 5000-vertex polygon at N = 200 is a single task (48 s) that never polled
    setup = _SETUP + "poly = S.regular_polygon(5000, radius=0.9)"
    call = "S.zernike_moments(poly, 200)" if threads == 1 else "S.zernike_moments([poly, poly], 200, n_threads=2)"
    assert_interrupts(setup, call)


def test_one_large_raster_interruptible():
    # regression: 34 s without a poll
    assert_interrupts(
        _SETUP + "poly = S.regular_polygon(200_000, radius=0.9)", "S.rasterize(poly, 2048, supersample=16)"
    )


def test_radial_table_interruptible():
    # regression: ~5 s with the GIL released and no poll
    assert_interrupts(_SETUP + "rho = np.linspace(0, 1, 20_000)", "S.radial_table(200, rho)")


def test_gauss_legendre_nodes_interruptible():
    # regression: 8 s holding the GIL
    assert_interrupts(_SETUP, "S.polar_grid(8, 20_000, 'gauss')")


def test_basis_build_interruptible():
    # regression: a stored Cartesian basis was built without polling (~3 s here, 40 MB)
    setup = _SETUP + "mask = np.zeros((64, 64))"
    assert_interrupts(setup, "S.zernike_moments(mask, 160, input='cartesian', supersample=16, n_threads=1)", after=0.3)


def test_large_grid_setup_interruptible():
    # regression: listing the disk pixels of a 5800 x 5800 grid with 16 x 16 samples (~3 s) never polled
    setup = _SETUP + "mask = np.zeros((5800, 5800), dtype=np.uint8)"
    call = "S.zernike_moments(mask, 4, input='cartesian', supersample=16, max_basis_bytes=0, n_threads=1)"
    assert_interrupts(setup, call)
    # regression: the pixel lists (hundreds of MB) grew by copying them, one step without a poll
    # whose length follows the machine's page-fault speed (up to 0.46 s, 0.7 to 1.1 s into the call,
    # on the reference VM at a slow moment); they are reserved up front now
    for after in (0.6, 0.75, 0.9, 1.05):
        assert_interrupts(setup, call, after=after)


def test_one_large_polar_grid_interruptible():
    # regression: one grid of angles and radii at N = 200 is a single task (40000 x 800: 2.5-3 s)
    setup = _SETUP + "values = np.zeros((40_000, 800), dtype=np.uint8)"
    assert_interrupts(setup, "S.zernike_moments(values, 200, input='polar', n_threads=1)")


def test_one_large_resampling_interruptible():
    # regression: one mask resampled to 1024 x 1024 with 16 x 16 samples per pixel (~5 s)
    setup = _SETUP + "mask = np.zeros((64, 64)); mask[20:40, 20:40] = 1.0"
    assert_interrupts(setup, "S.normalize(mask, input='cartesian', res=1024, supersample=16, n_threads=1)")


def test_mask_moments_interruptible():
    setup = _SETUP + "masks = np.zeros((3000, 128, 128), dtype=np.float32); masks[:, 30:90, 40:100] = 0.5"
    assert_interrupts(setup, "S.zernike_moments(masks, 120, input='cartesian', n_threads=2)")  # ~30 s of work


# ---- hostile shapes, poses and codes: named errors ---------------------------------------------


class _RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("conversion failed")


def _geojson(ring):
    return {"type": "Polygon", "coordinates": [np.asarray(ring).tolist()]}


def test_malformed_geojson_refused():
    # regressions: KeyError, RecursionError
    bad("shapes", S.zernike_moments, {"type": "Polygon"}, 4)
    bad("shapes", S.zernike_moments, {"type": "MultiPolygon"}, 4)
    bad("shapes", S.zernike_moments, {"type": "Feature", "geometry": {"type": "Polygon"}}, 4)
    bad("shapes", S.zernike_moments, {"type": "Feature"}, 4)
    looped = {"type": "Feature"}
    looped["geometry"] = looped
    bad("shapes", S.zernike_moments, looped, 4)
    bad("shape", S.normalize, looped)
    bad("polygons", S.rasterize, looped)
    rings = []
    rings.append(rings)
    bad("shapes", S.zernike_moments, {"type": "Polygon", "coordinates": rings}, 4)
    bad("shapes", S.zernike_moments, rings, 4)
    bad("shapes", S.zernike_moments, {"type": "Polygon", "coordinates": 5}, 4)
    bad("shapes", S.zernike_moments, {"type": "Polygon", "coordinates": "abc"}, 4)
    bad("shapes", S.zernike_moments, {"type": "Point", "coordinates": [0, 0]}, 4)
    # a well-formed Feature still works
    feature = {"type": "Feature", "properties": {}, "geometry": _geojson(SQUARE)}
    np.testing.assert_array_equal(S.zernike_moments(feature, 6), S.zernike_moments(SQUARE, 6))


def test_empty_polygons_refused():
    # regression: "need at least one array to concatenate"
    shapely = pytest.importorskip("shapely")
    for call in (S.zernike_moments, S.rasterize):
        args = (4,) if call is S.zernike_moments else ()
        name = "shapes" if call is S.zernike_moments else "polygons"
        bad(name, call, shapely.Polygon(), *args)
        bad(name, call, [shapely.Polygon()], *args)
        bad(name, call, [shapely.Polygon(SQUARE), shapely.Polygon()], *args)
        bad(name, call, np.zeros((0, 4, 2)), *args)
        bad(name, call, {"type": "Polygon", "coordinates": []}, *args)
    bad("shapes", S.zernike_moments, np.zeros((0, 4, 2)), 4, input="auto")
    bad("shapes", S.XShapeEncoder(4, input="polygon").encode_geometry, np.zeros((0, 4, 2)))
    bad("shape", S.normalize, shapely.Polygon())


def test_polygons_of_non_real_dtype_refused():
    # regression: "expected (V, 2), got (3, 2)" said nothing of the dtype
    triangle = np.array([[0.0, 0.0], [0.5, 0.0], [0.0, 0.5]])
    for dtype in (bool, complex):
        for call, args in ((S.zernike_moments, (4,)), (S.rasterize, (8,))):
            error = bad(
                "shapes" if call is S.zernike_moments else "polygons",
                call,
                triangle.astype(dtype),
                *args,
                **({"input": "polygon"} if args == (4,) else {}),
            )
            assert np.dtype(dtype).name in str(error) and "expected (V, 2)" not in str(error)
        error = bad("shapes, read as polygons[0]", S.zernike_moments, [triangle.astype(dtype)], 4)
        assert np.dtype(dtype).name in str(error)
    assert "bool" in str(bad("shapes", S.zernike_moments, [[True, False], [False, True], [True, True]], 4))


def test_transposed_polygons_explained():
    # regression: a (2, V) polygon was read as a mask and refused for its values
    star = S.star_polygon(5, 0.5, radius=0.8)
    for call, name, args, kwargs in (
        (S.zernike_moments, "shapes", (4,), {}),
        (S.zernike_moments, "shapes", (4,), {"input": "polygon"}),
        (S.zernike_moments, "shapes", (4,), {"input": "cartesian"}),
        (S.rasterize, "polygons", (), {}),
        (S.normalize, "shape", (), {}),
        (S.XShapeEncoder(4).encode_geometry, "shapes", (), {}),
        (S.XShapeEncoder(4, input="polygon").encode_geometry, "shapes", (), {}),
    ):
        error = bad(name, call, star.T, *args, **kwargs)
        assert "(2, V)" in str(error) and "polygon" in str(error), error
    assert "(2, V)" in str(bad("shapes", S.zernike_moments, star.T.tolist(), 4))
    assert "(2, V)" in str(bad("shapes", S.zernike_moments, np.stack([star.T, star.T]), 4))
    # a two-row mask with values in [0, 1] is still a mask
    assert S.zernike_moments(np.full((2, 6), 0.5), 4).shape == (S.n_coefficients(4),)


def test_geojson_text_refused_clearly():
    text = json.dumps(_geojson(SQUARE))
    for call, name, args in (
        (S.zernike_moments, "shapes", (4,)),
        (S.rasterize, "polygons", ()),
        (S.normalize, "shape", ()),
        (S.XShapeEncoder(4, input="polygon").encode_geometry, "shapes", ()),
    ):
        assert "json.loads" in str(bad(name, call, text, *args))
    bad("shapes", S.XShapeEncoder(4).encode_geometry, text)
    np.testing.assert_array_equal(S.zernike_moments(json.loads(text), 4), S.zernike_moments(SQUARE, 4))


def test_raising_array_likes_named():
    # regression: the RuntimeError of __array__ escaped unnamed
    bad("shapes", S.zernike_moments, _RaisingArray(), 4)
    bad("shapes", S.zernike_moments, _RaisingArray(), 4, input="cartesian")
    bad("shapes", S.zernike_moments, _RaisingArray(), 4, input="polygon")
    bad("shapes, read as polygons[0]", S.zernike_moments, [_RaisingArray()], 4, input="polygon")
    bad("polygons", S.rasterize, _RaisingArray())
    bad("shape", S.normalize, _RaisingArray())
    bad("unit_shape", S.denormalize, _RaisingArray(), [0.0, 0.0, 1.0])
    bad("z", S.freqprop, _RaisingArray())
    bad("z", S.inverse_freqprop, _RaisingArray())
    bad("z", S.to_codes, _RaisingArray())
    bad("codes", S.from_codes, _RaisingArray(), 2)
    bad("coefficients", S.synthesize, _RaisingArray())
    enc = S.XShapeEncoder(4)
    bad("shapes", enc.encode_geometry, _RaisingArray())
    bad("codes", enc.decode_geometry, _RaisingArray())
    bad("a", S.iou, _RaisingArray(), np.ones((2, 2)))
    bad("pose", S.PoseEncoder(3).encode, _RaisingArray())


def test_masked_arrays_refused():
    # regression: the mask was dropped silently
    square = np.ma.masked_array(SQUARE, mask=np.zeros_like(SQUARE, dtype=bool))
    mask = np.ma.masked_array(np.full((6, 6), 0.5), mask=np.eye(6, dtype=bool))
    for error in (
        bad("shapes", S.zernike_moments, square, 4),
        bad("shapes", S.zernike_moments, square, 4, input="polygon"),
        bad("shapes, read as polygons[0]", S.zernike_moments, [square], 4),
        bad("shapes", S.zernike_moments, mask, 4),
        bad("shapes", S.zernike_moments, mask, 4, input="cartesian"),
        bad("shapes", S.zernike_moments, mask, 4, input="polar"),
        bad("polygons", S.rasterize, square),
        bad("shape", S.normalize, square),
        bad("shape", S.normalize, mask),
        bad("shapes", S.XShapeEncoder(4).encode_geometry, mask),
        bad("codes", S.XShapeEncoder(4).decode_geometry, np.ma.masked_array(np.ones(18))),
        bad("z", S.freqprop, np.ma.masked_array(np.ones(6, complex))),
        bad("coefficients", S.synthesize, np.ma.masked_array(np.ones(6, complex))),
        bad("a", S.iou, mask, np.ones((6, 6))),
        bad("pose", S.PoseEncoder(3).encode, np.ma.masked_array(np.ones(3))),
    ):
        assert "masked" in str(error)


def test_colour_images_refused_by_the_encoder():
    # regression: (64, 72, 3) was read as 64 masks of 72 x 3 pixels
    enc = S.XShapeEncoder(8)
    for channels in (1, 3, 4):
        image = np.zeros((64, 72, channels), dtype=np.uint8)
        assert "colour" in str(bad("shapes", enc.encode_geometry, image))
        assert "colour" in str(bad("shapes", enc.encode_joint, image, [0.1, 0.2, 0.3]))
        assert "colour" in str(bad("shapes", S.zernike_moments, image, 4))
    assert "colour" in str(bad("shapes", enc.encode_geometry, np.zeros((64, 72, 3))))
    # an explicit input="cartesian" still reads narrow masks, and one channel goes through
    assert S.zernike_moments(np.zeros((64, 72, 3)), 4, input="cartesian").shape == (64, S.n_coefficients(4))
    assert enc.encode_geometry(np.zeros((64, 72, 3))[..., 0]).shape == (enc.length,)
    assert enc.encode_geometry(np.zeros((5, 3, 3))).shape == (5, enc.length)  # tiny masks are masks


def test_bad_polar_grids_refused():
    # regression: a tuple raised AttributeError
    values = np.zeros((8, 8))
    good = S.polar_grid(8, 8)
    bad("grid", S.zernike_moments, values, 4, input="polar", grid=(8, 8))
    bad(
        "grid.rho",
        S.zernike_moments,
        values,
        4,
        input="polar",
        grid=S.PolarGrid(good.theta, good.rho * 2, good.wtheta, good.wrho),
    )
    bad(
        "grid.theta",
        S.zernike_moments,
        values,
        4,
        input="polar",
        grid=S.PolarGrid("abcdefgh", good.rho, good.wtheta, good.wrho),
    )
    bad(
        "grid.wtheta",
        S.zernike_moments,
        values,
        4,
        input="polar",
        grid=S.PolarGrid(good.theta, good.rho, good.wtheta[:7], good.wrho),
    )
    bad(
        "grid.wrho",
        S.zernike_moments,
        values,
        4,
        input="polar",
        grid=S.PolarGrid(good.theta, good.rho, good.wtheta, good.wrho * np.nan),
    )
    np.testing.assert_array_equal(
        S.zernike_moments(values + 0.5, 4, input="polar", grid=good), S.zernike_moments(values + 0.5, 4, input="polar")
    )


def test_iou_threshold_range():
    # regression: threshold=2 was accepted (every pixel background)
    for value in (2.0, -0.5, 1.0 + 1e-9):
        bad("threshold", S.iou, np.ones((2, 2)), np.ones((2, 2)), value)
    assert S.iou(np.ones((2, 2)), np.ones((2, 2)), 1.0) == 1.0


def test_pose_sigma_refused_up_front():
    # regressions: 1e-300 built NaN windows and blamed the pose; 1e300 raised OverflowError
    for value in (1e-300, 1e-151, 1e151, 1e300):
        bad("sigma", S.PoseEncoder, 4, sigma=value)
        bad("pose_sigma", S.XShapeEncoder, 8, pose_sigma=value)
    error = bad("sigma", S.PoseEncoder, 4, sigma=1e-8)  # bumps between the quadrature nodes
    assert "quadrature" in str(error)
    bad("sigma", S.PoseEncoder, 4, sigma=1e-8, compat=S.COMPAT_XSHAPEENC)
    enc = S.XShapeEncoder(8, input="polygon", pose_sigma=1e-8)
    bad("pose_sigma", enc.encode_joint, SQUARE, [0.1, 0.2, 0.3])
    codes = S.PoseEncoder(1, sigma=1e10).encode([0.5])  # one very wide window is a constant: valid
    assert np.all(np.isfinite(codes))


# ---- pickling ----------------------------------------------------------------------------------


def _round_trips(obj):
    return [pickle.loads(pickle.dumps(obj, protocol=p)) for p in (2, pickle.HIGHEST_PROTOCOL)] + [copy.deepcopy(obj)]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"N": 10, "dtype": np.float64},
        {"N": 10, "input": "polygon", "freqprop": 0.2},
        {"N": 10, "input": "polar", "polar_rule": "gauss"},
        {"N": 8, "invariant": True},
        {"N": 8, "compat": "xshapeenc-0.1.2", "res": 48},
    ],
)
def test_encoders_pickle_and_deepcopy(kwargs):
    enc = S.XShapeEncoder(**kwargs)
    if enc.input == "polygon":
        shapes = [S.star_polygon(5, 0.5, radius=0.8, rotation=r) for r in (0.0, 0.3)]
    elif enc.input == "polar":
        shapes = np.random.default_rng(1).random((2, 24, 16))
    else:
        shapes = S.rasterize([S.star_polygon(5, 0.5, radius=0.8, rotation=r) for r in (0.0, 0.3)], 32, supersample=2)
    poses = [[0.1, 0.2, 0.3], [0.3, -0.1, 1.0]]
    codes = enc.encode_geometry(shapes)
    joint = None if enc.invariant else enc.encode_joint(shapes, poses)
    for restored in _round_trips(enc) + _round_trips(_round_trips(enc)[0]):
        assert repr(restored) == repr(enc)
        np.testing.assert_array_equal(restored.encode_geometry(shapes), codes)
        if joint is not None:
            np.testing.assert_array_equal(restored.encode_joint(shapes, poses), joint)
    # the used encoder (with cached bases) copies too, and still agrees
    for restored in _round_trips(enc):
        np.testing.assert_array_equal(restored.encode_geometry(shapes), enc.encode_geometry(shapes))


@pytest.mark.parametrize("compat", [None, "xshapeenc-0.1.2"])
def test_pose_encoders_pickle_and_deepcopy(compat):
    # regression: PoseEncoder held a lambda and could not be pickled
    pose = S.PoseEncoder(4, m_p=5, L=12, compat=compat, res=64)
    p = np.array([[0.3, -0.2, 0.5, 0.1], [1.0, 0.0, -1.0, 2.0]])
    codes = pose.encode(p)
    for restored in _round_trips(pose):
        assert repr(restored) == repr(pose)
        np.testing.assert_array_equal(restored.encode(p), codes)
        np.testing.assert_array_equal(restored.decode(codes), pose.decode(codes))
        np.testing.assert_array_equal(restored.phase_matrix(6), pose.phase_matrix(6))


def test_results_pickle_and_deepcopy():
    enc = S.XShapeEncoder(10, input="polygon", dtype=np.float64)
    shapes = [S.star_polygon(5, 0.5, radius=0.8, rotation=r) for r in (0.0, 0.3)]
    codes = enc.encode_geometry(shapes)
    poses = np.array([[0.1, 0.2, 0.3], [0.3, -0.1, 0.5]])
    results = [
        enc.decode_geometry(codes, 16),
        enc.fit_pose(enc.encode_joint(shapes, poses), codes, 3),
        S.polar_grid(8, 5, "gauss"),
    ]
    for result in results:
        for restored in _round_trips(result):
            assert type(restored) is type(result)
            for field in result.__dataclass_fields__:
                np.testing.assert_array_equal(getattr(restored, field), getattr(result, field))


@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_memory_growth():
    mask = np.random.default_rng(0).random((2, 32, 32))
    poly = S.star_polygon(6, 0.5, radius=0.8)

    def call():
        S.zernike_moments(mask, 12, input="cartesian", n_threads=2)
        S.zernike_moments(poly, 20)
        S.rasterize(poly, 32)
        S.synthesize(np.ones(16, complex), 16)
        S.freqprop(np.ones(16, complex))
        with pytest.raises(ValueError):  # the error path must not leak
            S.zernike_moments(np.full((4, 4), 2.0), 3, input="cartesian")

    assert rss_growth(call, 400) < 8 * 2**20


def test_basis_cache_shared_by_threads():
    # regression: threads that evicted entries of the shared basis cache while another thread looked
    # one up raised "RuntimeError: OrderedDict mutated during iteration" (in about 1 round of 3)
    import sys

    rng = np.random.default_rng(3)
    masks = [rng.random((side, side)) > 0.5 for side in range(16, 28)]  # 12 grids, 8 cached bases
    expected = [S.zernike_moments(mask, 8, n_threads=1) for mask in masks]

    def work(t):
        return [S.zernike_moments(masks[(t + k) % 12], 8, n_threads=1) for k in range(40)]

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            for t, results in enumerate(run_in_threads(work, list(range(8)))):
                for k, got in enumerate(results):
                    np.testing.assert_array_equal(got, expected[(t + k) % 12])
    finally:
        sys.setswitchinterval(old)


def _orthonormality_error(pose_encoder):
    """``max |<w_j, w_k> - delta_jk|`` on a rule independent of the encoder's: composite Gauss-Legendre,
    1024 panels of 16 nodes."""
    x, w = np.polynomial.legendre.leggauss(16)
    rho = (np.arange(1024)[:, None] / 1024 + (x + 1) / 2048).ravel()
    weight = np.tile(w / 2048, 1024) * rho
    W = pose_encoder.windows(rho)
    return np.max(np.abs((W * weight[:, None]).T @ W - np.eye(pose_encoder.K)))


def test_pose_windows_that_lose_orthonormality_refused():
    # regression: K >~ 20 seed bumps of width 0.1 are numerically dependent, and Gram-Schmidt
    # normalised rounding noise: windows off orthonormal by 3.5e-5 (K = 20) to 6e23 (K = 40)
    # with a modest condition_number and round-tripping codes
    for K in (20, 30, 40, 1000):
        error = str(bad("K, sigma", S.PoseEncoder, K))
        assert f"K = {K}" in error and "sigma = 0.1" in error and "use K <= 11 or sigma <= " in error
    bad("K, sigma", S.PoseEncoder, 12, sigma=0.2)  # 6e-8 off
    bad("K, sigma", S.PoseEncoder, 2, sigma=1e10)  # two equal constants
    bad("K, sigma", S.PoseEncoder, 30, compat=S.COMPAT_XSHAPEENC, res=200)
    # what the message offers works
    assert _orthonormality_error(S.PoseEncoder(11)) < 1e-10
    assert _orthonormality_error(S.PoseEncoder(30, sigma=0.8 / (0.75 * 29))) < 1e-10
    for sigma in (0.02, 0.05, 0.2, 0.5, 1.0):
        K = 1 + int(0.8 / (0.75 * sigma))
        assert _orthonormality_error(S.PoseEncoder(K, sigma=sigma)) < 1e-10
    # bumps too narrow for the quadrature: orthonormal on the nodes only (3e0 off for sigma = 1e-3)
    error = str(bad("sigma", S.PoseEncoder, 4, sigma=1e-3))
    assert "n_nodes >= 3500" in error
    assert _orthonormality_error(S.PoseEncoder(4, sigma=1e-3, n_nodes=3500)) < 1e-10
    # the joint codes name their argument
    enc = S.XShapeEncoder(8, input="polygon")
    bad("pose_sigma", enc.encode_joint, SQUARE, np.full(30, 0.1))
    bad("pose_sigma", S.XShapeEncoder(8, input="polygon", pose_sigma=1e-3).encode_joint, SQUARE, [0.1, 0.2, 0.3])
    assert S.XShapeEncoder(8, input="polygon", pose_sigma=0.03).encode_joint(SQUARE, np.full(30, 0.1)).shape == (
        enc.length,
    )


def test_pose_encoder_work_interruptible():
    # one seed window at a time (2 million small steps here)
    assert_interrupts(_SETUP, "S.PoseEncoder(1500, sigma=5e-4, n_nodes=7000)")
    # the field at many radii: blocks of bounded size (the whole would take 1.6 GB and ~20 s in one call)
    setup = _SETUP + "enc = S.PoseEncoder(100, sigma=0.01)\nrho = np.linspace(0, 1, 2_000_000)\np = np.ones(100)"
    assert_interrupts(setup, "enc.field(p, rho, 0.0)")
    assert_interrupts(setup, "enc.windows(rho[:400_000])")


def _mask_batch():
    rng = np.random.default_rng(5)
    polys = [S.star_polygon(5 + b % 4, 0.5, radius=0.3 + 0.05 * b, center=(0.2 - 0.04 * b, 0.1)) for b in range(13)]
    masks = S.rasterize(polys, (90, 70), supersample=3)
    masks[3] *= rng.random((90, 70))  # soft masks too
    return masks


@pytest.mark.parametrize("compat", [None, S.COMPAT_XSHAPEENC])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.uint8])
def test_mask_normalize_in_blocks_is_exact(monkeypatch, compat, dtype):
    # regression: the frames of a mask batch took several (B, H, W) float64 temporaries at once;
    # they are built in blocks now, with the values of the whole batch at once
    masks = _mask_batch()
    masks = (masks > 0.5).astype(dtype) if dtype == np.uint8 else masks.astype(dtype)
    geometry = importlib.import_module("paperkernels.shapes._geometry")
    monkeypatch.setattr(geometry, "_MASK_BLOCK_BYTES", 2**40)
    whole = S.normalize(masks, res=40, compat=compat)
    for block_bytes in (1, 9 * 90 * 70 * 2, 9 * 90 * 70 * 5 + 1):  # one mask and one row at a time, 2 or 5 masks
        monkeypatch.setattr(geometry, "_MASK_BLOCK_BYTES", block_bytes)
        unit, pose = S.normalize(masks, res=40, compat=compat)
        np.testing.assert_array_equal(pose, whole[1])
        np.testing.assert_array_equal(unit, whole[0])
    for b in range(len(masks)):  # one mask at a time: the same up to the rounding of the centroid sums
        unit, pose = S.normalize(masks[b], res=40, compat=compat)
        np.testing.assert_allclose(pose, whole[1][b], rtol=1e-14, atol=1e-15)
        assert np.max(np.abs(unit - whole[0][b])) < 1e-9


def test_mask_normalize_memory_bounded():
    # regression: 100 masks of 512 x 512 took 627 MiB of temporaries, under a 50 MiB limit
    import tracemalloc

    masks = np.zeros((100, 512, 512), bool)
    masks[:, 200:300, 100:400] = True
    expected = S.normalize(masks, res=64)
    tracemalloc.start()
    try:
        with paperkernels.limits.override(max_result_bytes=50 * 2**20):
            unit, pose = S.normalize(masks, res=64)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 56 * 2**20, peak / 2**20
    np.testing.assert_array_equal(unit, expected[0])
    np.testing.assert_array_equal(pose, expected[1])
    with paperkernels.limits.override(max_result_bytes=2**20):
        bad("shape", S.normalize, np.ones((400, 400)))  # the float64 copy of one mask: 1.2 MiB


def test_mask_normalize_interruptible():
    # regression: 2.3 s of numpy over the whole batch at once (Ctrl-C seen after 1.9 to 3.0 s)
    setup = _SETUP + "masks = np.zeros((600, 512, 512), bool); masks[:, 200:300, 100:400] = True"
    assert_interrupts(setup, "S.normalize(masks, res=64)", after=0.3)


def test_moment_errors_name_the_shapes_argument():
    # regression: zernike_moments(shapes, N) blamed "masks" or "polygons", names the user never passed
    for value, kwargs, how in (
        (None, {}, "masks"),
        (np.full((3, 3), 1.5), {}, "masks"),  # the core's check of the values
        (np.full((3, 4), 1.5), {"input": "polar"}, "polar masks"),
        ([], {}, "polygons"),
        (SQUARE[:2], {"input": "polygon"}, "polygons[0]"),
    ):
        error = str(bad("shapes", S.zernike_moments, value, 5, **kwargs))
        assert error.startswith(f"shapes, read as {how}: expected"), error
    assert str(bad("shapes", S.XShapeEncoder(4).encode_geometry, np.full((3, 3), 1.5))).startswith("shapes: expected")


def test_overflowing_coordinates_named():
    # regression: 1e300 coordinates were refused as "positive area, got area inf" with numpy
    # RuntimeWarnings, and 1e150 gave a pose of NaN
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning leaks
        for factor in (1e300, 1e200):
            error = str(bad("shape[0]", S.normalize, SQUARE * factor))
            assert "overflows float64" in error and "positive area" not in error
            assert "overflows float64" in str(bad("polygons[0]", S.rasterize, SQUARE * factor, 8))
        # area 1e300 and centroid fit: taken at unit scale, the moments (of order side^3) no longer
        # overflow on the way (this used to be refused)
        _, pose = S.normalize(SQUARE * 1e150)
        _, unit_pose = S.normalize(SQUARE)
        np.testing.assert_allclose(pose, unit_pose * [1e150, 1e150, 1e-150], rtol=1e-14)
        assert "underflows float64" in str(bad("shape[0]", S.normalize, SQUARE * 1e-300))
        bad("shape[1]", S.normalize, [SQUARE, SQUARE * 1e300])
        unit, pose = S.normalize(SQUARE * 1e100)
        assert np.all(np.isfinite(pose)) and np.all(np.isfinite(unit))
    assert "positive area" in str(bad("shape[0]", S.normalize, np.zeros((4, 2))))


def test_fit_pose_accuracy_as_documented():
    # the guide's figures: at N = 14 on a normalised star, poses in [-1, 1]^3 are recovered, and a
    # failed fit (e.g. (2, 2, 2), wrongly documented as exact) shows a residual of about 1 rad
    unit, _ = S.normalize(S.star_polygon(5, 0.5))
    enc = S.XShapeEncoder(14, input="polygon", dtype=np.float64)
    geometry = enc.encode_geometry(unit)
    poses = np.random.default_rng(1).uniform(-1, 1, (30, 3))
    fit = enc.fit_pose(enc.encode_joint([unit] * 30, poses), np.tile(geometry, (30, 1)), 3)
    assert np.max(np.abs(fit.pose - poses)) < 1e-13 and np.max(fit.residual) < 1e-12
    failed = enc.fit_pose(enc.encode_joint(unit, [2.0, 2.0, 2.0]), geometry, 3)
    assert np.max(np.abs(failed.pose - 2.0)) > 1 and 1.0 < failed.residual < 1.2


def test_fit_pose_refuses_the_code_of_an_empty_shape():
    # an empty mask encodes to zeros: no phase carries a pose, so there is no fit to return (it used
    # to come back as pose 0 with a NaN residual, which a "residual > 0.01" test lets through)
    enc = S.XShapeEncoder(14)
    empty = np.zeros((64, 64))
    star = S.rasterize(S.normalize(S.star_polygon(5, 0.5))[0], 64)
    with pytest.raises(ValueError, match=r"^geometry: expected the code of a shape with area"):
        enc.fit_pose(enc.encode_joint(empty, [0.5, -1.0, 0.3]), enc.encode_geometry(empty), 3)
    masks = np.stack([star, empty])
    with pytest.raises(ValueError, match=r"^geometry\[1\]: expected the code of a shape with area"):
        enc.fit_pose(enc.encode_joint(masks, [[0.3, -0.2, 0.5], [0.5, -1.0, 0.3]]), enc.encode_geometry(masks), 3)
    geometry = enc.encode_geometry(star)
    for vanishing in (geometry * 1e-310, np.where(np.arange(geometry.size) == 3, 5e-324, 0.0)):
        with pytest.raises(ValueError, match=r"^geometry: expected the code of a shape with area"):
            enc.fit_pose(np.zeros_like(geometry), vanishing, 3)
    fit = enc.fit_pose(enc.encode_joint(star, [0.3, -0.2, 0.5]), geometry, 3)
    assert np.allclose(fit.pose, [0.3, -0.2, 0.5], atol=1e-6) and fit.residual < 1e-2


def test_radial_accuracy_as_documented():
    # radial() (one band) is least accurate for m = 0 near rho = 0; the documented bounds hold
    mpmath = pytest.importorskip("mpmath")

    def exact(n, m, r):
        k = (n - m) // 2
        with mpmath.workdps(int(0.35 * n) + 60):
            r = mpmath.mpf(r)
            return float(
                mpmath.fsum(
                    (-1) ** j * mpmath.binomial(n - j, j) * mpmath.binomial(n - 2 * j, k - j) * r ** (n - 2 * j)
                    for j in range(k + 1)
                )
            )

    rho = np.concatenate([np.linspace(0, 0.04, 41), [0.000587, 0.3, 0.77, 1.0]])
    for n, m, bound in ((100, 0, 1e-13), (100, 50, 1e-14), (300, 0, 1e-12)):
        errors = np.abs(S.radial(n, m, rho) - [exact(n, m, r) for r in rho])
        assert np.max(errors) < bound, (n, m, np.max(errors))
    table = S.radial_table(100, rho)[:, S.indices(100).tolist().index([100, 0])]
    assert np.max(np.abs(table - [exact(100, 0, r) for r in rho])) < 1.3e-15
