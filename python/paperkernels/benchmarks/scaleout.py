"""Scale-out: the batch APIs of paperkernels.distributed on a dask LocalCluster with 1 and 2 worker
processes (one thread each) against the single-process call on one thread.

For each workload the cluster result must first equal the single-process call bit for bit; then the
wall times are recorded. A last measurement is the overhead per chunk: many chunks of almost no work.
"""

from __future__ import annotations

import importlib.util
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ._harness import Recorder, Timer

LOCAL = "single process, 1 thread"

# (workload, local call, call on a client, do two results agree)
Workload = tuple[str, Callable[[], Any], Callable[[Any], Any], Callable[[Any, Any], bool]]


def _ellipses(block_info: dict[Any, dict[str, Any]] | None = None) -> npt.NDArray[np.float32]:
    """A block of 128 x 128 ellipse masks, seeded by the block's position (the same on any worker)."""
    assert block_info is not None  # dask passes it to a function with this keyword
    start = block_info[None]["array-location"][0][0]
    count = block_info[None]["chunk-shape"][0]
    radii = np.random.default_rng(start).uniform(0.2, 0.9, size=count)
    yy, xx = np.mgrid[-1:1:128j, -1:1:128j]
    inside = xx[None] ** 2 + 0.7 * yy[None] ** 2 < radii[:, None, None] ** 2
    masks: npt.NDArray[np.float32] = inside.astype(np.float32)
    return masks


def workloads(quick: bool) -> Iterator[Workload]:
    import dask.array as da
    import distributed

    from .. import cascade, greedy, shapes, toptwo
    from .. import distributed as pkd

    scale = 0.02 if quick else 1.0
    rng = np.random.default_rng(0)

    episodes = int(4000 * scale)
    mu = [0.5, 0.45, 0.43, 0.4]
    yield (
        f"toptwo.run_many {episodes} episodes mu={mu} delta=0.01",
        lambda: toptwo.run_many(mu, 0.01, episodes, seed=1, n_threads=1),
        lambda client: pkd.run_many(mu, 0.01, episodes, seed=1, client=client),
        lambda a, b: np.array_equal(a.tau, b.tau) and np.array_equal(a.N, b.N),
    )

    n_runs = max(4, int(40 * scale))
    study: dict[str, Any] = dict(
        env=cascade.reference_environment(0),
        learners=[cascade.TopicCascadeUCB(), cascade.CascadeUCB1()],
        T=int(4000 * scale),
        n_seeds=n_runs,
        seed=1,
    )
    yield (
        f"cascade.simulate {n_runs} runs x {study['T']} rounds",
        lambda: cascade.simulate(**study, n_threads=1),
        lambda client: pkd.simulate(**study, client=client),
        lambda a, b: np.array_equal(a.regret, b.regret),
    )

    n, p = (500, 100) if quick else (2000, 500)
    X = rng.normal(size=(n, p))
    y = X[:, :10] @ rng.normal(size=10) + rng.normal(size=n)
    B = int(20_000 * scale)
    params: dict[str, Any] = dict(k=20, m=50, n_estimators=B, random_state=3)
    yield (
        f"greedy.fit_ensemble B={B} n={n} p={p} k=20 m=50",
        lambda: greedy.EnsembleForwardSelection(**params, n_jobs=1).fit(X, y),
        lambda client: pkd.fit_ensemble(greedy.EnsembleForwardSelection(**params), X, y, client=client),
        lambda a, b: np.array_equal(a.coef_path_, b.coef_path_),
    )

    block = 100 if quick else 2000
    n_shapes = 4 * block if quick else 20_000
    masks = da.map_blocks(  # type: ignore[no-untyped-call]
        _ellipses, chunks=((block,) * (n_shapes // block), (128,), (128,)), dtype=np.float32
    )
    local_masks = masks.compute(scheduler="sync")
    encoder = shapes.XShapeEncoder(20, n_threads=1)

    def on_cluster(client: distributed.Client) -> tuple[Any, float]:
        # the masks live on the workers, as they would in a real study
        resident = client.persist(masks)  # type: ignore[no-untyped-call]
        distributed.wait(resident)  # type: ignore[no-untyped-call]
        start = time.perf_counter()
        codes = client.compute(  # type: ignore[no-untyped-call]
            pkd.encode_shapes(encoder, resident, client=client, chunk_size=block)
        ).result()
        return codes, time.perf_counter() - start

    yield (
        f"shapes.encode_shapes {n_shapes} masks 128x128 on the workers N=20",
        lambda: encoder.encode_geometry(local_masks),
        on_cluster,
        lambda a, b: np.array_equal(a, b),
    )


def run(rec: Recorder) -> None:
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        rec.skip(
            "dask.distributed", "not installed: the scale-out benchmark needs it", "pip install 'paperkernels[dask]'"
        )
        return
    import distributed

    from .. import cascade
    from .. import distributed as pkd

    clusters: dict[int, tuple[distributed.LocalCluster, distributed.Client]] = {}
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.ERROR)  # the cluster's start and stop messages are not results
    try:
        for n_workers in (2,) if rec.quick else (1, 2):  # (--quick: one cluster, started once)
            cluster = distributed.LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=50
            )
            client = distributed.Client(cluster, set_as_default=False)  # type: ignore[no-untyped-call]
            clusters[n_workers] = (cluster, client)
        for workload, local, remote, same in workloads(rec.quick):
            local_timer = Timer("wall")
            expected = local_timer.run(local)
            timers: dict[int, Timer] = {}
            results: dict[int, Any] = {}
            for n_workers, (_, client) in clusters.items():
                with client.as_current():
                    remote(client)  # warm-up: imports and caches on the workers
                    timer = Timer("wall")
                    got = timer.run(lambda: remote(client))
                if isinstance(got, tuple):  # the workload timed itself (after staging its data)
                    got, seconds = got
                    timer = Timer("wall")
                    timer.add(seconds)
                timers[n_workers], results[n_workers] = timer, got
            for n_workers, got in results.items():
                rec.check(
                    workload,
                    f"LocalCluster with {n_workers} worker(s) vs the single-process call",
                    "results differ (0 = bit-identical)",
                    0.0 if same(expected, got) else 1.0,
                    0.0,
                )
            rec.time(workload, LOCAL, local_timer, unit="s", scale=1.0, threads=1, metric="wall time")
            for n_workers, timer in timers.items():
                rec.time(
                    workload,
                    f"LocalCluster {n_workers} worker(s)",
                    timer,
                    unit="s",
                    scale=1.0,
                    threads=n_workers,
                    metric="wall time",
                )

        client = clusters[2][1]
        n_chunks = 40 if rec.quick else 200
        tiny: dict[str, Any] = dict(
            env=cascade.worked_example(), learners=[cascade.RandomCascade()], T=1, n_seeds=n_chunks, seed=0
        )
        pkd.simulate(**tiny, client=client, chunk_size=1)
        timer = Timer("wall")
        timer.run(lambda: pkd.simulate(**tiny, client=client, chunk_size=1), units=n_chunks)
        rec.time(
            f"{n_chunks} near-empty chunks", "LocalCluster 2 worker(s)", timer, metric="overhead per chunk", threads=2
        )
    finally:
        for cluster, client in clusters.values():
            client.close()  # type: ignore[no-untyped-call]
            cluster.close()
        logger.setLevel(level)
