"""Independent, slow references for the relu tests: plain-Python Fraction evaluation and generators
of random rational networks with planted symmetries."""

from fractions import Fraction

import numpy as np

from paperkernels.relu import ReLUNet, moves


def reference_eval(weights, biases, x):
    """f(x) with Python lists of Fractions, no numpy: the obviously-correct definition."""
    z = [Fraction(v) for v in x]
    L = len(weights)
    for l in range(L):
        W, b = weights[l], biases[l]
        pre = [
            sum((Fraction(W[j][k]) * z[k] for k in range(len(z))), Fraction(0)) + Fraction(b[j]) for j in range(len(W))
        ]
        z = pre if l == L - 1 else [max(v, Fraction(0)) for v in pre]
    return z


def net_lists(net):
    Ws, bs = net.exact_parameters()
    return [[list(r) for r in W] for W in Ws], [list(b) for b in bs]


def ref(net, x):
    Ws, bs = net_lists(net)
    return reference_eval(Ws, bs, x)


def rand_fraction(rng, size, den=4, span=6, zero_prob=0.0):
    """Random small Fractions num/den; exact zeros with probability zero_prob (none otherwise)."""
    shape = size if isinstance(size, tuple) else (size,)
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(*shape):
        num, d = int(rng.integers(-span, span + 1)), int(rng.integers(1, den + 1))
        if zero_prob and rng.random() < zero_prob:
            num = 0
        elif num == 0:
            num = 1 if zero_prob == 0 else 0
        out[idx] = Fraction(num, d)
    return out


def random_net(widths, rng, **kw):
    Ws = [rand_fraction(rng, (widths[l + 1], widths[l]), **kw) for l in range(len(widths) - 1)]
    bs = [rand_fraction(rng, widths[l + 1], **kw) for l in range(len(widths) - 1)]
    return ReLUNet(Ws, bs, dtype="rational")


def plant_structure(net, rng):
    """Plant always-active, dead, hidden and opposite-pair neurons so that moves 3-6 apply."""
    Ws, bs = (list(x) for x in net.exact_parameters())
    Ws = [W.copy() for W in Ws]
    bs = [b.copy() for b in bs]
    L = len(Ws)
    if L == 2 and Ws[0].shape[0] >= 3:
        # neurons 1, 2: an opposite pair along neuron 0's direction
        lam, rho = Fraction(int(rng.integers(1, 4)), 2), Fraction(int(rng.integers(1, 4)), 3)
        Ws[0][1] = Ws[0][0] * lam
        bs[0][1] = Fraction(int(rng.integers(-3, 4)), 2)
        Ws[0][2] = -rho * Ws[0][1]
        bs[0][2] = -rho * bs[0][1]
    if L >= 3:
        n1, n2 = Ws[1].shape[1], Ws[1].shape[0]
        # layer 2: first min(n1, n2 - 2) neurons always active (independent nonnegative rows), last one dead
        n_act = min(n1, max(0, n2 - 2))
        for k in range(n_act):
            row = np.array([Fraction(int(rng.integers(0, 3)), 2) for _ in range(n1)], dtype=object)
            row[k] = Fraction(int(rng.integers(2, 5)))  # diagonal dominance: independent rows
            Ws[1][k] = row
            bs[1][k] = Fraction(int(rng.integers(0, 4)), 3)
        if n2 > n_act:
            Ws[1][n2 - 1] = np.array([-Fraction(int(rng.integers(0, 3)), 2) for _ in range(n1)], dtype=object)
            bs[1][n2 - 1] = -Fraction(int(rng.integers(0, 3)), 4)
    return ReLUNet(Ws, bs, dtype="rational")


def plant_hidden(net, rng, neuron=0):
    """Three-layer net: make layer-1 neuron `neuron` hidden (every reader inactive on its facet)."""
    Ws, bs = (list(x) for x in net.exact_parameters())
    Ws = [W.copy() for W in Ws]
    bs = [b.copy() for b in bs]
    U = Ws[1]
    for k in range(U.shape[0]):
        if rng.random() < 0.5:
            U[k, neuron] = Fraction(0)
        else:
            U[k, neuron] = Fraction(int(rng.integers(1, 5)), 2)
            for m in range(U.shape[1]):
                if m != neuron:
                    U[k, m] = -abs(U[k, m])
            bs[1][k] = -abs(bs[1][k])
    return ReLUNet(Ws, bs, dtype="rational")


