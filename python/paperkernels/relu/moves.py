"""The parameter symmetries of ReLU networks as moves: each returns a new network computing the same
function, after checking (exactly) the condition under which the move is a symmetry.

Hidden layers are numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``); neurons are 0-based.
Moves are computed in exact rational arithmetic; the result keeps float64 parameters when every new
parameter is exactly a float64 value, and becomes a rational network otherwise.

"Always active" and "dead" are decided on the nonnegative orthant, which contains the image of every
hidden layer (for layer 1 on all of R^{n0}, where only constant neurons qualify). For a three-layer
bottleneck network (W_1 of full row rank) the image of layer 1 is the whole orthant, so the test is
exact there; elsewhere it is a sufficient condition and a valid move may be refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from .._validation import as_int, plain_array
from . import _rational as rat
from ._net import ReLUNet

__all__ = [
    "MoveError",
    "permute",
    "scale",
    "flip",
    "perturb_dead",
    "mix_active",
    "shift_hidden_bias",
    "shift_bounds",
    "is_always_active",
    "is_dead",
]


class MoveError(ValueError):
    """The requested move is not a symmetry of this network (its validity condition fails).

    A subclass of ValueError: the arguments are well formed, but the network does not satisfy the
    condition under which the move preserves the function.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0, -1.0], [2.0, 1.0], [0.0, 0.0]], [[1.0, 2.0, 3.0]]], [[0.0, 1.0, 2.0], [0.5]])
    >>> try:
    ...     moves.scale(net, 1, 0, -2.0)
    ... except moves.MoveError as exc:
    ...     print(exc)
    s: expected a positive scale, got -2
    """


def _layers(net: ReLUNet) -> tuple[list[np.ndarray], list[np.ndarray]]:
    Ws, bs = net.exact_parameters()
    return [W.copy() for W in Ws], [b.copy() for b in bs]


def _rebuild(net: ReLUNet, Ws: Sequence[np.ndarray], bs: Sequence[np.ndarray]) -> ReLUNet:
    if not net.rational and all(rat.exactly_float(a) for a in list(Ws) + list(bs)):
        return ReLUNet([rat.float_array(W) for W in Ws], [rat.float_array(b) for b in bs], dtype="float64")
    return ReLUNet(list(Ws), list(bs), dtype="rational")


def _check_layer(net: ReLUNet, layer: Any, *, below_last: bool = False) -> int:
    index = as_int(layer, "layer")
    last = net.depth - 2 if below_last else net.depth - 1
    if not 1 <= index <= last:
        what = "a hidden layer followed by another hidden layer" if below_last else "a hidden layer"
        raise ValueError(f"layer: expected {what}, an integer in [1, {last}] for widths {net.widths}, got {index}")
    return index


def _check_neuron(net: ReLUNet, layer: int, neuron: Any, name: str = "neuron") -> int:
    return as_int(neuron, name, low=0, high=net.widths[layer] - 1)


def _as_fraction_array(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    arr = plain_array(value, name, dtype=object)
    if arr.shape != shape:
        raise ValueError(f"{name}: expected shape {shape}, got {arr.shape}")
    out = np.empty(shape, dtype=object)
    for idx, v in np.ndenumerate(arr):
        out[idx] = rat.exact_real(v, name)
    return out


def is_always_active(net: ReLUNet, layer: int, neuron: int) -> bool:
    """Whether a neuron's pre-activation is >= 0 on the whole image of the previous layer.

    Tested exactly, on the nonnegative orthant for layers >= 2 (see the module notes).

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neuron : int
        Neuron index in the layer (0-based).

    Returns
    -------
    bool
        True when the neuron is always active (its ReLU acts as the identity).

    Raises
    ------
    ValueError, TypeError
        When ``layer`` or ``neuron`` is not a valid index.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0, -1.0], [2.0, 1.0], [0.0, 0.0]], [[1.0, 2.0, 3.0]]], [[0.0, 1.0, 2.0], [0.5]])
    >>> moves.is_always_active(net, 1, 2), moves.is_always_active(net, 1, 0)
    (True, False)
    """
    layer = _check_layer(net, layer)
    neuron = _check_neuron(net, layer, neuron)
    Ws, bs = net.exact_parameters()
    w, b = Ws[layer - 1][neuron], bs[layer - 1][neuron]
    if layer == 1:
        return all(v == 0 for v in w) and b >= 0
    return all(v >= 0 for v in w) and b >= 0


def is_dead(net: ReLUNet, layer: int, neuron: int) -> bool:
    """Whether a neuron's pre-activation is <= 0 on the whole image of the previous layer.

    Tested exactly, on the nonnegative orthant for layers >= 2 (see the module notes).

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neuron : int
        Neuron index in the layer (0-based).

    Returns
    -------
    bool
        True when the neuron is dead (it always outputs 0).

    Raises
    ------
    ValueError, TypeError
        When ``layer`` or ``neuron`` is not a valid index.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, moves
    >>> net = ReLUNet([[[1.0], [0.0]], [[1.0, 5.0]]], [[0.0, -1.0], [0.0]])
    >>> moves.is_dead(net, 1, 1), moves.is_dead(net, 1, 0)
    (True, False)
    """
    layer = _check_layer(net, layer)
    neuron = _check_neuron(net, layer, neuron)
    Ws, bs = net.exact_parameters()
    w, b = Ws[layer - 1][neuron], bs[layer - 1][neuron]
    if layer == 1:
        return all(v == 0 for v in w) and b <= 0
    return all(v <= 0 for v in w) and b <= 0


def _row_active(layer: int, w: Sequence[Any], b: Any) -> bool:
    return (all(v == 0 for v in w) if layer == 1 else all(v >= 0 for v in w)) and b >= 0


def _row_dead(layer: int, w: Sequence[Any], b: Any) -> bool:
    return (all(v == 0 for v in w) if layer == 1 else all(v <= 0 for v in w)) and b <= 0


def permute(net: ReLUNet, layer: int, perm: Sequence[int]) -> ReLUNet:
    """Symmetry 1: reorder the neurons of a hidden layer.

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    perm : sequence of int
        A permutation of ``0..n_l - 1``: new neuron k is old neuron ``perm[k]``.

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    ValueError, TypeError
        When ``layer`` is not a hidden layer or ``perm`` is not a permutation.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0, -1.0], [2.0, 1.0], [0.0, 0.0]], [[1.0, 2.0, 3.0]]], [[0.0, 1.0, 2.0], [0.5]])
    >>> other = moves.permute(net, 1, [2, 0, 1])
    >>> other.biases[0]
    array([2., 0., 1.])
    >>> bool(equivalent(net, other))
    True
    """
    layer = _check_layer(net, layer)
    perm_arr = np.asarray(perm)
    width = net.widths[layer]
    if perm_arr.shape != (width,) or perm_arr.dtype.kind not in "iu" or sorted(perm_arr.tolist()) != list(range(width)):
        raise ValueError(f"perm: expected a permutation of 0..{width - 1}, got {perm!r}")
    Ws, bs = _layers(net)
    Ws[layer - 1] = Ws[layer - 1][perm_arr]
    bs[layer - 1] = bs[layer - 1][perm_arr]
    Ws[layer] = Ws[layer][:, perm_arr]
    return _rebuild(net, Ws, bs)


def scale(net: ReLUNet, layer: int, neuron: int, s: Any) -> ReLUNet:
    """Symmetry 2: a neuron's incoming weights and bias times ``s > 0``, its outgoing weights divided by ``s``.

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neuron : int
        Neuron index in the layer (0-based).
    s : float, int or Fraction
        The positive scale (exact: a Fraction gives exact parameters).

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    MoveError
        When ``s <= 0``.
    ValueError, TypeError
        When an index is invalid or ``s`` is not a finite real number.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0, -1.0], [2.0, 1.0], [0.0, 0.0]], [[1.0, 2.0, 3.0]]], [[0.0, 1.0, 2.0], [0.5]])
    >>> other = moves.scale(net, 1, 1, 4.0)
    >>> other.weights[0][1], other.weights[1]
    (array([8., 4.]), array([[1. , 0.5, 3. ]]))
    """
    layer = _check_layer(net, layer)
    neuron = _check_neuron(net, layer, neuron)
    s = rat.exact_real(s, "s")
    if s <= 0:
        raise MoveError(f"s: expected a positive scale, got {s}")
    Ws, bs = _layers(net)
    Ws[layer - 1][neuron] = Ws[layer - 1][neuron] * s
    bs[layer - 1][neuron] = bs[layer - 1][neuron] * s
    Ws[layer][:, neuron] = Ws[layer][:, neuron] / s
    return _rebuild(net, Ws, bs)


def flip(
    net: ReLUNet, layer: int, neuron: int, *, pair: tuple[int, int] | None = None, active: Sequence[int] | None = None
) -> ReLUNet:
    """Symmetry 3: ``c relu(u) = c relu(-u) + c u`` with the linear term ``c u`` absorbed.

    The neuron's pre-activation u is negated. The linear term is absorbed by neurons of the same layer:

    - ``pair=(j, k)``: an opposite pair, ``[W|b]_k = -rho [W|b]_j`` (rho > 0) with ``W_j`` parallel to
      ``W_neuron``, which computes ``relu(u_j) - relu(-u_j) = u_j`` (the one-hidden-layer case);
    - ``active=[j, ...]``: always-active neurons whose incoming rows span ``W_neuron``;
    - neither, when the neuron's incoming weights are zero (a constant neuron: only the next bias changes).

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neuron : int
        The neuron to flip (0-based).
    pair : (int, int), optional
        An opposite pair of neurons of the same layer that absorbs the linear term.
    active : sequence of int, optional
        Always-active neurons of the same layer that absorb the linear term.

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    MoveError
        When the chosen neurons cannot absorb the linear term (not an opposite pair, not always
        active, not spanning the neuron's weights), or when neither is given for a non-constant neuron.
    ValueError, TypeError
        When an index is invalid or both ``pair`` and ``active`` are given.

    Examples
    --------
    ``relu(x) = relu(-x) + x``, with ``x = relu(x) - relu(-x)`` computed by an opposite pair:

    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0], [1.0], [-1.0]], [[3.0, 0.0, 0.0]]], [[0.0, 0.0, 0.0], [0.0]])
    >>> flipped = moves.flip(net, 1, 0, pair=(1, 2))
    >>> flipped.weights[0].ravel(), flipped.weights[1].ravel()
    (array([-1.,  1., -1.]), array([ 3.,  3., -3.]))
    >>> bool(equivalent(net, flipped))
    True
    """
    layer = _check_layer(net, layer)
    i = _check_neuron(net, layer, neuron)
    Ws, bs = _layers(net)
    W, b, Wn, bn = Ws[layer - 1], bs[layer - 1], Ws[layer], bs[layer]
    c = Wn[:, i].copy()
    w_i, b_i = W[i].copy(), b[i]
    if pair is not None and active is not None:
        raise ValueError("pair, active: expected at most one way of absorbing the linear term")
    if all(v == 0 for v in w_i):
        bn += c * b_i
    elif pair is not None:
        if len(tuple(pair)) != 2:
            raise ValueError(f"pair: expected two neuron indices (j, k), got {pair!r}")
        j = _check_neuron(net, layer, pair[0], "pair[0]")
        k = _check_neuron(net, layer, pair[1], "pair[1]")
        if len({i, j, k}) != 3:
            raise MoveError(f"pair: expected two neurons different from each other and from neuron {i}, got {pair!r}")
        row_j = np.concatenate([W[j], [b[j]]])
        row_k = np.concatenate([W[k], [b[k]]])
        p = next(q for q in range(len(row_j)) if row_j[q] != 0) if any(v != 0 for v in row_j) else None
        rho = -row_k[p] / row_j[p] if p is not None else None
        if rho is None or rho <= 0 or any(row_k[q] != -rho * row_j[q] for q in range(len(row_j))):
            raise MoveError(f"pair: neurons {j} and {k} are not an opposite pair ([W|b]_k = -rho [W|b]_j, rho > 0)")
        p = next(q for q in range(len(w_i)) if w_i[q] != 0)
        lam = W[j][p] / w_i[p]
        if lam == 0 or any(W[j][q] != lam * w_i[q] for q in range(len(w_i))):
            raise MoveError(f"pair: the weights of neuron {j} are not parallel to those of neuron {i}")
        # c u_i = (c / lam) (z_j - z_k / rho) + c (b_i - b_j / lam)
        Wn[:, j] += c / lam
        Wn[:, k] -= c / (lam * rho)
        bn += c * (b_i - b[j] / lam)
    elif active is not None:
        S = [_check_neuron(net, layer, j, "active") for j in active]
        if i in S or len(set(S)) != len(S) or not S:
            raise MoveError(f"active: expected distinct neurons other than {i}, got {list(active)!r}")
        for j in S:
            if not _row_active(layer, W[j], b[j]):
                raise MoveError(f"active: neuron {j} of layer {layer} is not always active")
        alpha = rat.solve_exact(W[S].T, w_i)
        if alpha is None:
            raise MoveError(f"active: the weights of neuron {i} are not in the span of neurons {S}")
        for a, j in zip(alpha, S, strict=False):
            Wn[:, j] += c * a
        bn += c * (b_i - sum((a * b[j] for a, j in zip(alpha, S, strict=False)), Fraction(0)))
    else:
        raise MoveError(f"neuron {i} has nonzero weights: pass pair=(j, k) or active=[...] to absorb the linear term")
    W[i] = -w_i
    b[i] = -b_i
    return _rebuild(net, Ws, bs)


def perturb_dead(
    net: ReLUNet, layer: int, neuron: int, *, weights: Any = None, bias: Any = None, outgoing: Any = None
) -> ReLUNet:
    """Symmetry 4: a dead neuron's parameters are free as long as it stays dead.

    The neuron must be dead on the image of the previous layer, and stay dead with the new incoming
    ``weights``/``bias``; its ``outgoing`` weights (column of W_{l+1}) are then arbitrary.

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neuron : int
        The dead neuron (0-based).
    weights : array of shape (n_{l-1},), optional
        New incoming weights (default: unchanged).
    bias : float, int or Fraction, optional
        New bias (default: unchanged).
    outgoing : array of shape (n_{l+1},), optional
        New outgoing weights (default: unchanged).

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    MoveError
        When the neuron is not dead, or would not stay dead with the new weights and bias.
    ValueError, TypeError
        When an index or a value is invalid.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, moves
    >>> net = ReLUNet([[[1.0], [0.0]], [[1.0, 5.0]]], [[0.0, -1.0], [0.0]])
    >>> moves.perturb_dead(net, 1, 1, bias=-7.0, outgoing=[2.0]).biases[0]
    array([ 0., -7.])
    """
    layer = _check_layer(net, layer)
    i = _check_neuron(net, layer, neuron)
    Ws, bs = _layers(net)
    if not _row_dead(layer, Ws[layer - 1][i], bs[layer - 1][i]):
        raise MoveError(f"neuron {i} of layer {layer} is not dead")
    if weights is not None:
        Ws[layer - 1][i] = _as_fraction_array(weights, "weights", (net.widths[layer - 1],))
    if bias is not None:
        bs[layer - 1][i] = rat.exact_real(bias, "bias")
    if not _row_dead(layer, Ws[layer - 1][i], bs[layer - 1][i]):
        raise MoveError(f"the new weights/bias would make neuron {i} of layer {layer} alive")
    if outgoing is not None:
        Ws[layer][:, i] = _as_fraction_array(outgoing, "outgoing", (net.widths[layer + 1],))
    return _rebuild(net, Ws, bs)


def mix_active(net: ReLUNet, layer: int, neurons: Sequence[int], G: Any) -> ReLUNet:
    """Symmetry 5: ``[W_l b_l]_S -> G [W_l b_l]_S`` and ``W_{l+1}[:, S] -> W_{l+1}[:, S] G^{-1}``.

    S must be always active, G invertible, and the new block must still be always active.

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
    neurons : sequence of int
        The always-active block S (distinct indices).
    G : array of shape (len(S), len(S))
        An invertible matrix (floats, integers or Fractions: computed exactly).

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    MoveError
        When S is not always active, G is singular, or the new block would not stay always active.
    ValueError, TypeError
        When an index or ``G`` is invalid.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [3.0, 1.0]], [[1.0, -1.0]]],
    ...               [[0.0, 0.0], [1.0, 2.0], [0.0]])
    >>> mixed = moves.mix_active(net, 2, [0, 1], [[1, Fraction(1, 2)], [0, 1]])
    >>> mixed.rational, bool(equivalent(net, mixed))
    (False, True)
    """
    layer = _check_layer(net, layer)
    S = [_check_neuron(net, layer, j, "neurons") for j in neurons]
    if not S or len(set(S)) != len(S):
        raise ValueError(f"neurons: expected distinct neuron indices, got {list(neurons)!r}")
    Gf = _as_fraction_array(G, "G", (len(S), len(S)))
    Ginv = rat.inverse(Gf)
    if Ginv is None:
        raise MoveError("G: expected an invertible matrix")
    Ws, bs = _layers(net)
    W, b = Ws[layer - 1], bs[layer - 1]
    for j in S:
        if not _row_active(layer, W[j], b[j]):
            raise MoveError(f"neurons: neuron {j} of layer {layer} is not always active")
    M = np.concatenate([W[S], b[S].reshape(-1, 1)], axis=1)
    new = np.dot(Gf, M)
    for r in range(len(S)):
        if not _row_active(layer, new[r, :-1], new[r, -1]):
            raise MoveError("G: the mixed block would not stay always active")
    W[S] = new[:, :-1]
    b[S] = new[:, -1]
    Ws[layer][:, S] = np.dot(Ws[layer][:, S], Ginv)
    return _rebuild(net, Ws, bs)


def shift_bounds(net: ReLUNet, layer: int, neuron: int) -> Fraction | None:
    """Smallest valid shift t of :func:`shift_hidden_bias` (None if -inf, i.e. no neuron reads it).

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
        It must be followed by another hidden layer.
    neuron : int
        The neuron whose bias would shift (0-based).

    Returns
    -------
    Fraction or None
        The smallest valid ``t``; None when no neuron of the next layer reads the neuron (any ``t``).

    Raises
    ------
    MoveError
        When the hidden-hyperplane condition fails.
    ValueError, TypeError
        When an index is invalid.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from paperkernels.relu import ReLUNet, moves
    >>> net = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2), 1], [-1], [0]])
    >>> moves.shift_bounds(net, 1, 0)
    Fraction(-1, 2)
    """
    layer = _check_layer(net, layer, below_last=True)
    i = _check_neuron(net, layer, neuron)
    Ws, bs = net.exact_parameters()
    U, beta = Ws[layer], bs[layer]
    t_min = None
    for k in range(U.shape[0]):
        u = U[k]
        if u[i] == 0:
            continue
        if u[i] < 0 or beta[k] > 0 or any(u[m] > 0 for m in range(len(u)) if m != i):
            raise MoveError(
                f"neuron {k} of layer {layer + 1} reads neuron {i} but is not inactive on its facet "
                "(needs u_ki > 0, beta_k <= 0 and u_kl <= 0 for l != i)"
            )
        bound = beta[k] / u[i]
        t_min = bound if t_min is None else max(t_min, bound)
    return t_min


def shift_hidden_bias(net: ReLUNet, layer: int, neuron: int, t: Any) -> ReLUNet:
    """Symmetry 6: ``b_l[i] += t`` and ``b_{l+1}[k] -= W_{l+1}[k, i] t`` for every k reading neuron i.

    Valid when every neuron k of layer l+1 with ``W_{l+1}[k, i] != 0`` is inactive on the facet
    ``z_i = 0`` of the orthant (``W_{l+1}[k, i] > 0``, ``b_{l+1}[k] <= 0``, ``W_{l+1}[k, l'] <= 0``
    otherwise) and ``t >= max_k b_{l+1}[k] / W_{l+1}[k, i]`` (see :func:`shift_bounds`).

    Parameters
    ----------
    net : ReLUNet
        The network (float64 or rational).
    layer : int
        Hidden layer, numbered 1..L-1 as in the paper (``W_l = net.weights[l-1]``).
        It must be followed by another hidden layer.
    neuron : int
        The neuron i whose bias shifts (0-based).
    t : float, int or Fraction
        The shift, at least :func:`shift_bounds`.

    Returns
    -------
    ReLUNet
        A new network computing the same function (float64 when every new parameter is exactly a
        float64 value, else rational).

    Raises
    ------
    MoveError
        When the condition fails or ``t`` is below the bound.
    ValueError, TypeError
        When an index or ``t`` is invalid.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from paperkernels.relu import ReLUNet, equivalent, moves
    >>> net = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2), 1], [-1], [0]])
    >>> shifted = moves.shift_hidden_bias(net, 1, 0, 5)
    >>> shifted.biases[0], shifted.biases[1]
    (array([Fraction(11, 2), Fraction(1, 1)], dtype=object), array([Fraction(-11, 1)], dtype=object))
    >>> bool(equivalent(net, shifted))
    True
    """
    layer = _check_layer(net, layer, below_last=True)
    i = _check_neuron(net, layer, neuron)
    t = rat.exact_real(t, "t")
    t_min = shift_bounds(net, layer, i)
    if t_min is not None and t < t_min:
        raise MoveError(f"t: expected t >= {t_min} for this hidden-hyperplane shift, got {t}")
    Ws, bs = _layers(net)
    bs[layer - 1][i] += t
    bs[layer] = bs[layer] - Ws[layer][:, i] * t
    return _rebuild(net, Ws, bs)


from .._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
