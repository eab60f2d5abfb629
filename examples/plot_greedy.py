"""
Greedy forward selection: rank weights and cross-validation along the path
==========================================================================

Under an orthogonal design the randomised greedy ensemble weights the marginal least-squares
coefficient of rank ``j`` by a weight that depends only on ``(k, m, p)``. The left panel compares
the exact finite-p weights with their asymptotic curve, the logistic envelope and the weights of a
fitted ensemble; the right panel shows the cross-validated error along the path for several ``m``.
"""

import matplotlib.pyplot as plt
import numpy as np

from paperkernels import greedy

p, k, m = 200, 20, 40
rng = np.random.default_rng(0)
n = 2 * p
Z = rng.normal(size=(n, p))
X, _ = np.linalg.qr(Z - Z.mean(axis=0))  # centred, orthonormal columns
X *= np.sqrt(n)
theta = np.zeros(p)
theta[:10] = np.linspace(3.0, 1.0, 10)
y = X @ theta + rng.normal(size=n)

model = greedy.EnsembleForwardSelection(k=k, m=m, n_estimators=300, random_state=0).fit(X, y)
marginal = X.T @ (y - y.mean()) / n
order = np.argsort(-np.abs(marginal))
empirical = model.coef_[order] / marginal[order]  # the weight given to rank j

# %%
# Cross-validation over (k, m) costs one fit per fold and m: every k is read off the path.
cv = greedy.cross_validate_path(
    greedy.EnsembleForwardSelection(k=k, n_estimators=100, random_state=0),
    X,
    y,
    m_values=[1, 10, 40, None],
    cv=4,
    random_state=0,
)

# %%
# Left: the weights; right: the cross-validated error along the path for each m.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
greedy.plot_weights(k, m / p, p=p, n_ranks=3 * k, ax=left, empirical=empirical[: 3 * k])
left.set(title=f"rank weights, k = {k}, m/p = {m / p:g}")
for row, m_value in enumerate(cv.m_values):
    right.errorbar(cv.k_values, cv.mse[row], yerr=cv.se[row], label=f"m = {m_value}", capsize=2)
right.axvline(cv.best_k, color="k", ls=":")
right.set(
    xlabel="k (steps)",
    ylabel="CV mean squared error",
    yscale="log",
    title=f"best k = {cv.best_k}, best m = {cv.best_m}",
)
right.legend()
fig.tight_layout()
plt.show()
