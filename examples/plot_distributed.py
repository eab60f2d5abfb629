"""
Scale-out: a stopping-time study on a local Dask cluster
========================================================

:func:`paperkernels.distributed.run_grid` splits the runs of every grid cell into chunks that Dask
workers compute; the results equal the single-process call bit for bit. The figure shows the mean
stopping time per cell against ``log(1/delta)``, with the asymptotic lower bound of each instance.
"""

import matplotlib.pyplot as plt
import numpy as np
from dask.distributed import Client, LocalCluster

from paperkernels import distributed as pkd
from paperkernels import toptwo

instances = [[0.6, 0.4], [0.6, 0.5, 0.4]]
deltas = [0.1, 0.01, 0.001]
with (
    LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0") as cluster,
    Client(cluster) as client,
):
    grid = pkd.run_grid(instances=instances, deltas=deltas, n_runs=200, seed=7, client=client, chunk_size=50)

same = np.array_equal(grid[0].result.tau, toptwo.run_many(instances[0], deltas[0], 200, seed=7).tau)
print("bit-identical to one process:", same)

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for index, mu in enumerate(instances):
    cells = [cell for cell in grid if list(cell.mu) == mu]
    x = [np.log(1 / cell.delta) for cell in cells]
    line = ax.errorbar(
        x,
        [cell.result.mean_tau for cell in cells],
        yerr=[cell.result.se_tau for cell in cells],
        marker="o",
        capsize=3,
        label=f"mu = {mu}",
    )
    bound = toptwo.characteristic_time(mu, beta=0.5).T
    # dashed: the asymptotic lower bound of the same instance (one legend entry for both)
    ax.plot(
        x,
        bound * np.array(x),
        ls="--",
        color=line[0].get_color(),
        label=r"$T^*_\beta \log(1/\delta)$" if index == 0 else None,
    )
ax.set(xlabel="log(1/delta)", ylabel="mean stopping time", title="runs computed by two Dask workers")
ax.legend()
fig.tight_layout()
plt.show()
