"""paperkernels.greedy against independent references: scikit-learn's OMP, brute-force forward
selection, a numpy ensemble drawing the same subsets, closed forms and Monte Carlo limits."""

import copy
import math
import pickle
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

from greedy_reference import brute_force_forward_selection, reference_ensemble
from paperkernels.greedy import (
    EnsembleForwardSelection,
    asymptotic_weights,
    bias_variance,
    cross_validate_path,
    degrees_of_freedom,
    degrees_of_freedom_orthogonal,
    exact_weights,
    logistic_bounds,
    plot_weights,
)
from xoshiro_reference import Xoshiro256


def make_data(n=60, p=15, n_informative=3, noise=1.0, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) + rng.uniform(-2, 2, size=p)  # non-zero column means
    beta = np.zeros(p)
    beta[:n_informative] = np.linspace(3.0, 1.0, n_informative)
    return X, X @ beta + 5.0 + noise * rng.standard_normal(n)


def orthonormal_design(n, p, seed):
    """Centred columns with X^T X = I (so the intercept does not interact with them)."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, p))
    A -= A.mean(axis=0)
    return np.linalg.qr(A)[0]


# -- exactness against references ------------------------------------------------------------------


@pytest.mark.parametrize("precompute", [True, False])
def test_omp_matches_sklearn(precompute):
    from sklearn.linear_model import OrthogonalMatchingPursuit, orthogonal_mp

    X, y = make_data(n=80, p=25, n_informative=6, seed=3)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    k = 8
    ours = EnsembleForwardSelection(k=k, m=None, n_estimators=1, criterion="omp", precompute=precompute).fit(X, y)
    theirs = OrthogonalMatchingPursuit(n_nonzero_coefs=k).fit(X, y)
    np.testing.assert_allclose(ours.coef_, theirs.coef_, rtol=1e-10, atol=1e-12)
    assert ours.intercept_ == pytest.approx(theirs.intercept_, rel=1e-12, abs=1e-12)
    # The whole path against sklearn's path on the same centred data.
    path = orthogonal_mp(X - X.mean(axis=0), y - y.mean(), n_nonzero_coefs=k, return_path=True)
    np.testing.assert_allclose(ours.coef_path_[1:], path.T, rtol=1e-10, atol=1e-12)
    assert np.count_nonzero(ours.coef_path_[0]) == 0


@pytest.mark.parametrize("precompute", [True, False])
def test_fs_matches_brute_force_forward_selection(precompute):
    X, y = make_data(n=50, p=12, n_informative=4, seed=5)
    k = 6
    model = EnsembleForwardSelection(k=k, m=12, n_estimators=3, precompute=precompute, random_state=1).fit(X, y)
    active, path = brute_force_forward_selection(X, y, k)
    assert list(model.active_sets_[0]) == active
    assert np.all(model.active_sets_ == model.active_sets_[0])  # m = p: every learner is the same
    np.testing.assert_allclose(model.coef_path_, path, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("criterion", ["fs", "omp"])
@pytest.mark.parametrize("m", [1, 3, 6])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("precompute", [True, False])
def test_ensemble_matches_numpy_reference(criterion, m, fit_intercept, precompute):
    X, y = make_data(n=40, p=12, seed=11)
    kwargs = dict(k=5, m=m, criterion=criterion, fit_intercept=fit_intercept)
    model = EnsembleForwardSelection(n_estimators=8, random_state=2024, precompute=precompute, **kwargs).fit(X, y)
    coef_path, intercept_path, actives = reference_ensemble(X, y, n_learners=8, seed=2024, **{**kwargs, "m": m})
    np.testing.assert_array_equal(model.active_sets_, actives)
    np.testing.assert_allclose(model.coef_path_, coef_path, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.intercept_path_, intercept_path, rtol=1e-10, atol=1e-10)


def test_python_xoshiro_matches_core_stream():
    from paperkernels import _core

    ours = Xoshiro256(77, 5)
    assert [ours.next() for _ in range(20)] == [int(v) for v in _core.common.random_uint64(77, 5, 20)]


@pytest.mark.parametrize("precompute", [True, False])
@pytest.mark.parametrize("m", [1, 2])
def test_degenerate_candidates_and_early_stop(precompute, m):
    # Columns 4 and 5 lie in the span of columns 0..3: once those are selected, nothing valid is
    # left and the learners stop, carrying the last model forward.
    rng = np.random.default_rng(8)
    base = rng.standard_normal((30, 4))
    X = np.column_stack([base, base[:, 0] + base[:, 1], 2.0 * base[:, 2]])
    y = base @ [1.0, -2.0, 0.5, 1.5] + 0.3 * rng.standard_normal(30)
    kwargs = dict(k=6, m=m)
    model = EnsembleForwardSelection(n_estimators=12, random_state=9, precompute=precompute, **kwargs).fit(X, y)
    coef_path, _, actives = reference_ensemble(X, y, n_learners=12, seed=9, **kwargs)
    np.testing.assert_array_equal(model.active_sets_, actives)
    np.testing.assert_allclose(model.coef_path_, coef_path, rtol=1e-9, atol=1e-10)
    steps = (model.active_sets_ >= 0).sum(axis=1)
    assert np.all(steps <= 4) and np.all(steps >= 3)  # rank 4: at most 4 valid selections
    assert np.all(model.active_sets_[:, 4:] == -1)
    np.testing.assert_array_equal(model.coef_path_[5], model.coef_path_[6])
    # With columns 0..3 chosen every learner fits the full-rank OLS.
    full = np.all(np.sort(model.active_sets_[:, :4], axis=1) == [0, 1, 2, 3], axis=1)
    assert full.any()


def test_ties_go_to_lowest_index():
    # Duplicate columns 1 and 3 (and 0 and 2): equal criteria, so the lower index must win.
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((2, 25))
    X = np.column_stack([a, b, a, b, rng.standard_normal(25)])
    y = 2 * b + a
    model = EnsembleForwardSelection(k=2, m=None, n_estimators=1).fit(X, y)
    assert sorted(model.active_sets_[0]) == [0, 1]


def test_identical_for_any_thread_count(n_threads):
    X, y = make_data(n=120, p=40, seed=2)
    for precompute in (True, False):
        kwargs = dict(k=8, m=7, n_estimators=64, random_state=31, precompute=precompute)
        one = EnsembleForwardSelection(n_jobs=1, **kwargs).fit(X, y)
        many = EnsembleForwardSelection(n_jobs=n_threads, **kwargs).fit(X, y)
        np.testing.assert_array_equal(one.coef_path_, many.coef_path_)
        np.testing.assert_array_equal(one.active_sets_, many.active_sets_)
        np.testing.assert_array_equal(one.feature_importances_, many.feature_importances_)


def test_seeds():
    X, y = make_data(seed=6)

    def fit(rs):
        return EnsembleForwardSelection(k=4, m=3, n_estimators=20, random_state=rs).fit(X, y).coef_

    np.testing.assert_array_equal(fit(5), fit(5))
    assert not np.array_equal(fit(5), fit(6))
    np.testing.assert_array_equal(fit(np.random.default_rng(1)), fit(np.random.default_rng(1)))
    np.testing.assert_array_equal(fit(np.random.RandomState(1)), fit(np.random.RandomState(1)))


def test_gram_and_column_paths_agree():
    X, y = make_data(n=90, p=30, seed=12)
    kwargs = dict(k=7, m=5, n_estimators=50, random_state=3)
    gram = EnsembleForwardSelection(precompute=True, **kwargs).fit(X, y)
    columns = EnsembleForwardSelection(precompute=False, **kwargs).fit(X, y)
    np.testing.assert_array_equal(gram.active_sets_, columns.active_sets_)
    np.testing.assert_allclose(gram.coef_path_, columns.coef_path_, rtol=1e-10, atol=1e-12)


# -- fitted attributes and the path ----------------------------------------------------------------


def test_path_attributes_and_predict():
    X, y = make_data(n=70, p=20, seed=7)
    B, k = 40, 6
    model = EnsembleForwardSelection(k=k, m=4, n_estimators=B, random_state=0).fit(X, y)
    assert model.coef_path_.shape == (k + 1, 20) and model.intercept_path_.shape == (k + 1,)
    np.testing.assert_array_equal(model.coef_, model.coef_path_[k])
    assert model.intercept_path_[0] == pytest.approx(y.mean())
    np.testing.assert_allclose(model.intercept_path_, y.mean() - model.coef_path_ @ X.mean(axis=0))
    np.testing.assert_allclose(model.predict(X, k=0), np.full(70, y.mean()))
    for t in (1, 3, k):
        np.testing.assert_allclose(model.predict(X, k=t), X @ model.coef_path_[t] + model.intercept_path_[t])
    np.testing.assert_allclose(model.predict(X), model.predict(X, k=k))
    np.testing.assert_allclose(model.predict_path(X)[:, 2], model.predict(X, k=2))
    # Selection frequencies: recount from the active sets.
    freq = model.selection_frequencies_
    assert freq.shape == (k, 20)
    for t in range(k):
        counts = np.zeros(20)
        for row in model.active_sets_:
            counts[row[: t + 1]] += 1
        np.testing.assert_allclose(freq[t], counts / B)
        assert freq[t].sum() == pytest.approx(t + 1)
    assert np.all(np.diff(freq, axis=0) >= 0)
    # Importances: per-learner RSS decreases credited at entry, normalised.
    imp = model.feature_importances_
    assert imp.sum() == pytest.approx(1.0) and np.all(imp >= 0)
    assert set(np.argsort(imp)[-3:]) == {0, 1, 2}
    # The ensemble's training error along the path, and R^2 through score().
    mse = model.mse_path(X, y)
    assert mse[0] == pytest.approx(np.var(y))
    assert mse[-1] == pytest.approx(np.mean((y - model.predict(X)) ** 2))
    assert model.score(X, y) == pytest.approx(1 - mse[-1] / np.var(y))


def test_learner_gains_sum_to_rss_decrease():
    # A single learner's gains are the RSS decreases of its OLS refits.
    X, y = make_data(n=50, p=10, seed=13)
    model = EnsembleForwardSelection(k=5, m=3, n_estimators=1, random_state=4).fit(X, y)
    active = list(model.active_sets_[0])
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    rss = [yc @ yc]
    for t in range(1, 6):
        beta = np.linalg.lstsq(Xc[:, active[:t]], yc, rcond=None)[0]
        rss.append(np.sum((yc - Xc[:, active[:t]] @ beta) ** 2))
    importances = -np.diff(rss)
    np.testing.assert_allclose(model.feature_importances_[active], importances / importances.sum(), rtol=1e-9)


def test_feature_names_without_sklearn():
    # Without scikit-learn the estimator's own validation reads string column names from any
    # frame-like object (with scikit-learn, its validate_data handles real DataFrames).
    from paperkernels.greedy._sklearn_compat import _validate_without_sklearn

    class Frame:
        def __init__(self, values, columns):
            self.values, self.columns = values, columns

        def __array__(self, dtype=None, copy=None):
            return self.values if dtype is None else self.values.astype(dtype)

    X, y = make_data(n=30, p=4, seed=1)
    model = EnsembleForwardSelection()
    names = ["a", "b", "c", "d"]
    X_checked, y_checked = _validate_without_sklearn(model, Frame(X, names), y, reset=True)
    assert list(model.feature_names_in_) == names and model.n_features_in_ == 4
    np.testing.assert_array_equal(X_checked, X)
    _validate_without_sklearn(model, X, y, reset=True)
    assert not hasattr(model, "feature_names_in_")
    with pytest.raises(TypeError, match="X: sparse input is not supported"):
        _validate_without_sklearn(model, type("Sparse", (), {"toarray": None})(), y, reset=True)
    with pytest.raises(ValueError, match="X: complex data not supported"):
        _validate_without_sklearn(model, X + 1j, y, reset=True)


def test_plain_arrays_validate_like_the_full_path():
    # Plain finite float64 arrays skip scikit-learn's generic validation: same fit, same attributes.
    X, y = make_data(n=40, p=5, seed=3)
    fast = EnsembleForwardSelection(k=3, n_estimators=20, random_state=1).fit(X, y)
    full = EnsembleForwardSelection(k=3, n_estimators=20, random_state=1).fit(X.tolist(), y.tolist())
    np.testing.assert_array_equal(fast.coef_path_, full.coef_path_)
    assert fast.n_features_in_ == full.n_features_in_ == 5
    model = EnsembleForwardSelection(k=3, n_estimators=20)
    model.feature_names_in_ = np.array([f"f{j}" for j in range(5)], dtype=object)  # as a DataFrame fit leaves it
    model.fit(X, y)  # refitting on an ndarray forgets the names, as scikit-learn's validation does
    assert not hasattr(model, "feature_names_in_") and model.n_features_in_ == 5
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        EnsembleForwardSelection(k=3).fit(bad, y)


# -- scikit-learn compatibility --------------------------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        dict(k=2, n_estimators=30),
        dict(k=1, m=None, n_estimators=3, criterion="omp"),
        dict(k=2, m="sqrt", n_estimators=30, criterion="omp", precompute=False),
        dict(),
    ],
    ids=["fs-default-m", "omp-all", "omp-sqrt-columns", "defaults"],
)
def test_sklearn_check_estimator(params):
    pytest.importorskip("sklearn")
    from sklearn.utils.estimator_checks import check_estimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SkipTestWarning for pandas/array-api checks
        results = check_estimator(EnsembleForwardSelection(**params), on_fail=None)
    failed = [(r["check_name"], repr(r["exception"])) for r in results if r["status"] == "failed"]
    assert not failed
    assert len(results) > 40


def test_k_larger_than_n_features_names_n_features():
    # An explicit k > p is bad input (as for sklearn's OMP); the default k=None is min(10, p).
    X = np.random.default_rng(0).standard_normal((10, 1))
    with pytest.raises(ValueError, match="k: expected at most n_features = 1 steps, got k = 10"):
        EnsembleForwardSelection(k=10).fit(X, X[:, 0])


def test_default_k_is_ten_capped_at_n_features():
    X, y = make_data(n=40, p=15, seed=2)
    default = EnsembleForwardSelection(n_estimators=30, random_state=3).fit(X, y)
    explicit = EnsembleForwardSelection(k=10, n_estimators=30, random_state=3).fit(X, y)
    np.testing.assert_array_equal(default.coef_path_, explicit.coef_path_)
    np.testing.assert_array_equal(default.active_sets_, explicit.active_sets_)
    narrow = EnsembleForwardSelection(n_estimators=30, random_state=3).fit(X[:, :4], y)
    assert narrow.coef_path_.shape == (5, 4) and narrow.k is None
    np.testing.assert_array_equal(
        narrow.coef_path_, EnsembleForwardSelection(k=4, n_estimators=30, random_state=3).fit(X[:, :4], y).coef_path_
    )
    result = cross_validate_path(EnsembleForwardSelection(n_estimators=5), X[:, :4], y, [2], cv=3, random_state=0)
    assert result.mse.shape == (1, 5)


def test_import_does_not_import_sklearn():
    # scikit-learn takes seconds to import: paperkernels.greedy imports it only when it is needed,
    # and fits and predictions on plain float64 arrays never need it.
    code = textwrap.dedent(
        """
        import sys
        import numpy as np
        import paperkernels.greedy as greedy
        assert "sklearn" not in sys.modules
        rng = np.random.default_rng(0)
        X = rng.standard_normal((50, 8)); y = X[:, 0] + rng.standard_normal(50)
        model = greedy.EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X, y)
        model.predict(X, k=2); model.predict_path(X); model.mse_path(X, y)
        greedy.cross_validate_path(model, X, y, [2, 4], cv=3, random_state=0)
        assert "sklearn" not in sys.modules
        listed = greedy.EnsembleForwardSelection(k=3, n_estimators=20, random_state=0).fit(X.tolist(), y.tolist())
        assert "sklearn" in sys.modules  # the generic validation of other inputs
        assert np.array_equal(listed.coef_path_, model.coef_path_)
        print("ok")
        """
    )
    pytest.importorskip("sklearn")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_public_names_report_the_public_module():
    import paperkernels.greedy as greedy

    for name in greedy.__all__:
        assert getattr(greedy, name).__module__ == "paperkernels.greedy", name
    assert "paperkernels.greedy.EnsembleForwardSelection" in str(EnsembleForwardSelection)


def test_sklearn_protocol():
    pytest.importorskip("sklearn")
    from sklearn.base import clone, is_regressor
    from sklearn.exceptions import NotFittedError
    from sklearn.model_selection import GridSearchCV

    X, y = make_data(n=60, p=6, seed=4)
    template = EnsembleForwardSelection(k=3, n_estimators=10, random_state=0)
    assert is_regressor(template) and repr(clone(template)) == repr(template)
    with pytest.raises(NotFittedError):
        template.predict(X)
    search = GridSearchCV(template, {"m": [1, 3]}, cv=3).fit(X, y)
    assert search.best_params_["m"] in (1, 3)
    fitted = clone(template).fit(X, y)
    from sklearn.metrics import r2_score

    assert fitted.score(X, y) == r2_score(y, fitted.predict(X))
    assert "EnsembleForwardSelection" in template._repr_html_()


def _same_fit(a, b):
    for name in ("coef_path_", "intercept_path_", "selection_frequencies_", "feature_importances_", "active_sets_"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize(
    "restore", [lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy], ids=["pickle", "deepcopy"]
)
def test_estimator_pickles_and_deep_copies(restore):
    X, y = make_data(n=40, p=8, seed=5)
    unfitted = EnsembleForwardSelection(k=4, m=3, n_estimators=25, random_state=np.random.default_rng(2))
    clone_ = restore(unfitted)
    assert type(clone_) is EnsembleForwardSelection
    params = clone_.get_params()
    assert params.pop("random_state") is not unfitted.random_state
    assert params == {k: v for k, v in unfitted.get_params().items() if k != "random_state"}
    assert not hasattr(clone_, "coef_")
    _same_fit(clone_.fit(X, y), unfitted.fit(X, y))  # the same generator state: the same learners
    restored = restore(unfitted)
    _same_fit(restored, unfitted)
    assert restored.n_features_in_ == 8 and restored.m_ == unfitted.m_
    for k in (None, 0, 2):
        np.testing.assert_array_equal(restored.predict(X, k=k), unfitted.predict(X, k=k))
    np.testing.assert_array_equal(restored.predict_path(X), unfitted.predict_path(X))


@pytest.mark.parametrize(
    "restore", [lambda o: pickle.loads(pickle.dumps(o)), copy.deepcopy], ids=["pickle", "deepcopy"]
)
def test_results_pickle_and_deep_copy(restore):
    X, y = make_data(n=40, p=6, seed=6)
    template = EnsembleForwardSelection(k=3, n_estimators=10, random_state=1)
    cv = cross_validate_path(template, X, y, [2, None], cv=3, random_state=0)
    restored = restore(cv)
    for name in ("m_values", "k_values", "mse", "se"):
        np.testing.assert_array_equal(getattr(restored, name), getattr(cv, name))
    assert (restored.best_m, restored.best_k) == (cv.best_m, cv.best_k)
    np.testing.assert_array_equal(restored.estimator.predict(X), cv.estimator.predict(X))
    df = degrees_of_freedom(template, X, X[:, 0], 1.0, n_replicates=3, random_state=0)
    bv = bias_variance(template, X, X[:, 0], 1.0, n_replicates=3, random_state=0)
    dfo = degrees_of_freedom_orthogonal(np.ones(5), 1.0, 2, 2, n_replicates=4, random_state=0)
    for result in (df, bv, dfo):
        again = restore(result)
        assert type(again) is type(result)
        for name, value in vars(result).items():
            np.testing.assert_array_equal(getattr(again, name), value)


def test_works_without_sklearn(tmp_path):
    code = textwrap.dedent(
        """
        import sys
        sys.modules["sklearn"] = None  # any import of sklearn now fails
        import numpy as np
        import paperkernels.greedy as greedy
        from paperkernels.greedy._sklearn_compat import HAVE_SKLEARN, NotFittedError
        assert not HAVE_SKLEARN
        rng = np.random.default_rng(0)
        X = rng.standard_normal((50, 8)); y = X[:, 0] * 2 + rng.standard_normal(50)
        model = greedy.EnsembleForwardSelection(k=3, m=4, n_estimators=20, random_state=0)
        try:
            model.predict(X)
        except NotFittedError as e:
            assert isinstance(e, ValueError) and isinstance(e, AttributeError)
        else:
            raise AssertionError("predict before fit")
        model.fit(X, y)
        assert model.score(X, y) > 0.5
        assert model.get_params()["m"] == 4 and model.set_params(m=2).m == 2
        assert "EnsembleForwardSelection(k=3" in repr(model)
        for bad, msg in [(np.full((50, 8), np.nan), "Input X contains NaN"), (X[:10], "inconsistent numbers")]:
            try:
                model.fit(bad, y)
            except ValueError as e:
                assert msg in str(e), str(e)
            else:
                raise AssertionError(msg)
        try:
            model.predict(X[:, :3])
        except ValueError as e:
            assert "X has 3 features, but EnsembleForwardSelection is expecting 8 features" in str(e)
        r = greedy.cross_validate_path(greedy.EnsembleForwardSelection(k=3, n_estimators=10, random_state=0), X, y, [1, 4], cv=3)
        assert r.mse.shape == (2, 4)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, error, match",
    [
        (
            lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.nan, X), y),
            ValueError,
            "Input X contains NaN",
        ),
        (
            lambda X, y: (np.where(np.arange(X.size).reshape(X.shape) == 7, np.inf, X), y),
            ValueError,
            "Input X contains infinity",
        ),
        (lambda X, y: (X, np.where(np.arange(len(y)) == 3, np.nan, y)), ValueError, "Input y contains NaN"),
        (lambda X, y: (X, y[:-1]), ValueError, "inconsistent numbers of samples"),
        (lambda X, y: (X[:, 0], y), ValueError, "Expected 2D array"),
        (lambda X, y: (X[:1], y[:1]), ValueError, "n_samples = 1"),
        (lambda X, y: (np.column_stack([X, np.full(len(y), 3.0)]), y), ValueError, r"X: column\(s\) 8 are constant"),
        (lambda X, y: (X[:, :0], y), ValueError, "0 feature"),
    ],
    ids=["nan-X", "inf-X", "nan-y", "lengths", "1d-X", "one-sample", "constant-column", "no-features"],
)
def test_bad_data(change, error, match):
    X, y = make_data(n=30, p=8, seed=0)
    X, y = change(X, y)
    with pytest.raises(error, match=match):
        EnsembleForwardSelection(k=2, m=2, n_estimators=3).fit(X, y)


