"""Hardening of paperkernels.greedy: random valid inputs keep the invariants, hostile inputs raise
errors that name the argument, threads and Ctrl-C behave, memory does not grow."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paperkernels
import paperkernels.greedy as G
from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    SOME,
    hostile_checks,
    non_contiguous_copies,
    poisoned,
    rss_growth,
    run_in_threads,
)
from paperkernels.greedy import EnsembleForwardSelection, _design, _theory
from sigint_helpers import assert_interrupts

MODULE = "greedy"


bad = hostile_checks(MODULE)


def sklearn_refuses(call, *args, **kwargs):
    """X and y go through scikit-learn's own validation (for estimator-check compatibility), whose
    messages follow scikit-learn's wording; only the error type is checked."""
    from hardening_helpers import HOSTILE_TRIED

    HOSTILE_TRIED[MODULE] += 1
    with pytest.raises((ValueError, TypeError)):
        call(*args, **kwargs)


def data(seed, n, p):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = X[:, : min(3, p)] @ np.arange(1.0, min(3, p) + 1) + rng.standard_normal(n)
    return X, y


def fit(X, y, **kw):
    params = dict(k=3, m=2, n_estimators=20, random_state=0, n_jobs=1)
    params.update(kw)
    return EnsembleForwardSelection(**params).fit(X, y)


# ---- valid inputs: finite, shaped, invariant ---------------------------------------------------


@SOME
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    p=st.integers(1, 15),
    frac=st.floats(0.05, 1.0),
    criterion=st.sampled_from(["fs", "omp"]),
    intercept=st.booleans(),
    precompute=st.sampled_from(["auto", True, False]),
)
def test_fit_invariants(seed, n, p, frac, criterion, intercept, precompute):
    X, y = data(seed, n, p)
    k = max(1, min(p, n - 1, 4))
    model = fit(X, y, k=k, m=frac, criterion=criterion, fit_intercept=intercept, precompute=precompute)
    assert model.coef_path_.shape == (k + 1, p) and np.all(np.isfinite(model.coef_path_))
    assert np.all(model.coef_path_[0] == 0)
    freq = model.selection_frequencies_
    assert freq.shape == (k, p) and freq.min() >= 0 and freq.max() <= 1
    assert np.all(np.diff(freq, axis=0) >= 0)
    chosen = (model.active_sets_ >= 0).sum(axis=1)  # learners stop early only on a degenerate design
    np.testing.assert_allclose(freq.sum(axis=1)[-1], chosen.mean(), rtol=1e-12)
    imp = model.feature_importances_
    assert imp.min() >= 0 and (imp.sum() == 0 or abs(imp.sum() - 1) < 1e-12)
    pred = model.predict(X)
    assert pred.shape == (n,) and np.all(np.isfinite(pred))


@pytest.mark.parametrize("precompute", [True, False])
@pytest.mark.parametrize("intercept", [True, False])
def test_learners_stop_at_the_rank_of_the_design(precompute, intercept):
    # n = 10 < p = 20: the centred design has rank 9 (10 without the intercept). Random subsets
    # leave some learners with ill-conditioned active sets, whose downdated ||P_A^perp x_j||^2
    # used to let a column in their span through tol; no learner may select more columns than the
    # rank, and every active set is of full rank.
    rng = np.random.default_rng(0)
    n, p = 10, 20
    X, y = rng.normal(size=(n, p)), rng.normal(size=n)
    model = EnsembleForwardSelection(
        k=15, m=3, n_estimators=200, random_state=0, n_jobs=1, precompute=precompute, fit_intercept=intercept
    ).fit(X, y)
    rank = n - 1 if intercept else n
    Xc = X - X.mean(axis=0) if intercept else X
    sizes = (model.active_sets_ >= 0).sum(axis=1)
    assert sizes.max() == rank
    for active in model.active_sets_:
        chosen = active[active >= 0]
        assert np.linalg.matrix_rank(Xc[:, chosen]) == len(chosen)
    assert np.all(np.isfinite(model.coef_path_))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("precompute", [True, False])
