"""Codes: frequency propagation, layout and lengths, invariant features, pose and joint encoding,
decoding of geometry."""

import numpy as np
import pytest

import paperkernels.shapes as ps
from sigint_helpers import assert_interrupts


@pytest.fixture(scope="module")
def star():
    unit, _ = ps.normalize(ps.star_polygon(5, 0.5), input="polygon")
    return unit


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(0)
    out = []
    for _ in range(6):
        angles = np.sort(rng.uniform(0, 2 * np.pi, 20))
        ring = np.column_stack([np.cos(angles), np.sin(angles)]) * rng.uniform(0.4, 1.0, (20, 1))
        out.append(ps.normalize(ring + rng.uniform(-0.3, 0.3, 2))[0])
    return out


def reference_freqprop(z, N, lam, angular=True):
    """Literal transcription of the two cascaded steps on a dict keyed by (n, m)."""
    idx = [tuple(p) for p in ps.indices(N)]
    d = dict(zip(idx, z, strict=False))
    for n, m in sorted(idx):
        if (n - 2, m) in d and m <= n - 2:
            d[(n, m)] = d[(n, m)] + lam * d[(n - 2, m)]
    if angular:
        for n in range(N + 1):
            for m in range(n % 2, n + 1, 2):
                if m >= 2:
                    d[(n, m)] = d[(n, m)] + lam * d[(n, m - 2)]
    return np.array([d[p] for p in idx])


def test_freqprop_matches_literal_steps_and_inverts_exactly():
    rng = np.random.default_rng(1)
    N = 20
    z = rng.normal(size=(4, ps.n_coefficients(N))) + 1j * rng.normal(size=(4, ps.n_coefficients(N)))
    for lam, angular in [(0.6, True), (0.2, False), (-0.3, True)]:
        forward = ps.freqprop(z, lam, angular=angular)
        expected = np.array([reference_freqprop(row, N, lam, angular) for row in z])
        assert np.max(np.abs(forward - expected)) < 1e-13
        back = ps.inverse_freqprop(forward, lam, angular=angular)
        assert np.max(np.abs(back - z)) <= 1e-14


def test_code_lengths_and_layout():
    assert [ps.order_for_length(n) for n in (64, 128, 256, 512)] == [10, 14, 21, 30]
    assert ps.code_length(20) == 242 and ps.code_length(20, invariant=True) == 121
    enc = ps.XShapeEncoder()
    assert enc.N == 30 and enc.length == 512
    z = np.array([1 + 2j, 3 - 4j])
    assert ps.to_codes(z).tolist() == [1, 2, 3, -4]
    assert np.array_equal(ps.from_codes([1, 2, 3, -4], 1)[0], z)


def test_exact_len_pads_and_truncates(star):
    short = ps.XShapeEncoder(encode_len=100, exact_len=True, input="polygon", dtype=np.float64)
    assert short.N == 13 and short.length == 100
    full = ps.XShapeEncoder(13, input="polygon", dtype=np.float64)
    assert np.array_equal(short.encode_geometry(star), full.encode_geometry(star)[:100])
    padded = ps.XShapeEncoder(10, encode_len=150, exact_len=True, input="polygon").encode_geometry(star)
    assert padded.shape == (150,) and np.all(padded[72:] == 0) and np.any(padded[:72] != 0)
    with pytest.raises(ValueError, match="encode_len: N = 10 gives codes of length 72, not 150"):
        ps.XShapeEncoder(10, encode_len=150)


def test_geometry_codes_dtype_batch_and_threads(blobs, n_threads):
    masks = ps.rasterize(blobs, 64)
    enc = ps.XShapeEncoder(12, n_threads=n_threads)
    codes = enc.encode_geometry(masks)
    assert codes.shape == (6, ps.code_length(12)) and codes.dtype == np.float32
    exact = ps.XShapeEncoder(12, dtype=np.float64, n_threads=1).encode_geometry(masks)
    assert np.array_equal(codes, exact.astype(np.float32))
    assert np.array_equal(ps.XShapeEncoder(12, dtype=np.float64, n_threads=n_threads).encode_geometry(masks), exact)
    z = ps.freqprop(ps.zernike_moments(masks, 12), 0.6)
    assert np.array_equal(exact, ps.to_codes(z))


class ArrayLike:
    """Stands in for a CPU tensor: exposes only __array__."""

    def __init__(self, a):
        self._a = a

    def __array__(self, dtype=None, copy=None):
        return self._a if dtype is None else self._a.astype(dtype)