@pytest.mark.parametrize("precompute", [True, False])
@pytest.mark.parametrize("value", [0.1, -7.3, 1 / 3, 123456.789, 1e-300])
def test_constant_columns_are_found_whatever_the_rounding_of_the_mean(value, precompute):
    X, y = make_data(n=1001, p=4, seed=3)
    X[:, 2] = value
    with pytest.raises(ValueError, match=r"X: column\(s\) 2 are constant"):
        EnsembleForwardSelection(k=2, n_estimators=2, precompute=precompute).fit(X, y)


@pytest.mark.parametrize("precompute", [True, False])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_columns_too_faint_to_tell_apart_are_not_called_constant(precompute, fit_intercept):
    # A varying column scaled by 1e-300: its sum of squares underflows to 0, but it is not constant.
    X, y = make_data(n=50, p=4, seed=3)
    X[:, 1] *= 1e-300
    X[:, 3] *= 1e-160  # sum of squares ~1e-319: subnormal
    model = EnsembleForwardSelection(k=2, n_estimators=2, precompute=precompute, fit_intercept=fit_intercept)
    with pytest.raises(ValueError, match=r"X: column\(s\) 1, 3 vary too little to be told apart numerically") as info:
        model.fit(X, y)
    assert "constant" not in str(info.value) and "rescale" in str(info.value)
    X[:, 1] *= 1e200  # ~1e-100: fine
    X[:, 3] *= 1e100
    assert np.all(np.isfinite(model.fit(X, y).coef_path_))


