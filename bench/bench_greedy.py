"""Benchmark of paperkernels.greedy: the B = 500 ensemble against one scikit-learn
OrthogonalMatchingPursuit fit and against a plain numpy ensemble, with 1 thread and all threads.

Checks first that the answers agree: m = p, B = 1 with criterion "omp" on standardized X gives
sklearn's OMP coefficients, and the numpy ensemble fed the same xoshiro256** subsets gives our
coefficient path. Run ``python bench/bench_greedy.py [--quick]``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

import numpy as np

from paperkernels._report import Report, best_time
from paperkernels._validation import available_cores
from paperkernels.greedy import EnsembleForwardSelection

try:
    from sklearn.linear_model import OrthogonalMatchingPursuit
except ImportError:
    OrthogonalMatchingPursuit = None

try:
    from threadpoolctl import threadpool_limits
except ImportError:
    threadpool_limits = None


# The plain-Python xoshiro256** of the tests, so that the numpy ensemble can draw exactly our
# subsets for the correctness check (the bench runs from a source checkout).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from xoshiro_reference import Xoshiro256 as XoshiroDraws  # noqa: E402


class NumpyDraws:
    """Uniform draws from numpy's generator (the fast choice for a numpy implementation)."""

    def __init__(self, rng):
        self.rng = rng

    def below(self, n):
        return int(self.rng.integers(n))


def numpy_learner(Xc, yc, col_sq, k, m, draws, tol=1e-10):
    """One learner in plain numpy: Gram-Schmidt basis of the active columns, criterion on the
    drawn candidates, partial Fisher-Yates subsets, OLS coefficients by a triangular solve."""
    n, p = Xc.shape
    pool = np.arange(p)
    basis = np.empty((n, k))
    R = np.zeros((k, k))
    z = np.zeros(k)
    residual = yc.copy()
    active = []
    path = np.zeros((k, p))
    for t in range(k):
        q = p - t
        mu = min(m, q)
        for i in range(mu):
            j = i + draws.below(q - i)
            pool[i], pool[j] = pool[j], pool[i]
        cand = pool[:mu]
        proj = basis[:, :t].T @ Xc[:, cand]
        d = col_sq[cand] - np.einsum("ij,ij->j", proj, proj)
        c = Xc[:, cand].T @ residual
        valid = d > tol * col_sq[cand]
        crit = np.where(valid, np.abs(c) if False else c * c / np.where(valid, d, 1.0), -np.inf)
        if not valid.any():
            break  # (the bench data has no degenerate columns)
        best = float(crit.max())
        tied = np.flatnonzero(crit >= best * (1 - 1e-9))
        position = tied[np.argmin(cand[tied])]
        j = int(cand[position])
        pool[position] = pool[q - 1]
        v = Xc[:, j] - basis[:, :t] @ proj[:, position]
        R[:t, t] = proj[:, position]
        R[t, t] = np.sqrt(d[position])
        basis[:, t] = v / R[t, t]
        z[t] = basis[:, t] @ yc
        residual -= z[t] * basis[:, t]
        active.append(j)
        beta = np.linalg.solve(R[: t + 1, : t + 1], z[: t + 1]) if t else z[:1] / R[0, 0]
        path[t, active] = beta
    return path


def numpy_ensemble(X, y, k, m, n_learners, draws_for):
    x_mean = X.mean(axis=0)
    Xc = X - x_mean
    yc = y - y.mean()
    col_sq = np.einsum("ij,ij->j", Xc, Xc)
    total = np.zeros((k + 1, X.shape[1]))
    for b in range(n_learners):
        total[1:] += numpy_learner(Xc, yc, col_sq, k, m, draws_for(b))
    return total / n_learners


@contextlib.contextmanager
def blas_threads(n):
    if threadpool_limits is None:
        yield
    else:
        with threadpool_limits(limits=n):
            yield


