"""Canonical forms of ReLU-network parameters (exact rational versions).

- ``one_hidden_layer`` (procedure (a)): complete and global for L = 2.
- ``deep_generic`` (procedure (b)): layer-wise scale + sort, any depth; sound, complete only on
  identifiable parameters.
- ``bottleneck`` (procedure (c)): the symmetry-aware form of three-layer bottleneck networks, our
  reconstruction of Gegenfurtner, Grillo & Montufar (sound by construction).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import as_choice, as_instance
from . import _rational as rat
from ._net import ReLUNet

ZERO = Fraction(0)

METHODS = ("auto", "affine", "one_hidden_layer", "deep_generic", "bottleneck")


class CanonicalForm:
    """A canonical representative of a network's parameters under (some of) its symmetries.

    Attributes
    ----------
    method : str
        ``"affine"`` (no hidden layer), ``"one_hidden_layer"``, ``"deep_generic"`` or ``"bottleneck"``.
    exact : bool
        True when ``parts`` hold exact Fractions; False for the float path, whose entries carry the
        relative error bounds in ``relative_error`` (equality is still decided exactly, see ``==``).
    complete : bool
        True when different forms imply different functions: proved for ``one_hidden_layer`` and
        ``affine``. False for ``deep_generic`` (complete only on identifiable parameters) and for
        ``bottleneck``: equal functions can get different bottleneck forms (for example a neuron of
        layer 2 whose linear term is absorbed by a hidden neuron, or ``relu(1 - relu(u)) - 3`` and
        ``-relu(1 - relu(1 - u)) - 2``, both ``-2 - clip(u, 0, 1)`` for one bottleneck neuron), so a
        difference of bottleneck forms is settled by :func:`paperkernels.relu.equivalent`'s exact
        region enumeration.
    widths : tuple
        Input width, then the widths of the canonical layers, then the output width.
    parts : dict
        The canonical parameters (see :func:`paperkernels.relu.canonical_form`). The float path
        computes them on first access.
    info : dict
        Diagnostics: neuron classes, number of dropped or merged neurons, ...
    relative_error : tuple of float or None
        Float path: bound on the relative error of every entry of each layer.

    Notes
    -----
    Built by :func:`paperkernels.relu.canonical_form`. Two forms compare equal (``==``) when their
    methods agree and their canonical parameters are equal, decided exactly.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, canonical_form
    >>> net = ReLUNet([[[1.0], [-2.0]], [[3.0, 1.0]]], [[0.0, 2.0], [0.0]])
    >>> form = canonical_form(net)
    >>> form
    CanonicalForm(method='one_hidden_layer', exact, widths=(1, 2, 1))
    >>> form.complete, form.parts["kink_biases"]
    (True, array([Fraction(-1, 1), Fraction(0, 1)], dtype=object))
    """

    def __init__(
        self,
        method: str,
        exact: bool,
        complete: bool,
        widths: tuple[int, ...],
        parts: Any,
        info: dict[str, Any] | None = None,
        relative_error: tuple[float, ...] | None = None,
        source: Any = None,
    ) -> None:
        self.method = method
        self.exact = exact
        self.complete = complete
        self.widths = tuple(widths)
        self._parts = parts  # a dict, or a callable producing it on first access
        self.info = info if info is not None else {}
        self.relative_error = relative_error
        self._source = source

    @property
    def parts(self) -> dict[str, Any]:
        """The canonical parameters by name (see :func:`paperkernels.relu.canonical_form`).

        Returns
        -------
        dict
            Arrays by name; the float path computes them on first access.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet, canonical_form
        >>> net = ReLUNet([[[1.0], [-2.0]], [[3.0, 1.0]]], [[0.0, 2.0], [0.0]])
        >>> sorted(canonical_form(net).parts)
        ['kink_biases', 'kink_outputs', 'kink_weights', 'linear', 'offset']
        """
        if callable(self._parts):
            self._parts = self._parts()
        parts: dict[str, Any] = self._parts
        return parts

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "float"
        return f"CanonicalForm(method={self.method!r}, {kind}, widths={self.widths})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CanonicalForm):
            return NotImplemented
        return forms_equal(self, other)

    __hash__ = None  # type: ignore[assignment]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_parts"] = self.parts  # materialised: the float path's C++ handle does not pickle
        state.pop("_handle", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __deepcopy__(self, memo: dict[int, Any]) -> CanonicalForm:
        import copy

        state = copy.deepcopy(self.__getstate__(), memo)
        out = CanonicalForm.__new__(CanonicalForm)
        out.__setstate__(state)
        return out

    def to_rational(self) -> CanonicalForm:
        """The exact version of this form (recomputed in rational arithmetic when needed).

        Returns
        -------
        CanonicalForm
            ``self`` when already exact, else the form computed with Fractions.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet, canonical_form
        >>> net = ReLUNet([[[1.0, 2.0], [3.0, -1.0]], [[1.0, 1.0]], [[2.0]]], [[0.0, 1.0], [0.5], [0.0]])
        >>> form = canonical_form(net, "deep_generic")
        >>> form.exact, form.to_rational().exact, form == form.to_rational()
        (False, True, True)
        """
        if self.exact:
            return self
        return canonical_form_exact(self._source, self.method)

    def network(self) -> ReLUNet:
        """A network in canonical form computing the same function (exact parameters).

        Returns
        -------
        ReLUNet
            A rational network built from the canonical parameters.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet, canonical_form, equivalent
        >>> net = ReLUNet([[[1.0], [-2.0]], [[3.0, 1.0]]], [[0.0, 2.0], [0.0]])
        >>> canon = canonical_form(net).network()
        >>> canon.widths, bool(equivalent(net, canon))
        ((1, 4, 1), True)
        """
        exact = self.to_rational()
        p = exact.parts
        if exact.method in ("affine", "deep_generic"):
            return _net_allowing_empty_layers(list(p["weights"]), list(p["biases"]))
        if exact.method == "one_hidden_layer":
            return _kinks_to_net(p["kink_weights"], p["kink_biases"], p["kink_outputs"], p["linear"], p["offset"])
        inner = _kinks_to_net(
            p["cut_weights"], p["cut_biases"], p["cut_outputs"], p["linear"], p["offset"], orthant=True
        )
        W2, b2, W3, b3 = (inner.weights[0], inner.biases[0], inner.weights[1], inner.biases[1])
        return ReLUNet([p["layer1_weights"], W2, W3], [p["layer1_biases"], b2, b3], dtype="rational")


def _net_allowing_empty_layers(Ws: Sequence[np.ndarray], bs: Sequence[np.ndarray]) -> ReLUNet:
    """A network from layers some of which may have no neuron (the form removed them all): an empty
    hidden layer becomes one neuron with zero weights, zero bias and zero outgoing weights, which
    outputs 0 like the empty layer."""
    Ws, bs = list(Ws), list(bs)
    for l in range(len(Ws) - 1):
        if Ws[l].shape[0] == 0:
            Ws[l] = np.array([[ZERO] * Ws[l].shape[1]], dtype=object).reshape(1, Ws[l].shape[1])
            bs[l] = np.array([ZERO], dtype=object)
            Ws[l + 1] = np.array([[ZERO] for _ in range(Ws[l + 1].shape[0])], dtype=object).reshape(-1, 1)
    return ReLUNet(Ws, bs, dtype="rational")


def _kinks_to_net(
    Wk: np.ndarray, bk: np.ndarray, C: np.ndarray, A: np.ndarray, d: np.ndarray, orthant: bool = False
) -> ReLUNet:
    """One hidden layer: kinks plus the linear part A x (as relu(x) - relu(-x), or relu(x) on the orthant)."""
    n_in = A.shape[1]
    n_out = A.shape[0]
    eye = rat.fraction_array(np.eye(n_in, dtype=np.int64))
    zeros = np.array([ZERO] * n_in, dtype=object)
    if orthant:
        W1 = np.concatenate([Wk.reshape(-1, n_in), eye], axis=0)
        b1 = np.concatenate([bk, zeros])
        W2 = np.concatenate([C.reshape(n_out, -1), A], axis=1)
    else:
        W1 = np.concatenate([Wk.reshape(-1, n_in), eye, -eye], axis=0)
        b1 = np.concatenate([bk, zeros, zeros])
        W2 = np.concatenate([C.reshape(n_out, -1), A, -A], axis=1)
    return ReLUNet([W1, W2], [b1, d.copy()], dtype="rational")


def forms_equal(a: CanonicalForm, b: CanonicalForm) -> bool:
    """Exact equality of two canonical forms (float forms are settled exactly)."""
    if a.method != b.method or a.widths != b.widths:
        return False
    if not a.exact or not b.exact:
        if not a.exact and not b.exact and a.method == "deep_generic":
            from ._fast import deep_forms_equal

            verdict = deep_forms_equal(a, b)
            if verdict is not None:
                return verdict
        return forms_equal(a.to_rational(), b.to_rational())
    if a.parts.keys() != b.parts.keys():
        return False
    for key in a.parts:
        x, y = a.parts[key], b.parts[key]
        if isinstance(x, (list, tuple)):
            if len(x) != len(y) or any(
                u.shape != v.shape or not np.array_equal(u, v) for u, v in zip(x, y, strict=False)
            ):
                return False
        elif x.shape != y.shape or not np.array_equal(x, y):
            return False
    return True


# ---- shared helpers ----------------------------------------------------------------------------


def _int_key(row: Sequence[Fraction]) -> tuple[int, ...]:
    """A hashable exact key of a tuple of Fractions (reduced numerator/denominator pairs)."""
    out = []
    for v in row:
        out.append(v.numerator)
        out.append(v.denominator)
    return tuple(out)


def _first_nonzero(row: Sequence[Any]) -> int | None:
    for q, v in enumerate(row):
        if v != 0:
            return q
    return None


def _stack_rows(rows: list[np.ndarray], width: int) -> np.ndarray:
    out = np.empty((len(rows), width), dtype=object)
    for r, row in enumerate(rows):
        out[r] = row
    return out


def _columns(cols: list[np.ndarray], height: int) -> np.ndarray:
    out = np.empty((height, len(cols)), dtype=object)
    for c, col in enumerate(cols):
        out[:, c] = col
    return out


def is_bottleneck(net: ReLUNet) -> bool:
    """Whether a network is a three-layer bottleneck: two hidden layers, n1 <= n0, W_1 of full row rank.

    Parameters
    ----------
    net : ReLUNet
        The network.

    Returns
    -------
    bool
        True for a bottleneck (the rank is checked exactly), where ``canonical_form`` uses the
        symmetry-aware ``"bottleneck"`` method.

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, is_bottleneck
    >>> net = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[0, 1], [-1], [0]])
    >>> is_bottleneck(net)
    True
    """
    as_instance(net, "net", ReLUNet)
    if net.depth != 3:
        return False
    n0, n1 = net.widths[0], net.widths[1]
    if n1 > n0:
        return False
    cached = getattr(net, "_full_row_rank", None)
    if cached is None:
        cached = rat.rank(net.exact_parameters()[0][0]) == n1
        net._full_row_rank = cached
    return cached


def choose_method(net: ReLUNet) -> str:
    if net.depth == 1:
        return "affine"
    if net.depth == 2:
        return "one_hidden_layer"
    if net.depth == 3 and is_bottleneck(net):
        return "bottleneck"
    return "deep_generic"


# ---- (a) one hidden layer --------------------------------------------------------------------


def _kink_form(
    W: np.ndarray,
    b: np.ndarray,
    C: np.ndarray,
    A: np.ndarray,
    d: np.ndarray,
    *,
    orthant_active: list[bool] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """Normalise, orient and merge kinks c relu(w.x + b); returns sorted (W, b, C) and updated (A, d).

    W: (m, n) Fractions; C: (n_out, m). A (n_out, n) and d (n_out,) are updated in place.
    """
    n_out = A.shape[0]
    merged: dict[tuple[int, ...], tuple[tuple[Fraction, ...], np.ndarray]] = {}
    n_constant = 0
    flipped = []
    for i in range(W.shape[0]):
        rat.check_deadline()
        c = C[:, i]
        if all(v == 0 for v in c):
            continue
        w, beta = W[i], b[i]
        p = _first_nonzero(w)
        if p is None:
            if beta > 0:
                d += c * beta
            n_constant += 1
            continue
        s = abs(w[p])
        w, beta, c = w / s, beta / s, c * s
        if w[p] < 0:  # c relu(u) = c relu(-u) + c u: the linear terms are added below
            flipped.append(i)
            w, beta = -w, -beta
        row = tuple(w) + (beta,)
        key = _int_key(row)  # hashing Fractions is slow (a modular inverse each); ints are not
        if key in merged:
            merged[key] = (row, merged[key][1] + c)
        else:
            merged[key] = (row, c.copy())
    n_flipped = len(flipped)
    if flipped:  # sum of c_i (w_i, b_i) over the flipped neurons, from the unnormalised parameters
        Cf = C[:, flipped].reshape(n_out, n_flipped)
        Mf = np.concatenate([W[flipped].reshape(n_flipped, -1), b[flipped].reshape(-1, 1)], axis=1)
        linear = rat.exact_matmul(Cf, Mf)
        A += linear[:, :-1]
        d += linear[:, -1]
    kept = sorted(((row, c) for row, c in merged.values() if any(v != 0 for v in c)), key=lambda rc: rc[0])
    keys = [row for row, _ in kept]
    n = W.shape[1]
    Wc = _stack_rows([np.array(k[:-1], dtype=object) for k in keys], n)
    bc = np.array([k[-1] for k in keys], dtype=object)
    Cc = _columns([c for _, c in kept], n_out)
    stats = {"constant": n_constant, "flipped": n_flipped, "merged_away": W.shape[0] - n_constant - len(keys)}
    return Wc, bc, Cc, stats


def one_hidden_layer_exact(net: ReLUNet) -> CanonicalForm:
    if net.depth == 1:  # an affine map: no kinks
        (A,), (d,) = net.exact_parameters()
        parts = {
            "kink_weights": np.empty((0, net.n_inputs), dtype=object),
            "kink_biases": np.empty(0, dtype=object),
            "kink_outputs": np.empty((net.n_outputs, 0), dtype=object),
            "linear": A.copy(),
            "offset": d.copy(),
        }
        return CanonicalForm(
            "one_hidden_layer",
            True,
            True,
            (net.n_inputs, 0, net.n_outputs),
            parts,
            {"constant": 0, "flipped": 0, "merged_away": 0},
        )
    (W1, W2), (b1, b2) = net.exact_parameters()
    A = np.array([[ZERO] * W1.shape[1] for _ in range(W2.shape[0])], dtype=object).reshape(W2.shape[0], W1.shape[1])
    d = b2.copy()
    Wk, bk, C, stats = _kink_form(W1, b1, W2, A, d)
    parts = {"kink_weights": Wk, "kink_biases": bk, "kink_outputs": C, "linear": A, "offset": d}
    return CanonicalForm("one_hidden_layer", True, True, (net.n_inputs, len(bk), net.n_outputs), parts, stats)


def affine_exact(net: ReLUNet) -> CanonicalForm:
    (W,), (b,) = net.exact_parameters()
    parts = {"weights": (W.copy(),), "biases": (b.copy(),)}
    return CanonicalForm("affine", True, True, net.widths, parts)


# ---- (b) deep generic ------------------------------------------------------------------------


def deep_generic_exact(net: ReLUNet) -> CanonicalForm:
    Ws, bs = (list(x) for x in net.exact_parameters())
    Ws = [W.copy() for W in Ws]
    bs = [b.copy() for b in bs]
    L = len(Ws)
    dropped = merged_total = folded = 0
    changed = True
    while changed:
        changed = False
        for l in range(L - 1, 0, -1):  # hidden layer l: rows of Ws[l-1], columns of Ws[l]
            keep = [i for i in range(Ws[l].shape[1]) if any(v != 0 for v in Ws[l][:, i])]
            if len(keep) < Ws[l].shape[1]:
                dropped += Ws[l].shape[1] - len(keep)
                Ws[l - 1], bs[l - 1], Ws[l] = Ws[l - 1][keep], bs[l - 1][keep], Ws[l][:, keep]
                changed = True
        for l in range(1, L):
            W, b, Wn = Ws[l - 1], bs[l - 1], Ws[l]
            rows: dict[tuple[int, ...], tuple[tuple[Fraction, ...], np.ndarray]] = {}
            for j in range(W.shape[0]):
                rat.check_deadline()
                w, beta, col = W[j], b[j], Wn[:, j]
                if all(v == 0 for v in w):
                    if beta > 0:
                        bs[l] = bs[l] + col * beta
                    folded += 1
                    changed = True
                    continue
                m = max(rat.max_abs(w), abs(beta))
                row = tuple(w / m) + (beta / m,)
                key = _int_key(row)
                if key in rows:
                    rows[key] = (row, rows[key][1] + col * m)
                    merged_total += 1
                    changed = True
                else:
                    rows[key] = (row, col * m)
            kept = sorted(rows.values(), key=lambda rc: rc[0])
            n_in = W.shape[1]
            Ws[l - 1] = _stack_rows([np.array(row[:-1], dtype=object) for row, _ in kept], n_in)
            bs[l - 1] = np.array([row[-1] for row, _ in kept], dtype=object)
            Ws[l] = _columns([col for _, col in kept], Wn.shape[0])
    widths = (net.n_inputs,) + tuple(W.shape[0] for W in Ws)
    info = {"dropped": dropped, "merged": merged_total, "constant_folded": folded}
    return CanonicalForm("deep_generic", True, False, widths, {"weights": tuple(Ws), "biases": tuple(bs)}, info)


# ---- (c) three-layer bottleneck ----------------------------------------------------------------


def _fold_layer2(
    U: np.ndarray, beta: np.ndarray, G: np.ndarray, V: np.ndarray, v: np.ndarray, counts: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Step 2 on the orthant: fold ACTIVE rows into (V, v), drop DEAD and silent rows; keep CUT rows.

    Returns the CUT rows and whether any row was folded or dropped.
    """
    keep, active = [], []
    for k in range(U.shape[0]):
        rat.check_deadline()
        u, b, gamma = U[k], beta[k], G[:, k]
        if all(g == 0 for g in gamma):
            counts["silent"] += 1
        elif all(x >= 0 for x in u) and b >= 0:
            active.append(k)
            counts["active"] += 1
        elif all(x <= 0 for x in u) and b <= 0:
            counts["dead"] += 1
        else:
            keep.append(k)
    n1, n3 = U.shape[1], G.shape[0]
    if active:  # the always-active block acts linearly on the orthant
        M = np.concatenate([U[active].reshape(len(active), n1), beta[active].reshape(-1, 1)], axis=1)
        linear = rat.exact_matmul(G[:, active].reshape(n3, len(active)), M)
        V += linear[:, :-1]
        v += linear[:, -1]
    changed = len(keep) < U.shape[0]
    return U[keep].reshape(len(keep), n1), beta[keep], G[:, keep].reshape(n3, len(keep)), changed