def test_no_learner_takes_a_column_in_the_span_of_its_active_set(seed, precompute):
    # n = 60 > p = 24 but X = Z W of exact rank 8, so no rank bound applies: with tol alone, learners
    # whose 8 active columns had condition numbers of only 3e3 took a 9th column of their span (the
    # downdated residual norm errs by ~eps cond^2); the threshold now grows with the conditioning
    rng = np.random.default_rng(seed)
    Z = rng.integers(-3, 4, size=(60, 8)).astype(float)
    W = rng.integers(-3, 4, size=(8, 24)).astype(float)
    X, y = Z @ W, rng.normal(size=60)
    for intercept in (True, False):
        model = EnsembleForwardSelection(
            k=15, m=3, n_estimators=200, random_state=seed, n_jobs=1, precompute=precompute, fit_intercept=intercept
        ).fit(X, y)
        Xc = X - X.mean(axis=0) if intercept else X
        for active in model.active_sets_:
            chosen = active[active >= 0]
            assert np.linalg.matrix_rank(Xc[:, chosen]) == len(chosen)


@pytest.mark.parametrize("scale", [1e8, 1e-8])
def test_selection_does_not_depend_on_column_scales(scale):
    # the conditioning that raises the degeneracy threshold is that of the column-normalised active
    # set: a column in other units (scaled by 1e8) changes nothing
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 6))
    y = X @ np.array([1.0, -2.0, 0.5, 1.5, -1.0, 0.25]) + 0.1 * rng.normal(size=200)
    settings = dict(k=6, m=None, n_estimators=1, random_state=0, n_jobs=1)
    reference = EnsembleForwardSelection(**settings).fit(X, y).active_sets_[0]
    scaled = X * np.array([scale, 1, 1, 1, 1, 1])
    for precompute in (True, False):
        model = EnsembleForwardSelection(**settings, precompute=precompute).fit(scaled, y)
        np.testing.assert_array_equal(model.active_sets_[0], reference)


def _exact_forward_selection(X, y, k, tol=Fraction(1, 10**10)):
    """Forward selection ("fs") with an intercept in rational arithmetic: the order of entry and each
    entering column's relative residual ||P_A^perp x_j||^2 / ||x_j||^2."""
    n, p = X.shape
    columns = [[Fraction(float(v)) for v in X[:, j]] for j in range(p)]
    columns = [[v - sum(c) / n for v in c] for c in columns]
    residual = [Fraction(float(v)) for v in y]
    residual = [v - sum(residual) / n for v in residual]

    def dot(a, b):
        return sum(u * v for u, v in zip(a, b, strict=True))

    basis, order, relative = [], [], []
    for _ in range(k):
        best = None
        for j in (j for j in range(p) if j not in order):
            v = columns[j]
            for q in basis:
                v = [a - dot(q, v) / dot(q, q) * b for a, b in zip(v, q, strict=True)]
            d, norm = dot(v, v), dot(columns[j], columns[j])
            if d > tol * norm and (best is None or dot(columns[j], residual) ** 2 / d > best[0]):
                best = (dot(columns[j], residual) ** 2 / d, j, v, d / norm)
        if best is None:
            break
        _, j, v, ratio = best
        order.append(j)
        relative.append(float(ratio))
        basis.append(v)
        residual = [a - dot(v, residual) / dot(v, v) * b for a, b in zip(residual, v, strict=True)]
    return order, relative


def test_valid_columns_of_an_ill_conditioned_design_are_taken():
    # polynomial columns (condition number ~1e4) and a column 1e-6 (relative) off their span: every
    # column whose exact residual is above the rounding scale eps cond^2 ~ 2e-8 enters in the order
    # of exact forward selection; only one within that rounding error may be refused
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 1, 40))
    P = np.column_stack([x**d for d in range(1, 8)])
    P = (P - P.mean(axis=0)) / P.std(axis=0)
    Q = np.linalg.qr(np.column_stack([np.ones(40), P]))[0]
    u = rng.standard_normal(40)
    u -= Q @ (Q.T @ u)
    u /= np.linalg.norm(u)
    s = P @ rng.standard_normal(7)
    X = np.column_stack([P, s / np.linalg.norm(s) + np.sqrt(2e-6) * u])
    y = P @ np.array([3, -2, 2, -1, 1, -0.5, 0.5]) + 0.05 * u
    order, relative = _exact_forward_selection(X, y, 8)
    clear = sum(1 for r in relative if r > 1e-7)  # entries well above the rounding scale
    assert clear == 7
    for precompute in (True, False):
        model = EnsembleForwardSelection(k=8, m=None, n_estimators=1, n_jobs=1, precompute=precompute).fit(X, y)
        np.testing.assert_array_equal(model.active_sets_[0][:clear], order[:clear])


