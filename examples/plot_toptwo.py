"""
Best-arm identification: stopping times and sampling proportions
================================================================

Runs beta-EB-TCI many times on a four-armed Bernoulli instance, then compares the distribution of
the stopping time with the lower bound ``T*_beta log(1/delta)`` and the empirical sampling
proportions with the optimal weights of :func:`paperkernels.toptwo.characteristic_time`.
"""

import matplotlib.pyplot as plt
import numpy as np

from paperkernels import toptwo

mu = [0.5, 0.45, 0.43, 0.4]
delta = 0.01
optimal = toptwo.characteristic_time(mu, beta=0.5)
runs = toptwo.run_many(mu, delta, n_runs=400, seed=1)
print(f"mean stopping time {runs.mean_tau:.0f} +- {runs.se_tau:.0f}, error rate {runs.error_rate:.3f}")
print(f"T*_beta = {optimal.T:.1f}, lower bound T* log(1/delta) = {optimal.T * np.log(1 / delta):.0f}")

# %%
# Each run's share of pulls per arm, against the optimal weights.
proportions = runs.N / runs.tau[:, None]

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
left.hist(runs.tau, bins=40, color="C0", alpha=0.8)
left.axvline(optimal.T * np.log(1 / delta), color="k", ls="--", label=r"$T^*_\beta \log(1/\delta)$")
left.axvline(runs.mean_tau, color="C3", label="mean")
left.set(xlabel="stopping time", ylabel="runs", title=f"{runs.n_runs} runs, delta = {delta}")
left.legend()
right.boxplot([proportions[:, a] for a in range(len(mu))], positions=np.arange(len(mu)))
right.scatter(np.arange(len(mu)), optimal.weights, color="C3", zorder=3, label=r"optimal weights ($\beta$ = 1/2)")
right.set(
    xticks=np.arange(len(mu)),
    xticklabels=[f"arm {a}\nmu = {m}" for a, m in enumerate(mu)],
    ylabel="share of pulls",
    title="sampling proportions at stopping",
)
right.legend()
fig.tight_layout()
plt.show()
