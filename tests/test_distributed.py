"""Batch APIs split across a real dask LocalCluster (worker processes) equal the single-process calls
bit for bit, whatever the chunking."""

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
da = pytest.importorskip("dask.array")

from paperkernels import distributed as pkd  # noqa: E402
from paperkernels import shapes  # noqa: E402
from paperkernels.greedy import EnsembleForwardSelection  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_chunk_ranges_cover_in_order():
    assert pkd.chunk_ranges(10, 4) == [(0, 4), (4, 4), (8, 2)]
    assert pkd.chunk_ranges(0, 3) == []
    with pytest.raises(ValueError, match="chunk_size"):
        pkd.chunk_ranges(5, 0)


def _regression(seed=0, n=150, p=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X[:, :4] @ np.array([2.0, -1.0, 0.5, 1.5]) + rng.normal(size=n)
    return X, y


FITTED = ["coef_path_", "intercept_path_", "coef_", "active_sets_", "selection_frequencies_", "feature_importances_"]


@pytest.mark.parametrize("chunk_size", [None, 7, 64])
@pytest.mark.parametrize("precompute", [True, False])
def test_greedy_on_cluster_equals_local(client, chunk_size, precompute):
    X, y = _regression()
    params = dict(k=5, m=6, n_estimators=60, random_state=11, precompute=precompute)
    local = EnsembleForwardSelection(**params).fit(X, y)
    remote = pkd.fit_ensemble(EnsembleForwardSelection(**params), X, y, client=client, chunk_size=chunk_size)
    for name in FITTED:
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name
    assert remote.intercept_ == local.intercept_


def test_greedy_on_cluster_large_design(client):
    # Large enough for a multi-threaded BLAS X^T y here, single-threaded on the workers: the
    # response must be prepared once, here, for the learners to agree bit for bit.
    X, y = _regression(2, n=2000, p=500)
    params = dict(k=20, m=50, n_estimators=40, random_state=5)
    local = EnsembleForwardSelection(**params).fit(X, y)
    remote = pkd.fit_ensemble(EnsembleForwardSelection(**params), X, y, client=client, chunk_size=5)
    for name in FITTED:
        assert np.array_equal(getattr(local, name), getattr(remote, name)), name


def test_greedy_local_chunks_with_progress(capsys, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # no tqdm: a one-line summary instead
    X, y = _regression(1)
    params = dict(k=4, m=5, n_estimators=30, random_state=2)
    local = EnsembleForwardSelection(**params).fit(X, y)
    chunked = pkd.fit_ensemble(EnsembleForwardSelection(**params), X, y, chunk_size=8, progress=True)
    assert np.array_equal(local.coef_path_, chunked.coef_path_)
    assert capsys.readouterr().out.strip() == "learners: 4/4 done"


def test_progress_bar_on_cluster(client, capsys):
    pytest.importorskip("tqdm")
    from paperkernels import toptwo

    runs = pkd.run_many([0.6, 0.4], 0.1, 12, seed=4, client=client, chunk_size=3, progress=True)
    assert np.array_equal(runs.tau, toptwo.run_many([0.6, 0.4], 0.1, 12, seed=4).tau)
    assert "episodes" in capsys.readouterr().err


@pytest.mark.parametrize(
    "bad,error,message",
    [
        (dict(chunk_size=0), ValueError, "chunk_size: expected an integer in"),
        (dict(chunk_size=2.5), TypeError, "chunk_size: expected an integer"),
        (dict(seed=-1), ValueError, "seed: expected an integer in"),
        (dict(n_runs=0), ValueError, "n_runs: expected an integer in"),
    ],
)
def test_toptwo_bad_arguments(bad, error, message):
    args = dict(mu=[0.6, 0.4], delta=0.1, n_runs=5, seed=1)
    args.update(bad)
    with pytest.raises(error, match=message):
        pkd.run_many(**args)


def _masks(count=23, size=32, seed=5):
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[-1 : 1 : size * 1j, -1 : 1 : size * 1j]
    radii = rng.uniform(0.2, 0.9, size=count)
    shifts = rng.uniform(-0.1, 0.1, size=(count, 2))
    return np.stack(
        [
            ((xx - sx) ** 2 + 0.6 * (yy - sy) ** 2 < r * r).astype(float)
            for r, (sx, sy) in zip(radii, shifts, strict=False)
        ]
    )


@pytest.mark.parametrize("chunk_size", [1, 5, 100])
def test_shapes_numpy_and_dask_inputs_on_cluster(client, chunk_size):
    masks = _masks()
    encoder = shapes.XShapeEncoder(8)
    expected = encoder.encode_geometry(masks)
    codes = pkd.encode_shapes(encoder, masks, client=client, chunk_size=chunk_size)
    assert isinstance(codes, da.Array) and codes.shape == expected.shape
    assert np.array_equal(codes.compute(), expected)
    lazy = da.from_array(masks, chunks=(4, 32, 32))
    assert np.array_equal(pkd.encode_shapes(encoder, lazy, client=client, chunk_size=chunk_size).compute(), expected)


def test_shapes_polygons_on_cluster(client):
    polygons = [shapes.normalize(shapes.star_polygon(5 + i % 3, 0.5))[0] for i in range(9)]
    encoder = shapes.XShapeEncoder(10, input="polygon", dtype=np.float64)
    expected = encoder.encode_geometry(polygons)
    codes = pkd.encode_shapes(encoder, polygons, client=client, chunk_size=4)
    assert np.array_equal(codes.compute(), expected)


def test_shapes_bad_input():
    encoder = shapes.XShapeEncoder(6)
    with pytest.raises(ValueError, match="shapes: expected a batch"):
        pkd.encode_shapes(encoder, np.zeros((4, 4)))
    with pytest.raises(ValueError, match="shapes: expected at least one shape"):
        pkd.encode_shapes(encoder, [])


def test_wrong_objects_and_progress_flags_are_refused():
    X = np.random.default_rng(0).normal(size=(30, 5))
    with pytest.raises(TypeError, match="estimator: expected a paperkernels.greedy.EnsembleForwardSelection"):
        pkd.fit_ensemble(None, X, X[:, 0])
    with pytest.raises(TypeError, match="encoder: expected a paperkernels.shapes.XShapeEncoder"):
        pkd.encode_shapes(object(), np.zeros((2, 8, 8)))
    estimator = EnsembleForwardSelection(k=2, n_estimators=3)
    calls = [
        lambda progress: pkd.fit_ensemble(estimator, X, X[:, 0], progress=progress),
        lambda progress: pkd.encode_shapes(shapes.XShapeEncoder(4), np.zeros((2, 8, 8)), progress=progress),
        lambda progress: pkd.run_many([0.5, 0.4], 0.1, 4, progress=progress),
        lambda progress: pkd.map_chunks(abs, [(1,)], progress=progress),
    ]
    for call in calls:
        for flag in ("yes", 2, None):
            with pytest.raises(TypeError, match="progress: expected a bool"):
                call(flag)
    assert not hasattr(estimator, "coef_")


def _cascade_study(seed):
    from paperkernels import cascade

    env = cascade.reference_environment(0)
    learners = [cascade.TopicCascadeUCB(), cascade.CascadeUCB1(), cascade.RandomCascade()]
    return dict(env=env, learners=learners, T=150, n_seeds=7, seed=seed)


def _same_simulation(a, b):
    assert np.array_equal(a.regret, b.regret)
    assert a.names == b.names and a.seed == b.seed
    for name in ("cascades", "first_clicks"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None and y is None) or np.array_equal(x, y)


@pytest.mark.parametrize("chunk_size", [None, 1, 3])
def test_cascade_on_cluster_equals_local(client, chunk_size):
    from paperkernels import cascade

    study = _cascade_study(42)
    local = cascade.simulate(**study, record=True)
    remote = pkd.simulate(**study, client=client, record=True, chunk_size=chunk_size)
    _same_simulation(local, remote)


def test_cascade_many_studies_and_generator_seeds(client):
    from paperkernels import cascade

    studies = [_cascade_study(np.random.default_rng(5)), _cascade_study(9)]
    local = [cascade.simulate(**_cascade_study(np.random.default_rng(5))), cascade.simulate(**_cascade_study(9))]
    for a, b in zip(local, pkd.simulate_many(studies, client, chunk_size=2), strict=False):
        _same_simulation(a, b)
    with pytest.raises(ValueError, match=r"studies\[0\]: unexpected keys \['bogus'\]"):
        pkd.simulate_many([dict(_cascade_study(1), bogus=1)])


def _same_runs(a, b):
    for name in ("tau", "recommendation", "N", "S", "hit_max_steps"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.best == b.best


@pytest.mark.parametrize("chunk_size", [None, 1, 6])
def test_toptwo_grid_on_cluster_equals_local(client, chunk_size):
    from paperkernels import toptwo

    instances = [[0.5, 0.45, 0.43, 0.4], [0.7, 0.3, 0.5]]
    cells = pkd.run_grid(
        instances,
        [0.1, 0.01],
        13,
        rules=["random", "tracking"],
        thresholds=["gk16", "union"],
        seed=3,
        client=client,
        chunk_size=chunk_size,
    )
    assert len(cells) == 2 * 2 * 2 * 2
    for cell in cells:
        local = toptwo.run_many(cell.mu, cell.delta, 13, rule=cell.rule, threshold=cell.threshold, seed=3)
        _same_runs(local, cell.result)


def test_toptwo_run_many_options_and_local_chunks():
    from paperkernels import toptwo

    mu = [0.6, 0.5, 0.4]
    local = toptwo.run_many(mu, 0.05, 20, beta=0.6, challenger="TC", forced_exploration=True, seed=8)
    chunked = pkd.run_many(mu, 0.05, 20, beta=0.6, challenger="TC", forced_exploration=True, seed=8, chunk_size=3)
    _same_runs(local, chunked)
    with pytest.raises(ValueError, match="n_threads: chosen by the distributed helper"):
        pkd.run_many(mu, 0.05, 20, seed=1, n_threads=2)


# ---- the whole call's limits, lazy chunks, clients given as clusters or addresses -----------------


def test_chunk_ranges_are_lazy():
    import time

    started = time.perf_counter()
    chunks = pkd.chunk_ranges(10**7, 1)
    assert len(chunks) == 10**7 and chunks[0] == (0, 1) and chunks[-1] == (10**7 - 1, 1)
    assert time.perf_counter() - started < 0.1
    assert list(pkd.chunk_ranges(10, 4)) == [(0, 4), (4, 4), (8, 2)] and pkd.chunk_ranges(10, 4)[1:] == [(4, 4), (8, 2)]
    with pytest.raises(IndexError):
        pkd.chunk_ranges(10, 4)[3]


def test_too_many_chunks_refused_at_once():
    from paperkernels import cascade

    started = __import__("time").perf_counter()
    with pytest.raises(ValueError, match="chunk_size: the call would queue 1000000 chunks, above MAX_CHUNKS"):
        pkd.simulate(cascade.reference_environment(0), [cascade.CascadeUCB1()], 5, n_seeds=10**6, seed=0, chunk_size=1)
    with pytest.raises(ValueError, match="chunk_size: .*MAX_CHUNKS"):
        pkd.run_many([0.6, 0.4], 0.1, 10**6, seed=1, chunk_size=1)
    assert __import__("time").perf_counter() - started < 1.0


def test_cascade_limits_apply_to_the_whole_call():
    import paperkernels
    from paperkernels import cascade

    study = _cascade_study(3)  # 3 learners x 7 runs x 150 rounds
    with paperkernels.limits.override(max_result_bytes=8 * 3 * 7 * 150 - 1):
        with pytest.raises(ValueError, match="T, n_seeds"):
            cascade.simulate(**study)
        for chunk_size in (None, 1, 3):  # every chunk alone would fit
            with pytest.raises(ValueError, match="T, n_seeds"):
                pkd.simulate(**study, chunk_size=chunk_size)
    with paperkernels.limits.override(max_result_bytes=8 * 3 * 7 * 150 * 3 // 2):
        pkd.simulate(**study, chunk_size=2)  # one study fits, two together do not
        with pytest.raises(ValueError, match="studies"):
            pkd.simulate_many([study, _cascade_study(4)], chunk_size=2)


def test_toptwo_limits_apply_to_the_whole_call():
    import time

    started = time.perf_counter()
    # 10^8 runs of 3 arms keep 6.5 GB of results: refused whole, however small the chunks.
    with pytest.raises(ValueError, match="n_runs"):
        pkd.run_many([0.6, 0.5, 0.4], 0.1, 10**8, seed=1, chunk_size=10**4)
    with pytest.raises(ValueError, match="n_runs"):
        pkd.run_grid([[0.6, 0.5, 0.4]] * 2, [0.1, 0.05], 2 * 10**7, seed=1, chunk_size=10**4)
    assert time.perf_counter() - started < 1.0


def test_simulate_many_names_missing_and_wrong_entries():
    from paperkernels import cascade

    study = _cascade_study(1)
    for key in ("env", "learners", "T"):
        partial = {k: v for k, v in study.items() if k != key}
        with pytest.raises(TypeError, match=f"{key}: missing from studies\\[0\\]"):
            pkd.simulate_many([partial])
    with pytest.raises(TypeError, match="env: studies\\[0\\] holds a str"):
        pkd.simulate_many([dict(study, env="reference")])
    with pytest.raises(TypeError, match="learners: expected a list of learners, got a single CascadeUCB1"):
        pkd.simulate(study["env"], cascade.CascadeUCB1(), 10)
    with pytest.raises(TypeError, match="studies: expected a list"):
        pkd.simulate_many(study)


def test_client_may_be_a_cluster_or_an_address(client):
    from paperkernels import cascade

    study = _cascade_study(11)
    local = cascade.simulate(**study)
    _same_simulation(local, pkd.simulate(**study, client=client.cluster, chunk_size=3))
    _same_simulation(local, pkd.simulate(**study, client=client.scheduler.address, chunk_size=3))
    mu = [0.6, 0.5, 0.4]
    _same_runs(pkd.run_many(mu, 0.1, 9, seed=2), pkd.run_many(mu, 0.1, 9, seed=2, client=client.cluster, chunk_size=4))
    for wrong in (42, object(), ["tcp://x"]):
        with pytest.raises(TypeError, match="client: expected a dask.distributed.Client, a cluster"):
            pkd.simulate(**study, client=wrong)
    with pytest.raises(TypeError, match="client: encode_shapes needs a connected dask.distributed.Client"):
        pkd.encode_shapes(shapes.XShapeEncoder(8), _masks(count=3), client=client.cluster)