def test_array_protocol_inputs(blobs):
    masks = ps.rasterize(blobs, 32).astype(np.float32)
    enc = ps.XShapeEncoder(8)
    assert np.array_equal(enc.encode_geometry(ArrayLike(masks)), enc.encode_geometry(masks))


def test_invariant_codes_are_rotation_invariant(blobs):
    enc = ps.XShapeEncoder(24, input="polygon", invariant=True, dtype=np.float64)
    assert enc.length == ps.n_coefficients(24)
    phi = 1.234
    rot = np.array([[np.cos(phi), -np.sin(phi)], [np.sin(phi), np.cos(phi)]])
    a = enc.encode_geometry(blobs)
    b = enc.encode_geometry([ring @ rot.T for ring in blobs])
    assert np.max(np.abs(a - b)) < 1e-12
    # the angular step would break it
    full = ps.XShapeEncoder(24, input="polygon", dtype=np.float64)
    za = ps.from_codes(full.encode_geometry(blobs), 24)
    zb = ps.from_codes(full.encode_geometry([ring @ rot.T for ring in blobs]), 24)
    assert np.max(np.abs(np.abs(za) - np.abs(zb))) > 1e-3


def test_reconstruction_iou_on_a_ten_vertex_star(star):
    truth = ps.rasterize(star, 256)
    scores = {}
    for N in (14, 30):
        enc = ps.XShapeEncoder(N, input="polygon")
        decoded = enc.decode_geometry(enc.encode_geometry(star), 256)
        scores[N] = ps.iou(decoded.mask, truth)
        assert decoded.field.shape == (256, 256) and decoded.mask.dtype == bool
    assert scores[14] >= 0.92 and scores[30] >= 0.97, scores
    # the same from a mask, and at another output size
    enc = ps.XShapeEncoder(30)
    decoded = enc.decode_geometry(enc.encode_geometry(ps.rasterize(star, 128, supersample=4)), (96, 96))
    assert ps.iou(decoded.mask, ps.rasterize(star, 96)) >= 0.95


def test_decode_inverts_encode_exactly_on_coefficients(blobs):
    enc = ps.XShapeEncoder(18, input="polygon", dtype=np.float64)
    decoded = enc.decode_geometry(enc.encode_geometry(blobs), 16)
    assert np.max(np.abs(decoded.coefficients - ps.zernike_moments(blobs, 18))) < 1e-14


def test_pose_encoder_round_trip_and_quadrature_convergence():
    rng = np.random.default_rng(2)
    for K, m_p, L in [(3, 17, 128), (5, 17, 128), (8, 4, 32), (4, 2, 4), (1, 0, 1)]:
        enc = ps.PoseEncoder(K, m_p, L)
        p = rng.normal(size=(7, K))
        assert np.max(np.abs(enc.decode(enc.encode(p)) - p)) <= 1e-10
    coarse = ps.PoseEncoder(5, 17, 128).matrix
    fine = ps.PoseEncoder(5, 17, 128, n_nodes=900).matrix
    assert np.max(np.abs(coarse - fine)) < 1e-12 * np.max(np.abs(fine))


def test_pose_windows_are_orthonormal_and_codes_match_the_definition():
    enc = ps.PoseEncoder(4, 3, 6)
    # independent quadrature: composite Gauss-Legendre, 64 panels of 16 nodes on [0, 1]
    x, w = np.polynomial.legendre.leggauss(16)
    left = np.arange(64)[:, None] / 64
    rho = (left + (x + 1) / 128).ravel()
    wr = np.tile(w / 128, 64) * rho
    W = enc.windows(rho)
    assert np.max(np.abs((W * wr[:, None]).T @ W - np.eye(4))) < 1e-13
    p = np.array([0.3, -1.0, 0.5, 2.0])
    profile = W @ p
    n = 3 + 2 * np.arange(6)
    expected = [2 * (k + 1) * np.sum(wr * profile * ps.radial(k, 3, rho)) for k in n]
    assert np.max(np.abs(enc.encode(p) - expected)) < 1e-13 * np.max(np.abs(expected))
    # seed windows follow XShapeEnc's formula (He 2026): two bumps at c_k -/+ delta
    assert np.allclose(enc.sub_centres[:, 1] - enc.sub_centres[:, 0], 2 * enc.delta)
    assert enc.delta == pytest.approx(max(0.35 * 0.8 / 3, np.sqrt(2) * 0.1))


