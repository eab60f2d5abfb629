"""The greedy module's own Gram and X^T y kernels against a plain-Python definition: every entry is
the in-order sum over samples of its terms, each added by a fused multiply-add under AVX2 and
AVX-512 and by a rounded product then a rounded sum under SSE2, so the reference of each instruction
set must match bit for bit, for every instruction set the machine has (paperkernels.set_isa), any
thread count and sizes that do not fill the tiles. Between the two kinds of instruction set the
entries differ by rounding only, within the documented bound 2 gamma_n sqrt(G_ii G_jj)."""

import math

import numpy as np
import pytest

import paperkernels
from paperkernels import _core

FUSED = {"avx2", "avx512"}  # instruction sets whose kernels add each term by a fused multiply-add


def fma(a, b, c):
    """a * b + c rounded once: exact integer arithmetic on the binary fractions, then one correctly
    rounded division (Python's int / int)."""
    na, da = float(a).as_integer_ratio()
    nb, db = float(b).as_integer_ratio()
    nc, dc = float(c).as_integer_ratio()
    return (na * nb * dc + nc * da * db) / (da * db * dc)


def sequential_gram(X, mean, fused=False, entries=None):
    """G[i][j] = (((0 + a_0 b_0) + a_1 b_1) + ...) in float64, sample by sample; fused: each step one
    fused multiply-add (only the upper-triangle `entries` (i, j), if given, the others NaN)."""
    Xc = X - mean if mean is not None else X
    n, p = Xc.shape
    if not fused:
        G = np.zeros((p, p))
        for s in range(n):  # numpy's outer product rounds each product once; += adds in sample order
            G += np.multiply.outer(Xc[s], Xc[s])
        return G
    G = np.full((p, p), np.nan)
    pairs = entries if entries is not None else [(i, j) for i in range(p) for j in range(i, p)]
    for i, j in pairs:
        acc = 0.0
        for s in range(n):
            acc = fma(Xc[s, i], Xc[s, j], acc)
        G[i, j] = G[j, i] = acc
    return G


def sequential_xty(X, mean, y, fused=False):
    Xc = X - mean if mean is not None else X
    if fused:
        return np.array([_fused_dot(Xc[:, j], y) for j in range(X.shape[1])])
    out = np.zeros(X.shape[1])
    for s in range(X.shape[0]):
        out += Xc[s] * y[s]
    return out


def _fused_dot(a, b):
    acc = 0.0
    for u, v in zip(a, b, strict=True):
        acc = fma(u, v, acc)
    return acc


def supported_isas():
    return paperkernels.supported_isas()


@pytest.mark.parametrize("n, p", [(1, 1), (3, 2), (7, 5), (129, 13), (300, 25), (257, 49), (40, 97)])
@pytest.mark.parametrize("centred", [True, False])
def test_gram_is_the_in_order_sum_bit_for_bit(n, p, centred):
    rng = np.random.default_rng(n * 1000 + p)
    X = rng.standard_normal((n, p)) * rng.uniform(0.1, 10.0, p) + rng.uniform(-5.0, 5.0, p)
    mean = X.mean(axis=0) if centred else None
    expected = {False: sequential_gram(X, mean)}
    for isa in supported_isas():
        fused = isa in FUSED
        if fused not in expected:
            expected[fused] = sequential_gram(X, mean, fused)
        for threads in (1, 2, 3):
            with paperkernels.set_isa(isa):
                got = _core.greedy.centred_gram(X, mean, threads)
            assert np.array_equal(got, expected[fused]), (isa, threads)


