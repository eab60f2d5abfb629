"""Demo of paperkernels.greedy: an ensemble fit on synthetic data, the rank weights under an
orthogonal design against their logistic bounds, and df / training error across subsampling rates."""

from __future__ import annotations

import time

import numpy as np

from .._report import Report


def run(report: Report) -> None:
    from paperkernels.greedy import (
        EnsembleForwardSelection,
        asymptotic_weights,
        degrees_of_freedom,
        exact_weights,
        logistic_bounds,
    )

    rng = np.random.default_rng(0)

    # 1. A sparse linear model: plain forward selection against the randomized ensemble.
    n, p, s = 400, 200, 10
    X = rng.standard_normal((2 * n, p))
    beta = np.zeros(p)
    beta[:s] = rng.uniform(0.3, 1.0, s) * rng.choice([-1, 1], s)
    y = X @ beta + 1.5 * rng.standard_normal(2 * n)
    train, test = slice(0, n), slice(n, 2 * n)
    report.line(f"sparse model: n = {n}, p = {p}, {s} non-zero coefficients, SNR ~ {np.var(X @ beta) / 1.5**2:.1f}")
    rows = []
    for m in (p, 60, 20):
        start = time.perf_counter()
        model = EnsembleForwardSelection(k=15, m=m, n_estimators=500 if m < p else 1, random_state=1).fit(
            X[train], y[train]
        )
        elapsed = time.perf_counter() - start
        mse = model.mse_path(X[test], y[test])
        best = int(np.argmin(mse[1:])) + 1
        rows.append([m, model.n_estimators, elapsed * 1e3, float(mse[15]), best, float(mse[best])])
    report.table(["m", "B", "fit ms", "test MSE k=15", "best k", "test MSE best k"], rows)

    # 2. Orthogonal design: coef_j / beta_hat_j is the weight of j's rank.
    n, p, k, m = 400, 200, 10, 30
    A = rng.standard_normal((n, p))
    Q = np.linalg.qr(A - A.mean(axis=0))[0]  # centred orthonormal columns: Q^T Q = I
    beta_hat = rng.permutation(np.linspace(3.0, 0.1, p))
    model = EnsembleForwardSelection(k=k, m=m, n_estimators=4000, random_state=2).fit(Q, Q @ beta_hat)
    by_rank = (model.coef_ / beta_hat)[np.argsort(-np.abs(beta_hat))]
    gamma = m / p
    exact = exact_weights(k, m, p)
    limit = asymptotic_weights(k, gamma, 30)
    lower, upper = logistic_bounds(k, gamma, 30)
    report.line("")
    report.line(f"orthogonal design: p = {p}, k = {k}, m = {m} (gamma = {gamma:.2f}), B = 4000 learners")
    ranks = [1, 3, 5, 8, 10, 12, 15, 20, 25]
    report.table(
        ["rank", "ensemble", "exact w", "asymptotic", "logistic low", "logistic high"],
        [
            [
                r,
                float(by_rank[r - 1]),
                float(exact[r - 1]),
                float(limit[r - 1]),
                float(lower[r - 1]),
                float(upper[r - 1]),
            ]
            for r in ranks
        ],
    )

    # 3. Degrees of freedom and training error for a few subsampling rates.
    n, p, k = 100, 40, 6
    X = rng.standard_normal((n, p))
    mu = X[:, :4] @ [1.0, -0.8, 0.6, 0.4]
    report.line("")
    report.line(f"df and training error after k = {k} steps (n = {n}, p = {p}, sigma = 1, 150 replicates)")
    rows = []
    for m in (1, 4, 12, p):
        est = EnsembleForwardSelection(k=k, m=m, n_estimators=100 if m < p else 1)
        result = degrees_of_freedom(est, X, mu, 1.0, n_replicates=150, random_state=3)
        rows.append([m, float(result.df[k]), float(result.se[k]), float(result.train_error[k])])
    report.table(["m", "df", "se", "train MSE"], rows)
    report.line("m = 1 is a random projection (df = k + 1 with the intercept); m = p is plain forward selection.")
