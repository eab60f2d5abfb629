"""Learners without a Gram matrix (the data transposed, feature-major): the Gram entries of the
drawn candidates come from a blocked product of the selected features' data with the candidates'
data. Each entry keeps the eight ordered partial sums of the dot-product kernel, so the fits below
are pinned to the exact bits (SHA-256 of every output) of the candidate-by-candidate computation,
under every instruction set, any thread count and any split of the learners."""

import hashlib
import math

import numpy as np
import pytest

import paperkernels
from paperkernels import _core
from paperkernels.greedy._design import CentredDesign

# (n, p, k, m, B, criterion) -> first 16 hex digits of the SHA-256 of (path, active, coef, gains).
# n not a multiple of 8 (a tail after the partial sums); k = 30 > 24 selected rows per pass over
# the samples; m = 20 and 13: several groups of candidates and partial register tiles; p small
# enough that candidates are drawn again (partly filled columns).
PINNED = {
    (37, 60, 7, 5, 12, "fs"): "fe0f6361460dd285",
    (21, 80, 30, 20, 6, "fs"): "40f13424d2000762",
    (130, 200, 12, 13, 8, "omp"): "b38fdcbbe4d3e4e3",
}
ISAS = paperkernels.supported_isas()


def problem(n, p):
    """Centred data, X_c^T X_c diagonal and X_c^T y_c computed with correctly rounded sums, so that
    the inputs are the same bits on every machine."""
    rng = np.random.default_rng(n * 1000 + p)
    X = rng.standard_normal((n, p)) + rng.standard_normal(p)
    y = X[:, :3] @ np.array([1.0, -2.0, 0.5]) + rng.standard_normal(n)
    mean = np.array([math.fsum(column) / n for column in X.T])
    xt = np.ascontiguousarray(X.T) - mean[:, None]
    yc = y - math.fsum(y) / n
    col_sq = np.array([math.fsum(row * row) for row in xt])
    xty = np.array([math.fsum(row * yc) for row in xt])
    return X, mean, xt, col_sq, xty


def digest(outputs):
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in outputs)).hexdigest()[:16]


@pytest.mark.parametrize("config", sorted(PINNED))
def test_fits_without_gram_keep_their_bits(config):
    n, p, k, m, B, criterion = config
    _, _, xt, col_sq, xty = problem(n, p)
    code = getattr(_core.greedy.Criterion, criterion)
    for isa in ISAS:
        with paperkernels.set_isa(isa):
            for threads in (1, 2):
                whole = _core.greedy.fit_columns(xt, xty, col_sq, k, m, code, 1e-10, 5, B, threads, 0)
                assert digest(whole) == PINNED[config], (isa, threads)
            # Learners 0 .. B - 1 fitted as two ranges: the same learners.
            head = _core.greedy.fit_columns(xt, xty, col_sq, k, m, code, 1e-10, 5, 2, 1, 0)
            tail = _core.greedy.fit_columns(xt, xty, col_sq, k, m, code, 1e-10, 5, B - 2, 2, 2)
            for part in (1, 2, 3):
                assert np.array_equal(np.concatenate([head[part], tail[part]]), whole[part])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("shape", [(37, 60), (5, 1), (130, 33), (1, 70)])
def test_centred_transpose_is_the_numpy_transpose_minus_the_mean(shape, threads):
    n, p = shape
    X = np.random.default_rng(p).standard_normal((n, p)) * 1e3
    X[0, 0] = -0.0
    mean = X.mean(axis=0)
    expected = np.array(X.T, order="C")  # a copy (for p = 1, X.T is already contiguous)
    assert np.array_equal(_core.greedy.centred_transpose(X, None, threads).view(np.int64), expected.view(np.int64))
    expected -= mean[:, None]
    got = _core.greedy.centred_transpose(X, mean, threads)
    assert got.shape == (p, n) and got.flags.c_contiguous
    assert np.array_equal(got.view(np.int64), expected.view(np.int64))


def test_design_without_gram_uses_the_centred_transpose():
    X, _, _, _, _ = problem(37, 60)
    design = CentredDesign(X, fit_intercept=True, gram=False)
    assert design.xt is not None
    expected = np.ascontiguousarray(X.T) - X.mean(axis=0)[:, None]
    assert np.array_equal(design.xt, expected)
    plain = CentredDesign(X, fit_intercept=False, gram=False)
    assert plain.xt is not None and np.array_equal(plain.xt, X.T)


def test_centred_transpose_checks_its_arguments():
    with pytest.raises(ValueError, match="mean: expected length 3"):
        _core.greedy.centred_transpose(np.ones((2, 3)), np.ones(2), 1)
    with pytest.raises(ValueError, match="X"):
        _core.greedy.centred_transpose(np.ones(3), None, 1)
