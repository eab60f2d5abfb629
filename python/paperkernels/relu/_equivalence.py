"""Functional equivalence of two ReLU networks: canonical forms, witnesses, and exact fallbacks."""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ParamSpec, TypeVar

import numpy as np

from .._optional import optional_import
from .._seed import as_seed
from .._validation import as_choice, as_float, as_int, plain_array
from . import _rational as rat
from ._canonical import CanonicalForm, canonical_form_exact, choose_method
from ._net import FloatParameters, ReLUNet, float_forward
from ._regions import Leaf, RegionBudgetExceeded, RegionTimeLimit, enumerate_regions

AUTO_REGION_INPUTS = 6  # on a box, "auto" enumerates regions only for this many inputs or fewer (2^n0 vertices)
MAX_REGION_INPUTS = 12
MAX_SAMPLES = 10**7  # random pre-filter points (each costs two float forward passes)
ONE = Fraction(1)
_FLOAT_MAX = float(np.finfo(np.float64).max)

Box = tuple[np.ndarray, np.ndarray]  # (low, high) object arrays of Fractions
Witness = tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]  # a point and the exact outputs of both networks there


@dataclass(frozen=True)
class Verdict:
    """The answer of :func:`equivalent`, with what was decided and how.

    Attributes
    ----------
    equivalent : bool or None
        True only with a proof of equivalence (on ``scope``). False only with a ``witness`` inside
        the domain at which both networks were re-evaluated in exact rational arithmetic and differ.
        None: undecided, with the reason in ``reason``.
    proof : bool
        True for every True or False answer (both are proven); False for None.
    scope : str
        ``"global"`` (on all of R^n0) or ``"box"`` (on ``domain``). A global equivalence also holds
        on any box; a difference on the box is also a global difference.
    procedure : str
        Which procedure decided: ``"canonical form (one_hidden_layer)"``, ``"canonical form
        (bottleneck)"``, ``"canonical form (deep_generic)"``, ``"random points"``,
        ``"region enumeration"``, ``"milp"``, ...
    witness : object array of Fractions or None
        A point of the domain where the outputs differ, checked in exact arithmetic.
    outputs : pair of object arrays or None
        The exact outputs of both networks at ``witness``.
    domain : (low, high) or None
        The box of a ``"box"`` verdict.
    detail : str
        A sentence explaining the verdict.
    stats : dict
        Diagnostics (number of regions enumerated, MILP objective, elapsed seconds, ...).
    reason : str or None
        Why the answer is None (budget, time limit, solver unavailable, ...); None otherwise.

    Notes
    -----
    ``bool(verdict)`` is True only for a proven equivalence; ``str(verdict)`` is a one-line summary.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, equivalent
    >>> a = ReLUNet([[[1.0], [-1.0]], [[1.0, -1.0]]], [[0.0, 0.0], [0.0]])   # relu(x) - relu(-x) = x
    >>> b = ReLUNet([[[1.0], [-1.0]], [[1.0, -1.0]]], [[1.0, -1.0], [-1.0]])  # relu(x+1) - relu(-x-1) - 1
    >>> verdict = equivalent(a, b)
    >>> bool(verdict), verdict.proof, verdict.scope
    (True, True, 'global')
    >>> print(verdict)
    equivalent on R^n0 (canonical form (one_hidden_layer); proof): equal canonical forms: equivalent on all of R^n0
    """

    equivalent: bool | None
    proof: bool
    scope: str
    procedure: str
    witness: np.ndarray | None = None
    outputs: tuple[np.ndarray, np.ndarray] | None = None
    domain: tuple[np.ndarray, np.ndarray] | None = None
    detail: str = ""
    stats: dict[str, Any] = field(default_factory=dict, compare=False)
    reason: str | None = None

    def __bool__(self) -> bool:
        return self.equivalent is True

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Verdict):
            return NotImplemented

        def same(x: Any, y: Any) -> bool:
            if x is None or y is None:
                return x is y
            if isinstance(x, tuple):
                return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y, strict=False))
            return np.array_equal(np.asarray(x, dtype=object), np.asarray(y, dtype=object))

        return (
            (self.equivalent, self.proof, self.scope, self.procedure, self.detail, self.reason)
            == (other.equivalent, other.proof, other.scope, other.procedure, other.detail, other.reason)
            and same(self.witness, other.witness)
            and same(self.outputs, other.outputs)
            and same(self.domain, other.domain)
        )

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        answer = {True: "equivalent", False: "not equivalent", None: "undecided"}[self.equivalent]
        where = "on R^n0" if self.scope == "global" else "on the box"
        proof = "proof" if self.proof else "not a proof"
        text = f"{answer} {where} ({self.procedure}; {proof})"
        if self.witness is not None:
            text += f"; witness x = [{', '.join(str(v) for v in self.witness)}]"
        return text + (f": {self.detail}" if self.detail else "")