def _hidden_pass(
    W1: np.ndarray,
    b1: np.ndarray,
    U: np.ndarray,
    beta: np.ndarray,
    G: np.ndarray,
    V: np.ndarray,
    v: np.ndarray,
    classes: list[str],
) -> bool:
    """Step 3: for each layer-1 neuron whose hyperplane is invisible, flip its constant-active readers
    (symmetry 3) and shift its bias to the canonical end of the valid range (symmetry 6); zero the
    rows of irrelevant neurons. Returns True when some bias moved."""
    n0, n1, n3 = W1.shape[1], W1.shape[0], V.shape[0]
    moved = False
    for i in sorted(range(n1), key=lambda q: tuple(W1[q]) + (b1[q],)):
        rel = [k for k in range(U.shape[0]) if U[k, i] != 0]
        const_active, both = [], False
        for k in rel:
            others = [U[k, q] for q in range(n1) if q != i]
            if beta[k] >= 0 and all(x >= 0 for x in others):
                const_active.append(k)
            elif not (beta[k] <= 0 and all(x <= 0 for x in others)):
                both = True
                break
        if both:
            classes[i] = "preserved"
            continue
        slope = V[:, i] + sum((G[:, k] * U[k, i] for k in const_active), np.array([ZERO] * n3, dtype=object))
        if any(x != 0 for x in slope):
            classes[i] = "preserved"
            continue
        if not rel:
            classes[i] = "irrelevant"
            if any(x != 0 for x in W1[i]) or b1[i] != 0:
                W1[i] = np.array([ZERO] * n0, dtype=object)
                b1[i] = ZERO
            continue
        classes[i] = "hidden"
        for k in const_active:
            V += np.outer(G[:, k], U[k])
            v += G[:, k] * beta[k]
            U[k] = -U[k]
            beta[k] = -beta[k]
        t_star = max(beta[k] / U[k, i] for k in rel)
        if t_star != 0:
            moved = True
            b1[i] += t_star
            for k in rel:
                beta[k] -= U[k, i] * t_star
    return moved


