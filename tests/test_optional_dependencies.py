"""Optional dependencies of greedy, shapes and distributed: a missing one is an ImportError naming the
extra to install (or, where the library does without it, a quiet fallback), and flags are bools."""

import sys

import numpy as np
import pytest

import paperkernels.distributed as pkd
from paperkernels import cascade, shapes
from paperkernels._progress import Progress
from paperkernels.greedy import EnsembleForwardSelection, cross_validate_path, plot_weights


def _hide(monkeypatch, *modules):
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)  # importing it now raises ImportError


def test_plot_weights_without_matplotlib_names_the_plot_extra(monkeypatch):
    _hide(monkeypatch, "matplotlib", "matplotlib.pyplot")
    with pytest.raises(
        ImportError,
        match=r"^plot_weights needs matplotlib: pip install 'paperkernels\[plot\]' "
        r"\(or pip install matplotlib\)$",
    ):
        plot_weights(5, 0.2)


def test_synthetic_shapes_without_shapely_names_the_shapes_extra(monkeypatch):
    _hide(monkeypatch, "shapely", "shapely.affinity", "shapely.geometry")
    with pytest.raises(ImportError, match=r"^synthetic_shapes needs shapely: pip install 'paperkernels\[shapes\]'"):
        shapes.synthetic_shapes(2, seed=0)
    # Arrays, lists of rings and GeoJSON dicts need no shapely.
    square = {"type": "Polygon", "coordinates": [[(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]]}
    unit, pose = shapes.normalize(square)
    assert unit["type"] == "Polygon" and pose.shape == (3,)


def test_distributed_without_dask_names_the_dask_extra(monkeypatch):
    _hide(monkeypatch, "dask", "dask.array", "distributed")
    with pytest.raises(
        ImportError,
        match=r"^paperkernels.distributed needs dask\[distributed\]: "
        r"pip install 'paperkernels\[dask\]'",
    ):
        pkd.map_chunks(max, [(1, 2)], client="tcp://127.0.0.1:1")
    with pytest.raises(
        ImportError, match=r"^encode_shapes needs dask\[distributed\]: pip install 'paperkernels\[dask\]'"
    ):
        pkd.encode_shapes(shapes.XShapeEncoder(4), np.zeros((2, 8, 8)))
    # Without a client the chunks run here: no dask needed.
    assert pkd.map_chunks(max, [(1, 2), (4, 3)]) == [2, 4]


def test_progress_without_tqdm_prints_a_summary(monkeypatch, capsys):
    _hide(monkeypatch, "tqdm", "tqdm.auto")
    with Progress(3, True, "chunks") as bar:
        bar.update(2)
        bar.update()
    assert capsys.readouterr().out == "chunks: 3/3 done\n"


def test_flags_are_bools_not_integers():
    X = np.random.default_rng(0).standard_normal((20, 4))
    y = X[:, 0]
    with pytest.raises(TypeError, match="^fit_intercept: expected a bool, got int 1$"):
        EnsembleForwardSelection(k=2, n_estimators=3, fit_intercept=1).fit(X, y)
    with pytest.raises(TypeError, match="^refit: expected a bool, got int 0$"):
        cross_validate_path(EnsembleForwardSelection(k=2, n_estimators=3), X, y, [2], cv=2, refit=0)
    study = dict(env=cascade.worked_example(), learners=[cascade.CascadeUCB1()], T=10, record=1)
    with pytest.raises(TypeError, match=r"^studies\[0\]\.record: expected a bool, got int 1$"):
        pkd.simulate_many([study])