@pytest.mark.parametrize("precompute", [True, False])
def test_overflowing_data_is_refused(precompute):
    X, y = make_data(n=20, p=3, seed=3)
    model = EnsembleForwardSelection(k=2, n_estimators=2, precompute=precompute)
    with pytest.raises(ValueError, match="X: values too large"):
        model.fit(X * 1e200, y)
    with pytest.raises(ValueError, match="y: values too large"):
        model.fit(X, y * 1e200)
    assert np.all(np.isfinite(model.fit(X * 1e100, y).coef_path_))


def test_zero_column_without_intercept():
    X, y = make_data(n=30, p=5, seed=0)
    X[:, 2] = 0.0
    with pytest.raises(ValueError, match=r"X: column\(s\) 2 are all zero"):
        EnsembleForwardSelection(k=2, fit_intercept=False, n_estimators=3).fit(X, y)
    X[:, 2] = 1.0  # constant but non-zero: fine without an intercept
    EnsembleForwardSelection(k=2, fit_intercept=False, n_estimators=3).fit(X, y)


@pytest.mark.parametrize(
    "params, error, match",
    [
        (dict(k=9), ValueError, "k: expected at most n_features = 8 steps, got k = 9"),
        (dict(k=0), ValueError, r"k: expected an integer in \[1, inf\]"),
        (dict(k=2.5), TypeError, "k: expected an integer"),
        (dict(m=0), ValueError, r"m: expected an integer in \[1, n_features = 8\], got 0"),
        (dict(m=9), ValueError, r"m: expected an integer in \[1, n_features = 8\], got 9"),
        (dict(m=0.0), ValueError, r"m: expected a fraction of the features in \(0, 1\]"),
        (dict(m=1.5), ValueError, r"m: expected a fraction of the features in \(0, 1\]"),
        (dict(m="log2"), ValueError, "m: expected an int in"),
        (dict(m=True), TypeError, "m: expected an int, a float"),
        (dict(n_estimators=0), ValueError, "n_estimators: expected an integer in"),
        (dict(criterion="lasso"), ValueError, "criterion: expected one of 'fs', 'omp'"),
        (dict(n_jobs=0), ValueError, "n_jobs: expected a positive integer"),
        (dict(precompute="yes"), ValueError, "precompute: expected 'auto', True or False"),
        (dict(tol=-1.0), ValueError, r"tol: expected a number in \[0, 1\)"),
        (dict(random_state=-3), ValueError, "random_state: expected an integer"),
        (dict(random_state="a"), TypeError, "random_state: expected None"),
        (dict(fit_intercept="yes"), TypeError, "fit_intercept: expected a bool"),
    ],
)
def test_bad_parameters(params, error, match):
    X, y = make_data(n=30, p=8, seed=0)
    with pytest.raises(error, match=match):
        EnsembleForwardSelection(**{"k": 2, "n_estimators": 3, **params}).fit(X, y)