def test_many_nearly_parallel_pairs_do_not_hide_a_valid_column():
    # Hadamard columns (every Gram entry exact): 100 orthogonal pairs h_2i +- 2^-11 h_2i+1, each
    # nearly parallel, then a column whose exact relative residual against all of them is
    # s^2 / (1 + s^2) ~ 6e-8, over 100 eps cond^2. A threshold from the Frobenius norm of D R^-1
    # counted all 100 small singular values and refused it; the learner must take it last.
    H = np.array([[1.0]])
    while H.shape[0] < 256:
        H = np.block([[H, H], [H, -H]])
    pairs, q, s = 100, 2.0**-11, 2.0**-12
    columns = [H[:, 2 * i] + sign * q * H[:, 2 * i + 1] for i in range(pairs) for sign in (1, -1)]
    X = np.column_stack([*columns, H[:, 1] + s * H[:, 255]])
    rng = np.random.default_rng(0)
    y = H[:, 0 : 2 * pairs : 2] @ rng.uniform(1, 2, pairs) + H[:, 3 : 2 * pairs : 2] @ rng.uniform(1, 2, pairs - 1)
    for precompute in (True, False):
        model = EnsembleForwardSelection(
            k=2 * pairs + 1, m=None, n_estimators=1, n_jobs=1, precompute=precompute, fit_intercept=False
        ).fit(X, y)
        assert 2 * pairs in model.active_sets_[0].tolist()


@FEW
@given(seed=st.integers(0, 2**32 - 1))
def test_layouts_and_thread_counts_agree(seed):
    X, y = data(seed, 30, 8)
    ref = fit(X, y, n_jobs=1)
    for variant in non_contiguous_copies(X):
        np.testing.assert_array_equal(fit(variant, y).coef_path_, ref.coef_path_)
    for jobs in (2, 7):
        np.testing.assert_array_equal(fit(X, y, n_jobs=jobs).coef_path_, ref.coef_path_)
    strided_y = np.repeat(y, 2)[::2]
    np.testing.assert_array_equal(fit(X, strided_y).coef_path_, ref.coef_path_)


@SOME
@given(p=st.integers(1, 60), data_=st.data())
def test_exact_weights_invariants(p, data_):
    k = data_.draw(st.integers(0, p))
    m = data_.draw(st.integers(1, p))
    w = G.exact_weights(k, m, p)
    assert w.shape == (p,) and np.all(np.isfinite(w))
    assert w.min() >= -1e-15 and w.max() <= 1 + 1e-15
    assert abs(w.sum() - k) < 1e-9 * max(k, 1)  # weights sum to k
    assert np.all(np.diff(w) <= 1e-12)  # a better rank is never less likely to be chosen


@SOME
@given(k=st.integers(0, 40), gamma=st.floats(1e-3, 1.0))
def test_asymptotic_weights_within_logistic_bounds(k, gamma):
    w = G.asymptotic_weights(k, gamma)
    lower, upper = G.logistic_bounds(k, gamma, n_ranks=len(w))
    assert np.all(np.isfinite(w)) and w.min() >= 0 and w.max() <= 1 + 1e-12
    assert np.all(lower <= w + 1e-9) and np.all(w <= upper + 1e-9)


# ---- hostile inputs ----------------------------------------------------------------------------

X0, Y0 = data(0, 12, 4)


