"""Zernike radial polynomials, the orthonormal basis and moments of masks and polar grids."""

import numpy as np
import pytest

import paperkernels.shapes as ps
from paperkernels import _core
from shapes_reference import half_set, mask_moments, radial_exact


def test_index_set_sizes_and_order():
    assert [ps.n_coefficients(N) for N in range(6)] == [1, 2, 4, 6, 9, 12]
    assert ps.n_coefficients(20) == 121
    nm = ps.indices(4)
    assert nm.tolist() == [list(p) for p in half_set(4)]
    assert nm.tolist()[:5] == [[0, 0], [1, 1], [2, 0], [2, 2], [3, 1]]


@pytest.mark.parametrize("rho", ["0", "1/10", "37/100", "1/2", "71/100", "9/10", "99/100", "1"])
def test_radial_table_matches_exact_rationals_up_to_N_100(rho):
    from fractions import Fraction

    N = 100
    table = ps.radial_table(N, [float(Fraction(rho))])[0]
    exact = np.array([float(radial_exact(n, m, Fraction(rho))) for n, m in half_set(N) if n >= 80])
    got = table[[k for k, (n, m) in enumerate(half_set(N)) if n >= 80]]
    assert np.max(np.abs(got - exact)) < 1e-13


def test_single_radial_by_band_recurrence_at_high_order():
    from fractions import Fraction

    for n, m, rho in [(150, 0, "3/10"), (151, 17, "83/100"), (120, 40, "1/2"), (200, 2, "97/100")]:
        got = ps.radial(n, m, float(Fraction(rho)))
        assert abs(got - float(radial_exact(n, m, Fraction(rho)))) < 1e-13
    assert ps.radial(7, -3, 1.0) == pytest.approx(1.0, abs=1e-15)  # R(1) = 1, |m| used


def test_band_and_table_agree():
    rho = np.linspace(0, 1, 41)
    table = ps.radial_table(60, rho)
    cols = [k for k, (n, m) in enumerate(half_set(60)) if m == 6]
    band = _core.shapes.radial_band(6, len(cols), rho)
    assert np.max(np.abs(band - table[:, cols])) < 1e-14


def test_basis_is_orthonormal_by_exact_quadrature():
    # rho: Gauss-Legendre exact for degree 2N+1 in rho; theta: periodic rule exact for |m| < n_theta.
    N = 14
    x, w = np.polynomial.legendre.leggauss(N + 4)
    rho, wr = 0.5 * (x + 1), 0.5 * w * 0.5 * (x + 1)
    theta = 2 * np.pi * np.arange(4 * N) / (4 * N)
    R, T = np.meshgrid(rho, theta, indexing="ij")
    Z = ps.zernike_basis(N, R, T)  # (n_rho, n_theta, S)
    weight = (wr[:, None] * np.full(len(theta), 2 * np.pi / len(theta))[None, :])[..., None]
    gram = np.einsum("ijk,ijl->kl", Z.conj() * weight, Z)
    assert np.max(np.abs(gram - np.eye(ps.n_coefficients(N)))) < 1e-13
    # negative m: Z_{n,-m} = conj(Z_nm), also orthogonal to the half set except through conjugation
    cross = np.einsum("ijk,ijl->kl", Z * weight, Z)  # <conj Z_k, Z_l> = <Z_{n,-m}, Z_l>
    m = ps.indices(N)[:, 1]
    assert np.max(np.abs(cross[np.ix_(m > 0, m > 0)])) < 1e-13


@pytest.mark.parametrize("shape", [(32, 32), (33, 33), (20, 31), (1, 1), (2, 3)])
def test_mask_moments_match_brute_force(shape):
    rng = np.random.default_rng(1)
    masks = rng.random((3,) + shape)
    got = ps.zernike_moments(masks, 10, input="cartesian")
    expected = np.array([mask_moments(m, 10) for m in masks])
    assert got.shape == (3, ps.n_coefficients(10))
    # the factorial sums of the reference carry ~1e-14 of rounding at N = 10
    assert np.max(np.abs(got - expected)) < 1e-13


def test_mask_dtypes_and_single_mask():
    rng = np.random.default_rng(2)
    binary = rng.random((24, 24)) > 0.5
    reference = ps.zernike_moments(binary.astype(np.float64), 8)
    assert reference.shape == (ps.n_coefficients(8),)
    for kind in (np.bool_, np.uint8, np.float32, np.int64, np.float16):
        assert np.array_equal(ps.zernike_moments(binary.astype(kind), 8), reference)


def test_supersampling_averages_the_basis_over_subpixels():
    rng = np.random.default_rng(3)
    mask = rng.random((12, 12))
    got = ps.zernike_moments(mask, 6, supersample=3)
    # reference: replicate each pixel 3 x 3, apply the pixel-centre rule at 36 x 36 (same grid points)
    fine = np.kron(mask, np.ones((3, 3)))
    assert np.max(np.abs(got - mask_moments(fine, 6))) < 1e-13