def test_bad_predict_arguments():
    X, y = make_data(n=30, p=8, seed=0)
    model = EnsembleForwardSelection(k=3, m=2, n_estimators=5).fit(X, y)
    with pytest.raises(ValueError, match=r"k: expected an integer in \[0, 3\], got 4"):
        model.predict(X, k=4)
    with pytest.raises(ValueError, match="X has 7 features, but EnsembleForwardSelection is expecting 8"):
        model.predict(X[:, :7])
    with pytest.raises(ValueError, match="Input X contains NaN"):
        model.predict(np.full((2, 8), np.nan))
    with pytest.raises(ValueError, match="y: expected finite values"):
        model.mse_path(X, np.full(30, np.nan))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        model.mse_path(X, y[:-2])


# -- theory: exact and asymptotic weights ---------------------------------------------------------


def simulate_rank_weights(k, m, p, n_draws, seed):
    """Selection probabilities of each rank from direct simulation of the subset draws: each step
    draws min(m, q) of the remaining ranks and keeps the best (smallest) one."""
    rng = np.random.default_rng(seed)
    selected = np.zeros(p)
    for _ in range(n_draws):
        remaining = np.arange(p)
        for _ in range(k):
            subset = rng.choice(len(remaining), size=min(m, len(remaining)), replace=False)
            best = subset.min()  # ranks sorted ascending, so the smallest position is the best
            selected[remaining[best]] += 1
            remaining = np.delete(remaining, best)
    return selected / n_draws


