"""paperkernels.greedy: the B-learner ensemble against one scikit-learn OrthogonalMatchingPursuit fit
and against a plain numpy ensemble, with 1 thread and all threads (BLAS limited to the same count;
one thread timed by CPU time, more by wall time). One-thread rows of paperkernels are measured under
every instruction set the CPU supports; the dense design's centred Gram matrix (the dense kernel of
the fit) is also reported as an arithmetic rate next to the machine's one-thread dgemm. Every
contender is called once untimed before its timed rounds: a first fit also pays the page faults of
its fresh copies of X (for the wide design, 320 MB each side), which can cost more than the fit.

Checks first: m = p, B = 1 with criterion "omp" on standardized X gives scikit-learn's OMP
coefficients, and the numpy ensemble fed the same xoshiro256** subsets gives our coefficient path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from .. import _core
from .._validation import available_cores
from ..greedy import EnsembleForwardSelection
from ._harness import Recorder, Timer, blas_threads, measure
from ._xoshiro import Stream

CLOCK = {True: "cpu", False: "wall"}  # one thread: CPU time, robust to other work on the machine
SKLEARN = "scikit-learn OrthogonalMatchingPursuit (one fit)"
NUMPY = "numpy ensemble"


class Draws(Protocol):
    """A source of uniform integers below a bound (numpy's generator or the xoshiro256** stream)."""

    def below(self, n: int) -> int: ...


class NumpyDraws:
    """Uniform draws from numpy's generator (the fast choice for a numpy implementation)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def below(self, n: int) -> int:
        return int(self.rng.integers(n))


def numpy_learner(
    Xc: np.ndarray, yc: np.ndarray, col_sq: np.ndarray, k: int, m: int, draws: Draws, tol: float = 1e-10
) -> np.ndarray:
    """One learner in plain numpy: Gram-Schmidt basis of the active columns, the criterion on the
    drawn candidates, partial Fisher-Yates subsets, OLS coefficients by a triangular solve."""
    n, p = Xc.shape
    pool = np.arange(p)
    basis = np.empty((n, k))
    R = np.zeros((k, k))
    z = np.zeros(k)
    residual = yc.copy()
    active: list[int] = []
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
        if not valid.any():
            break  # (the benchmark data has no degenerate columns)
        crit = np.where(valid, c * c / np.where(valid, d, 1.0), -np.inf)
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


def numpy_ensemble(
    X: np.ndarray, y: np.ndarray, k: int, m: int, n_learners: int, draws_for: Callable[[int], Draws]
) -> np.ndarray:
    Xc = X - X.mean(axis=0)
    yc = y - y.mean()
    col_sq = np.einsum("ij,ij->j", Xc, Xc)
    total = np.zeros((k + 1, X.shape[1]))
    for b in range(n_learners):
        total[1:] += numpy_learner(Xc, yc, col_sq, k, m, draws_for(b))
    return total / n_learners


def make_data(n: int, p: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    beta = np.zeros(p)
    s = min(30, p)
    beta[:s] = rng.uniform(0.5, 2.0, s) * rng.choice([-1, 1], s)
    return X, X @ beta + 2.0 * rng.standard_normal(n)


def _omp() -> Any:
    """scikit-learn's OrthogonalMatchingPursuit class, or None without scikit-learn."""
    try:
        from sklearn.linear_model import OrthogonalMatchingPursuit
    except ImportError:
        return None
    return OrthogonalMatchingPursuit


def check_answers(rec: Recorder) -> None:
    X, y = make_data(300 if rec.quick else 1000, 120, seed=1)
    omp = _omp()
    if omp is not None:
        Xs = (X - X.mean(axis=0)) / X.std(axis=0)
        ours = EnsembleForwardSelection(k=20, m=None, n_estimators=1, criterion="omp").fit(Xs, y)
        theirs = omp(n_nonzero_coefs=20).fit(Xs, y)
        rec.check(
            "*",
            "m = p, B = 1, criterion 'omp' vs scikit-learn OMP (k = 20)",
            "max |coef difference|",
            np.max(np.abs(ours.coef_ - theirs.coef_)),
            1e-9,
        )
    seed, B = 11, 6
    ours = EnsembleForwardSelection(k=20, m=15, n_estimators=B, random_state=seed).fit(X, y)
    reference = numpy_ensemble(X, y, 20, 15, B, lambda b: Stream(seed, b))
    rec.check(
        "*",
        "m = 15, B = 6 vs the numpy ensemble on the same subsets",
        "max |coef_path_ difference|",
        np.max(np.abs(ours.coef_path_ - reference)),
        1e-9,
    )


def gram_rate(rec: Recorder, X: np.ndarray, repeat: int) -> None:
    """The centred Gram kernel under every instruction set, in GFLOP/s of the upper triangle it
    computes (n p (p + 1) operations: a multiply and an add per sample and entry), next to the
    one-thread dgemm of the same product (2 n p^2 operations)."""
    n, p = X.shape
    mean = X.mean(axis=0)
    workload = f"centred Gram matrix n={n} p={p}"
    flops = float(n) * p * (p + 1)
    for _ in rec.each_isa():
        rec.rate(
            workload,
            "paperkernels",
            measure(
                lambda: _core.greedy.centred_gram(X, mean, 1),
                repeat=repeat,
                min_time=0.05,
                clock="cpu",
                units=flops / 1e9,
            ),
            unit="GFLOP/s",
            metric="arithmetic rate",
            threads=1,
            detail="upper triangle, n p (p + 1) operations, samples summed in order (FMA under avx2, avx512)",
        )
    rec.dgemm(workload, p, n, p, repeat=repeat)


def run(rec: Recorder) -> None:
    quick = rec.quick
    omp = _omp()
    if omp is None:
        rec.skip("scikit-learn", "not installed", "pip install scikit-learn")
    threads = sorted({1, available_cores()})
    check_answers(rec)

    n, p, k, B = (300, 100, 5, 20) if quick else (2000, 500, 20, 500)
    m_values = [10, 100] if quick else [10, 50, 125, 500]
    repeat = 3 if quick else 15
    numpy_learners = 2 if quick else 10
    X, y = make_data(n, p)
    rec.note(
        f"dense: n = {n}, p = {p}, k = {k}, B = {B}; numpy ensemble timed on {numpy_learners} learners "
        f"and scaled to B; one-thread rows of paperkernels under every instruction set"
    )
    gram_rate(rec, X, 3 if quick else 7)
    for t in threads:
        clock = CLOCK[t == 1]
        with blas_threads(t):
            omp_timer = None
            if omp is not None:
                model = omp(n_nonzero_coefs=k)
                omp_timer = measure(lambda: model.fit(X, y), repeat=repeat, clock=clock, warmup=1)
            for m in m_values:
                workload = f"dense n={n} p={p} k={k} B={B} m={m}"
                ours = EnsembleForwardSelection(k=k, m=m, n_estimators=B, random_state=0, n_jobs=t)
                for _ in rec.each_isa() if t == 1 else [None]:
                    rec.time(
                        workload,
                        "paperkernels",
                        measure(lambda: ours.fit(X, y), repeat=repeat, clock=clock, warmup=1),
                        metric="time per fit",
                        threads=t,
                    )
                if omp_timer is not None:
                    rec.time(workload, SKLEARN, omp_timer, metric="time per fit", threads=t, peer=True)
                if t == 1:
                    rng = np.random.default_rng(0)
                    timer = Timer("cpu")
                    timer.run(
                        lambda: numpy_ensemble(X, y, k, m, numpy_learners, lambda b: NumpyDraws(rng)),
                        units=numpy_learners / B,
                    )
                    rec.time(
                        workload,
                        NUMPY,
                        timer,
                        metric="time per fit",
                        threads=1,
                        peer=True,
                        detail=f"timed on {numpy_learners} learners, scaled to B = {B}",
                    )

    n, p, k, m, B = (300, 1000, 5, 20, 20) if quick else (2000, 20000, 20, 50, 500)
    X, y = make_data(n, p, seed=2)
    workload = f"wide n={n} p={p} k={k} B={B} m={m}"
    for t in threads:
        clock = CLOCK[t == 1]
        with blas_threads(t):
            ours = EnsembleForwardSelection(k=k, m=m, n_estimators=B, random_state=0, n_jobs=t)
            for _ in rec.each_isa() if t == 1 else [None]:
                rec.time(
                    workload,
                    "paperkernels",
                    measure(lambda: ours.fit(X, y), repeat=2, clock=clock, warmup=1),
                    metric="time per fit",
                    threads=t,
                )
            if omp is not None:
                model = omp(n_nonzero_coefs=k)
                rec.time(
                    workload,
                    SKLEARN,
                    measure(lambda: model.fit(X, y), repeat=2, clock=clock, warmup=1),
                    metric="time per fit",
                    threads=t,
                    peer=True,
                )
