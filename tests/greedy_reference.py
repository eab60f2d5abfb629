"""Slow, plain references for paperkernels.greedy: a Python xoshiro256** stream (as in random.hpp),
a numpy ensemble of randomized forward selections that draws the same subsets, and brute-force
forward selection. Nothing here uses Gram updates: every fit is a fresh least-squares solve."""

import numpy as np

from xoshiro_reference import Xoshiro256

TIE = 1e-9  # criteria within this relative difference are tied; ties go to the lowest index


def ols(X, y, columns):
    """Least-squares coefficients of y on the given columns (numpy lstsq)."""
    if not columns:
        return np.zeros(0)
    return np.linalg.lstsq(X[:, columns], y, rcond=None)[0]


def reference_learner(Xc, yc, k, m, criterion, tol, rng):
    """One learner on centred data. Returns (active set, list of full coefficient vectors for
    steps 1..k). Subsets: partial Fisher-Yates on a pool of unselected features, swap-remove of the
    chosen one, and one-at-a-time extra draws when every candidate is degenerate."""
    n, p = Xc.shape
    col_sq = np.einsum("ij,ij->j", Xc, Xc)
    pool = list(range(p))
    active = []
    path = []
    for t in range(k):
        beta = ols(Xc, yc, active)
        residual = yc - (Xc[:, active] @ beta if active else 0.0)
        basis = np.linalg.qr(Xc[:, active])[0] if active else np.zeros((n, 0))

        def score(j):
            orth = Xc[:, j] - basis @ (basis.T @ Xc[:, j])
            d = orth @ orth
            if not d > tol * col_sq[j]:
                return None
            c = Xc[:, j] @ residual
            return abs(c) if criterion == "omp" else c * c / d

        q = p - t
        mu = min(m, q)
        scored = []  # (criterion, feature, pool position) of the valid candidates drawn
        for i in range(q):
            if i >= mu and scored:
                break
            swap = i + rng.below(q - i)
            pool[i], pool[swap] = pool[swap], pool[i]
            crit = score(pool[i])
            if crit is not None:
                scored.append((crit, pool[i], i))
        best = None
        if scored:  # lowest index among the criteria within a relative TIE of the largest
            top = max(s[0] for s in scored)
            best = min((s for s in scored if s[0] >= top * (1 - TIE)), key=lambda s: s[1])
        if best is None:
            break
        _, j, position = best
        pool[position] = pool[q - 1]
        del pool[q - 1]
        active.append(j)
        coef = np.zeros(p)
        coef[active] = ols(Xc, yc, active)
        path.append(coef)
    while len(path) < k:  # early stop: carry the last model forward
        path.append(path[-1].copy() if path else np.zeros(p))
    return active, path


def reference_ensemble(X, y, *, k, m, n_learners, seed, criterion="fs", fit_intercept=True, tol=1e-10):
    """Averaged coefficient path (k + 1, p), intercepts and active sets (-1 padded)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    x_mean = X.mean(axis=0) if fit_intercept else np.zeros(X.shape[1])
    y_mean = y.mean() if fit_intercept else 0.0
    Xc, yc = X - x_mean, y - y_mean
    p = X.shape[1]
    total = np.zeros((k + 1, p))
    actives = np.full((n_learners, k), -1)
    for b in range(n_learners):
        active, path = reference_learner(Xc, yc, k, m, criterion, tol, Xoshiro256(seed, b))
        actives[b, : len(active)] = active
        total[1:] += np.array(path)
    coef_path = total / n_learners
    return coef_path, y_mean - coef_path @ x_mean, actives


def brute_force_forward_selection(X, y, k):
    """Plain forward selection: at each step add the feature whose OLS refit (with intercept)
    has the smallest residual sum of squares. Returns the active set and coefficient path."""
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    p = X.shape[1]
    active, path = [], [np.zeros(p)]
    for _ in range(k):
        best = None
        for j in range(p):
            if j in active:
                continue
            columns = active + [j]
            rss = np.sum((yc - Xc[:, columns] @ ols(Xc, yc, columns)) ** 2)
            if best is None or rss < best[0]:
                best = (rss, j)
        active.append(best[1])
        coef = np.zeros(p)
        coef[active] = ols(Xc, yc, active)
        path.append(coef)
    return active, np.array(path)