@pytest.mark.parametrize("k, m, p", [(4, 3, 12), (6, 2, 15), (3, 7, 9)])
def test_exact_weights_match_simulated_draws(k, m, p):
    n_draws = 4000
    w = exact_weights(k, m, p)
    sim = simulate_rank_weights(k, m, p, n_draws, seed=k * 100 + m)
    assert np.all(np.abs(sim - w) <= 4 * np.sqrt(w * (1 - w) / n_draws) + 1e-12)


def test_exact_weights_closed_forms():
    for k, m, p in [(1, 1, 1), (5, 3, 12), (10, 40, 300), (20, 1, 50), (7, 7, 7)]:
        w = exact_weights(k, m, p)
        assert w.shape == (p,)
        assert w.sum() == pytest.approx(k, rel=1e-12)
        assert np.all(w >= -1e-15) and np.all(w <= 1 + 1e-15)
        assert np.all(np.diff(w) <= 1e-15)  # better ranks are selected more often
    np.testing.assert_allclose(exact_weights(4, 1, 10), np.full(10, 0.4), rtol=1e-13)
    np.testing.assert_array_equal(exact_weights(4, 10, 10), (np.arange(1, 11) <= 4).astype(float))
    np.testing.assert_array_equal(exact_weights(0, 3, 5), np.zeros(5))
    # Hand-computed: k = 1 picks the best of m draws, so w_r = C(p - r, m - 1) / C(p, m).
    p, m = 9, 4
    expected = [math.comb(p - r, m - 1) / math.comb(p, m) for r in range(1, p + 1)]
    np.testing.assert_allclose(exact_weights(1, m, p), expected, rtol=1e-13)


