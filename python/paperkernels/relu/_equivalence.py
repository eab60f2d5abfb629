"""Functional equivalence of two ReLU networks: canonical forms, witnesses, and exact fallbacks."""

from __future__ import annotations

import functools

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, List, Optional, Tuple

import numpy as np

from .._seed import as_seed
from .._validation import as_int
from . import _rational as rat
from ._canonical import CanonicalForm, canonical_form_exact, choose_method
from ._net import ReLUNet
from ._regions import Leaf, RegionBudgetExceeded, enumerate_regions

PROCEDURES = ("auto", "canonical", "regions", "milp", "sampling")
AUTO_REGION_INPUTS = 6  # "auto" enumerates regions only for this many inputs or fewer
MAX_REGION_INPUTS = 12
MAX_SAMPLES = 10**7  # random pre-filter points (each costs two float forward passes)


@dataclass(frozen=True)
class Verdict:
    """The answer of :func:`equivalent`, with what was decided and how.

    Attributes
    ----------
    equivalent : bool or None
        True only with a proof. False: the networks differ (a proof when ``proof`` is True, usually
        with a ``witness``; otherwise the deciding procedure is incomplete). None: undecided.
    proof : bool
        Whether the answer is proven (exact arithmetic throughout).
    scope : str
        ``"global"`` (on all of R^n0) or ``"box"`` (on ``domain``). A global equivalence also holds
        on any box; a difference on the box is also a global difference.
    procedure : str
        Which procedure decided: ``"canonical form (one_hidden_layer)"``, ``"canonical form
        (bottleneck)"``, ``"canonical form (deep_generic)"``, ``"random points"``,
        ``"region enumeration"``, ``"breakpoints"``, ``"milp"``, ...
    witness : object array of Fractions or None
        A point where the outputs differ, checked in exact arithmetic.
    outputs : pair of object arrays or None
        The exact outputs of both networks at ``witness``.
    domain : (low, high) or None
        The box of a ``"box"`` verdict.
    detail : str
        A sentence explaining the verdict.
    """

    equivalent: Optional[bool]
    proof: bool
    scope: str
    procedure: str
    witness: Optional[np.ndarray] = None
    outputs: Optional[Tuple[np.ndarray, np.ndarray]] = None
    domain: Optional[Tuple[np.ndarray, np.ndarray]] = None
    detail: str = ""
    stats: dict = field(default_factory=dict, compare=False)

    def __bool__(self) -> bool:
        return self.equivalent is True

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


def as_domain(domain: Any, n0: int) -> Optional[Tuple[np.ndarray, np.ndarray]]:
    """(low, high) object arrays of Fractions from (low, high) or an (n0, 2) array."""
    if domain is None:
        return None
    if isinstance(domain, (tuple, list)) and len(domain) == 2:  # (low, high); an ndarray is (n0, 2)
        lo, hi = domain
        lo = np.broadcast_to(np.asarray(lo, dtype=object), (n0,))
        hi = np.broadcast_to(np.asarray(hi, dtype=object), (n0,))
    else:
        arr = np.asarray(domain, dtype=object)
        if arr.shape != (n0, 2):
            raise ValueError(f"domain: expected (low, high) or an array of shape ({n0}, 2), got shape {arr.shape}")
        lo, hi = arr[:, 0], arr[:, 1]
    try:
        for v in list(lo) + list(hi):
            if isinstance(v, (bool, np.bool_)) or not (isinstance(v, Fraction) or math.isfinite(float(v))):
                raise ValueError
        lo_f, hi_f = rat.fraction_array(np.array(list(lo), dtype=object)), rat.fraction_array(np.array(list(hi), dtype=object))
    except (TypeError, ValueError, OverflowError):
        raise ValueError("domain: expected finite real bounds") from None
    if any(l >= h for l, h in zip(lo_f, hi_f)):
        raise ValueError("domain: expected low < high in every coordinate")
    return lo_f, hi_f


# ---- exact checks of witnesses -------------------------------------------------------------------