# ---- argument checks ----------------------------------------------------------------------------


def check_pair(a: Any, b: Any) -> None:
    for name, net in (("a", a), ("b", b)):
        if not isinstance(net, ReLUNet):
            raise TypeError(f"{name}: expected a ReLUNet, got {type(net).__name__}")
    if a.n_inputs != b.n_inputs:
        raise ValueError(f"b: expected a network with {a.n_inputs} inputs like a, got {b.n_inputs}")
    if a.n_outputs != b.n_outputs:
        raise ValueError(f"b: expected a network with {a.n_outputs} outputs like a, got {b.n_outputs}")


def as_domain(domain: Any, n0: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(low, high) object arrays of Fractions from (low, high) or an (n0, 2) array."""
    if domain is None:
        return None
    if isinstance(domain, (tuple, list)) and len(domain) == 2:  # (low, high); an ndarray is (n0, 2)
        lo, hi = (plain_array(v, "domain", dtype=object) for v in domain)
        try:
            lo = np.broadcast_to(lo, (n0,))
            hi = np.broadcast_to(hi, (n0,))
        except ValueError:
            raise ValueError(
                f"domain: expected low and high of length {n0} (or scalars), got shapes {lo.shape} and {hi.shape}"
            ) from None
    else:
        arr = plain_array(domain, "domain", dtype=object)
        if arr.shape != (n0, 2):
            raise ValueError(f"domain: expected (low, high) or an array of shape ({n0}, 2), got shape {arr.shape}")
        lo, hi = arr[:, 0], arr[:, 1]
    lo_f = np.array([rat.exact_real(v, "domain") for v in lo], dtype=object)
    hi_f = np.array([rat.exact_real(v, "domain") for v in hi], dtype=object)
    if any(l >= h for l, h in zip(lo_f, hi_f, strict=False)):
        raise ValueError("domain: expected low < high in every coordinate")
    return lo_f, hi_f


def inner_float_box(box: Box) -> tuple[np.ndarray, np.ndarray] | None:
    """float64 bounds of a box contained in the exact box (None when no float box fits inside)."""
    lo, hi = box
    lo_f, hi_f = [], []
    for l, h in zip(lo, hi, strict=False):
        fl = min(max(_to_float(l), -_FLOAT_MAX), _FLOAT_MAX)
        fh = min(max(_to_float(h), -_FLOAT_MAX), _FLOAT_MAX)
        with np.errstate(over="ignore"):
            if Fraction(fl) < l:
                fl = float(np.nextafter(fl, np.inf))
            if Fraction(fh) > h:
                fh = float(np.nextafter(fh, -np.inf))
        if not (math.isfinite(fl) and math.isfinite(fh)) or fl > fh or Fraction(fl) < l or Fraction(fh) > h:
            return None
        lo_f.append(fl)
        hi_f.append(fh)
    return np.array(lo_f), np.array(hi_f)


def _to_float(v: Fraction) -> float:
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def _in_box(point: Any, box: Box | None) -> bool:
    return box is None or all(l <= v <= h for v, l, h in zip(point, box[0], box[1], strict=False))


# ---- exact checks of witnesses -------------------------------------------------------------------


def exact_difference(a: ReLUNet, b: ReLUNet, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact outputs of both networks at exact points (rows)."""
    return a.evaluate(points, exact=True), b.evaluate(points, exact=True)


def _first_witness(
    a: ReLUNet, b: ReLUNet, points: np.ndarray, simplify: bool = True, box: Box | None = None
) -> Witness | None:
    """The first point (row) inside the box (if any) where the exact outputs differ, rounded to a
    simpler rational when the rounded point still differs (checked exactly again)."""
    if len(points) == 0:
        return None
    points = rat.fraction_array(points)
    inside = [r for r in range(len(points)) if _in_box(points[r], box)]
    if not inside:
        return None
    points = points[inside]
    fa, fb = exact_difference(a, b, points)
    for r in range(len(points)):
        if any(x != y for x, y in zip(fa[r], fb[r], strict=False)):
            point = points[r]
            if simplify:
                for d in (4, 64, 4096):
                    simple = np.array([v.limit_denominator(d) for v in point], dtype=object)
                    if np.array_equal(simple, point):
                        break
                    if not _in_box(simple, box):
                        continue
                    sa, sb = exact_difference(a, b, simple.reshape(1, -1))
                    if any(x != y for x, y in zip(sa[0], sb[0], strict=False)):
                        return simple, (sa[0], sb[0])
            return point, (fa[r], fb[r])
    return None


# ---- random points (can only prove a difference) --------------------------------------------------


def _scale_of(Ws: list[np.ndarray], bs: list[np.ndarray]) -> float:
    W, b = Ws[0], bs[0]
    norms = np.linalg.norm(W, axis=1)
    offsets = np.abs(b)[norms > 0] / norms[norms > 0]
    scale = float(max(1.0, np.max(offsets))) if offsets.size else 1.0
    return min(scale, 1e150) if math.isfinite(scale) else 1e150


def _probes(params: FloatParameters, base: np.ndarray, rng: np.random.Generator, step: float) -> np.ndarray:
    """Points on both sides of a random neuron's (bent) hyperplane per layer and base point, reached
    by one Newton step on that neuron's pre-activation (vectorised over the base points)."""
    Ws, bs = params
    N, n0 = base.shape
    z = base
    J = np.broadcast_to(np.eye(n0), (N, n0, n0))
    out = []
    for W, b in zip(Ws[:-1], bs[:-1], strict=False):
        pre = z @ W.T + b  # (N, n)
        G = np.einsum("jk,nkm->njm", W, J)  # gradients of the pre-activations, (N, n, n0)
        k = rng.integers(0, W.shape[0], size=N)
        g = G[np.arange(N), k]  # (N, n0)
        norm2 = np.einsum("nm,nm->n", g, g)
        ok = norm2 > 0
        if np.any(ok):
            g, x, p, norm2 = g[ok], base[ok], pre[np.arange(N), k][ok], norm2[ok]
            x0 = x - (p / norm2)[:, None] * g
            d = g / np.sqrt(norm2)[:, None]
            out += [x0 + step * d, x0 - step * d, x0]
        act = pre > 0
        z = np.where(act, pre, 0.0)
        J = G * act[:, :, None]
    return np.concatenate(out) if out else np.zeros((0, n0))


def sample_points(
    pa: FloatParameters,
    pb: FloatParameters,
    box: tuple[np.ndarray, np.ndarray] | None,
    n_samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """Random, latent and probe points (float64; for a box, inside the exact box)."""
    n0 = pa[0][0].shape[1]
    scale = max(_scale_of(*pa), _scale_of(*pb))
    if box is None:
        k = max(1, n_samples // 6)
        pts = [rng.normal(size=(k, n0)) * s for s in (0.1 * scale, scale, 10 * scale)]
        for Ws, bs in (pa, pb):
            W1, b1 = Ws[0], bs[0]
            if W1.shape[0] <= n0:  # latent points: pick the first-layer pre-activations, solve for x
                h = rng.normal(size=(k, W1.shape[0])) * np.maximum(1.0, np.abs(b1))
                try:
                    x, *_ = np.linalg.lstsq(W1, (h - b1).T, rcond=None)
                except np.linalg.LinAlgError:
                    continue
                pts.append(x.T)
        base = np.concatenate(pts)
        step_scale = 1e-3 * scale
    else:
        lo, hi = box
        u = rng.random(size=(max(1, n_samples // 3), n0))
        base = lo * (1 - u) + hi * u  # no overflow even for bounds near the float64 limit
        step_scale = 1e-3 * float(np.min(hi / 2 - lo / 2)) * 2
    base = base[np.all(np.isfinite(base), axis=1)]
    if len(base) == 0:
        return base
    sub = base[rng.choice(len(base), size=min(len(base), max(1, n_samples // 6)), replace=False)]
    out = np.concatenate([base] + [_probes(p, sub, rng, step_scale) for p in (pa, pb)])
    if box is not None:
        out = np.clip(out, box[0], box[1])
    return out[np.all(np.isfinite(out), axis=1)]


class RandomWitnessSearch:
    """Float pre-filter over random and probe points; exact re-evaluation of the most different ones.

    The points and their float differences are computed once. ``witness(min_score)`` re-evaluates
    exactly (at most ``n_exact`` of) the points whose relative float difference exceeds
    ``min_score`` and that were not checked before; a positive ``min_score`` skips exact work when the
    differences look like round-off. It can only ever prove a difference. Networks whose parameters
    do not fit float64, and boxes without float64 points inside, get no points.
    """

    def __init__(self, a: ReLUNet, b: ReLUNet, domain: Box | None, n_samples: int, seed: int, n_exact: int = 8) -> None:
        self.a, self.b, self.domain, self.n_exact = a, b, domain, n_exact
        self.points, self.order, self.score = np.zeros((0, a.n_inputs)), np.zeros(0, dtype=int), np.zeros(0)
        self.checked = 0  # candidates order[:checked] have been re-evaluated exactly
        if n_samples <= 0:
            return
        try:
            pa, pb = a.float_parameters(), b.float_parameters()
        except OverflowError:
            return
        fbox = None if domain is None else inner_float_box(domain)
        if domain is not None and fbox is None:
            return
        rng = np.random.default_rng(seed)
        with np.errstate(all="ignore"):
            points = sample_points(pa, pb, fbox, n_samples, rng)
            if len(points) == 0:
                return
            fa, fb = float_forward(pa, points)[-1], float_forward(pb, points)[-1]
            scale = 1.0 + np.max(np.abs(fa), axis=1) + np.max(np.abs(fb), axis=1)
            score = np.max(np.abs(fa - fb), axis=1) / scale
        # Where float64 overflowed, only the exact evaluation can tell: check those points first.
        self.points = points
        self.score = np.where(np.isfinite(score), score, np.inf)
        self.order = np.argsort(-self.score, kind="stable")[:n_exact]

    def witness(self, min_score: float = 0.0) -> Witness | None:
        todo = [i for i in self.order[self.checked :] if self.score[i] > min_score]
        self.checked += len(todo)
        return _first_witness(self.a, self.b, self.points[todo], box=self.domain) if todo else None


def random_witness(
    a: ReLUNet, b: ReLUNet, domain: Box | None, n_samples: int, seed: int, n_exact: int = 8
) -> Witness | None:
    """One-shot :class:`RandomWitnessSearch`."""
    return RandomWitnessSearch(a, b, domain, n_samples, seed, n_exact).witness()


# ---- constructive witness for one hidden layer ----------------------------------------------------


def _one_hidden(net: ReLUNet) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """(W1, W2), (b1, b2) of a one-hidden-layer network; an affine map A x + d becomes
    A relu(x) - A relu(-x) + d."""
    if net.depth == 2:
        (W1, W2), (b1, b2) = net.exact_parameters()
        return (W1, W2), (b1, b2)
    (A,), (d,) = net.exact_parameters()
    n = net.n_inputs
    eye = rat.fraction_array(np.eye(n, dtype=np.int64))
    zeros = np.array([Fraction(0)] * (2 * n), dtype=object)
    return (np.concatenate([eye, -eye]), np.concatenate([A, -A], axis=1)), (zeros, d)


def difference_net(a: ReLUNet, b: ReLUNet) -> ReLUNet:
    """One-hidden-layer network a - b (each with at most one hidden layer)."""
    (A1, A2), (a1, a2) = _one_hidden(a)
    (B1, B2), (b1, b2) = _one_hidden(b)
    W1 = np.concatenate([A1, B1], axis=0)
    c1 = np.concatenate([a1, b1])
    W2 = np.concatenate([A2, -B2], axis=1)
    return ReLUNet([W1, W2], [c1, a2 - b2], dtype="rational")


def _dot(u: Sequence[Any], v: Sequence[Any]) -> Fraction:
    return sum((p * q for p, q in zip(u, v, strict=False)), Fraction(0))


def one_hidden_layer_witness(a: ReLUNet, b: ReLUNet) -> Witness | None:
    """A point where two one-hidden-layer networks with different canonical forms differ (exact).

    The difference D = f_a - f_b has a canonical form; if it has a kink (w, beta, c), a point x_on of
    its hyperplane off every other kink hyperplane is found on a moment curve (each other hyperplane
    meets the curve in at most n0 - 1 points), and x_on +- eps w with eps below the distance to every
    other hyperplane lie in the two adjacent linear pieces: their second difference is eps |w|^2 c != 0,
    so D is nonzero at one of the three points. Without kinks, D is affine and nonzero at 0 or at a
    unit vector. No iteration depends on magnitudes.
    """
    D = difference_net(a, b)
    form = canonical_form_exact(D, "one_hidden_layer").parts
    n0 = a.n_inputs
    zero = Fraction(0)
    Wk, bk = form["kink_weights"], form["kink_biases"]
    if len(bk) == 0:
        candidates = [[zero] * n0] + [[Fraction(int(i == j)) for i in range(n0)] for j in range(n0)]
        return _first_witness(a, b, np.array(candidates, dtype=object))
    w, beta = list(Wk[0]), bk[0]
    ww = _dot(w, w)
    x0 = [-beta * v / ww for v in w]
    others = [(list(Wk[k]), bk[k]) for k in range(1, len(bk))]
    x_on = None
    for t in range(max(1, (n0 - 1) * len(others) + 1) + 1):
        v = [Fraction(t) ** q for q in range(n0)]
        proj = _dot(v, w) / ww
        cand = [p + (q - proj * r) for p, q, r in zip(x0, v, w, strict=False)]
        if all(_dot(wk, cand) + bk_ != 0 for wk, bk_ in others):
            x_on = cand
            break
    if x_on is None:  # unreachable by the counting argument above
        return None
    eps = Fraction(1)
    for wk, bk_ in others:
        slope = _dot(wk, w)
        if slope != 0:
            eps = min(eps, abs(_dot(wk, x_on) + bk_) / abs(slope) / 2)
    pts = [
        [p + eps * q for p, q in zip(x_on, w, strict=False)],
        [p - eps * q for p, q in zip(x_on, w, strict=False)],
        x_on,
    ]
    return _first_witness(a, b, np.array(pts, dtype=object))


# ---- exact region enumeration -------------------------------------------------------------------


def _region_difference_point(leaf: Leaf) -> np.ndarray | None:
    """A point of the (closed) region where the two affine maps differ, or None when they agree."""
    (NA, dA), (NB, dB) = leaf.integer_maps
    D = NA * dB - NB * dA  # (f_a - f_b) = D[:, :-1] x + D[:, -1] over dA dB > 0
    if not any(v != 0 for v in D.flat):
        return None

    def differs_homogeneous(g: Sequence[Any]) -> bool:  # g = (x, t) with integer or Fraction entries
        return any(sum((D[o, q] * g[q] for q in range(len(g)) if g[q]), 0) != 0 for o in range(D.shape[0]))

    if not any(differs_homogeneous(g) for g, _ in leaf.generators):
        return None  # the maps agree on the whole region
    p = leaf.interior_point()
    candidates = [p]
    candidates += [tuple((u + v) / 2 for u, v in zip(p, x, strict=False)) for x in leaf.vertices]
    candidates += [tuple(u + v for u, v in zip(p, r, strict=False)) for r in leaf.rays]
    for x in candidates:
        if differs_homogeneous(tuple(x) + (ONE,)):
            return np.array(x, dtype=object)
    return None  # unreachable: an affine map vanishing at these points vanishes on the region


def regions_verdict(
    a: ReLUNet, b: ReLUNet, box: Box | None, max_regions: int, deadline: float | None = None
) -> tuple[str, Witness | None, int]:
    """Exact comparison on every joint linear region of the box, or of all of R^n0 (``box=None``).

    Returns ``(status, witness, n_leaves)`` with status ``"equal"``, ``"different"`` (witness
    re-evaluated exactly through both networks), ``"budget"`` or ``"time"``.
    """
    layers = []
    for net in (a, b):
        Ws, bs = net.exact_parameters()
        layers.append(list(zip(Ws, bs, strict=False)))
    found = {}
    count = {"leaves": 0}

    def on_leaf(leaf: Leaf) -> bool:
        count["leaves"] += 1
        x = _region_difference_point(leaf)
        if x is None:
            return False
        found["witness"] = x
        return True

    lo, hi = (None, None) if box is None else (list(box[0]), list(box[1]))
    try:
        leaves = enumerate_regions(
            layers, lo, hi, n_inputs=a.n_inputs, max_regions=max_regions, deadline=deadline, on_leaf=on_leaf
        )
    except RegionBudgetExceeded:
        return "budget", None, count["leaves"]
    except RegionTimeLimit:
        return "time", None, count["leaves"]
    if "witness" in found:
        w = _first_witness(a, b, found["witness"].reshape(1, -1), box=box)
        if w is None:  # the exact re-evaluation disagrees with the region maps: never claim a difference
            return "inconsistent", None, leaves
        return "different", w, leaves
    return "equal", None, leaves


# ---- MILP (HiGHS) ---------------------------------------------------------------------------------


def milp_witness(
    a: ReLUNet, b: ReLUNet, box: Box, deadline: float | None, tol: float = 1e-9
) -> tuple[Witness | None, float | None, str]:
    """Maximise +-(f_a - f_b)_o on the box with a big-M MILP; exact re-check of each solver point.

    Returns (witness or None, largest objective reported by the solver or None, status text).
    """
    try:
        highspy = optional_import("highspy", "the MILP check of equivalent()")
    except ImportError as exc:
        return None, None, str(exc)
    from ._milp import build_difference_milp

    fbox = inner_float_box(box)
    if fbox is None:
        return None, None, "the box has no float64 interior for the MILP"
    try:
        a.float_parameters(), b.float_parameters()
    except OverflowError:
        return None, None, "the parameters do not fit float64, which the MILP needs"
    lo_f, hi_f = fbox
    best = 0.0
    statuses = []
    for o in range(a.n_outputs):
        for sign in (1.0, -1.0):
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                return None, best, "time limit reached"
            with np.errstate(all="ignore"):
                x, value, status = build_difference_milp(highspy, a, b, lo_f, hi_f, o, sign, remaining)
            statuses.append(status)
            if x is None or value is None or not math.isfinite(value):
                continue
            best = max(best, value)
            if value > tol:
                x = np.clip(x, lo_f, hi_f)
                w = _first_witness(a, b, x.reshape(1, -1), box=box)
                if w is not None:
                    return w, best, status
    return None, best, ", ".join(sorted(set(statuses)))


# ---- the public entry ------------------------------------------------------------------------------


def _form(net: ReLUNet, method: str, exact: bool) -> CanonicalForm:
    from . import canonical_form

    return canonical_form(net, method=method, exact=exact)


def _forms_equal(a: ReLUNet, b: ReLUNet, method: str, exact: bool) -> tuple[bool, bool]:
    """(equal canonical forms, the procedure is complete), exactly."""
    if method == "one_hidden_layer" and not exact:
        from ._fast import one_hidden_equal

        same = one_hidden_equal(a, b)
        if same is not None:
            return same, True
    fa, fb = _form(a, method, exact), _form(b, method, exact)
    return fa == fb, fa.complete and fb.complete


def _common_method(a: ReLUNet, b: ReLUNet) -> str | None:
    if {a.depth, b.depth} == {1, 2}:
        return "one_hidden_layer"  # an affine map is a one-hidden-layer network without kinks
    if a.depth != b.depth:
        return None
    ma, mb = choose_method(a), choose_method(b)
    if ma == mb:
        return ma
    return "deep_generic"


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _interrupts_intact(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Ctrl-C landing inside a Fraction method that numpy's object loops call from C surfaces in
    CPython as ``SystemError: ... returned a result with an exception set``; give the user the
    KeyboardInterrupt it is."""

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except SystemError as exc:
            cause: BaseException | None = exc
            while cause is not None and not isinstance(cause, KeyboardInterrupt):
                cause = cause.__cause__ or cause.__context__
            if cause is None:
                raise
            raise KeyboardInterrupt from exc

    return wrapper


RANDOM_DETAIL = "a random or probe point where the outputs differ (checked exactly)"


@dataclass
class _Run:
    """What one call of :func:`equivalent` shares between its procedures: the checked arguments, the
    clock, the diagnostics, and the random-point search (built on first use, its witness kept)."""

    a: ReLUNet
    b: ReLUNet
    box: Box | None
    exact: bool
    n_samples: int
    seed: int
    max_regions: int
    time_limit: float | None  # seconds
    limit_as_given: Any  # for the messages, as the user wrote it
    started: float
    method: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)
    sampler: RandomWitnessSearch | None = None
    found: Witness | None = None

    @property
    def scope(self) -> str:
        return "global" if self.box is None else "box"

    @property
    def deadline(self) -> float | None:
        return None if self.time_limit is None else self.started + self.time_limit

    def verdict(
        self,
        eq: bool | None,
        proc: str,
        witness: Witness | None = None,
        detail: str = "",
        reason: str | None = None,
        where: str | None = None,
    ) -> Verdict:
        w, outs = witness if witness is not None else (None, None)
        if eq is False and w is None:  # never: a difference is only reported with its exact witness
            raise AssertionError("a 'not equivalent' verdict without a witness")
        self.stats["seconds"] = time.monotonic() - self.started
        if eq is None and reason is None:
            reason = detail
        return Verdict(eq, eq is not None, where or self.scope, proc, w, outs, self.box, detail, self.stats, reason)

    def out_of_time(self) -> bool:
        deadline = self.deadline
        return deadline is not None and time.monotonic() > deadline

    def timed_out(self, proc: str) -> Verdict:
        return self.verdict(
            None, proc, detail=f"time limit of {self.limit_as_given} s reached before a decision", reason="time limit"
        )

    def search(self, min_score: float = 0.0) -> Witness | None:
        """The random-point witness: the first one found is kept; later calls check only new candidates."""
        if self.sampler is None:
            self.sampler = RandomWitnessSearch(self.a, self.b, self.box, self.n_samples, self.seed)
        if self.found is None:
            self.found = self.sampler.witness(min_score)
        return self.found

    def different(self, proc: str, witness: Witness, detail: str) -> Verdict:
        return self.verdict(False, proc, witness, detail)


def _compare_forms(run: _Run, method: str) -> tuple[Verdict | None, bool]:
    """Canonical forms of both networks: a verdict when they decide, and whether the form is complete."""
    proc = f"canonical form ({method})"
    try:
        with rat.deadline(run.deadline):  # exact forms of huge rationals can take long
            same, complete = _forms_equal(run.a, run.b, method, run.exact)
    except rat.OutOfTime:
        return run.timed_out(proc), False
    if same:
        return run.verdict(
            True,
            proc,
            None,
            "equal canonical forms: equivalent on all of R^n0" + (" (hence on the box)" if run.box is not None else ""),
            where="global",
        ), True
    run.stats["canonical"] = "different"
    if complete:  # different complete forms: the functions differ on R^n0; find where
        w = run.search()
        if w is None and run.box is None:
            w = one_hidden_layer_witness(run.a, run.b)
        if w is not None:
            return run.different(proc, w, "different canonical forms; witness checked exactly"), True
    return None, complete


def _enumerate(run: _Run) -> tuple[Verdict | None, str, int]:
    """Exact region enumeration: a verdict when it decides, else why not, and the regions visited."""
    status, w, leaves = regions_verdict(run.a, run.b, run.box, run.max_regions, run.deadline)
    run.stats["regions"] = leaves
    where = "all of R^n0" if run.box is None else "the box"
    if status == "equal":
        return (
            run.verdict(
                True, "region enumeration", None, f"equal affine maps on all {leaves} joint linear regions of {where}"
            ),
            "",
            leaves,
        )
    if status == "different" and w is not None:
        return (
            run.different("region enumeration", w, "the affine maps differ on a joint region (checked exactly)"),
            "",
            leaves,
        )
    if status == "budget":
        run.stats["regions"] = f"> {run.max_regions}"
        return None, f"more than max_regions = {run.max_regions} joint regions", leaves
    if status == "time":
        return None, "time limit", leaves
    return None, "the region maps and the exact evaluation disagree", leaves


def _regions_undecided(run: _Run, reason: str, leaves: int) -> Verdict:
    return run.verdict(
        None, "region enumeration", detail=f"undecided: {reason} (after {leaves} regions)", reason=reason
    )


def _by_canonical(run: _Run) -> Verdict:
    """``procedure="canonical"``: the canonical forms, plus the random points for a witness."""
    method = run.method
    if method is None:
        return run.verdict(
            None, "canonical form", detail="the networks have different depths: no common canonical form"
        )
    decided, complete = _compare_forms(run, method)
    if decided is not None:
        return decided
    proc = f"canonical form ({method})"
    w = run.search()
    if w is not None:
        return run.different(proc, w, "different canonical forms; witness checked exactly")
    why = (
        "equality on the box is weaker than global equality"
        if complete
        else f"the {method} form is not complete (equal functions can have different forms)"
    )
    return run.verdict(None, proc, detail="different canonical forms and no witness found; " + why)


def _by_sampling(run: _Run) -> Verdict:
    """``procedure="sampling"``: random and probe points; only ever proves a difference."""
    w = run.search()
    if w is not None:
        return run.different("random points", w, RANDOM_DETAIL)
    return run.verdict(
        None,
        "random points",
        detail="no difference found at the sampled points (never a proof of equivalence)",
        reason="sampling cannot prove equivalence",
    )


def _by_regions(run: _Run) -> Verdict:
    """``procedure="regions"``: the complete exact enumeration of the joint linear regions."""
    decided, reason, leaves = _enumerate(run)
    return decided if decided is not None else _regions_undecided(run, reason, leaves)


def _by_milp(run: _Run, regions_reason: str = "") -> Verdict:
    """``procedure="milp"`` (on a box): the difference MILP; its "no difference" is never a proof."""
    if run.out_of_time():
        return run.timed_out("milp")
    assert run.box is not None
    w, best, status = milp_witness(run.a, run.b, run.box, run.deadline)
    run.stats["milp_objective"] = best
    if w is not None:
        return run.different("milp", w, "the MILP's maximiser of the difference, checked exactly")
    prefix = "region enumeration undecided (" + regions_reason + "); " if regions_reason else ""
    if best is None:
        return run.verdict(None, "milp", detail=f"undecided: {prefix}{status}", reason=status)
    return run.verdict(
        None,
        "milp",
        detail=f"undecided: {prefix}the MILP found no difference above tolerance (max "
        f"{best:.3g}; {status}); floating-point optimisation is not a proof of equivalence",
        reason="the MILP is not a proof of equivalence",
    )


def _by_cascade(run: _Run) -> Verdict:
    """``procedure="auto"``: canonical forms, random points, region enumeration, then the MILP on a box."""
    a, b = run.a, run.b
    fast_forms = (
        run.method in ("deep_generic", "one_hidden_layer") and not run.exact and not a.rational and not b.rational
    )
    if not fast_forms:
        # Cheap float pre-filter: exact work only where the float difference is far above round-off.
        w = run.search(min_score=1e-9)
        if w is not None:
            return run.different("random points", w, RANDOM_DETAIL)
    if run.method is not None:
        decided, _ = _compare_forms(run, run.method)
        if decided is not None:
            return decided
    if run.out_of_time():
        return run.timed_out("canonical form")
    w = run.search()
    if w is not None:
        return run.different("random points", w, RANDOM_DETAIL)
    if run.out_of_time():
        return run.timed_out("random points")
    if run.box is not None and a.n_inputs > AUTO_REGION_INPUTS:
        return _by_milp(run)
    decided, reason, leaves = _enumerate(run)
    if decided is not None:
        return decided
    return _regions_undecided(run, reason, leaves) if run.box is None else _by_milp(run, reason)


_PROCEDURES: dict[str, Callable[[_Run], Verdict]] = {
    "auto": _by_cascade,
    "canonical": _by_canonical,
    "regions": _by_regions,
    "milp": _by_milp,
    "sampling": _by_sampling,
}
PROCEDURES = tuple(_PROCEDURES)


@_interrupts_intact
def equivalent(
    a: ReLUNet,
    b: ReLUNet,
    domain: Any = None,
    *,
    exact: bool = False,
    procedure: str = "auto",
    n_samples: int = 512,
    seed: Any = 0,
    max_regions: int = 20000,
    time_limit: float | None = 60.0,
) -> Verdict:
    """Decide whether two ReLU networks compute the same function, on R^n0 or on a box.

    Parameters
    ----------
    a, b : ReLUNet
        Networks with the same input and output sizes (any depths and widths).
    domain : None, (low, high) or ndarray of shape (n0, 2)
        None asks about all of R^n0; a box asks the weaker question of equality on the box. A tuple
        or list of two entries is (low, high) (scalars or length-n0 vectors); an ndarray holds one
        (low, high) row per input. Bounds may be Fractions (exact) or finite floats.
    exact : bool
        Compute canonical forms in exact rational arithmetic only (no float path).
    procedure : {"auto", "canonical", "regions", "milp", "sampling"}
        ``"auto"`` chooses (see Notes); the others force one procedure (plus the exact check of any
        witness). ``"regions"`` is the complete exact region enumeration (on the box, or on all of
        R^n0 without ``domain``); ``"milp"`` needs ``domain`` and the optional ``highspy``.
    n_samples : int
        Size of the random-point pre-filter (0 disables it). It can only prove a difference.
    seed : int or numpy.random.Generator
        Seed of the random points.
    max_regions : int
        Budget of the exact region enumeration (joint linear regions visited). Beyond it the answer
        is None (with ``reason``), or on a box the MILP gets the rest of the time.
    time_limit : float or None
        Seconds for the whole call (canonical forms, sampling, enumeration and MILP); when it runs
        out the answer is None with ``reason``. None: no limit.

    Returns
    -------
    Verdict
        ``equivalent`` is True only with a proof, False only with an exact witness inside the
        domain, None otherwise (``reason`` says why).

    Notes
    -----
    ``"auto"``: the canonical forms first (one hidden layer: complete; three-layer bottleneck: the
    symmetry-aware reconstruction; otherwise the generic scale+sort form). Equal forms prove global
    equivalence. Different forms of the complete one-hidden-layer procedure give a constructed
    witness. Otherwise random and probe points look for a witness, then the exact region enumeration
    decides: it visits every joint linear region of the two networks (on R^n0 as unbounded polyhedra,
    or on the box) and compares the two affine maps exactly on each. On a box with more than
    ``AUTO_REGION_INPUTS`` inputs, or when the budget runs out, the difference MILP searches for a
    witness; its "no difference" is never reported as equivalence.

    Raises
    ------
    TypeError
        When ``a`` or ``b`` is not a ReLUNet, or an argument has the wrong type.
    ValueError
        When the networks' input or output sizes differ, ``domain`` is not a box with low < high,
        ``procedure`` is unknown (or ``"milp"`` without a box, or ``"regions"`` on a box with more
        than 12 inputs), or a count or ``time_limit`` is out of range.

    Examples
    --------
    A perturbed network differs, with an exact witness:

    >>> from fractions import Fraction
    >>> from paperkernels.relu import ReLUNet, equivalent
    >>> a = ReLUNet([[[1.0], [-1.0]], [[1.0, -1.0]]], [[0.0, 0.0], [0.0]])
    >>> b = ReLUNet([[[1.0], [-1.0]], [[1.0, -1.0]]], [[0.0, Fraction(1, 8)], [0.0]])
    >>> verdict = equivalent(a, b)
    >>> verdict.equivalent, verdict.proof
    (False, True)
    >>> x = verdict.witness
    >>> a.evaluate(x, exact=True) != b.evaluate(x, exact=True)
    array([ True])

    On a box that misses the difference, equality is proven there only:

    >>> on_box = equivalent(a, b, domain=([1], [2]))
    >>> bool(on_box), on_box.scope, on_box.procedure
    (True, 'box', 'region enumeration')
    """
    started = time.monotonic()
    check_pair(a, b)
    procedure = as_choice(procedure, "procedure", PROCEDURES)
    box = as_domain(domain, a.n_inputs)
    n_samples = as_int(n_samples, "n_samples", low=0, high=MAX_SAMPLES)
    max_regions = as_int(max_regions, "max_regions", low=1)
    seconds = None if time_limit is None else as_float(time_limit, "time_limit", low=0.0, low_open=True)
    run = _Run(a, b, box, exact, n_samples, as_seed(seed), max_regions, seconds, time_limit, started)
    run.method = _common_method(a, b)
    if procedure == "milp" and box is None:
        raise ValueError("domain: the MILP check needs a box")
    if procedure == "regions" and box is not None and a.n_inputs > MAX_REGION_INPUTS:
        raise ValueError(
            f"procedure: region enumeration on a box handles at most {MAX_REGION_INPUTS} inputs "
            f"(a box has 2^n0 vertices), got n0 = {a.n_inputs}; use procedure='milp' or no domain"
        )
    return _PROCEDURES[procedure](run)
