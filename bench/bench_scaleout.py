"""Scale-out benchmark: the batch APIs on a dask LocalCluster with 1 and 2 worker processes.

For each workload it first checks that the cluster result equals the single-process call bit for
bit, then prints the wall time of the single-process call (one thread), of the cluster with 1 and
with 2 workers (one thread each), and the speed-up from 1 to 2 workers. A last row measures the
overhead per chunk: many chunks of almost no work.

    python bench/bench_scaleout.py [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

try:
    import dask.array as da
except ImportError:
    da = None

try:
    import distributed
except ImportError:
    print("dask.distributed is not installed (pip install 'paperkernels[dask]'): skipping the scale-out benchmark")
    sys.exit(0)

from paperkernels import cascade, distributed as pkd, greedy, shapes, toptwo
from paperkernels._report import Report


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return time.perf_counter() - start, result


def workloads(quick: bool):
    scale = 0.2 if quick else 1.0
    rng = np.random.default_rng(0)

    episodes = int(4000 * scale)
    mu = [0.5, 0.45, 0.43, 0.4]
    yield ("toptwo.run_many", f"{episodes} episodes, mu = {mu}, delta = 0.01",
           lambda: toptwo.run_many(mu, 0.01, episodes, seed=1, n_threads=1),
           lambda client: pkd.run_many(mu, 0.01, episodes, seed=1, client=client),
           lambda a, b: np.array_equal(a.tau, b.tau) and np.array_equal(a.N, b.N))

    n_runs = int(40 * scale) or 4
    study = dict(env=cascade.reference_environment(0), learners=[cascade.TopicCascadeUCB(), cascade.CascadeUCB1()],
                 T=int(4000 * scale), n_seeds=n_runs, seed=1)
    yield ("cascade.simulate", f"{n_runs} runs x {study['T']} rounds",
           lambda: cascade.simulate(**study, n_threads=1),
           lambda client: pkd.simulate(**study, client=client),
           lambda a, b: np.array_equal(a.regret, b.regret))

    X = rng.normal(size=(2000, 500))
    y = X[:, :10] @ rng.normal(size=10) + rng.normal(size=2000)
    B = int(20_000 * scale)
    params = dict(k=20, m=50, n_estimators=B, random_state=3)
    yield ("greedy.fit_ensemble", f"B = {B}, n = 2000, p = 500, k = 20, m = 50",
           lambda: greedy.EnsembleForwardSelection(**params, n_jobs=1).fit(X, y),
           lambda client: pkd.fit_ensemble(greedy.EnsembleForwardSelection(**params), X, y, client=client),
           lambda a, b: np.array_equal(a.coef_path_, b.coef_path_))

    n_shapes = int(20_000 * scale)
    block = 2000
    masks = da.map_blocks(_ellipses, chunks=((block,) * (n_shapes // block), (128,), (128,)), dtype=np.float32)
    local_masks = masks.compute(scheduler="sync")
    encoder = shapes.XShapeEncoder(20, n_threads=1)

    def on_cluster(client):
        resident = client.persist(masks)  # the masks live on the workers, as they would in a real study
        distributed.wait(resident)
        start = time.perf_counter()
        codes = client.compute(pkd.encode_shapes(encoder, resident, client=client, chunk_size=block)).result()
        return codes, time.perf_counter() - start

    yield ("shapes.encode_shapes", f"{n_shapes} masks 128 x 128 on the workers, N = 20",
           lambda: encoder.encode_geometry(local_masks),
           on_cluster,
           lambda a, b: np.array_equal(a, b))


def _ellipses(block_info=None):
    """A block of 128 x 128 ellipse masks, seeded by the block's position (same on any worker)."""
    start = block_info[None]["array-location"][0][0]
    count = block_info[None]["chunk-shape"][0]
    radii = np.random.default_rng(start).uniform(0.2, 0.9, size=count)
    yy, xx = np.mgrid[-1:1:128j, -1:1:128j]
    return (xx[None] ** 2 + 0.7 * yy[None] ** 2 < radii[:, None, None] ** 2).astype(np.float32)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args(argv)
    report = Report()
    clusters = {}
    try:
        for n_workers in (1, 2):
            cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=50)
            clusters[n_workers] = (cluster, distributed.Client(cluster, set_as_default=False))
        rows = []
        for name, size, local, remote, same in workloads(args.quick):
            local_time, expected = timed(local)
            times = {}
            for n_workers, (_, client) in clusters.items():
                with client.as_current():
                    remote(client)  # warm-up: imports and caches on the workers
                    times[n_workers], got = timed(lambda: remote(client))
                if isinstance(got, tuple):  # the workload timed itself (after staging its data)
                    got, times[n_workers] = got
                if not same(expected, got):
                    print(f"{name}: the cluster result differs from the single-process call")
                    return 1
            rows.append([name, size, f"{local_time:.3f}", f"{times[1]:.3f}", f"{times[2]:.3f}",
                         f"{times[1] / times[2]:.2f}x"])
        report.line("results identical to the single-process call for every workload and worker count")
        report.table(["workload", "size", "local 1 thread (s)", "1 worker (s)", "2 workers (s)", "speed-up 1->2"], rows)

        client = clusters[2][1]
        n_chunks = 200
        tiny = dict(env=cascade.worked_example(), learners=[cascade.RandomCascade()], T=1, n_seeds=n_chunks, seed=0)
        pkd.simulate(**tiny, client=client, chunk_size=1)
        elapsed, _ = timed(lambda: pkd.simulate(**tiny, client=client, chunk_size=1))
        report.figure("overhead per chunk (2 workers, near-empty chunks)", 1e3 * elapsed / n_chunks, "ms")
    finally:
        for cluster, client in clusters.values():
            client.close()
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