def test_results_independent_of_threads_batch_split_and_memory_mode(n_threads):
    rng = np.random.default_rng(4)
    masks = rng.random((21, 40, 40))
    reference = ps.zernike_moments(masks, 16, n_threads=1)
    assert np.array_equal(ps.zernike_moments(masks, 16, n_threads=n_threads), reference)
    pieces = np.concatenate([ps.zernike_moments(masks[i : i + 5], 16, n_threads=n_threads) for i in range(0, 21, 5)])
    assert np.array_equal(pieces, reference)
    on_the_fly = ps.zernike_moments(masks, 16, n_threads=n_threads, max_basis_bytes=0)
    assert np.array_equal(on_the_fly, reference)


def test_memory_guard_switches_to_on_the_fly_basis():
    from paperkernels.shapes._zernike import cartesian_basis

    small = cartesian_basis(12, 64, 64, 1, False, 1000, 1)
    large = cartesian_basis(12, 64, 64, 1, False, 1e9, 1)
    assert not small.precomputed and large.precomputed
    assert large.basis_bytes > 1000


def test_synthesis_inverts_analysis_on_band_limited_fields():
    # f = sum of a few Z's: its moments on a fine polar Gauss grid are the coefficients, and the
    # synthesised field at pixel centres equals the field evaluated directly.
    N = 9
    rng = np.random.default_rng(5)
    S = ps.n_coefficients(N)
    c = rng.normal(size=S) + 1j * rng.normal(size=S)
    c[ps.indices(N)[:, 1] == 0] = c[ps.indices(N)[:, 1] == 0].real
    field = ps.synthesize(c, 40)
    x = (2 * np.arange(40) + 1 - 40) / 40
    X, Y = np.meshgrid(x, x[::-1])
    rho, theta = np.hypot(X, Y), np.arctan2(Y, X)
    inside = rho <= 1
    Z = ps.zernike_basis(N, rho[inside], theta[inside])
    weight = np.where(ps.indices(N)[:, 1] == 0, 1.0, 2.0)
    direct = (Z * c * weight).sum(axis=1).real
    assert np.max(np.abs(field[inside] - direct)) < 1e-12
    assert np.all(field[~inside] == 0)
    grid = ps.polar_grid(32, 16, rule="gauss")
    R, T = np.meshgrid(grid.rho, grid.theta)
    values = (ps.zernike_basis(N, R, T) * c * weight).sum(axis=-1).real
    # values are not in [0, 1]; project with the polar basis directly
    from paperkernels.shapes._zernike import polar_basis

    shifted = (values - values.min()) / (values.max() - values.min())  # affine map into [0, 1]
    got = polar_basis(N, grid).analyse(shifted[None], 1, S)[0]
    offset = -values.min() / (values.max() - values.min())
    expected = c / (values.max() - values.min())
    expected[0] += offset * np.sqrt(np.pi)  # the constant 1 has c_00 = sqrt(pi)
    assert np.max(np.abs(got - expected)) < 1e-12


def test_polar_rules_midpoint_second_order_and_gauss_exact():
    # f = rho^2 cos(theta)^2 in [0, 1]: c_00 = sqrt(1/pi) pi/4, c_20 = c_22 = sqrt(3/pi) pi/12 exactly
    exact_00, exact_22 = np.sqrt(1 / np.pi) * np.pi / 4, np.sqrt(3 / np.pi) * np.pi / 12
    errors = []
    for n in (8, 16, 32):
        grid = ps.polar_grid(12, n)
        R, T = np.meshgrid(grid.rho, grid.theta)
        c = ps.zernike_moments(R**2 * np.cos(T) ** 2, 2, input="polar", grid=grid)
        errors.append(abs(c[0] - exact_00))
    assert 3.9 < errors[0] / errors[1] < 4.1 and 3.9 < errors[1] / errors[2] < 4.1
    grid = ps.polar_grid(12, 3, rule="gauss")  # degree 5 in rho: exact
    R, T = np.meshgrid(grid.rho, grid.theta)
    c = ps.zernike_moments(R**2 * np.cos(T) ** 2, 2, input="polar", grid=grid)
    assert abs(c[0] - exact_00) < 1e-15 and abs(c[2] - exact_22) < 1e-15 and abs(c[3] - exact_22) < 1e-15


def test_polar_input_requires_matching_grid():
    grid = ps.polar_grid(10, 12)
    with pytest.raises(ValueError, match=r"masks: expected polar samples of shape \(10, 12\)"):
        ps.zernike_moments(np.zeros((11, 12)), 4, input="polar", grid=grid)


def test_polar_range_check_shows_the_value_exactly():
    values = np.zeros((2, 16, 8))
    values[1, 3, 4] = 1.25
    with pytest.raises(ValueError, match=r"masks: expected values in \[0, 1\], got 1\.25 in grid 1$"):
        ps.zernike_moments(values, 4, input="polar")