def bottleneck_exact(net: ReLUNet) -> CanonicalForm:
    (W1, W2, W3), (b1, b2, b3) = net.exact_parameters()
    W1, b1, W2, b2, W3 = W1.copy(), b1.copy(), W2.copy(), b2.copy(), W3.copy()
    n0, n1, n2, n3 = net.widths
    # 1. layer-1 rows to unit max-abs weights (W_1 has full row rank, so no row is zero).
    for i in range(n1):
        rat.check_deadline()
        m = rat.max_abs(W1[i])
        W1[i] = W1[i] / m
        b1[i] = b1[i] / m
        W2[:, i] = W2[:, i] * m
    V = np.array([[ZERO] * n1 for _ in range(n3)], dtype=object).reshape(n3, n1)
    v = b3.copy()
    counts = {"active": 0, "dead": 0, "silent": 0}
    classes = ["preserved"] * n1
    U, beta, G = W2, b2, W3
    # 2-3, repeated until stable: a canonical shift can turn a reader ACTIVE (beta = 0, u >= 0) or
    # DEAD, and folding it changes which hyperplanes are hidden.
    for _ in range(n2 + 2):
        U, beta, G, folded = _fold_layer2(U, beta, G, V, v, counts)
        U, beta, G, _ = _kink_form(U, beta, G, V, v)  # merge and orient the CUT neurons
        shifted = _hidden_pass(W1, b1, U, beta, G, V, v, classes)
        if not folded and not shifted:
            break
    counts["cut"] = U.shape[0]
    # 4. sort layer-1 rows, permuting the z-coordinates.
    perm = sorted(range(n1), key=lambda i: tuple(W1[i]) + (b1[i],))
    classes_by_neuron = tuple(classes)
    W1, b1 = W1[perm], b1[perm]
    U = U[:, perm] if U.shape[0] else U.reshape(0, n1)
    V = V[:, perm]
    classes = [classes[i] for i in perm]
    # 5. procedure (a) on the CUT neurons.
    Uc, betac, Gc, stats = _kink_form(U, beta, G, V, v)
    parts = {
        "layer1_weights": W1,
        "layer1_biases": b1,
        "cut_weights": Uc,
        "cut_biases": betac,
        "cut_outputs": Gc,
        "linear": V,
        "offset": v,
    }
    info = {
        "layer1_classes": tuple(classes),
        "layer1_order": tuple(perm),
        "layer1_classes_by_neuron": classes_by_neuron,
        "layer2_counts": counts,
    }
    return CanonicalForm("bottleneck", True, False, (n0, n1, len(betac), n3), parts, info)


def canonical_form_exact(net: ReLUNet, method: str = "auto") -> CanonicalForm:
    if method == "auto":
        method = choose_method(net)
    if method == "affine":
        if net.depth != 1:
            raise ValueError(f"method: 'affine' needs a network without hidden layers, got widths {net.widths}")
        return affine_exact(net)
    if method == "one_hidden_layer":
        if net.depth > 2:
            raise ValueError(f"method: 'one_hidden_layer' needs at most one hidden layer, got widths {net.widths}")
        return one_hidden_layer_exact(net)
    if method == "bottleneck":
        if not is_bottleneck(net):
            raise ValueError(
                f"method: 'bottleneck' needs two hidden layers with n1 <= n0 and W_1 of full row rank, got widths {net.widths}"
            )
        return bottleneck_exact(net)
    as_choice(method, "method", METHODS)
    return deep_generic_exact(net)