@FEW
@given(d=st.data())
def test_poisoned_arrays_refused(d):
    sklearn_refuses(fit, d.draw(poisoned(X0)), Y0)
    sklearn_refuses(fit, X0, d.draw(poisoned(Y0)))
    model = fit(X0, Y0)
    sklearn_refuses(model.predict, d.draw(poisoned(X0)))
    bad("theta", G.degrees_of_freedom_orthogonal, d.draw(poisoned(np.ones(4))), 1.0, 1, 1, n_replicates=3)
    bad(
        "mu",
        G.degrees_of_freedom,
        EnsembleForwardSelection(k=1, n_estimators=2),
        X0,
        d.draw(poisoned(Y0)),
        1.0,
        n_replicates=2,
    )
    bad(
        "X",
        G.degrees_of_freedom,
        EnsembleForwardSelection(k=1, n_estimators=2),
        d.draw(poisoned(X0)),
        Y0,
        1.0,
        n_replicates=2,
    )


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=repr)
def test_bad_arrays_refused(value):
    sklearn_refuses(fit, value, Y0)
    sklearn_refuses(fit, X0, value)
    bad("theta", G.degrees_of_freedom_orthogonal, value, 1.0, 1, 1)
    bad("mu", G.degrees_of_freedom, EnsembleForwardSelection(k=1, n_estimators=2), X0, value, 1.0, n_replicates=2)


@pytest.mark.parametrize("value", BAD_COUNTS, ids=repr)
def test_bad_counts_refused(value):
    if value is not None:  # k=None is the default, min(10, n_features)
        bad("k", fit, X0, Y0, k=value)
    if not isinstance(value, float):  # floats are fractions of the features for m
        bad("m", fit, X0, Y0, m=value) if value is not None else None
    bad("n_estimators", fit, X0, Y0, n_estimators=value)
    if value not in (None, -1):  # None and -1 mean all cores
        bad("n_jobs", fit, X0, Y0, n_jobs=value)
    bad("p", G.exact_weights, 1, 1, value)
    bad("k", G.exact_weights, value, 1, 5)
    bad("m", G.exact_weights, 1, value, 5)
    bad("k", G.asymptotic_weights, value, 0.5)
    if value is not None:
        bad("n_ranks", G.asymptotic_weights, 2, 0.5, value)
        bad("n_ranks", G.logistic_bounds, 2, 0.5, value)
    bad("n_replicates", G.degrees_of_freedom_orthogonal, np.ones(3), 1.0, 1, 1, n_replicates=value)


@pytest.mark.parametrize("value", BAD_REALS + [0.0, -1.0, 1.5], ids=repr)
def test_bad_reals_refused(value):
    bad("gamma", G.asymptotic_weights, 2, value)
    bad("gamma", G.logistic_bounds, 2, value)
    if value != 1.5:
        bad("sigma", G.degrees_of_freedom_orthogonal, np.ones(3), value, 1, 1)
    if value != 0.0:
        bad("tol", fit, X0, Y0, tol=value)


def test_wrong_shapes_and_options_refused():
    bad("k", fit, X0, Y0, k=5)  # more steps than features
    bad("m", fit, X0, Y0, m=5)
    bad("m", fit, X0, Y0, m="log2")
    bad("criterion", fit, X0, Y0, criterion="lasso")
    bad("precompute", fit, X0, Y0, precompute="yes")
    bad("fit_intercept", fit, X0, Y0, fit_intercept="yes")
    bad("random_state", fit, X0, Y0, random_state="seed")
    bad("X", fit, np.ones((12, 4)), Y0)  # constant columns
    bad("X", fit, X0[:1], Y0[:1])  # one sample
    bad("X", fit, X0 * 1e200, Y0)  # sums of squares overflow
    bad("X", fit, None, Y0)
    sklearn_refuses(fit, X0, Y0[:5])
    sklearn_refuses(fit, X0[:, :, None], Y0)
    sklearn_refuses(fit, X0, np.ones((12, 2)))
    sklearn_refuses(fit, X0 + 1j, Y0)
    model = fit(X0, Y0)
    bad("k", model.predict, X0, k=4)
    sklearn_refuses(model.predict, X0[:, :3])
    bad("cv", G.cross_validate_path, EnsembleForwardSelection(k=1, n_estimators=2), X0, Y0, [1], cv=1)
    bad("m_values", G.cross_validate_path, EnsembleForwardSelection(k=1, n_estimators=2), X0, Y0, [])
    bad("m_values", G.cross_validate_path, EnsembleForwardSelection(k=1, n_estimators=2), X0, Y0, object())
    bad("theta", G.degrees_of_freedom_orthogonal, np.ones((2, 2)), 1.0, 1, 1)
    # Past this many features one replicate's sort could hold off Ctrl-C for seconds.
    from paperkernels.greedy._simulation import MAX_ORTHOGONAL_FEATURES

    assert "MAX_ORTHOGONAL_FEATURES" in str(
        bad("theta", G.degrees_of_freedom_orthogonal, np.ones(MAX_ORTHOGONAL_FEATURES + 1), 1.0, 1, 1)
    )


