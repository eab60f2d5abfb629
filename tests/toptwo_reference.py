"""A slow, plain-Python beta-EB-TCI episode: the independent reference for paperkernels.toptwo.

Everything is recomputed from scratch at every step (leader by pairwise comparison, every cost,
every threshold); nothing is cached. It consumes the same random streams as the C++ kernel
(xoshiro256** seeded as in cpp/include/paperkernels/common/random.hpp, rewards from stream 2r and
decisions from stream 2r + 1), and writes each floating-point expression in the order the kernel
documents, so its decisions must agree with the kernel's exactly.
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


SAMPLERS = {
    "EB-TCI": ("EB", "TCI"),
    "EB-TC": ("EB", "TC"),
    "TTTS": ("TS", "RS"),
    "T3C": ("TS", "TC"),
    "TTUCB": ("UCB", "TC"),
    "uniform": None,
    "TaS-C": "C",
    "TaS-D": "D",
    "FWS": "FW",
    "LUCB1": "LUCB1",
    "lilUCB": "lilUCB",
}
MAX_RESAMPLES = 10000


def gamma(rng, shape):
    """Marsaglia and Tsang's gamma variate for shape >= 1."""
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        while True:
            x = rng.normal()
            v = 1.0 + c * x
            if v > 0.0:
                break
        v = v * v * v
        u = rng.uniform()
        x2 = x * x
        if u < 1.0 - 0.0331 * (x2 * x2):
            return d * v
        if u > 0.0 and math.log(u) < 0.5 * x2 + d * ((1.0 - v) + math.log(v)):
            return d * v


def posterior_argmax(rng, N, S, arms, sigma):
    best, top = None, None
    for a in range(len(N)):
        if arms == "bernoulli":
            x = gamma(rng, float(S[a]) + 1.0)
            y = gamma(rng, float(N[a] - S[a]) + 1.0)
            theta = x / (x + y)
        else:
            theta = S[a] / N[a] + (sigma / math.sqrt(N[a])) * rng.normal()
        if best is None or theta > top:
            best, top = a, theta
    return best


def ucb_argmax(N, S, t, arms, sigma, alpha):
    variance = 0.25 if arms == "bernoulli" else sigma * sigma
    scale = 2.0 * alpha * variance * math.log(t)
    index = [S[a] / N[a] + math.sqrt(scale / N[a]) for a in range(len(N))]
    return max(range(len(N)), key=lambda a: (index[a], -a))


def optimal_weights(N, S, arms, sigma):
    """w*(mu_hat) from the library's characteristic-time solver (tested on its own against brute
    force), uniform while the empirical best is not unique or the solver fails."""
    from paperkernels.toptwo import characteristic_time

    K = len(N)
    m = [S[a] / N[a] for a in range(K)]
    if m.count(max(m)) == 1:
        try:
            w = characteristic_time(m, arms=arms, sigma=sigma).weights.tolist()
            if all(0.0 <= x <= 1.0 for x in w):
                return w
        except ValueError:
            pass
    return [1.0 / K] * K


