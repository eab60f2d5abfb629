"""paperkernels.relu.

1. Generic deep canonical form (three hidden layers of width 32, 256, 1000): the C++ float path
   (exact decisions) against a numpy implementation of the same procedure, after checking that both
   produce the same canonical parameters.
2. Equivalence verdicts on equivalent, hidden-symmetry and perturbed pairs: paperkernels.equivalent
   against the difference MILP (HiGHS through highspy, verdict "equal" when the optimum is below a
   tolerance, the usual practice) and against random sampling; time and accuracy (ground truth by
   construction, perturbed pairs confirmed by an exact witness).
3. The complete exact procedure (joint region enumeration, on the box and on all of R^n) against
   the MILP on the same pairs: share of pairs decided (True/False, both proven) and time per pair.
4. How often Gaussian draws have hidden symmetries (fiber larger than the perm/scaling orbit).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any, cast

import numpy as np

from ..relu import ReLUNet, canonical_form, equivalent, fiber_description, moves
from ._harness import Recorder, Timer, blas_threads, measure


def numpy_deep_form(Ws: Sequence[np.ndarray], bs: Sequence[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The same scale+sort canonicalisation in numpy (no exact tie handling)."""
    out_W: list[np.ndarray] = []
    out_b: list[np.ndarray] = []
    prev_scale: np.ndarray | None = None
    prev_order: np.ndarray | None = None
    for l, (W, b) in enumerate(zip(Ws, bs, strict=False)):
        if prev_order is not None and prev_scale is not None:  # both set together
            W = W[:, prev_order]
            cols = W * prev_scale[prev_order]
        else:
            cols = W * 1.0
        if l == len(Ws) - 1:
            out_W.append(cols)
            out_b.append(b.copy())
            break
        absc = np.abs(cols)
        arg = np.argmax(absc, axis=1)
        top = absc[np.arange(len(b)), arg]
        m = np.maximum(top, np.abs(b))
        inv = 1.0 / m
        Wn = cols * inv[:, None]
        bn = b * inv
        on_bias = np.abs(b) > top  # the pivot entry is exactly +-1
        rows_w = np.flatnonzero(~on_bias)
        Wn[rows_w, arg[rows_w]] = np.sign(cols[rows_w, arg[rows_w]])
        bn[on_bias] = np.sign(b[on_bias])
        keys = np.concatenate([Wn, bn[:, None]], axis=1)
        order = np.lexsort(keys.T[::-1])
        out_W.append(Wn[order])
        out_b.append(bn[order])
        prev_scale, prev_order = m, order
    return out_W, out_b


def random_net(widths: Sequence[int], rng: np.random.Generator) -> ReLUNet:
    return ReLUNet(
        [rng.normal(size=(widths[i + 1], widths[i])) for i in range(len(widths) - 1)],
        [rng.normal(size=widths[i + 1]) for i in range(len(widths) - 1)],
    )


def milp_peer(a: ReLUNet, b: ReLUNet, lo: np.ndarray, hi: np.ndarray, tol: float = 1e-6) -> bool:
    """The MILP practice: maximise |f_a - f_b| on the box, call the pair equal below tol."""
    from paperkernels._optional import optional_import
    from paperkernels.relu._milp import build_difference_milp

    highspy = optional_import("highspy", "the MILP baseline of the relu benchmark")
    best = 0.0
    for o in range(a.n_outputs):
        for sign in (1.0, -1.0):
            x, value, _ = build_difference_milp(highspy, a, b, lo, hi, o, sign, 60.0)
            if value is not None:
                best = max(best, value)
    return best <= tol


def sampling_peer(
    a: ReLUNet, b: ReLUNet, lo: np.ndarray, hi: np.ndarray, rng: np.random.Generator, n: int = 20000, tol: float = 1e-9
) -> bool:
    X = lo + (hi - lo) * rng.random(size=(n, len(lo)))
    return float(np.max(np.abs(a(X) - b(X)))) <= tol