def test_asymptotic_weights_match_spec_table():
    w = asymptotic_weights(10, 0.15, n_ranks=20)
    ranks = np.array([1, 3, 5, 8, 10, 12, 15, 20])
    table = [0.803, 0.745, 0.675, 0.554, 0.469, 0.385, 0.273, 0.140]
    np.testing.assert_allclose(w[ranks - 1], table, atol=5e-4 + 1e-12)
    lower, upper = logistic_bounds(10, 0.15, n_ranks=20)
    assert lower[9] == pytest.approx(0.445, abs=5e-4) and upper[9] == pytest.approx(0.486, abs=5e-4)


@pytest.mark.parametrize("k, gamma", [(10, 0.15), (1, 0.5), (5, 0.01), (30, 0.3), (8, 0.9), (4, 1.0)])
def test_logistic_bounds_bracket_asymptotic_weights(k, gamma):
    w = asymptotic_weights(k, gamma)
    lower, upper = logistic_bounds(k, gamma, n_ranks=len(w))
    assert np.all(lower <= w + 1e-12) and np.all(w <= upper + 1e-12)
    assert w[-1] < 1e-12 or gamma == 1.0  # default length: the tail is negligible
    assert w.sum() == pytest.approx(k, abs=1e-9)


def test_exact_weights_approach_asymptotic_ones():
    gaps = [
        np.max(np.abs(exact_weights(10, int(0.15 * p), p)[:40] - asymptotic_weights(10, 0.15, 40))) for p in (200, 2000)
    ]
    assert gaps[1] < gaps[0] / 5 and gaps[1] < 2e-3


def test_asymptotic_limits():
    np.testing.assert_array_equal(asymptotic_weights(3, 1.0, n_ranks=5), [1, 1, 1, 0, 0])
    with pytest.raises(ValueError, match=r"gamma: expected a number in \(0, 1\]"):
        asymptotic_weights(3, 0.0)
    with pytest.raises(ValueError, match=r"m: expected an integer in \[1, 5\]"):
        exact_weights(2, 6, 5)
    with pytest.raises(ValueError, match=r"k: expected an integer in \[0, 5\]"):
        exact_weights(6, 2, 5)


def test_orthogonal_design_coefficients_follow_exact_weights():
    n, p, k, m, B = 60, 30, 6, 5, 2000
    Q = orthonormal_design(n, p, seed=21)
    beta_hat = np.random.default_rng(3).permutation(np.linspace(0.5, 5.0, p)) * np.where(np.arange(p) % 2, 1, -1)
    y = Q @ beta_hat + 7.0
    model = EnsembleForwardSelection(k=k, m=m, n_estimators=B, random_state=5).fit(Q, y)
    ratio = model.coef_ / beta_hat
    rank = np.argsort(np.argsort(-np.abs(beta_hat)))  # 0-based rank of each feature
    w = exact_weights(k, m, p)[rank]
    assert np.all(np.abs(ratio - w) <= 4 * np.sqrt(w * (1 - w) / B) + 1e-9)
    assert np.abs(ratio - w).max() > 0  # a real Monte Carlo comparison, not an identity