def frank_wolfe(state, N, S, t, arms, sigma):
    """One step of Frank-Wolfe sampling (Wang, Tzeng, Proutiere 2021); state["w"] is the iterate.
    The zero-sum game is solved by the library's simplex routine (checked on its own against scipy)."""
    from paperkernels import _core
    from paperkernels.toptwo import kl_bernoulli

    K = len(N)
    k = float(K)
    if state["w"] is None:
        state["w"] = [1.0 / k] * K
    x = state["w"]
    step = t + 1
    s = float(step)
    forced = step % K == 0 and math.isqrt(step // K) ** 2 == step // K
    mu = [S[a] / N[a] for a in range(K)]
    if arms == "bernoulli" and any(not 0.0 < m < 1.0 for m in mu):
        forced = True
    z = [1.0 / k] * K
    if not forced and mu.count(max(mu)) == 1:
        b = max(range(K), key=lambda a: (mu[a], -a))

        def d(p, q):
            return float(kl_bernoulli(p, q)) if arms == "bernoulli" else ((p - q) * (p - q)) / (2.0 * sigma * sigma)

        f, gb, gj = {}, {}, {}
        for j in range(K):
            if j == b:
                continue
            m = (x[b] * mu[b] + x[j] * mu[j]) / (x[b] + x[j])
            gb[j], gj[j] = d(mu[b], m), d(mu[j], m)
            f[j] = x[b] * gb[j] + x[j] * gj[j]
        F = min(f.values())
        r = math.pow(s, -0.9) / k
        H = [j for j in range(K) if j != b and f[j] < F + r]
        M = [[0.0] * len(H) for _ in range(K)]
        for c, j in enumerate(H):
            inner = x[b] * gb[j] + x[j] * gj[j]
            for a in range(K):
                M[a][c] = -inner
            M[b][c] = gb[j] - inner
            M[j][c] = gj[j] - inner
        import numpy as np

        z = _core.toptwo.matrix_game(np.array(M, dtype=np.float64)).tolist()
    keep = (s - 1.0) / s
    for a in range(K):
        x[a] = keep * x[a] + z[a] / s
    ratio = [x[a] / N[a] for a in range(K)]
    return max(range(K), key=lambda a: (ratio[a], -a))


def track(state, N, S, t, arms, sigma, tracking, weights_every):
    """One Track-and-Stop decision (Garivier and Kaufmann 2016); state holds w, cum, left."""
    K = len(N)
    if state["left"] == 0:
        state["w"] = optimal_weights(N, S, arms, sigma)
        state["left"] = weights_every
    state["left"] -= 1
    w, tt = state["w"], float(t)
    if tracking == "D":
        floor = math.sqrt(tt) - 0.5 * K
        starved = [a for a in range(K) if N[a] < floor]
        if starved:
            return min(starved, key=lambda a: (N[a], a))
        v = [tt * w[a] - N[a] for a in range(K)]
    else:
        k = float(K)
        eps = 0.5 / math.sqrt(k * k + tt)
        keep = 1.0 - k * eps
        for a in range(K):
            state["cum"][a] += keep * w[a] + eps
        v = [state["cum"][a] - N[a] for a in range(K)]
    return max(range(K), key=lambda a: (v[a], -a))


def variance(arms, sigma):
    return 0.25 if arms == "bernoulli" else sigma * sigma


def lucb_width(n, r, K, delta, var):
    rr = float(r)
    log_term = math.log((((1.25 * K) * (rr * rr)) * (rr * rr)) / delta)
    return math.sqrt(((2.0 * var) * log_term) / n)


def lucb_challenger(h, r, N, S, delta, var):
    K = len(N)
    ucb = {j: S[j] / N[j] + lucb_width(N[j], r, K, delta, var) for j in range(K) if j != h}
    return max(ucb, key=lambda j: (ucb[j], -j))


def lil_argmax(N, S, delta, var, eps, beta):
    factor = (1.0 + beta) * (1.0 + math.sqrt(eps))
    scale = (2.0 * var) * (1.0 + eps)
    index = []
    for a in range(len(N)):
        n = float(N[a])
        inner = max(math.log((1.0 + eps) * n), 1.0)
        index.append(S[a] / N[a] + factor * math.sqrt((scale * math.log(inner / delta)) / n))
    return max(range(len(N)), key=lambda a: (index[a], -a))


def episode(
    mu,
    delta=0.01,
    *,
    beta=0.5,
    challenger=None,
    rule="random",
    arms="bernoulli",
    sigma=1.0,
    threshold="gk16",
    threshold_values=None,
    tie_break="random",
    forced_exploration=False,
    min_pulls=1,
    max_steps=10**8,
    seed=0,
    run=0,
    sampler="EB-TCI",
    ucb_alpha=1.0,
    weights_every=1,
    lil_epsilon=0.01,
    lil_beta=1.0,
    lil_lambda=9.0,
):
    """One episode; returns (recommendation, tau, N, S, hit_max_steps, pulled_arms)."""
    family = SAMPLERS[sampler]
    leader_kind, own = family if isinstance(family, tuple) else ("EB", "TCI")
    tas = dict(w=None, cum=[0.0] * len(mu), left=0)
    lucb = dict(pending=None, in_round=False, rounds=0)
    var = variance(arms, sigma)
    challenger = own if challenger is None else challenger
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
        if min(N) >= min_pulls and family == "lilUCB":
            most = max(range(K), key=lambda a: (N[a], -a))
            if N[most] >= 1.0 + lil_lambda * float(t - N[most]):
                return most, t, N, S, False, pulled
            if t >= max_steps:
                return most, t, N, S, True, pulled
            arm = lil_argmax(N, S, delta, var, lil_epsilon, lil_beta)
        elif min(N) >= min_pulls and family == "LUCB1":
            best = maximisers(N, S, arms)
            B = best[decisions.below(len(best))] if len(best) > 1 and tie_break == "random" else best[0]
            if not lucb["in_round"]:
                r = lucb["rounds"] + 1
                l = lucb_challenger(B, r, N, S, delta, var)
                if S[B] / N[B] - lucb_width(N[B], r, K, delta, var) > S[l] / N[l] + lucb_width(N[l], r, K, delta, var):
                    return B, t, N, S, False, pulled
            if t >= max_steps:
                return B, t, N, S, True, pulled
            if lucb["pending"] is not None:
                arm, lucb["pending"] = lucb["pending"], None
            else:
                lucb["rounds"] += 1
                lucb["in_round"] = True
                lucb["pending"] = lucb_challenger(B, lucb["rounds"], N, S, delta, var)
                arm = B
        elif min(N) >= min_pulls:
            best = maximisers(N, S, arms)
            B = best[decisions.below(len(best))] if len(best) > 1 and tie_break == "random" else best[0]
            W = [cost(B, j, N, S, arms, sigma) for j in range(K)]
            Z = min(W[j] for j in range(K) if j != B)
            if Z > threshold_value(threshold, t, delta, K, threshold_values):
                return B, t, N, S, False, pulled
            if t >= max_steps:
                return B, t, N, S, True, pulled
            least = min(range(K), key=lambda a: (N[a], a))

            def challenger_of(lead):
                if challenger == "RS":
                    for _ in range(MAX_RESAMPLES):
                        c = posterior_argmax(decisions, N, S, arms, sigma)
                        if c != lead:
                            return c
                costs = W if lead == B else [cost(lead, j, N, S, arms, sigma) for j in range(K)]
                penalised = {
                    j: costs[j] + math.log(N[j]) if challenger == "TCI" else costs[j] for j in range(K) if j != lead
                }
                return min(penalised, key=lambda j: (penalised[j], j))

            if family is None:
                arm = least
            elif family == "FW":
                arm = frank_wolfe(tas, N, S, t, arms, sigma)
            elif family in ("C", "D"):
                arm = track(tas, N, S, t, arms, sigma, family, weights_every)
            elif forced_exploration and N[least] < math.sqrt(t / K):
                arm = least
            else:
                if leader_kind == "EB":
                    lead = B
                elif leader_kind == "TS":
                    lead = posterior_argmax(decisions, N, S, arms, sigma)
                else:
                    lead = ucb_argmax(N, S, t, arms, sigma, ucb_alpha)
                if rule == "random":
                    arm = lead if decisions.uniform() <= beta else challenger_of(lead)
                else:
                    L[lead] += 1
                    if M[lead] < beta * L[lead]:
                        M[lead] += 1
                        arm = lead
                    else:
                        arm = challenger_of(lead)
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
        if lucb["in_round"] and lucb["pending"] is None:
            lucb["in_round"] = False


class _Cut(Exception):
    pass


def ege_episode(mu, delta=0.01, *, arms="bernoulli", sigma=1.0, min_pulls=1, max_steps=10**8, seed=0, run=0):
    """Exponential-gap elimination (Karnin, Koren, Somekh 2013) with median elimination (Even-Dar,
    Mannor, Mansour 2006), written as nested loops; returns what :func:`episode` returns."""
    K = len(mu)
    rewards = Xoshiro256(seed, 2 * run)
    thresholds = [bernoulli_threshold(p) for p in mu]
    N = [0] * K
    S = [0] * K if arms == "bernoulli" else [0.0] * K
    state = dict(t=0)
    pulled = []
    var = variance(arms, sigma)

    def pull(a):
        if state["t"] >= max_steps:
            raise _Cut
        x = (1 if rewards.bernoulli(thresholds[a]) else 0) if arms == "bernoulli" else mu[a] + sigma * rewards.normal()
        pulled.append(a)
        N[a] += 1
        S[a] += x
        state["t"] += 1
        return x

    def count(raw):
        x = math.ceil((4.0 * var) * raw)
        return min(max(x, 1), 2**62)

    def block(arm_set, need):
        sums = {}
        for a in arm_set:
            total = 0.0
            for _ in range(need):
                total += pull(a)
            sums[a] = total / need
        return sums

    for _ in range(min_pulls):
        for a in range(K):
            pull(a)
    try:
        active, r = list(range(K)), 1
        while True:
            eps_r = math.ldexp(0.25, -r)
            rr = float(r)
            delta_r = delta / (((50.0 * rr) * rr) * rr)
            main = block(active, count((2.0 / (eps_r * eps_r)) * math.log(2.0 / delta_r)))
            me, eps_l, delta_l = list(active), eps_r / 8.0, delta_r / 2.0
            while len(me) > 1:
                half = 0.5 * eps_l
                means = block(me, count((1.0 / (half * half)) * math.log(3.0 / delta_l)))
                me = sorted(sorted(me, key=lambda a: (-means[a], a))[: (len(me) + 1) // 2])
                eps_l, delta_l = 0.75 * eps_l, 0.5 * delta_l
            floor = main[me[0]] - eps_r
            active = [a for a in active if not main[a] < floor]
            if len(active) == 1:
                return active[0], state["t"], N, S, False, pulled
            r += 1
    except _Cut:
        return maximisers(N, S, arms)[0], state["t"], N, S, True, pulled