def exact_difference(a: ReLUNet, b: ReLUNet, points: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Exact outputs of both networks at exact points (rows)."""
    return a.evaluate(points, exact=True), b.evaluate(points, exact=True)


def _first_witness(a: ReLUNet, b: ReLUNet, points: np.ndarray, simplify: bool = True, box=None):
    """The first point (row) where the exact outputs differ, rounded to a simpler rational when the
    rounded point still differs (checked exactly again)."""
    if len(points) == 0:
        return None
    fa, fb = exact_difference(a, b, points)
    for r in range(len(points)):
        if any(x != y for x, y in zip(fa[r], fb[r])):
            point = rat.fraction_array(points[r])
            if simplify:
                for d in (4, 64, 4096):
                    simple = np.array([v.limit_denominator(d) for v in point], dtype=object)
                    if np.array_equal(simple, point):
                        break
                    if box is not None and any(v < l or v > h for v, l, h in zip(simple, box[0], box[1])):
                        continue
                    sa, sb = exact_difference(a, b, simple.reshape(1, -1))
                    if any(x != y for x, y in zip(sa[0], sb[0])):
                        return simple, (sa[0], sb[0])
            return point, (fa[r], fb[r])
    return None


# ---- random points (can only prove a difference) --------------------------------------------------

def _scale_of(net: ReLUNet) -> float:
    W, b = net.float_parameters()[0][0], net.float_parameters()[1][0]
    norms = np.linalg.norm(W, axis=1)
    offsets = np.abs(b)[norms > 0] / norms[norms > 0]
    return float(max(1.0, np.max(offsets))) if offsets.size else 1.0


def _probes(net: ReLUNet, base: np.ndarray, rng: np.random.Generator, step: float) -> np.ndarray:
    """Points on both sides of a random neuron's (bent) hyperplane per layer and base point, reached
    by one Newton step on that neuron's pre-activation (vectorised over the base points)."""
    Ws, bs = net.float_parameters()
    N, n0 = base.shape
    z = base
    J = np.broadcast_to(np.eye(n0), (N, n0, n0))
    out = []
    for W, b in zip(Ws[:-1], bs[:-1]):
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


def sample_points(a: ReLUNet, b: ReLUNet, domain, n_samples: int, rng: np.random.Generator) -> np.ndarray:
    n0 = a.n_inputs
    scale = max(_scale_of(a), _scale_of(b))
    if domain is None:
        k = max(1, n_samples // 6)
        pts = [rng.normal(size=(k, n0)) * s for s in (0.1 * scale, scale, 10 * scale)]
        for net in (a, b):
            Ws, bs = net.float_parameters()
            W1, b1 = Ws[0], bs[0]
            if W1.shape[0] <= n0:  # latent points: pick the first-layer pre-activations, solve for x
                h = rng.normal(size=(k, W1.shape[0])) * np.maximum(1.0, np.abs(b1))
                x, *_ = np.linalg.lstsq(W1, (h - b1).T, rcond=None)
                pts.append(x.T)
        base = np.concatenate(pts)
    else:
        lo = rat.float_array(domain[0])
        hi = rat.float_array(domain[1])
        base = lo + (hi - lo) * rng.random(size=(max(1, n_samples // 3), n0))
    step_scale = 1e-3 * scale if domain is None else 1e-3 * float(np.min(rat.float_array(domain[1] - domain[0])))
    sub = base[rng.choice(len(base), size=min(len(base), max(1, n_samples // 6)), replace=False)]
    pts = np.concatenate([base] + [_probes(net, sub, rng, step_scale) for net in (a, b)])
    if domain is not None:
        pts = np.clip(pts, rat.float_array(domain[0]), rat.float_array(domain[1]))
    return pts[np.all(np.isfinite(pts), axis=1)]


class RandomWitnessSearch:
    """Float pre-filter over random and probe points; exact re-evaluation of the most different ones.

    The points and their float differences are computed once. ``witness(min_score)`` re-evaluates
    exactly (at most ``n_exact`` of) the points whose relative float difference exceeds
    ``min_score`` and that were not checked before; a positive ``min_score`` skips exact work when the
    differences look like round-off. It can only ever prove a difference.
    """

    def __init__(self, a: ReLUNet, b: ReLUNet, domain, n_samples: int, seed: int, n_exact: int = 8) -> None:
        self.a, self.b, self.domain, self.n_exact = a, b, domain, n_exact
        if n_samples <= 0:
            self.points, self.order, self.score = np.zeros((0, a.n_inputs)), np.zeros(0, dtype=int), np.zeros(0)
        else:
            rng = np.random.default_rng(seed)
            with np.errstate(over="ignore", invalid="ignore"):
                self.points = sample_points(a, b, domain, n_samples, rng)
                fa, fb = a(self.points), b(self.points)
                scale = 1.0 + np.max(np.abs(fa), axis=1) + np.max(np.abs(fb), axis=1)
                score = np.max(np.abs(fa - fb), axis=1) / scale
            # Where float64 overflowed, only the exact evaluation can tell: check those points first.
            self.score = np.where(np.isfinite(score), score, np.inf)
            self.order = np.argsort(-self.score)[:n_exact]
        self.checked = 0  # candidates order[:checked] have been re-evaluated exactly

    def witness(self, min_score: float = 0.0):
        todo = [i for i in self.order[self.checked:] if self.score[i] > min_score]
        self.checked += len(todo)
        return _first_witness(self.a, self.b, self.points[todo], box=self.domain) if todo else None


def random_witness(a: ReLUNet, b: ReLUNet, domain, n_samples: int, seed: int, n_exact: int = 8):
    """One-shot :class:`RandomWitnessSearch`."""
    return RandomWitnessSearch(a, b, domain, n_samples, seed, n_exact).witness()


# ---- constructive witness for one hidden layer ----------------------------------------------------

def _one_hidden(net: ReLUNet):
    """(W1, W2), (b1, b2) of a one-hidden-layer network; an affine map A x + d becomes
    A relu(x) - A relu(-x) + d."""
    if net.depth == 2:
        return net.exact_parameters()
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


def one_hidden_layer_witness(a: ReLUNet, b: ReLUNet):
    """A point where two one-hidden-layer networks with different canonical forms differ (exact)."""
    D = difference_net(a, b)
    form = canonical_form_exact(D, "one_hidden_layer").parts
    n0 = a.n_inputs
    zero = Fraction(0)
    candidates: List[List[Fraction]] = []
    Wk, bk = form["kink_weights"], form["kink_biases"]
    if len(bk) == 0:
        candidates.append([zero] * n0)
        candidates += [[Fraction(int(i == j)) for i in range(n0)] for j in range(n0)]
    else:
        w, beta = Wk[0], bk[0]
        ww = sum(v * v for v in w)
        x0 = [-beta * v / ww for v in w]
        direction = [Fraction(0)] * n0
        for trial in range(1, 50):
            v = [Fraction((7 * trial + 3 * q * q + q) % 11 - 5) for q in range(n0)]
            proj = sum(p * q for p, q in zip(v, w)) / ww
            direction = [p - proj * q for p, q in zip(v, w)]
            if n0 == 1 or any(direction):
                break
        bad = set()
        for k in range(1, len(bk)):
            slope = sum(p * q for p, q in zip(Wk[k], direction))
            at0 = sum(p * q for p, q in zip(Wk[k], x0)) + bk[k]
            if slope != 0:
                bad.add(-at0 / slope)
        s = next(Fraction(t) for t in range(len(bad) + 1) if Fraction(t) not in bad)
        x_on = [p + s * q for p, q in zip(x0, direction)]
        eps = Fraction(1)
        for _ in range(2000):
            pts = [[p + eps * q for p, q in zip(x_on, w)], [p - eps * q for p, q in zip(x_on, w)], x_on]
            vals = D.evaluate(np.array(pts, dtype=object), exact=True)
            second = vals[0] + vals[1] - 2 * vals[2]
            expected = eps * ww * form["kink_outputs"][:, 0]
            if all(x == y for x, y in zip(second, expected)):
                candidates += pts
                break
            eps /= 2
    return _first_witness(a, b, np.array(candidates, dtype=object))


# ---- exact region enumeration -------------------------------------------------------------------

def regions_verdict(a: ReLUNet, b: ReLUNet, lo, hi, max_regions: int):
    """Exact comparison on every joint linear region of the box. Returns (equal, witness, n_leaves)."""
    layers = []
    for net in (a, b):
        Ws, bs = net.exact_parameters()
        layers.append(list(zip(Ws, bs)))
    found = {}

    def on_leaf(leaf: Leaf) -> bool:
        (MA, mA), (MB, mB) = leaf.maps
        if np.array_equal(MA, MB) and np.array_equal(mA, mB):
            return False
        for point, _ in leaf.vertices:
            x = np.array(point, dtype=object)
            if any(v != 0 for v in (np.dot(MA - MB, x) + mA - mB)):
                found["witness"] = x
                return True
        raise AssertionError("affine maps differ on a full-dimensional region but agree at its vertices")

    leaves = enumerate_regions(layers, list(lo), list(hi), max_regions=max_regions, on_leaf=on_leaf)
    if "witness" in found:
        w = _first_witness(a, b, found["witness"].reshape(1, -1), box=(lo, hi))
        if w is None:
            raise AssertionError("region witness failed the exact re-check")
        return False, w, leaves
    return True, None, leaves


def line_extent(a: ReLUNet, b: ReLUNet, max_regions: int) -> Fraction:
    """For n0 = 1: a radius R such that no neuron of either network changes sign outside [-R, R]."""
    R = Fraction(1)
    for net in (a, b):
        W, bias = net.exact_parameters()[0][0], net.exact_parameters()[1][0]
        for w, c in zip(W[:, 0], bias):
            if w != 0:
                R = max(R, 2 * abs(c / w) + 1)
    layers = [list(zip(*net.exact_parameters())) for net in (a, b)]
    while True:
        grow = {}

        def on_leaf(leaf: Leaf) -> bool:
            xs = [p[0][0] for p in leaf.vertices]
            left, right = min(xs), max(xs)
            for log in leaf.pre:
                for coef, c, _active in log:
                    s = coef[0]
                    if s == 0:
                        continue
                    root = -c / s
                    if (right == R and root > R) or (left == -R and root < -R):
                        grow["R"] = max(grow.get("R", R), 2 * abs(root) + 1)
            return False

        enumerate_regions(layers, [-R], [R], max_regions=max_regions, on_leaf=on_leaf)
        if "R" not in grow:
            return R
        R = grow["R"]


# ---- MILP (HiGHS) ---------------------------------------------------------------------------------

def milp_witness(a: ReLUNet, b: ReLUNet, lo, hi, time_limit: Optional[float], tol: float = 1e-9):
    """Maximise +-(f_a - f_b)_o on the box with a big-M MILP; exact re-check of each solver point.

    Returns (witness or None, largest objective reported by the solver, status text).
    """
    try:
        import highspy
    except ImportError:
        return None, None, "highspy is not installed"
    from ._milp import build_difference_milp

    lo_f = rat.float_array(lo)
    hi_f = rat.float_array(hi)
    best = 0.0
    statuses = []
    for o in range(a.n_outputs):
        for sign in (1.0, -1.0):
            x, value, status = build_difference_milp(highspy, a, b, lo_f, hi_f, o, sign, time_limit)
            statuses.append(status)
            if x is None:
                continue
            best = max(best, value)
            if value > tol:
                x = np.clip(x, lo_f, hi_f)
                w = _first_witness(a, b, x.reshape(1, -1), box=(lo, hi))
                if w is not None:
                    return w, best, status
    return None, best, ", ".join(sorted(set(statuses)))


# ---- the public entry ------------------------------------------------------------------------------

def _form(net: ReLUNet, method: str, exact: bool) -> CanonicalForm:
    from . import canonical_form

    return canonical_form(net, method=method, exact=exact)


def _forms_equal(a: ReLUNet, b: ReLUNet, method: str, exact: bool) -> Tuple[bool, bool]:
    """(equal canonical forms, the procedure is complete), exactly."""
    if method == "one_hidden_layer" and not exact:
        from ._fast import one_hidden_equal

        same = one_hidden_equal(a, b)
        if same is not None:
            return same, True
    fa, fb = _form(a, method, exact), _form(b, method, exact)
    return fa == fb, fa.complete


def _common_method(a: ReLUNet, b: ReLUNet) -> Optional[str]:
    if {a.depth, b.depth} == {1, 2}:
        return "one_hidden_layer"  # an affine map is a one-hidden-layer network without kinks
    if a.depth != b.depth:
        return None
    ma, mb = choose_method(a), choose_method(b)
    if ma == mb:
        return ma
    return "deep_generic"


def _interrupts_intact(fn):
    """Ctrl-C landing inside a Fraction method that numpy's object loops call from C surfaces in
    CPython as ``SystemError: ... returned a result with an exception set``; give the user the
    KeyboardInterrupt it is."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except SystemError as exc:
            cause = exc
            while cause is not None and not isinstance(cause, KeyboardInterrupt):
                cause = cause.__cause__ or cause.__context__
            if cause is None:
                raise
            raise KeyboardInterrupt from exc

    return wrapper


@_interrupts_intact
def equivalent(a: ReLUNet, b: ReLUNet, domain: Any = None, *, exact: bool = False, procedure: str = "auto",
               n_samples: int = 512, seed: Any = 0, max_regions: int = 20000,
               time_limit: Optional[float] = 60.0) -> Verdict:
    """Decide whether two ReLU networks compute the same function, on R^n0 or on a box.

    Parameters
    ----------
    a, b : ReLUNet
        Networks with the same input and output sizes (any depths and widths).
    domain : None, (low, high) or ndarray of shape (n0, 2)
        None asks about all of R^n0; a box asks the weaker question of equality on the box. A tuple
        or list of two entries is (low, high) (scalars or length-n0 vectors); an ndarray holds one
        (low, high) row per input.
    exact : bool
        Compute canonical forms in exact rational arithmetic only (no float path).
    procedure : {"auto", "canonical", "regions", "milp", "sampling"}
        ``"auto"`` chooses (see Notes); the others force one procedure (plus the exact check of any
        witness). ``"regions"`` and ``"milp"`` need ``domain`` (or n0 = 1 for ``"regions"``).
    n_samples : int
        Size of the random-point pre-filter (0 disables it). It can only prove a difference.
    seed : int or numpy.random.Generator
        Seed of the random points.
    max_regions : int
        Budget of the exact region enumeration before falling back to the MILP.
    time_limit : float or None
        Time limit (seconds) of each MILP solve.

    Returns
    -------
    Verdict
        ``equivalent`` is True only with a proof; any witness has been re-evaluated exactly.

    Notes
    -----
    ``"auto"``: the canonical forms first (one hidden layer: complete; three-layer bottleneck: the
    symmetry-aware reconstruction; otherwise the generic scale+sort form, which is sound but
    incomplete). Equal forms prove global equivalence. Otherwise random and probe points look for a
    witness; then, for n0 = 1, every breakpoint is compared exactly (global or on the interval); on a
    box, exact region enumeration decides (n0 <= 6), with the difference MILP as the fallback when
    the enumeration budget runs out or n0 is larger.
    """
    check_pair(a, b)
    if procedure not in PROCEDURES:
        raise ValueError(f"procedure: expected one of {', '.join(repr(p) for p in PROCEDURES)}, got {procedure!r}")
    box = as_domain(domain, a.n_inputs)
    n_samples = as_int(n_samples, "n_samples", low=0, high=MAX_SAMPLES)
    max_regions = as_int(max_regions, "max_regions", low=1)
    seed = as_seed(seed)
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0):
        raise ValueError(f"time_limit: expected a positive number of seconds or None, got {time_limit!r}")
    scope = "global" if box is None else "box"
    stats: dict = {}

    def verdict(eq, proof, proc, witness=None, detail=""):
        w, outs = (witness if witness is not None else (None, None))
        return Verdict(eq, proof, scope, proc, w, outs, box, detail, stats)

    sampler: List[RandomWitnessSearch] = []
    found = []

    def search(min_score: float = 0.0):
        if not sampler:
            sampler.append(RandomWitnessSearch(a, b, box, n_samples, seed))
        if not found:
            w = sampler[0].witness(min_score)
            if w is not None:
                found.append(w)
        return found[0] if found else None

    method = _common_method(a, b)
    fast_forms = method in ("deep_generic", "one_hidden_layer") and not exact and not a.rational and not b.rational
    if procedure == "auto" and not fast_forms:
        # Cheap float pre-filter: exact work only where the float difference is far above round-off.
        w = search(min_score=1e-9)
        if w is not None:
            return verdict(False, True, "random points", w, "a random or probe point where the outputs differ (checked exactly)")

    if procedure in ("auto", "canonical"):
        if method is not None:
            same, complete = _forms_equal(a, b, method, exact)
            proc = f"canonical form ({method})"
            if same:
                return Verdict(True, True, "global", proc, None, None, box,
                               "equal canonical forms: equivalent on all of R^n0" + (" (hence on the box)" if box is not None else ""),
                               stats)
            stats["canonical"] = "different"
            if box is None and complete:
                w = search()
                if w is None and method == "one_hidden_layer":
                    w = one_hidden_layer_witness(a, b)
                if w is not None:
                    return verdict(False, True, proc, w, "different canonical forms; witness checked exactly")
                if method in ("one_hidden_layer", "affine"):
                    return verdict(False, True, proc, None, "different canonical forms (complete procedure)")
            if procedure == "canonical":
                w = search()
                if w is not None:
                    return verdict(False, True, proc, w, "different canonical forms; witness checked exactly")
                why = ("the form is complete only on identifiable parameters" if method == "deep_generic" else
                       "equality on the box is weaker than global equality" if box is not None else
                       "the bottleneck procedure is a reconstruction, so without a witness this is not a proof")
                return verdict(False, False, proc, None, "different canonical forms, no witness found; " + why)
        elif procedure == "canonical":
            return verdict(None, False, "canonical form", None, "the networks have different depths: no common canonical form")

    if procedure in ("auto", "sampling"):
        w = search()
        if w is not None:
            return verdict(False, True, "random points", w, "a random or probe point where the outputs differ (checked exactly)")
        if procedure == "sampling":
            return verdict(None, False, "random points", None, "no difference found at the sampled points (never a proof of equivalence)")

    if procedure in ("auto", "regions") and a.n_inputs == 1 and box is None:
        R = line_extent(a, b, max_regions)
        eq, w, leaves = regions_verdict(a, b, [-R], [R], max_regions)
        stats["regions"] = leaves
        if eq:
            return verdict(True, True, "breakpoints",
                           detail=f"equal on all {leaves} joint pieces of [-{R}, {R}], which contains every breakpoint")
        return verdict(False, True, "breakpoints", w, "the outputs differ on a linear piece (checked exactly)")

    if box is None:
        if procedure == "regions":
            raise ValueError("domain: region enumeration needs a box (or a single input)")
        if procedure == "milp":
            raise ValueError("domain: the MILP check needs a box")
        method = _common_method(a, b)
        if method is None:
            return verdict(None, False, "random points", None,
                           "different depths and no witness found; pass domain= for an exact check on a box")
        detail = {"deep_generic": "different generic canonical forms and no witness found; this procedure is complete "
                                  "only on identifiable parameters (pass domain= for an exact check on a box)",
                  "bottleneck": "different bottleneck canonical forms and no witness found; the bottleneck "
                                "procedure is a reconstruction, so this is not a proof"}[method]
        return verdict(False, False, f"canonical form ({method})", None, detail)

    lo, hi = box
    if procedure == "regions" and a.n_inputs > MAX_REGION_INPUTS:
        raise ValueError(f"procedure: region enumeration handles at most {MAX_REGION_INPUTS} inputs "
                         f"(a box has 2^n0 vertices), got n0 = {a.n_inputs}; use procedure='milp'")
    if procedure == "regions" or (procedure == "auto" and a.n_inputs <= AUTO_REGION_INPUTS):
        try:
            eq, w, leaves = regions_verdict(a, b, lo, hi, max_regions)
            stats["regions"] = leaves
            if eq:
                return verdict(True, True, "region enumeration", detail=f"equal affine maps on all {leaves} joint regions of the box")
            return verdict(False, True, "region enumeration", w, "the outputs differ on a region (checked exactly)")
        except RegionBudgetExceeded:
            stats["regions"] = f"> {max_regions}"
            if procedure == "regions":
                return verdict(None, False, "region enumeration", None, f"more than {max_regions} regions: budget exceeded")
    w, best, status = milp_witness(a, b, lo, hi, time_limit)
    stats["milp_objective"] = best
    if w is not None:
        return verdict(False, True, "milp", w, "the MILP's maximiser of the difference, checked exactly")
    if best is None:
        return verdict(None, False, "milp", None,
                       "undecided: region enumeration did not apply (budget or input dimension) and highspy, "
                       "needed for the MILP check, is not installed")
    return verdict(None, False, "milp", None,
                   f"the MILP found no difference above tolerance (max {best:.3g}; {status}); floating-point "
                   "optimisation is not a proof of equivalence")