def random_moves(net, rng, n_moves=6):
    """A random composition of valid moves 1-6 (invalid draws are skipped)."""
    applied = []
    for _ in range(n_moves * 4):
        if len(applied) >= n_moves:
            break
        L = net.depth
        layer = int(rng.integers(1, L)) if L > 1 else None
        if layer is None:
            break
        width = net.widths[layer]
        kind = int(rng.integers(0, 7))
        i = int(rng.integers(0, width))
        try:
            if kind == 0:
                net = moves.permute(net, layer, rng.permutation(width))
            elif kind == 1:
                net = moves.scale(net, layer, i, Fraction(int(rng.integers(1, 9)), int(rng.integers(1, 9))))
            elif kind == 2:
                if L == 2 and width >= 3:
                    net = moves.flip(net, 1, 0, pair=(1, 2))
                else:
                    active = [k for k in range(width) if k != i and moves.is_always_active(net, layer, k)]
                    if not active:
                        continue
                    net = moves.flip(net, layer, i, active=active)
            elif kind == 3:
                dead = [k for k in range(width) if moves.is_dead(net, layer, k)]
                if not dead or layer == 1:
                    continue
                k = dead[0]
                row = [-Fraction(int(rng.integers(0, 4)), 3) for _ in range(net.widths[layer - 1])]
                out = [Fraction(int(rng.integers(-4, 5)), 3) for _ in range(net.widths[layer + 1])]
                net = moves.perturb_dead(
                    net, layer, k, weights=row, bias=-Fraction(int(rng.integers(0, 3))), outgoing=out
                )
            elif kind == 4:
                active = [k for k in range(width) if moves.is_always_active(net, layer, k)]
                if len(active) < 2:
                    continue
                S = active[:2]
                G = [
                    [Fraction(int(rng.integers(1, 4))), Fraction(int(rng.integers(0, 3)), 2)],
                    [Fraction(int(rng.integers(0, 3)), 3), Fraction(int(rng.integers(1, 4)))],
                ]
                net = moves.mix_active(net, layer, S, G)
            else:
                if layer > L - 2:
                    continue
                t_min = moves.shift_bounds(net, layer, i)
                t = (t_min if t_min is not None else Fraction(-2)) + Fraction(int(rng.integers(0, 7)), 4)
                net = moves.shift_hidden_bias(net, layer, i, t)
        except moves.MoveError:
            continue
        applied.append(kind)
    return net, applied


# ---- an independent exact description of one-input networks ------------------------------------


def _pre_activations_1d(weights, biases, x):
    """Pre-activations of every layer at the scalar x (plain Python Fractions)."""
    z = [Fraction(x)]
    out = []
    L = len(weights)
    for l in range(L):
        pre = [
            sum((Fraction(weights[l][j][k]) * z[k] for k in range(len(z))), Fraction(0)) + Fraction(biases[l][j])
            for j in range(len(weights[l]))
        ]
        out.append(pre)
        z = [max(v, Fraction(0)) for v in pre]
    return out


def candidate_knots_1d(weights, biases):
    """A finite superset of the breakpoints of a one-input network, built layer by layer: every
    pre-activation of layer l is affine between consecutive knots of layers < l, so its zeros on each
    piece (and on the two unbounded pieces) are found by linear interpolation."""
    knots = []
    for l in range(len(weights) - 1):
        ks = sorted(set(knots))
        if ks:
            probes = [ks[0] - 1] + ks + [ks[-1] + 1]
        else:
            probes = [Fraction(0), Fraction(1)]
        values = [_pre_activations_1d(weights, biases, p)[l] for p in probes]
        new = []
        for j in range(len(weights[l])):
            for (p, vp), (q, vq) in zip(
                zip(probes, values, strict=False), zip(probes[1:], values[1:], strict=False), strict=False
            ):
                a, b = vp[j], vq[j]
                slope = (b - a) / (q - p)
                if slope == 0:
                    continue
                root = p - a / slope
                unbounded_left = p == probes[0]
                unbounded_right = q == probes[-1]
                if (p <= root <= q) or (unbounded_left and root < p) or (unbounded_right and root > q):
                    new.append(root)
        knots += new
    return sorted(set(knots))


def function_key_1d(weights, biases):
    """An exact canonical key of the function x -> f(x) of a one-input network: its true breakpoints
    with their values plus the slopes at -inf and +inf (or the affine map when there is none). Two
    one-input networks compute the same function iff their keys are equal."""

    def f(x):
        return tuple(_pre_activations_1d(weights, biases, x)[-1])

    ks = candidate_knots_1d(weights, biases)
    if not ks:
        f0, f1 = f(Fraction(0)), f(Fraction(1))
        return ("affine", f0, tuple(b - a for a, b in zip(f0, f1, strict=False)))
    pts = [ks[0] - 1] + ks + [ks[-1] + 1]
    vals = [f(p) for p in pts]
    slopes = [
        tuple((b - a) / (q - p) for a, b in zip(va, vb, strict=False))
        for p, q, va, vb in zip(pts, pts[1:], vals, vals[1:], strict=False)
    ]
    true = [(ks[i], vals[i + 1]) for i in range(len(ks)) if slopes[i] != slopes[i + 1]]
    if not true:
        return ("affine", f(Fraction(0)), slopes[0])
    return ("cpwl", tuple(true), slopes[0], slopes[-1])


def net_function_key_1d(net):
    Ws, bs = net_lists(net)
    return function_key_1d(Ws, bs)


def ridge_function_key(weights, biases):
    """Exact canonical key of the function of a network with ONE first-layer neuron (any n0):
    f(x) = h(w . x + b) is a ridge function. With s = |first nonzero entry of w| and sigma its sign,
    f(x) = g(v) with v = (sigma / s) w . x (first nonzero coefficient +1) and g(v) = h(sigma s v + b),
    a one-input network whose function key is exact; a constant f is keyed by its value."""
    w = [Fraction(v) for v in weights[0][0]]
    b = Fraction(biases[0][0])
    rest_W, rest_b = weights[1:], biases[1:]
    first = next((v for v in w if v != 0), None)
    if first is None:
        out = _pre_activations_1d([[[0]]] + list(rest_W), [[b]] + list(rest_b), 0)[-1]
        return ("constant", tuple(out))
    s, sigma = abs(first), (1 if first > 0 else -1)
    key = function_key_1d([[[sigma * s]]] + list(rest_W), [[b]] + list(rest_b))
    if key[0] == "affine" and all(v == 0 for v in key[2]):
        return ("constant", key[1])
    return ("ridge", tuple(v * sigma / s for v in w), key)