# -- degrees of freedom ----------------------------------------------------------------------------


def expected_top_k_chi2(p, k):
    """E[sum of the k largest of p independent chi^2_1]: numerical integration of the order
    statistics of |Z| (density of the r-th largest times z^2)."""
    z = np.linspace(0.0, 12.0, 60001)
    cdf = np.array([math.erf(v / math.sqrt(2.0)) for v in z])
    pdf = 2.0 * np.exp(-z * z / 2.0) / math.sqrt(2.0 * math.pi)
    total = 0.0
    for r in range(1, k + 1):
        coef = math.factorial(p) / (math.factorial(r - 1) * math.factorial(p - r))
        density = coef * cdf ** (p - r) * (1.0 - cdf) ** (r - 1) * pdf
        integrand = z * z * density
        total += float(np.sum((integrand[1:] + integrand[:-1]) * np.diff(z)) / 2.0)
    return total


def test_df_of_forward_selection_under_null_orthogonal_design():
    # Plain forward selection (m = p) with X^T X = I and mu = 0 keeps the k largest |z_j|, so its
    # df is E[sum of the k largest chi^2_1 of p] (Ye 1998; Tibshirani 2015).
    p, k = 20, 4
    closed_form = expected_top_k_chi2(p, k)
    Q = orthonormal_design(p + 1, p, seed=2)  # centred columns; the intercept adds 1 df
    result = degrees_of_freedom(
        EnsembleForwardSelection(k=k, m=None, n_estimators=1), Q, np.zeros(p + 1), 1.0, n_replicates=400, random_state=1
    )
    assert abs(result.df[k] - (closed_form + 1)) <= 4 * result.se[k]
    assert result.df[k] > k + 1 + 5  # the search part is large
    shortcut = degrees_of_freedom_orthogonal(np.zeros(p), 1.0, k, p, n_replicates=4000, random_state=2)
    assert abs(shortcut.df - closed_form) <= 4 * shortcut.se


def test_df_of_random_subset_learners_is_k():
    # m = 1: subsets do not depend on y, every learner is a projection on k + 1 columns
    # (with the intercept), so df = k + 1 exactly in expectation.
    X, _ = make_data(n=50, p=15, seed=4)
    mu = X[:, :3] @ [2.0, -1.0, 1.0]
    k = 4
    result = degrees_of_freedom(
        EnsembleForwardSelection(k=k, m=1, n_estimators=30), X, mu, 1.0, n_replicates=300, random_state=3
    )
    expected = np.arange(k + 1) + 1.0
    assert np.all(np.abs(result.df - expected) <= 4 * result.se)
    shortcut = degrees_of_freedom_orthogonal(np.linspace(-2, 2, 15), 1.0, k, 1, n_replicates=4000, random_state=4)
    assert abs(shortcut.df - k) <= 4 * shortcut.se


def test_bias_variance_report_is_consistent():
    X, _ = make_data(n=40, p=10, seed=9)
    mu = X[:, :2] @ [1.5, -1.0]
    sigma = 0.7
    report = bias_variance(
        EnsembleForwardSelection(k=4, m=3, n_estimators=20), X, mu, sigma, n_replicates=300, random_state=5
    )
    np.testing.assert_allclose(report.risk, report.bias2 + report.variance)
    np.testing.assert_allclose(report.prediction_error, report.risk + sigma**2)
    assert report.bias2[0] == pytest.approx(np.var(mu), rel=0.05)  # the intercept-only fit
    assert np.all(np.diff(report.bias2) < 0)
    # Efron's optimism theorem: E[prediction error] = E[train error] + 2 sigma^2 df / n.
    optimism = report.prediction_error - report.train_error
    np.testing.assert_allclose(
        optimism, 2 * sigma**2 * report.df / 40, atol=4 * 2 * sigma**2 * report.df_se.max() / 40 + 0.02
    )


def test_simulation_bad_input():
    est = EnsembleForwardSelection(k=2, m=2, n_estimators=3)
    X, _ = make_data(n=20, p=5)
    with pytest.raises(ValueError, match=r"mu: expected shape \(20,\)"):
        degrees_of_freedom(est, X, np.zeros(19), 1.0)
    with pytest.raises(ValueError, match=r"sigma: expected a number in \(0, inf\]"):
        degrees_of_freedom(est, X, np.zeros(20), 0.0)
    with pytest.raises(ValueError, match="n_replicates: expected an integer"):
        degrees_of_freedom(est, X, np.zeros(20), 1.0, n_replicates=1)


# -- cross-validation and plotting -----------------------------------------------------------------


def test_cross_validate_path_reuses_the_path():
    X, y = make_data(n=60, p=12, seed=10)
    template = EnsembleForwardSelection(k=5, n_estimators=20, random_state=7)
    folds = [(np.arange(20, 60), np.arange(20)), (np.arange(40), np.arange(40, 60))]
    result = cross_validate_path(template, X, y, [1, 0.5, None], cv=folds)
    assert list(result.m_values) == [1, 6, 12] and result.mse.shape == (3, 6)
    # One grid point by hand: m = 6, fold 2, k = 3.
    model = EnsembleForwardSelection(k=5, m=6, n_estimators=20, random_state=7).fit(X[:40], y[:40])
    fold_two = np.mean((y[40:] - model.predict(X[40:], k=3)) ** 2)
    model = EnsembleForwardSelection(k=5, m=6, n_estimators=20, random_state=7).fit(X[20:], y[20:])
    fold_one = np.mean((y[:20] - model.predict(X[:20], k=3)) ** 2)
    assert result.mse[1, 3] == pytest.approx((fold_one + fold_two) / 2)
    i, j = np.unravel_index(np.argmin(result.mse[:, 1:]), (3, 5))
    assert (result.best_m, result.best_k) == (result.m_values[i], j + 1)
    assert result.estimator.k == result.best_k and result.estimator.m == result.best_m
    shuffled = cross_validate_path(template, X, y, [2, 4], cv=3, random_state=0, refit=False)
    assert shuffled.estimator is None and np.all(np.isfinite(shuffled.se))