def make_data(n, p, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    beta[:30] = rng.uniform(0.5, 2.0, 30) * rng.choice([-1, 1], 30)
    y = X @ beta + 2.0 * rng.standard_normal(n)
    return X, y


def check_answers(report, quick):
    report.heading("agreement checks")
    X, y = make_data(300 if quick else 1000, 120, seed=1)
    if OrthogonalMatchingPursuit is not None:
        Xs = (X - X.mean(axis=0)) / X.std(axis=0)
        ours = EnsembleForwardSelection(k=20, m=None, n_estimators=1, criterion="omp").fit(Xs, y)
        theirs = OrthogonalMatchingPursuit(n_nonzero_coefs=20).fit(Xs, y)
        gap = float(np.max(np.abs(ours.coef_ - theirs.coef_)))
        report.figure("m = p, B = 1, omp vs sklearn OMP: max |coef diff|", gap)
        assert gap < 1e-9, gap
    else:
        report.line("scikit-learn not installed: skipping the OMP agreement check")
    seed, B = 11, 6
    ours = EnsembleForwardSelection(k=20, m=15, n_estimators=B, random_state=seed).fit(X, y)
    reference = numpy_ensemble(X, y, 20, 15, B, lambda b: XoshiroDraws(seed, b))
    gap = float(np.max(np.abs(ours.coef_path_ - reference)))
    report.figure("m = 15, B = 6 vs numpy ensemble, same subsets", gap)
    assert gap < 1e-9, gap


def run_dense(report, quick, thread_counts):
    n, p, k, B = (500, 200, 10, 100) if quick else (2000, 500, 20, 500)
    m_values = [4, 20, 50, 200] if quick else [10, 50, 125, 500]
    X, y = make_data(n, p)
    report.heading(f"dense: n = {n}, p = {p}, k = {k}, B = {B}")
    numpy_learners = 4 if quick else 10
    rows = []
    for threads in thread_counts:
        with blas_threads(threads):
            omp_time = None
            if OrthogonalMatchingPursuit is not None:
                omp = OrthogonalMatchingPursuit(n_nonzero_coefs=k)
                omp_time = best_time(lambda: omp.fit(X, y), repeat=15, min_time=0.0)
            for m in m_values:
                model = EnsembleForwardSelection(k=k, m=m, n_estimators=B, random_state=0, n_jobs=threads)
                ours = best_time(lambda: model.fit(X, y), repeat=15, min_time=0.0)
                rng = np.random.default_rng(0)
                start = time.perf_counter()
                numpy_ensemble(X, y, k, m, numpy_learners, lambda b: NumpyDraws(rng))
                numpy_time = (time.perf_counter() - start) * B / numpy_learners
                rows.append([
                    m, threads, ours * 1e3,
                    "-" if omp_time is None else omp_time * 1e3,
                    "-" if omp_time is None else ours / omp_time,
                    numpy_time, numpy_time / ours,
                ])
    report.table(["m", "threads", "ensemble ms", "sklearn OMP ms", "ensemble/OMP", "numpy ens. s*", "speed-up"],
                 rows)
    report.line(f"* numpy ensemble timed on {numpy_learners} learners and scaled to B = {B}")
    if OrthogonalMatchingPursuit is None:
        report.line("scikit-learn not installed: OMP columns skipped")


def run_wide(report, quick, thread_counts):
    n, p, k, m, B = (500, 4000, 10, 50, 50) if quick else (2000, 20000, 20, 50, 500)
    X, y = make_data(n, p, seed=2)
    report.heading(f"wide (no Gram): n = {n}, p = {p}, k = {k}, m = {m}, B = {B}")
    rows = []
    for threads in thread_counts:
        with blas_threads(threads):
            model = EnsembleForwardSelection(k=k, m=m, n_estimators=B, random_state=0, n_jobs=threads)
            ours = best_time(lambda: model.fit(X, y), repeat=2, min_time=0.0)
            omp_time = None
            if OrthogonalMatchingPursuit is not None:
                omp = OrthogonalMatchingPursuit(n_nonzero_coefs=k)
                omp_time = best_time(lambda: omp.fit(X, y), repeat=2, min_time=0.0)
            rows.append([threads, ours, "-" if omp_time is None else omp_time,
                         "-" if omp_time is None else ours / omp_time])
    report.table(["threads", "ensemble s", "sklearn OMP s", "ensemble/OMP"], rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, a smoke run of a few seconds")
    args = parser.parse_args(argv)
    report = Report()
    if OrthogonalMatchingPursuit is None:
        report.line("scikit-learn is not installed: the OMP peer is skipped (pip install scikit-learn)")
    if threadpool_limits is None:
        report.line("threadpoolctl not installed: BLAS threads are not limited in the 1-thread rows")
    threads = sorted({1, available_cores()})
    check_answers(report, args.quick)
    run_dense(report, args.quick, threads)
    run_wide(report, args.quick, threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
