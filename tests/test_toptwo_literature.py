"""The ordering of mean stopping times that the best-arm identification literature reports, with
standard errors: uniform sampling is the slowest rule (Garivier and Kaufmann 2016, Table 1; Jourdan
et al. 2022, Figure 1), while Track-and-Stop and the top-two rules stop within a small factor of
``T* log(1/delta)`` and, like every delta-correct rule, not below the lower bound
``T* kl(delta, 1 - delta)`` (Garivier and Kaufmann 2016, Theorem 1).

The seeds are fixed and the results are identical for any thread count, so these checks are
deterministic; the margins of three standard errors say how far they are from failing."""

import math

import numpy as np
import pytest

from paperkernels import toptwo

CHEAP = ["EB-TCI", "EB-TC", "T3C", "TTUCB"]
# (means, delta, runs, adaptive rules). Track-and-Stop solves a characteristic time at every step,
# so it runs (with D-tracking, as in the experiments of Garivier and Kaufmann 2016) on a short
# instance with fewer runs.
INSTANCES = {
    "four-arms": ([0.7, 0.5, 0.4, 0.3], 0.01, 300, CHEAP),
    "three-arms": ([0.9, 0.6, 0.5], 0.01, 200, CHEAP),
    "track-and-stop": ([0.8, 0.5, 0.2, 0.2], 0.05, 60, ["TaS-D"]),
}
# The adaptive rules stop within this factor of T* log(1/delta) at these confidence levels.
FACTOR = 1.6


def _paired_gap(slow, fast):
    """Mean and standard error of tau_slow - tau_fast over the runs (run r of both rules sees the
    same reward stream)."""
    d = slow.tau.astype(np.float64) - fast.tau.astype(np.float64)
    return float(d.mean()), float(d.std(ddof=1) / math.sqrt(d.size))


@pytest.mark.parametrize("instance", sorted(INSTANCES))
def test_uniform_is_slowest_and_adaptive_rules_are_near_the_characteristic_time(instance):
    mu, delta, n_runs, samplers = INSTANCES[instance]
    T_star = toptwo.characteristic_time(mu).T
    scale = T_star * math.log(1.0 / delta)
    lower_bound = T_star * float(toptwo.kl_bernoulli(delta, 1.0 - delta))
    uniform = toptwo.run_many(mu, delta, n_runs, sampler="uniform", seed=2026)
    assert uniform.error_rate <= delta
    for sampler in samplers:
        runs = toptwo.run_many(mu, delta, n_runs, sampler=sampler, seed=2026)
        gap, se = _paired_gap(uniform, runs)
        assert gap > 3.0 * se, f"{sampler}: uniform is not slower ({gap:.1f} +- {se:.1f})"
        assert runs.mean_tau + 3.0 * runs.se_tau >= lower_bound, f"{sampler}: below T* kl(delta, 1 - delta)"
        assert runs.mean_tau - 3.0 * runs.se_tau <= FACTOR * scale, (
            f"{sampler}: mean tau {runs.mean_tau:.1f} +- {runs.se_tau:.1f} above {FACTOR} T* log(1/delta) = "
            f"{FACTOR * scale:.1f}"
        )
        assert runs.error_rate <= delta
        assert not runs.hit_max_steps.any()
    # Uniform sampling pays for the arms it wastes pulls on: well above T* log(1/delta).
    assert uniform.mean_tau - 3.0 * uniform.se_tau > scale