def test_cross_validate_path_folds_as_masks_indices_or_splitter():
    X, y = make_data(n=30, p=6, seed=11)
    template = EnsembleForwardSelection(k=3, n_estimators=15, random_state=2)
    rng = np.random.default_rng(0)
    masks = []
    for _ in range(3):
        test = np.zeros(30, dtype=bool)
        test[rng.choice(30, 10, replace=False)] = True
        masks.append((~test, test))
    as_indices = [(np.flatnonzero(train), np.flatnonzero(test)) for train, test in masks]
    by_index = cross_validate_path(template, X, y, [2, 6], cv=as_indices)
    by_mask = cross_validate_path(template, X, y, [2, 6], cv=masks)
    as_lists = [(list(train), list(test)) for train, test in masks]  # lists of bools are masks too
    for other in (by_mask, cross_validate_path(template, X, y, [2, 6], cv=as_lists)):
        np.testing.assert_array_equal(other.mse, by_index.mse)
        assert (other.best_k, other.best_m) == (by_index.best_k, by_index.best_m)
    # The masks are not read as indices (rows 0 and 1).
    rows_0_1 = [(np.array([0, 1]), np.flatnonzero(test)) for _, test in masks]
    assert not np.array_equal(cross_validate_path(template, X, y, [2, 6], cv=rows_0_1).mse, by_index.mse)
    pytest.importorskip("sklearn")
    from sklearn.model_selection import KFold

    splitter = KFold(3, shuffle=True, random_state=0)
    np.testing.assert_array_equal(
        cross_validate_path(template, X, y, [2], cv=splitter).mse,
        cross_validate_path(template, X, y, [2], cv=list(splitter.split(X))).mse,
    )


@pytest.mark.parametrize(
    "folds, error, match",
    [
        ([(np.arange(10, 30.0), np.arange(10.0))], TypeError, r"cv: fold 0, train: expected integer sample indices"),
        ([(np.arange(10, 30), np.array([0.5, 1.7]))], TypeError, r"cv: fold 0, test: expected integer"),
        (
            [(np.arange(10, 30), np.arange(10)), (np.arange(20), np.arange(20, 31))],
            ValueError,
            r"cv: fold 1, test: expected sample indices in \[0, 30\), got values in \[20, 30\]",
        ),
        ([(np.arange(-3, 20), np.arange(20, 30))], ValueError, r"cv: fold 0, train: expected sample indices in"),
        (
            [(np.ones(29, dtype=bool), np.ones(30, dtype=bool))],
            ValueError,
            r"cv: fold 0, train: a boolean mask must have shape \(30,\)",
        ),
        ([(np.arange(30), [])], ValueError, r"cv: fold 0, test: selects no sample"),
        ([(np.array([4]), np.arange(10))], ValueError, "cv: fold 0, train: expected at least 2 samples"),
        ([(np.arange(10), np.arange(10, 20), np.arange(5))], TypeError, r"cv: fold 0: expected a \(train, test\) pair"),
        (
            [(np.ma.masked_array(np.arange(20)), np.arange(20, 30))],
            TypeError,
            "cv: fold 0, train: expected a plain array",
        ),
        ("5", TypeError, "cv: expected an int >= 2"),
        (2.5, TypeError, "cv: expected an int >= 2"),
        (1, ValueError, "cv: expected an integer in"),
        ([], ValueError, "cv: expected at least one"),
    ],
    ids=[
        "float-indices",
        "fractional-indices",
        "out-of-range",
        "negative",
        "mask-length",
        "empty-test",
        "one-training-sample",
        "triple",
        "masked",
        "string",
        "float",
        "one-fold",
        "no-folds",
    ],
)
def test_cross_validate_path_refuses_bad_folds(folds, error, match):
    X, y = make_data(n=30, p=6, seed=11)
    with pytest.raises(error, match=match):
        cross_validate_path(EnsembleForwardSelection(k=2, n_estimators=3), X, y, [2], cv=folds)


def test_cross_validate_path_refit_must_be_a_bool():
    X, y = make_data(n=30, p=6, seed=11)
    for value in ("no", 0, None):
        with pytest.raises(TypeError, match="refit: expected a bool"):
            cross_validate_path(EnsembleForwardSelection(k=2, n_estimators=3), X, y, [2], cv=3, refit=value)
    assert (
        cross_validate_path(
            EnsembleForwardSelection(k=2, n_estimators=3), X, y, [2], cv=3, refit=np.bool_(False)
        ).estimator
        is None
    )


def test_plot_weights():
    try:
        import matplotlib
    except ImportError:
        with pytest.raises(ImportError, match="plot_weights needs matplotlib"):
            plot_weights(10, 0.15)
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = plot_weights(10, 0.15, p=200, empirical=exact_weights(10, 30, 200))
    assert len(ax.lines) == 4  # asymptotic, exact, empirical, rank-k marker
    np.testing.assert_allclose(ax.lines[0].get_ydata(), asymptotic_weights(10, 0.15, 40))
    plt.close(ax.figure)