class _Refuses:
    """An array-like whose conversion fails with an error numpy does not expect."""

    def __array__(self, dtype=None, copy=None):
        raise RuntimeError("cannot convert")


def test_overflow_names_the_array_it_comes_from():
    """Data whose column sums or sums of squares overflow are reported as X (before y, whose X^T y
    overflows along with them), without numpy overflow warnings; y's own overflow names y."""
    y3 = np.array([1.0, 2.0, 4.0])
    for X, y in (
        (np.array([[1e308], [1e308], [0.0]]), y3),
        (np.array([[1.7e308], [0.0], [0.0]]), y3),
        (X0 * 1e307, Y0),
    ):
        for precompute in ("auto", True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                bad("X", fit, X, y, k=1, m=1, precompute=precompute)
    for precompute in (True, False):
        bad("y", fit, X0, Y0 * 1e300, precompute=precompute)


def test_mse_path_refuses_two_column_targets():
    model = fit(X0, Y0)
    with pytest.raises(ValueError, match=r"y: expected a 1-d array of targets, got shape \(12, 2\)"):
        model.mse_path(X0, np.c_[Y0, Y0])
    assert np.array_equal(model.mse_path(X0, Y0[:, None]), model.mse_path(X0, Y0))


def test_failing_conversions_and_masked_arrays_name_the_argument():
    model = fit(X0, Y0)
    template = EnsembleForwardSelection(k=1, n_estimators=2)
    masked_X = np.ma.masked_array(X0, mask=np.zeros_like(X0, dtype=bool))
    masked_y = np.ma.masked_array(Y0, mask=np.arange(12) == 3)
    for hostile, error in ((_Refuses(), TypeError), (masked_X, TypeError)):
        assert isinstance(bad("X", fit, hostile, Y0), error)
        assert isinstance(bad("X", model.predict, hostile), error)
        assert isinstance(bad("X", model.predict_path, hostile), error)
        assert isinstance(bad("X", G.cross_validate_path, template, hostile, Y0, [1], cv=3), error)
        assert isinstance(bad("X", G.degrees_of_freedom, template, hostile, Y0, 1.0, n_replicates=2), error)
    for hostile in (_Refuses(), masked_y):
        assert isinstance(bad("y", fit, X0, hostile), TypeError)
        assert isinstance(bad("y", model.mse_path, X0, hostile), TypeError)
        assert isinstance(bad("y", G.cross_validate_path, template, X0, hostile, [1], cv=3), TypeError)
        assert isinstance(bad("mu", G.degrees_of_freedom, template, X0, hostile, 1.0, n_replicates=2), TypeError)
        assert isinstance(bad("theta", G.degrees_of_freedom_orthogonal, hostile, 1.0, 1, 1), TypeError)


def test_strings_refused_objects_of_numbers_accepted():
    # scikit-learn's validation would parse "1.5" silently: strings are refused, naming the argument
    model = fit(X0, Y0)
    for text in (X0.astype(str), X0.astype(bytes), X0.astype(str).astype(object)):
        assert "strings" in str(bad("X", fit, text, Y0))
        assert "strings" in str(bad("X", model.predict, text))
    assert "strings" in str(bad("y", fit, X0, Y0.astype(str)))
    assert "strings" in str(bad("y", fit, X0, ["a"] * len(Y0)))
    assert "strings" in str(bad("y", model.score, X0, Y0.astype(str)))
    if hasattr(np.dtypes, "StringDType"):  # numpy >= 2: variable-width strings, dtype kind "T"
        text = X0.astype(np.dtypes.StringDType())
        assert "strings" in str(bad("X", fit, text, Y0))
        assert "strings" in str(bad("X", model.predict, text))
    assert "dates" in str(bad("X", fit, X0.astype("timedelta64[s]"), Y0))
    with_a_date = X0.astype(object)
    with_a_date[5, 2] = np.datetime64(3, "s")
    assert "dates" in str(bad("X", fit, with_a_date, Y0))
    assert "dates" in str(bad("X", model.predict, with_a_date))
    if hasattr(np.dtypes, "StringDType"):  # the other entry points: mse_path, the simulation helpers
        assert "StringDType" in str(bad("y", model.mse_path, X0, Y0.astype(np.dtypes.StringDType())))
        template = EnsembleForwardSelection(k=1, n_estimators=2, n_jobs=1)
        text = X0.astype(np.dtypes.StringDType())
        assert "StringDType" in str(bad("X", G.degrees_of_freedom, template, text, Y0, 1.0, n_replicates=2))
        assert "StringDType" in str(bad("mu", G.degrees_of_freedom, template, X0, Y0.astype(text.dtype), 1.0))
    # object arrays of numbers are arrays of numbers (scikit-learn's estimator checks fit them)
    np.testing.assert_array_equal(fit(X0.astype(object), Y0).coef_path_, model.coef_path_)


def test_failing_conversions_and_masked_arrays_without_sklearn():
    from paperkernels.greedy._sklearn_compat import _validate_without_sklearn

    model = EnsembleForwardSelection()
    for hostile in (_Refuses(), np.ma.masked_array(X0)):
        bad("X", _validate_without_sklearn, model, hostile, Y0, reset=True)
    bad("y", _validate_without_sklearn, model, X0, _Refuses(), reset=True)


# ---- resource limits ---------------------------------------------------------------------------


def test_exploding_work_refused_up_front():
    assert "asymptotic_weights" in str(bad("k", G.exact_weights, 10**6, 10, 10**6))
    assert "MAX_WORK" in str(bad("k", G.asymptotic_weights, 10**9, 0.5, 10))
    bad("n_ranks", G.asymptotic_weights, 3, 0.5, 10**12)
    bad("n_ranks", G.logistic_bounds, 3, 0.5, 10**12)
    assert "fewer estimators" in str(bad("n_estimators", fit, X0, Y0, n_estimators=10**13))
    assert "max_result_bytes" in str(
        bad("n_replicates", G.degrees_of_freedom_orthogonal, np.ones(3), 1.0, 1, 1, n_replicates=10**12)
    )
    bad("n_replicates", G.degrees_of_freedom, EnsembleForwardSelection(k=1), X0, Y0, 1.0, n_replicates=10**12)
    # k * p within the work limit, but p alone past the memory limit (7.3 TiB of zeros for k = 0).
    assert "asymptotic_weights" in str(bad("p", G.exact_weights, 0, 1, 10**12))
    bad("p", G.exact_weights, 1, 1, 2 * 10**8)


def test_limits_are_configurable(monkeypatch):
    monkeypatch.setattr(_theory, "MAX_WORK", 99)
    bad("k", G.exact_weights, 10, 2, 10)
    assert G.exact_weights(9, 2, 10).shape == (10,)
    per_learner, rest = _design.fit_memory(20, 3, 4, 1, 20)  # 20 learners of k = 3, one thread
    assert per_learner >= 8 * 20 * (6 + 6) and rest >= 8 * 7 * 4
    with paperkernels.limits.override(max_result_bytes=per_learner + rest - 1):
        assert "fewer estimators" in str(bad("n_estimators", fit, X0, Y0))
        bad("n_replicates", G.degrees_of_freedom_orthogonal, np.ones(3), 1.0, 1, 1, n_replicates=10**6)
    with paperkernels.limits.override(max_result_bytes=per_learner + rest):
        fit(X0, Y0)


def test_refused_refit_leaves_the_fitted_estimator_as_it_was():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 60)), rng.normal(size=200)
    est = EnsembleForwardSelection(k=5, n_estimators=50, random_state=0).fit(X[:, :10], y)
    before = dict(vars(est))
    prediction = est.predict(X[:4, :10])
    with paperkernels.limits.override(max_result_bytes=10_000):
        bad("k", est.fit, X, y)  # refused for its size, after the data were validated
    bad("k", est.fit, X[:, :3], y)  # k = 5 > 3 features
    bad("X", est.fit, np.full((200, 60), np.nan), y)
    assert vars(est).keys() == before.keys()
    assert all(vars(est)[name] is value for name, value in before.items())
    np.testing.assert_array_equal(est.predict(X[:4, :10]), prediction)
    # and a never-fitted estimator stays unfitted
    fresh = EnsembleForwardSelection(k=5)
    bad("k", fresh.fit, X[:, :3], y)
    assert not [name for name in vars(fresh) if name.endswith("_")]


