"""Conservation laws of gradient flow induced by the rescaling and GL symmetries."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_array, as_float, as_instance, check_same_length, plain_array
from . import _rational as rat
from ._net import ReLUNet


@dataclass(frozen=True)
class LocalLaw:
    """The GL-symmetry laws of one always-active block: all entries of Q are conserved."""

    layer: int
    neurons: tuple[int, ...]
    Q: np.ndarray


def _parameters(net: ReLUNet, exact: bool) -> tuple[Sequence[np.ndarray], Sequence[np.ndarray]]:
    if exact or net.rational:
        return net.exact_parameters()
    return net.float_parameters()


def conservation_laws(net: ReLUNet, *, exact: bool = False) -> list[np.ndarray]:
    """Per hidden neuron ``h_{l,i} = ||W_l[i, :]||^2 + b_l[i]^2 - ||W_{l+1}[:, i]||^2``.

    Conserved along gradient flow ``theta' = -grad L`` for any loss (the rescaling symmetry). With
    weight decay lambda it decays as ``h(t) = h(0) exp(-2 lambda t)``; momentum breaks it.

    Parameters
    ----------
    net : ReLUNet
        The network.
    exact : bool
        Compute with Fractions (always the case for a rational network).

    Returns
    -------
    list of ndarray
        One array of shape ``(n_l,)`` per hidden layer (Fractions when ``exact`` or the network is
        rational).

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When the squares of the float64 parameters overflow (use ``exact=True``).

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, conservation_laws
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> conservation_laws(net)
    [array([1.  , 1.25])]
    """
    as_instance(net, "net", ReLUNet)
    Ws, bs = _parameters(net, exact)
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for l in range(net.depth - 1):
            W, b, Wn = Ws[l], bs[l], Ws[l + 1]
            out.append((W * W).sum(axis=1) + b * b - (Wn * Wn).sum(axis=0))
    if any(h.dtype != object and not np.all(np.isfinite(h)) for h in out):
        raise ValueError("net: parameters too large, their squares overflow float64; use exact=True")
    return out


def _check_grads(net: ReLUNet, grads: Any) -> tuple[list[np.ndarray], list[np.ndarray]]:
    if not isinstance(grads, (list, tuple)) or len(grads) != 2:
        raise TypeError("grads: expected (weight_gradients, bias_gradients), two lists with one array per layer")
    gW, gb = grads
    if len(gW) != net.depth or len(gb) != net.depth:
        raise ValueError(
            f"grads: expected {net.depth} weight and {net.depth} bias gradients, got {len(gW)} and {len(gb)}"
        )
    outW: list[np.ndarray] = []
    outb: list[np.ndarray] = []
    for l, (W, b) in enumerate(zip(net.weights, net.biases, strict=False)):
        for name, g, ref, store in ((f"grads[0][{l}]", gW[l], W, outW), (f"grads[1][{l}]", gb[l], b, outb)):
            if net.rational or plain_array(g, name).dtype == object:
                arr = plain_array(g, name, dtype=object)
                if arr.shape != ref.shape:
                    raise ValueError(f"{name}: expected shape {ref.shape}, got {arr.shape}")
                store.append(rat.fraction_array(arr))
            else:
                store.append(as_array(g, name, shape=ref.shape))
    return outW, outb


def gd_drift(net: ReLUNet, grads: Any, eta: Any) -> list[np.ndarray]:
    """Exact change of every ``h_{l,i}`` in one gradient-descent step ``theta -> theta - eta g``.

    ``h(theta - eta g) - h(theta) = eta^2 (||g_in||^2 - ||g_out||^2)`` where ``g_in`` is the gradient
    of the neuron's incoming weights and bias and ``g_out`` that of its outgoing weights: the linear
    term vanishes because ``<w_in, g_in> = <w_out, g_out>`` for the gradient of any loss. With exact
    (rational) network, gradients and step the identity is exact, so it validates GD trajectories.

    Parameters
    ----------
    net : ReLUNet
        The network at theta.
    grads : (list of arrays, list of arrays)
        Gradients of the loss with respect to ``weights`` and ``biases`` (see :func:`neuron_gradients`).
    eta : float or Fraction
        The step size (a Fraction, a rational network or Fraction gradients give exact drifts).

    Returns
    -------
    list of ndarray
        Per hidden layer, the change of each ``h_{l,i}`` (see :func:`conservation_laws`).

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When the gradients do not match the network, or the drift overflows float64.

    Examples
    --------
    One gradient-descent step on the squared error changes the rescaling laws by the drift:

    >>> import numpy as np
    >>> from paperkernels.relu import ReLUNet, conservation_laws, gd_drift, neuron_gradients
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> loss, (gW, gb) = neuron_gradients(net, [[3.0, 1.0], [1.0, 2.0]], [[-6.0], [1.0]])
    >>> stepped = ReLUNet([W - 0.1 * g for W, g in zip(net.weights, gW)],
    ...                   [b - 0.1 * g for b, g in zip(net.biases, gb)])
    >>> drift = gd_drift(net, (gW, gb), 0.1)
    >>> np.round(drift[0], 6)
    array([ 0.004375, -2.073125])
    >>> bool(np.allclose(conservation_laws(stepped)[0] - conservation_laws(net)[0], drift[0]))
    True
    """
    as_instance(net, "net", ReLUNet)
    gW, gb = _check_grads(net, grads)
    from fractions import Fraction

    if isinstance(eta, Fraction) or net.rational or gW[0].dtype == object:
        eta = Fraction(eta)
    else:
        eta = as_float(eta, "eta")
    out = []
    with np.errstate(over="ignore", invalid="ignore"):
        for l in range(net.depth - 1):
            g_in = (gW[l] * gW[l]).sum(axis=1) + gb[l] * gb[l]
            g_out = (gW[l + 1] * gW[l + 1]).sum(axis=0)
            out.append(eta * eta * (g_in - g_out))
    if any(d.dtype != object and not np.all(np.isfinite(d)) for d in out):
        raise ValueError(
            "eta: the drift eta^2 (|g_in|^2 - |g_out|^2) overflows float64; pass Fractions for exact values"
        )
    return out


def neuron_gradients(net: ReLUNet, X: Any, Y: Any) -> tuple[float, tuple[list[np.ndarray], list[np.ndarray]]]:
    """Mean squared error ``L = mean_n ||f(x_n) - y_n||^2 / 2`` and its gradient (float64).

    Parameters
    ----------
    net : ReLUNet
        The network.
    X : array of shape (N, n0)
        Inputs.
    Y : array of shape (N, n_outputs)
        Targets.

    Returns
    -------
    loss : float
        The mean squared error.
    grads : (list of ndarray, list of ndarray)
        ``(weight_gradients, bias_gradients)`` in the layout of :func:`gd_drift`.

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When ``X`` or ``Y`` is malformed, or the loss or its gradient overflows float64.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, neuron_gradients
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> loss, (gW, gb) = neuron_gradients(net, [[3.0, 1.0]], [[-6.0]])
    >>> loss, gb[1]
    (0.125, array([-0.5]))
    """
    as_instance(net, "net", ReLUNet)
    X = as_array(X, "X", shape=(None, net.n_inputs))
    Y = as_array(Y, "Y", shape=(None, net.n_outputs))
    check_same_length([("X", len(X)), ("Y", len(Y))])
    Ws, bs = net._float_parameters_checked("net")
    with np.errstate(over="ignore", invalid="ignore"):
        zs, pres = [X], []
        for W, b in zip(Ws[:-1], bs[:-1], strict=False):
            pre = zs[-1] @ W.T + b
            pres.append(pre)
            zs.append(np.maximum(pre, 0.0))
        out = zs[-1] @ Ws[-1].T + bs[-1]
        n = len(X)
        resid = out - Y
        loss = 0.5 * float(np.sum(resid * resid)) / n
        delta = resid / n
        gW: list[np.ndarray] = [None] * net.depth  # type: ignore[list-item]
        gb: list[np.ndarray] = [None] * net.depth  # type: ignore[list-item]
        for l in range(net.depth - 1, -1, -1):
            gW[l] = delta.T @ zs[l]
            gb[l] = delta.sum(axis=0)
            if l > 0:
                delta = (delta @ Ws[l]) * (pres[l - 1] > 0)
    if not (np.isfinite(loss) and all(np.all(np.isfinite(g)) for g in gW + gb)):
        raise ValueError("net: the loss or its gradient overflows float64 (parameters or data too large); rescale them")
    return loss, (gW, gb)


def local_conservation_laws(net: ReLUNet, X: Any, *, exact: bool = False) -> list[LocalLaw]:
    """The extra laws of always-active blocks on the data (the GL symmetry).

    For each hidden layer, S = the neurons whose pre-activation is > 0 at every row of ``X``; all
    entries of ``Q_S = M_S M_S^T - W_{l+1}[:, S]^T W_{l+1}[:, S]`` (``M_S = [W_l b_l]_S``) are
    conserved along gradient flow of any loss on ``X`` while the activation pattern stays constant.
    The diagonal repeats the rescaling laws; the off-diagonal entries are new. The hidden-bias shift
    induces no law.

    Parameters
    ----------
    net : ReLUNet
        The network.
    X : array of shape (N, n0)
        The data.
    exact : bool
        Decide the activation pattern and compute Q exactly.

    Returns
    -------
    list of LocalLaw
        One per hidden layer with an always-active block: ``layer`` (1-based), ``neurons`` (S) and
        ``Q`` (the conserved matrix).

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When ``X`` is malformed.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, local_conservation_laws
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> [law] = local_conservation_laws(net, [[3.0, 1.0], [2.0, 0.5]])
    >>> law.layer, law.neurons
    (1, (0, 1))
    >>> law.Q
    array([[1.  , 0.5 ],
           [0.5 , 1.25]])
    """
    as_instance(net, "net", ReLUNet)
    X = as_array(X, "X", shape=(None, net.n_inputs))
    pattern = net.activation_pattern(X, exact=exact)
    Ws, bs = _parameters(net, exact)
    laws = []
    for l, act in enumerate(pattern):
        S = tuple(int(j) for j in np.flatnonzero(np.all(act, axis=0)))
        if not S:
            continue
        M = np.concatenate([Ws[l][list(S)], bs[l][list(S)].reshape(-1, 1)], axis=1)
        V = Ws[l + 1][:, list(S)]
        laws.append(LocalLaw(l + 1, S, np.dot(M, M.T) - np.dot(V.T, V)))
    return laws
