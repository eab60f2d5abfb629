"""Demo of paperkernels.toptwo: one episode, then many, against the characteristic time."""

from __future__ import annotations

import math
import time

from .. import toptwo
from .._report import Report


def run(report: Report) -> None:
    mu, delta = [0.5, 0.45, 0.43, 0.4], 0.01
    report.line(f"Bernoulli arms mu = {mu}, delta = {delta}, beta = 1/2, EB-TCI, gk16 threshold")
    half = toptwo.characteristic_time(mu, beta=0.5)
    best = toptwo.characteristic_time(mu)
    report.figure("T*_beta (beta = 1/2)", half.T)
    report.figure("optimal weights at beta = 1/2", "[" + ", ".join(f"{w:.4f}" for w in half.weights) + "]")
    report.figure(f"T* (at beta* = {best.beta:.6f})", best.T)

    episode = toptwo.identify(mu, delta, seed=1)
    report.line()
    report.line(f"one episode: recommended arm {episode.recommendation} after tau = {episode.tau} pulls")
    report.figure("pulls per arm N", episode.N.tolist())
    report.figure("sampling fractions", "[" + ", ".join(f"{n / episode.tau:.3f}" for n in episode.N) + "]")

    n_runs = 2000
    start = time.perf_counter()
    runs = toptwo.run_many(mu, delta, n_runs, seed=1)
    elapsed = time.perf_counter() - start
    report.line()
    report.line(
        f"{n_runs} episodes in {elapsed:.2f} s ({runs.tau.sum() / elapsed / 1e6:.1f} million pulls/s, all threads)"
    )
    report.figure("mean tau", f"{runs.mean_tau:.1f} +- {runs.se_tau:.1f}")
    report.figure("T*_beta log(1/delta)", half.T * math.log(1 / delta))
    report.figure("error rate", runs.error_rate)