def test_path_and_selection_frequencies_count_in_the_fit_limit():
    # k = p = 2000 on 3 samples: 16 MB of per-learner results for one learner, but a (k + 1, p) path
    # and (k, p) selection frequencies of 32 MB each and a 32 MB learner workspace.
    X, y = data(7, 3, 2000)
    model = EnsembleForwardSelection(k=2000, m=10, n_estimators=1, n_jobs=1)
    per_learner, _ = _design.fit_memory(1, 2000, 2000, 1, 1)
    with paperkernels.limits.override(max_result_bytes=2 * per_learner):
        message = str(bad("k", model.fit, X, y))
    assert "coefficient path" in message and "selection frequencies" in message
    with paperkernels.limits.override(max_result_bytes=sum(_design.fit_memory(1, 2000, 2000, 1, 1))):
        model.fit(X, y)
    assert model.selection_frequencies_.shape == (2000, 2000)


def test_gram_matrix_refused_up_front():
    X, y = data(8, 30, 200)  # a 320 kB Gram matrix, which "auto" builds for these settings
    settings = dict(k=8, m=50, n_estimators=100)
    assert _design.use_gram("auto", 30, 200, 8, 50, 100)
    with paperkernels.limits.override(max_result_bytes=8 * 200 * 200 - 1):
        message = str(bad("precompute", fit, X, y, precompute=True, **settings))
        assert "Gram matrix of 200 features" in message and "precompute=False" in message
        assert not _design.use_gram("auto", 30, 200, 8, 50, 100)
        auto = fit(X, y, precompute="auto", **settings)  # does without it
    np.testing.assert_array_equal(auto.coef_path_, fit(X, y, precompute=False, **settings).coef_path_)
    with paperkernels.limits.override(max_result_bytes=8 * 200 * 200):
        fit(X, y, precompute=True, **settings)