def make_pairs(rng: np.random.Generator, quick: bool) -> list[tuple[str, ReLUNet, ReLUNet, bool]]:
    """(kind, a, b, truth) with truth known by construction."""
    pairs: list[tuple[str, ReLUNet, ReLUNet, bool]] = []
    n_each = 1 if quick else 8
    for _ in range(n_each):
        # bottleneck 4 -> 3 -> 6 -> 1 with planted always-active and hidden structure
        W1 = rng.integers(-4, 5, size=(3, 4)) / 2
        W1[np.arange(3), np.arange(3)] = 3  # full row rank
        b1 = rng.integers(-4, 5, size=3) / 4
        W2 = rng.integers(-4, 5, size=(6, 3)) / 2
        b2 = rng.integers(-4, 5, size=6) / 4
        W2[0] = np.abs(W2[0]) + 0.5
        b2[0] = abs(b2[0])
        W2[1] = np.abs(W2[1]) + 0.5
        b2[1] = abs(b2[1])
        W2[:2, 0] = 0.0  # the always-active block does not read layer-1 neuron 0
        for k in range(2, 6):  # layer-1 neuron 0 hidden: every reader inactive on its facet
            if W2[k, 0] != 0:
                W2[k, 0] = abs(W2[k, 0])
                W2[k, 1:] = -np.abs(W2[k, 1:])
                b2[k] = -abs(b2[k])
        W3 = rng.integers(-4, 5, size=(1, 6)) / 2
        W3[W3 == 0] = 1
        a = ReLUNet([W1, W2, W3], [b1, b2, rng.normal(size=1)])
        same = moves.permute(moves.scale(a, 2, 3, 0.5), 1, cast(Sequence[int], rng.permutation(3)))
        pairs.append(("equivalent (perm+scale)", a, same, True))
        hidden = moves.mix_active(a, 2, [0, 1], [[1, Fraction(1, 2)], [Fraction(1, 4), 1]])
        t_min = moves.shift_bounds(hidden, 1, 0)
        hidden = moves.shift_hidden_bias(hidden, 1, 0, (t_min or 0) + Fraction(1, 2))
        pairs.append(("hidden symmetry (GL + bias shift)", a, hidden, True))
        Ws = [w.copy() for w in a.weights]
        bs = [v.copy() for v in a.biases]
        Ws[1][2, 1] += 1e-7
        pairs.append(("perturbed (1e-7 in W2)", a, ReLUNet(Ws, bs), False))
        # the hidden bias shift pushed just past its validity bound: the functions differ on a thin band
        t_min = moves.shift_bounds(a, 1, 0)
        if t_min is not None:
            Ws = [w.copy() for w in a.weights]
            bs = [v.copy() for v in a.biases]
            t = float(t_min) - 1e-3
            bs[0][0] += t
            bs[1] = bs[1] - Ws[1][:, 0] * t
            pairs.append(("near-miss shift (t_min - 1e-3)", a, ReLUNet(Ws, bs), False))
    return pairs


def bench_canonical(rec: Recorder) -> None:
    quick = rec.quick
    rng = np.random.default_rng(0)
    min_time = 0.02 if quick else 0.3
    for n in [32, 128] if quick else [32, 256, 1000]:
        net = random_net([n, n, n, n, 10], rng)
        workload = f"canonical form, 3 hidden layers of width {n}"
        Ws, bs = net.float_parameters()
        ours = canonical_form(net)
        ref_W, ref_b = numpy_deep_form(Ws, bs)
        gap = max(
            float(np.max(np.abs(x - y))) if x.shape == y.shape else np.inf
            for x, y in zip(list(ours.parts["weights"]) + list(ours.parts["biases"]), ref_W + ref_b, strict=False)
        )
        rec.check(workload, "canonical parameters vs the numpy procedure", "max |difference|", gap, 0.0)
        for _ in rec.each_isa():  # the row passes are SIMD kernels
            rec.time(
                workload,
                "paperkernels",
                measure(lambda: canonical_form(net), repeat=3, min_time=min_time, clock="cpu"),
                metric="time per form",
                threads=1,
                detail=f"{net.n_parameters} parameters; scales, pivots, orders",
            )
        rec.time(
            workload,
            "paperkernels (form + arrays)",
            measure(lambda: canonical_form(net).parts, repeat=3, min_time=min_time, clock="cpu"),
            metric="time per form",
            threads=1,
            detail="also writes the normalised parameters as numpy arrays",
        )
        rec.time(
            workload,
            "numpy, same procedure",
            measure(lambda: numpy_deep_form(Ws, bs), repeat=3, min_time=min_time, clock="cpu"),
            metric="time per form",
            threads=1,
            peer=True,
        )


def bench_equivalence(rec: Recorder) -> None:
    have_milp = importlib.util.find_spec("highspy") is not None
    if not have_milp:
        rec.skip("highspy", "not installed: the MILP peer is skipped", "pip install highspy")
    rng = np.random.default_rng(1)
    pairs = make_pairs(rng, rec.quick)
    lo, hi = -np.ones(4), np.ones(4)
    kinds: dict[str, dict[str, Any]] = {}
    for kind, a, b, truth in pairs:
        entry = kinds.setdefault(
            kind, {"truth": truth, "timers": {}, "correct": {}, "wrong_equal": 0, "no_witness": 0, "n": 0}
        )
        entry["n"] += 1

        def verdict(label: str, fn: Callable[[], Any]) -> Any:
            timer = entry["timers"].setdefault(label, Timer("cpu"))
            answer = timer.run(fn)
            return answer

        v = verdict("paperkernels", lambda: equivalent(a, b, domain=(lo, hi)))
        entry["correct"]["paperkernels"] = entry["correct"].get("paperkernels", 0) + (v.equivalent is truth)
        entry["wrong_equal"] += v.equivalent is True and not truth
        entry["no_witness"] += v.equivalent is False and v.witness is None
        if have_milp:
            m = verdict("MILP (HiGHS, optimum <= 1e-6)", lambda: milp_peer(a, b, lo, hi))
            entry["correct"]["MILP (HiGHS, optimum <= 1e-6)"] = entry["correct"].get(
                "MILP (HiGHS, optimum <= 1e-6)", 0
            ) + (m is truth)
        s = verdict("sampling (20000 points)", lambda: sampling_peer(a, b, lo, hi, rng))
        entry["correct"]["sampling (20000 points)"] = entry["correct"].get("sampling (20000 points)", 0) + (s is truth)
    wrong = sum(e["wrong_equal"] for e in kinds.values())
    rec.check("*", "paperkernels.equivalent vs ground truth by construction", "wrong 'equivalent' verdicts", wrong, 0)
    rec.check(
        "*",
        "paperkernels 'not equivalent' verdicts",
        "verdicts without a witness",
        sum(e["no_witness"] for e in kinds.values()),
        0,
    )
    for kind, entry in kinds.items():
        workload = f"equivalence, {kind}"
        for label, timer in entry["timers"].items():
            peer = label != "paperkernels"
            rec.time(
                workload,
                label,
                timer,
                metric="time per pair",
                threads=1,
                peer=peer,
                detail=f"{entry['n']} pairs on [-1, 1]^4, 4 -> 3 -> 6 -> 1",
            )
            rec.record(
                workload,
                label,
                "correct verdicts",
                "%",
                [100.0 * entry["correct"][label] / entry["n"]],
                better="higher",
                threads=1,
                peer=peer,
            )


