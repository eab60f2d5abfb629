"""A slow, plain-Python beta-EB-TCI episode: the independent reference for paperkernels.toptwo.

Everything is recomputed from scratch at every step (leader by pairwise comparison, every cost,
every threshold); nothing is cached. It consumes the same random streams as the C++ kernel
(xoshiro256** seeded as in cpp/include/paperkernels/common/random.hpp, rewards from stream 2r and
decisions from stream 2r + 1), and writes each floating-point expression in the order the
specification fixes, so its decisions must agree with the kernel's exactly.
"""

import math

from xoshiro_reference import Xoshiro256, bernoulli_threshold


def n_log_n(n):
    return 0.0 if n == 0 else n * math.log(n)


def G(s, n):
    return (n_log_n(n) - n_log_n(s)) - n_log_n(n - s)


def threshold_value(kind, t, delta, K, values=None):
    if kind == "gk16":
        return math.log((1.0 + math.log(t)) / delta)
    if kind == "union":
        return math.log(2.0 * t * (K - 1) / delta)
    if kind == "kk21":
        x = math.log((K - 1) / delta) / 2.0
        c_exp = x + 4.0 * math.log(1.0 + x + math.sqrt(2.0 * x))
        return 2.0 * c_exp + 6.0 * math.log(1.0 + math.log(t / 2.0))
    return float(values[t])


def maximisers(N, S, arms):
    K = len(N)
    if arms == "bernoulli":
        return [i for i in range(K) if all(S[i] * N[j] >= S[j] * N[i] for j in range(K))]
    means = [S[a] / N[a] for a in range(K)]
    top = max(means)
    return [i for i in range(K) if means[i] == top]


def cost(B, j, N, S, arms, sigma):
    if arms == "bernoulli":
        if S[B] * N[j] <= S[j] * N[B]:
            return 0.0
        w = (G(S[B] + S[j], N[B] + N[j]) - G(S[B], N[B])) - G(S[j], N[j])
        return 0.0 if w < 0.0 else w
    mean_B, mean_j = S[B] / N[B], S[j] / N[j]
    if not mean_B > mean_j:
        return 0.0
    d = mean_B - mean_j
    return d * d / (2.0 * sigma * sigma * (1.0 / N[B] + 1.0 / N[j]))


def episode(mu, delta=0.01, *, beta=0.5, challenger="TCI", rule="random", arms="bernoulli", sigma=1.0,
            threshold="gk16", threshold_values=None, tie_break="random", forced_exploration=False,
            min_pulls=1, max_steps=10**8, seed=0, run=0):
    """One episode; returns (recommendation, tau, N, S, hit_max_steps, pulled_arms)."""
    K = len(mu)
    rewards = Xoshiro256(seed, 2 * run)
    decisions = Xoshiro256(seed, 2 * run + 1)
    thresholds = [bernoulli_threshold(p) for p in mu]
    N = [0] * K
    S = [0] * K if arms == "bernoulli" else [0.0] * K
    L = [0] * K
    M = [0] * K
    t = 0
    pulled = []
    while True:
        if min(N) >= min_pulls:
            best = maximisers(N, S, arms)
            B = best[decisions.below(len(best))] if len(best) > 1 and tie_break == "random" else best[0]
            W = [cost(B, j, N, S, arms, sigma) for j in range(K)]
            Z = min(W[j] for j in range(K) if j != B)
            if Z > threshold_value(threshold, t, delta, K, threshold_values):
                return B, t, N, S, False, pulled
            if t >= max_steps:
                return B, t, N, S, True, pulled
            least = min(range(K), key=lambda a: (N[a], a))
            if forced_exploration and N[least] < math.sqrt(t / K):
                arm = least
            else:
                penalised = {j: W[j] + math.log(N[j]) if challenger == "TCI" else W[j] for j in range(K) if j != B}
                C = min(penalised, key=lambda j: (penalised[j], j))
                if rule == "random":
                    arm = B if decisions.uniform() <= beta else C
                else:
                    L[B] += 1
                    if M[B] < beta * L[B]:
                        M[B] += 1
                        arm = B
                    else:
                        arm = C
        else:
            arm = min(range(K), key=lambda a: (N[a], a))
        if arms == "bernoulli":
            x = 1 if rewards.bernoulli(thresholds[arm]) else 0
        else:
            x = mu[arm] + sigma * rewards.normal()
        pulled.append(arm)
        N[arm] += 1
        S[arm] += x
        t += 1