# ---- threads, Ctrl-C, memory -------------------------------------------------------------------


def test_concurrent_fits_match_sequential():
    X, y = data(3, 200, 60)

    def work(seed):
        return fit(X, y, k=10, m=15, n_estimators=150, random_state=seed, n_jobs=2).coef_path_

    expected = [work(s) for s in range(4)]
    for got, want in zip(run_in_threads(work, list(range(4))), expected, strict=False):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("precompute", [True, False])
def test_thread_counts_identical(precompute):
    X, y = data(4, 120, 40)
    ref = fit(X, y, k=8, m=10, n_estimators=60, precompute=precompute, n_jobs=1)
    for jobs in (2, 7):
        other = fit(X, y, k=8, m=10, n_estimators=60, precompute=precompute, n_jobs=jobs)
        np.testing.assert_array_equal(other.coef_path_, ref.coef_path_)
        np.testing.assert_array_equal(other.active_sets_, ref.active_sets_)


# Ctrl-C: a real SIGINT from another process 0.5 s into the call; KeyboardInterrupt within 0.5 s.
# Each call below runs for several seconds uninterrupted.

_SETUP = """
import numpy as np
import paperkernels.greedy as G
from paperkernels import _core
rng = np.random.default_rng(5)
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_fit_interruptible(jobs):
    assert_interrupts(
        _SETUP + "X = rng.standard_normal((400, 300)); y = X[:, 0] + rng.standard_normal(400)",
        f"G.EnsembleForwardSelection(k=30, m=50, n_estimators=200_000, n_jobs={jobs}).fit(X, y)",
    )


def test_interrupted_refit_leaves_the_fitted_estimator_as_it_was():
    # Ctrl-C during a refit on other data: the earlier fit stays whole and usable.
    setup = _SETUP + (
        "X = rng.standard_normal((400, 300)); y = X[:, 0] + rng.standard_normal(400)\n"
        "est = G.EnsembleForwardSelection(k=5, n_estimators=50, random_state=0).fit(X[:, :50], y)\n"
        "path = est.coef_path_; before = est.predict(X[:3, :50])\n"
    )
    check = (
        "try:\n"
        "    est.set_params(k=30, m=50, n_estimators=200_000).fit(X, y)\n"
        "finally:\n"
        "    assert est.n_features_in_ == 50 and est.coef_path_ is path, (est.n_features_in_, est.coef_path_.shape)\n"
        "    assert np.array_equal(est.predict(X[:3, :50]), before)\n"
    )
    assert_interrupts(setup, check)


@pytest.mark.parametrize("jobs", [1, 2])
def test_fit_with_a_wide_gram_matrix_interruptible(jobs):
    # 256 x 20000: a 3.2 GB Gram matrix whose pages are first touched by the tasks that write them,
    # and 51 GFLOP (2.6-12 s uninterrupted on a Zen 5 core; with 2 samples, pages the kernel had
    # zeroed already made it 0.4 s).
    assert_interrupts(
        _SETUP + "X = rng.standard_normal((256, 20000)); y = rng.standard_normal(256)",
        f"G.EnsembleForwardSelection(precompute=True, n_jobs={jobs}).fit(X, y)",
    )


def test_one_long_learner_interruptible():
    # A single deterministic learner without a Gram matrix: one task of k p n multiply-adds (0.9 s on
    # a Zen 5 core).
    assert_interrupts(
        _SETUP + "X = rng.standard_normal((1000, 4000)); y = X[:, 0] + rng.standard_normal(1000)",
        "G.EnsembleForwardSelection(k=300, m=None, n_estimators=1, precompute=False, n_jobs=1).fit(X, y)",
        after=0.25,
    )


@pytest.mark.parametrize("jobs", [1, 2])
def test_gram_kernel_interruptible(jobs):
    # About 8e10 multiply-adds: seconds with 2 threads at the fused-multiply-add rate.
    assert_interrupts(_SETUP + "X = np.ones((10000, 4000))", f"_core.greedy.centred_gram(X, None, {jobs})")


@pytest.mark.parametrize(
    "call",
    [
        "G.cross_validate_path(G.EnsembleForwardSelection(k=30, m=50, n_estimators=8000, n_jobs=1), X, y, "
        "[10, 50, 100], cv=5)",
        "G.degrees_of_freedom(G.EnsembleForwardSelection(k=30, m=50, n_estimators=200, n_jobs=1), X, X[:, 0], 1.0, "
        "n_replicates=400)",
        "G.bias_variance(G.EnsembleForwardSelection(k=30, m=50, n_estimators=200, n_jobs=1), X, X[:, 0], 1.0, "
        "n_replicates=400)",
        "G.degrees_of_freedom_orthogonal(np.ones(2000), 1.0, 50, 200, n_replicates=20000)",
    ],
    ids=["cross_validate_path", "degrees_of_freedom", "bias_variance", "degrees_of_freedom_orthogonal"],
)
def test_loops_over_fits_interruptible(call):
    assert_interrupts(_SETUP + "X = rng.standard_normal((400, 300)); y = X[:, 0] + rng.standard_normal(400)", call)


@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_memory_growth():
    X, y = data(6, 40, 12)

    def call():
        fit(X, y, k=5, m=4, n_estimators=30, n_jobs=2, precompute=True)
        fit(X, y, k=5, m=4, n_estimators=30, n_jobs=2, precompute=False)
        with pytest.raises(ValueError):  # the error path must not leak
            fit(X, y, k=50)

    assert rss_growth(call, 300) < 8 * 2**20