def bench_complete(rec: Recorder) -> None:
    """The complete procedure (joint region enumeration) against the MILP: share decided, time per pair."""
    have_milp = importlib.util.find_spec("highspy") is not None
    rng = np.random.default_rng(3)
    pairs = make_pairs(rng, rec.quick)
    for _ in range(2 if rec.quick else 4):  # deep generic 4 -> 6 -> 6 -> 1: a dead neuron the forms do not see
        a = random_net([4, 6, 6, 1], rng)
        Ws, bs = a.float_parameters()
        dead = -np.abs(rng.normal(size=(1, 6)))
        b = ReLUNet(
            [Ws[0], np.vstack([Ws[1], dead]), np.hstack([Ws[2], [[2.0]]])], [bs[0], np.append(bs[1], -1.0), bs[2]]
        )
        pairs.append(("deep: dead neuron with an output (4-6-6-1)", a, b, True))
        pairs.append(("deep: output bias + 1e-9 (4-6-6-1)", a, ReLUNet(Ws, bs[:-1] + [bs[-1] + 1e-9]), False))
    box = ([-1] * 4, [1] * 4)
    runs: list[tuple[str, dict[str, Any]]] = [
        ("regions, box", dict(domain=box, procedure="regions")),
        ("regions, R^n", dict(procedure="regions")),
    ]
    if have_milp:
        runs.append(("MILP, box (HiGHS)", dict(domain=box, procedure="milp")))
    stats: dict[str, dict[str, Any]] = {}
    wrong = 0
    for kind, a, b, truth in pairs:
        entry = stats.setdefault(kind, {"n": 0, "decided": {}, "timers": {}})
        entry["n"] += 1
        for label, options in runs:
            timer = entry["timers"].setdefault(label, Timer("cpu"))
            # Random pre-filter off (n_samples=0): the procedures themselves are compared.
            v = timer.run(lambda: equivalent(a, b, n_samples=0, time_limit=60.0, **options))
            entry["decided"][label] = entry["decided"].get(label, 0) + (v.equivalent is not None)
            wrong += v.equivalent is not None and v.equivalent is not truth
    rec.check("*", "complete procedure and MILP vs ground truth by construction", "wrong verdicts", wrong, 0)
    for kind, entry in stats.items():
        workload = f"complete procedure, {kind}"
        for label, timer in entry["timers"].items():
            peer = label.startswith("MILP")
            detail = f"{entry['n']} pairs, n0 = 4; the MILP can prove a difference but never equivalence"
            rec.time(workload, label, timer, metric="time per pair", threads=1, peer=peer, detail=detail)
            rec.record(
                workload,
                label,
                "pairs decided",
                "%",
                [100.0 * entry["decided"][label] / entry["n"]],
                better="higher",
                threads=1,
                peer=peer,
            )


def bench_hidden_symmetries(rec: Recorder) -> None:
    rng = np.random.default_rng(2)
    n = 2 if rec.quick else 60
    for widths in ([3, 2, 4, 1], [2, 2, 2, 1], [3, 5, 5, 1], [5, 5, 5, 1]):
        workload = f"hidden symmetries, widths {'-'.join(map(str, widths))}"
        timer = Timer("cpu")
        count = 0
        for _ in range(n):
            net = random_net(widths, rng)
            count += timer.run(lambda: fiber_description(net, n_points=300).beyond_scaling)
        rec.record(
            workload,
            "paperkernels",
            "draws beyond perm/scaling",
            "%",
            [100.0 * count / n],
            better=None,
            threads=1,
            detail=f"{n} Gaussian draws; the paper's abstract reports 33-96%",
        )
        rec.time(workload, "paperkernels", timer, metric="time per draw", threads=1)


def run(rec: Recorder) -> None:
    rec.note("one core (BLAS too); times from this process's CPU time")
    with blas_threads(1):
        bench_canonical(rec)
        bench_equivalence(rec)
        bench_complete(rec)
        bench_hidden_symmetries(rec)