def test_gram_split_into_several_tasks_on_one_thread_is_the_in_order_sum():
    # p = 1100: a task's strip of the result is capped (8 MiB), so even one thread runs several
    # tasks of tile rows; every split must give the same entries
    rng = np.random.default_rng(11)
    X = rng.standard_normal((3, 1100)) * 3.0 + 1.0
    y = rng.standard_normal(3)
    mean = X.mean(axis=0)
    plain = sequential_gram(X, mean)
    # the fused reference on a sample of entries (every row, random columns) and the diagonal
    rng_entries = np.random.default_rng(0)
    pairs = sorted(
        {(i, int(j)) for i in range(1100) for j in rng_entries.integers(i, 1100, 2)} | {(i, i) for i in range(1100)}
    )
    fused = sequential_gram(X, mean, True, pairs)
    rows, cols = np.array(pairs).T
    for isa in supported_isas():
        for threads in (1, 2):
            with paperkernels.set_isa(isa):
                got, xty = _core.greedy.centred_gram(X, mean, threads, y)
            if isa in FUSED:
                assert np.array_equal(got[rows, cols], fused[rows, cols]), (isa, threads)
                assert np.array_equal(got, got.T), (isa, threads)
            else:
                assert np.array_equal(got, plain), (isa, threads)
            assert np.array_equal(xty, sequential_xty(X, mean, y, isa in FUSED)), (isa, threads)


def test_auto_kernel_is_one_of_the_variants_and_symmetric():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((500, 61))
    auto = _core.greedy.centred_gram(X, X.mean(axis=0), 2)
    assert np.array_equal(auto, auto.T)
    with paperkernels.set_isa(supported_isas()[0]):  # the widest, chosen by default
        assert np.array_equal(auto, _core.greedy.centred_gram(X, X.mean(axis=0), 1))
    assert np.allclose(auto, np.cov(X, rowvar=False) * (X.shape[0] - 1), rtol=1e-12, atol=1e-10)


@pytest.mark.parametrize("n, p", [(1, 1), (9, 4), (130, 33)])
def test_xty_is_the_in_order_sum_bit_for_bit(n, p):
    rng = np.random.default_rng(p)
    X = rng.standard_normal((n, p)) + 3.0
    y = rng.standard_normal(n)
    for mean in (X.mean(axis=0), None):
        for isa in supported_isas():
            with paperkernels.set_isa(isa):
                got = _core.greedy.centred_xty(X, mean, y)
            assert np.array_equal(got, sequential_xty(X, mean, y, isa in FUSED)), isa


@pytest.mark.parametrize("n, p", [(1, 1), (50, 23), (130, 24), (77, 48)])
def test_response_column_of_the_gram_kernel_is_xty_bit_for_bit(n, p):
    rng = np.random.default_rng(n + p)
    X = rng.standard_normal((n, p)) - 2.0
    y = rng.standard_normal(n)
    for mean in (X.mean(axis=0), None):
        for isa in supported_isas():
            with paperkernels.set_isa(isa):
                gram, xty = _core.greedy.centred_gram(X, mean, 2, y)
                assert np.array_equal(gram, _core.greedy.centred_gram(X, mean, 1))
                assert np.array_equal(xty, _core.greedy.centred_xty(X, mean, y))
            assert np.array_equal(xty, sequential_xty(X, mean, y, isa in FUSED))


def exact_gram(Xc):
    """The exact Gram matrix rounded once: each product split into its rounded value and its exact
    error (Dekker's product, exact in float64 without FMA), all summed by math.fsum."""
    split = 134217729.0 * Xc  # Veltkamp's splitting, 2^27 + 1
    hi = split - (split - Xc)
    lo = Xc - hi
    p = Xc.shape[1]
    G = np.empty((p, p))
    for i in range(p):
        for j in range(i, p):
            prod = Xc[:, i] * Xc[:, j]
            err = ((hi[:, i] * hi[:, j] - prod) + hi[:, i] * lo[:, j] + lo[:, i] * hi[:, j]) + lo[:, i] * lo[:, j]
            G[i, j] = G[j, i] = math.fsum(np.concatenate([prod, err]))
    return G