def test_joint_codes_beta_extremes(blobs):
    enc = ps.XShapeEncoder(16, input="polygon", freqprop=0.0, dtype=np.float64)
    poses = np.array([[0.1, -0.05, 0.8]] * len(blobs))
    geo = enc.encode_geometry(blobs)
    pure_pose = ps.from_codes(enc.encode_joint(blobs, poses, beta=0.0), 16)
    nonzero = np.abs(ps.zernike_moments(blobs, 16)) > 0
    assert np.max(np.abs(np.abs(pure_pose[nonzero]) - 1.0)) < 1e-14
    near_geo = enc.encode_joint(blobs, poses, beta=2.0)
    rel = np.linalg.norm(near_geo - geo, axis=1) / np.linalg.norm(geo, axis=1)
    assert np.all(rel < 0.01), rel
    half = ps.from_codes(enc.encode_joint(blobs, poses, beta=0.5), 16)
    assert np.allclose(np.abs(half), np.abs(ps.zernike_moments(blobs, 16)) ** 0.5)


@pytest.mark.parametrize("beta", [0.0, 0.3, 1.0, 1.6])
def test_joint_decoding_with_known_pose_or_known_geometry(blobs, beta):
    enc = ps.XShapeEncoder(14, input="polygon", dtype=np.float64)
    poses = np.column_stack([np.linspace(-0.2, 0.2, 6), np.linspace(0.1, -0.1, 6), np.linspace(0.6, 1.2, 6)])
    joint = enc.encode_joint(blobs, poses, beta, freqprop=0.2)
    geometry = enc.encode_geometry(blobs)
    fit = enc.fit_pose(joint, geometry, 3, beta, freqprop=0.2)
    assert np.max(np.abs(fit.pose - poses)) < 1e-8 and np.all(fit.residual < 1e-8)
    if beta == 0.0:
        with pytest.raises(ValueError, match="beta: codes made with beta = 0"):
            enc.decode_joint(joint, poses, 0.0)
    else:
        recovered = enc.decode_joint(joint, poses, beta, freqprop=0.2)
        assert np.max(np.abs(recovered - geometry)) < 1e-10


def test_gil_is_released_during_batch_moments():
    # The main thread waits for the worker to enter the C++ call, then needs the GIL to take a
    # timestamp: it resumes at once if the call released the GIL, only at its end otherwise.
    import threading
    import time

    masks = (np.random.default_rng(9).random((2000, 64, 64)) > 0.5).astype(np.float32)
    enc = ps.XShapeEncoder(20, n_threads=1)
    enc.encode_geometry(masks[:2])  # build the basis first
    started = threading.Event()
    times = {}

    def work():
        started.set()
        times["start"] = time.perf_counter()
        enc.encode_geometry(masks)
        times["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    worker.start()
    started.wait()
    resumed = time.perf_counter()
    worker.join()
    assert resumed - times["start"] < 0.5 * (times["end"] - times["start"])


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_interrupts_a_long_batch(threads):
    setup = (
        "import numpy as np\nimport paperkernels.shapes as ps\n"
        "masks = np.zeros((3000, 96, 96), dtype=np.uint8)\nmasks[:, 20:70, 30:60] = 1\n"
        f"enc = ps.XShapeEncoder(100, n_threads={threads})\nenc.encode_geometry(masks[:1])\n"
    )
    assert_interrupts(setup, "enc.encode_geometry(masks)")  # about 100 times longer than the signal's delay


def test_polar_input_encoder_uses_the_consistent_grid():
    grid = ps.polar_grid(64, 40, rule="gauss")
    R, T = np.meshgrid(grid.rho, grid.theta)
    values = (R * np.cos(T - 0.4) < 0.3).astype(float)  # a half-plane cut of the disk
    enc = ps.XShapeEncoder(12, input="polar", polar_rule="gauss", dtype=np.float64)
    expected = ps.to_codes(ps.freqprop(ps.zernike_moments(values, 12, input="polar", grid=grid), 0.6))
    assert np.array_equal(enc.encode_geometry(values), expected)
    assert enc.polar_grid(64, 40).shape == (64, 40)
    field = enc.decode_geometry(enc.encode_geometry(values), grid="polar").field
    assert field.shape == (enc.res, enc.res)