@pytest.mark.parametrize("n, p", [(2000, 30), (257, 61)])
def test_instruction_sets_agree_within_the_documented_bound(n, p):
    # Each instruction set's Gram matrix is within gamma_n sum_s |a_si a_sj| of the exact one (an
    # in-order sum of n rounded terms, Higham 2002, section 3.1); two of them are then within
    # 2 gamma_n sqrt(G_ii G_jj), the bound the documentation states. avx2 and avx512 agree bit for bit.
    rng = np.random.default_rng(n + p)
    X = rng.standard_normal((n, p)) * rng.uniform(0.1, 10.0, p) + rng.uniform(-5.0, 5.0, p)
    mean = X.mean(axis=0)
    Xc = X - mean
    exact = exact_gram(Xc)
    u = 2.0**-53
    gamma = n * u / (1 - n * u)
    magnitude = np.abs(Xc).T @ np.abs(Xc)
    results = {}
    for isa in supported_isas():
        with paperkernels.set_isa(isa):
            results[isa] = _core.greedy.centred_gram(X, mean, 1)
        assert np.all(np.abs(results[isa] - exact) <= gamma * magnitude * (1 + 1e-9)), isa
        assert np.max(np.abs(results[isa] - exact) / magnitude) < 1e-14, isa  # typical: far below the bound
    scale = np.sqrt(np.outer(np.diagonal(exact), np.diagonal(exact)))
    for a in results:
        for b in results:
            assert np.all(np.abs(results[a] - results[b]) <= 2 * gamma * scale * (1 + 1e-9)), (a, b)
            if a in FUSED and b in FUSED:
                assert np.array_equal(results[a], results[b]), (a, b)


def test_kernel_arguments_are_checked():
    X = np.ones((4, 3))
    with pytest.raises(ValueError, match="mean: expected length 3"):
        _core.greedy.centred_gram(X, np.ones(2), 1)
    with pytest.raises(ValueError, match="y: expected length 4"):
        _core.greedy.centred_xty(X, None, np.ones(3))
    with pytest.raises(ValueError, match="y: expected length 4"):
        _core.greedy.centred_gram(X, None, 1, np.ones(5))
    with pytest.raises(ValueError, match="at least one sample"):
        _core.greedy.centred_gram(np.ones((0, 3)), None, 1)


@pytest.mark.parametrize("m", [3, 40])  # lazy updates (m k <= p) and eager ones
@pytest.mark.parametrize("criterion", ["fs", "omp"])
def test_learner_kernels_give_the_same_bits_under_every_instruction_set(m, criterion):
    rng = np.random.default_rng(m + 10 * (criterion == "omp"))
    criterion = getattr(_core.greedy.Criterion, criterion)
    n, p, k = 123, 77, 9  # neither n nor p is a multiple of any vector width
    X = rng.standard_normal((n, p))
    y = X[:, :5] @ np.arange(1.0, 6.0) + rng.standard_normal(n)
    mean = X.mean(axis=0)
    gram, xty = _core.greedy.centred_gram(X, mean, 1, y - y.mean())
    xt = np.ascontiguousarray((X - mean).T)
    col_sq = np.einsum("ij,ij->i", xt, xt)
    results = []
    for isa in supported_isas():
        with paperkernels.set_isa(isa):
            with_gram = _core.greedy.fit_gram(gram, xty, k, m, criterion, 1e-10, 7, 25, 2, 0)
            from_data = _core.greedy.fit_columns(xt, xty, col_sq, k, m, criterion, 1e-10, 7, 25, 2, 0)
        results.append((isa, with_gram, from_data))
    _, first_gram, first_data = results[0]
    for isa, with_gram, from_data in results[1:]:
        for a, b in zip(with_gram + from_data, first_gram + first_data, strict=False):
            assert np.array_equal(a, b), isa
    assert np.array_equal(first_gram[1], first_data[1])  # both ways select the same features here


def test_the_criterion_crosses_into_the_core_as_an_enum_member():
    X = np.random.default_rng(3).standard_normal((20, 4))
    gram, xty = _core.greedy.centred_gram(X, X.mean(axis=0), 1, X[:, 0] - X[:, 0].mean())
    assert set(_core.greedy.Criterion.__members__) == {"fs", "omp"}
    fitted = _core.greedy.fit_gram(gram, xty, 2, 4, _core.greedy.Criterion.omp, 1e-10, 1, 3, 1)
    assert fitted[1].shape == (3, 2)
    for code in (0, 1, 7, "fs"):  # bare codes and strings are not criteria
        with pytest.raises(TypeError):
            _core.greedy.fit_gram(gram, xty, 2, 4, code, 1e-10, 1, 3, 1)
