"""Fibers: neuron classes, symmetry directions, and the functional dimension (Jacobian rank)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, overload

import numpy as np

from .._limits import check_result_bytes
from .._seed import as_seed
from .._validation import as_array, as_float, as_instance, as_int
from ._canonical import bottleneck_exact, is_bottleneck
from ._net import FloatParameters, ReLUNet


def _float_params(net: ReLUNet) -> FloatParameters:
    try:
        return net.float_parameters()
    except OverflowError:
        raise ValueError(
            "net: a parameter lies beyond the float64 range (about 1.8e308); the Jacobian needs float64 parameters"
        ) from None


def balanced_parameters(
    Ws: list[np.ndarray], bs: list[np.ndarray]
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    """An equivalent parameter whose hidden rows ``[W_l | b_l]`` have max-abs in [1/2, 1).

    Each hidden neuron is rescaled by a power of two (symmetry 2, exact in float64 away from
    overflow), so every parameter related by a power-of-two rescaling gives the same balanced
    parameter. Returns ``(Ws', bs', log2_factors)`` with ``theta' = theta * 2**log2_factors`` in the
    layout of ``ReLUNet.parameter_vector``.
    """
    e_prev = np.zeros(Ws[0].shape[1], dtype=np.int64)
    outW, outb, logs = [], [], []
    for l, (W, b) in enumerate(zip(Ws, bs, strict=False)):
        if l < len(Ws) - 1:
            scaled = np.ldexp(np.abs(W), -e_prev[None, :])
            m = np.maximum(np.max(scaled, axis=1), np.abs(b))
            e = np.where(m > 0, -np.frexp(m)[1], 0).astype(np.int64)
        else:
            e = np.zeros(W.shape[0], dtype=np.int64)
        eW = e[:, None] - e_prev[None, :]
        outW.append(np.ldexp(W, eW))
        outb.append(np.ldexp(b, e))
        logs.append(np.concatenate([eW.ravel(), e]))
        e_prev = e
    return outW, outb, np.concatenate(logs)


def parameter_jacobian(net: ReLUNet, X: np.ndarray, params: FloatParameters | None = None) -> np.ndarray:
    """Jacobian of theta -> (f(x_1), ..., f(x_N)) in the layout of ``ReLUNet.parameter_vector``."""
    Ws, bs = _float_params(net) if params is None else params
    N = len(X)
    zs, acts = [X], []
    for W, b in zip(Ws[:-1], bs[:-1], strict=False):
        pre = zs[-1] @ W.T + b
        acts.append(pre > 0)
        zs.append(np.maximum(pre, 0.0))
    n_out = net.n_outputs
    blocks = []
    # delta[n, o, j]: derivative of output o at point n with respect to pre-activation j of the layer
    delta = np.broadcast_to(np.eye(n_out), (N, n_out, n_out)).copy()
    for l in range(net.depth - 1, -1, -1):
        gW = np.einsum("noj,nk->nojk", delta, zs[l]).reshape(N, n_out, -1)
        blocks.append(np.concatenate([gW, delta], axis=2))
        if l > 0:
            delta = np.einsum("noj,jk->nok", delta, Ws[l]) * acts[l - 1][:, None, :]
    J = np.concatenate(blocks[::-1], axis=2)
    return J.reshape(N * n_out, -1)


def _default_points(net: ReLUNet, n_points: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n0 = net.n_inputs
    Ws, bs = _float_params(net)
    W1, b1 = Ws[0], bs[0]
    norms = np.linalg.norm(W1, axis=1)
    scale = float(max(1.0, np.max(np.abs(b1)[norms > 0] / norms[norms > 0]))) if np.any(norms > 0) else 1.0
    pts = [rng.normal(size=(n_points // 2, n0)) * scale, rng.normal(size=(n_points - n_points // 2, n0)) * 3 * scale]
    if W1.shape[0] <= n0 and np.linalg.matrix_rank(W1) == W1.shape[0]:
        h = rng.normal(size=(n_points, W1.shape[0])) * np.maximum(1.0, np.abs(b1))
        x, *_ = np.linalg.lstsq(W1, (h - b1).T, rcond=None)
        pts.append(x.T)
    return np.concatenate(pts)


def _check_jacobian_size(net: ReLUNet, n_points: int, name: str) -> None:
    size = 8 * n_points * net.n_outputs * net.n_parameters
    check_result_bytes(
        size,
        name,
        f"a Jacobian of {n_points} points x {net.n_outputs} outputs x {net.n_parameters} parameters",
        "use fewer points",
    )


def _points(net: ReLUNet, points: Any, n_points: int | None, seed: Any) -> np.ndarray:
    if points is None:
        if n_points is None:
            n_points = max(200, 2 * net.n_parameters // max(1, net.n_outputs))
        n_points = as_int(n_points, "n_points", low=1)
        _check_jacobian_size(net, 2 * n_points, "n_points")  # up to n_points latent points are added
        with np.errstate(over="ignore", invalid="ignore"):
            X = _default_points(net, n_points, as_seed(seed))
        return X[np.all(np.isfinite(X), axis=1)]
    X = as_array(points, "points", shape=(None, net.n_inputs))
    _check_jacobian_size(net, len(X), "points")
    return X


@overload
def functional_dimension(
    net: ReLUNet,
    points: Any = None,
    *,
    n_points: int | None = None,
    seed: Any = 0,
    rtol: float = 1e-9,
    return_jacobian: Literal[False] = False,
) -> int: ...


@overload
def functional_dimension(
    net: ReLUNet,
    points: Any = None,
    *,
    n_points: int | None = None,
    seed: Any = 0,
    rtol: float = 1e-9,
    return_jacobian: Literal[True],
) -> tuple[int, np.ndarray]: ...


def functional_dimension(
    net: ReLUNet,
    points: Any = None,
    *,
    n_points: int | None = None,
    seed: Any = 0,
    rtol: float = 1e-9,
    return_jacobian: bool = False,
) -> int | tuple[int, np.ndarray]:
    """Rank of the Jacobian of the parameter-to-function map on a set of points.

    Parameters
    ----------
    net : ReLUNet
        The network (float64 parameters, or rational ones that fit float64).
    points : array of shape (N, n0), optional
        Evaluation points; by default random points at two scales plus, for bottlenecks, latent
        points covering every first-layer activation pattern.
    n_points : int, optional
        Number of default points (default: enough rows for the parameter count, at least 200).
    seed : int or numpy.random.Generator
        Seed of the default points.
    rtol : float
        Singular values below ``rtol * s_max`` count as zero.
    return_jacobian : bool
        Also return the Jacobian.

    Returns
    -------
    rank : int
        The functional dimension (numerical rank of the Jacobian).
    jacobian : ndarray of shape (N * n_outputs, n_parameters)
        Only with ``return_jacobian=True``.

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When an argument is malformed or the Jacobian overflows float64.

    Examples
    --------
    Rescaling each hidden neuron leaves the function unchanged, so the rank of a 2 -> 2 -> 1
    network (9 parameters) is at most 7:

    >>> from paperkernels.relu import ReLUNet, functional_dimension
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> functional_dimension(net)
    7
    """
    as_instance(net, "net", ReLUNet)
    rtol = as_float(rtol, "rtol", low=0.0, high=1.0)
    X = _points(net, points, n_points, seed)
    rank, _, _ = _jacobian_rank(net, X, rtol)
    if return_jacobian:
        return rank, _original_jacobian(net, X)
    return rank


def _jacobian_rank(net: ReLUNet, X: np.ndarray, rtol: float) -> tuple[int, np.ndarray, np.ndarray]:
    """Rank of the Jacobian, computed at the balanced parameter (same rank exactly: the Jacobians at
    theta and at theta' = T theta satisfy J(theta) = J(theta') T with T diagonal and invertible; the
    balanced one is invariant under power-of-two rescalings and better conditioned). Returns
    (rank, right singular vectors of J(theta'), log2 of T)."""
    Ws, bs = _float_params(net)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        Wb, bb, logs = balanced_parameters(Ws, bs)
        J = parameter_jacobian(net, X, (Wb, bb))
    if not np.all(np.isfinite(J)):
        raise ValueError("net: parameters or points too large, the Jacobian overflows float64; rescale them")
    _, s, Vt = np.linalg.svd(J, full_matrices=True)
    rank = int(np.sum(s > rtol * s[0])) if s.size and s[0] > 0 else 0
    return rank, Vt, logs


def _original_jacobian(net: ReLUNet, X: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        J = parameter_jacobian(net, X)
    if not np.all(np.isfinite(J)):
        raise ValueError("net: parameters or points too large, the Jacobian overflows float64; rescale them")
    return J


@dataclass(frozen=True)
class FiberDescription:
    """What the fiber of a parameter looks like locally.

    Attributes
    ----------
    neuron_classes : tuple of tuples of str
        Per hidden layer (1..L-1), per neuron: ``"active"`` (always active on the orthant),
        ``"dead"``, ``"cut"`` (both signs); layer 1 of a general network: ``"constant"`` when its
        weights are zero, else ``"cut"``. For three-layer bottlenecks, layer-1 neurons are
        ``"preserved"``, ``"hidden"`` (their hyperplane is invisible in the function: symmetry 6
        applies) or ``"irrelevant"``.
    symmetry_directions : dict
        Directions generated at this parameter by rescaling (symmetry 2), free dead neurons (4),
        mixing of always-active blocks (5, the off-diagonal part of GL) and hidden-bias shifts (6).
        An accounting of the named moves, not a bound: the fiber can be larger (an always-active
        block feeding fewer outputs than its width has more freedom than GL), which ``dimension``
        measures.
    dimension : int
        Local dimension of the fiber, ``n_parameters - functional_dimension`` (numerical).
    free_directions : ndarray of shape (n_parameters, dimension)
        Orthonormal basis of the Jacobian's null space: the tangent directions of the fiber.
    functional_dimension : int
        Rank of the Jacobian of the parameter-to-function map (see :func:`functional_dimension`).
    n_parameters : int
        Number of parameters.

    Examples
    --------
    >>> from paperkernels.relu import ReLUNet, fiber_description
    >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
    >>> fiber = fiber_description(net)
    >>> fiber.n_parameters, fiber.functional_dimension, fiber.dimension
    (9, 7, 2)
    >>> fiber.symmetry_directions["scaling"]
    2
    """

    neuron_classes: tuple[tuple[str, ...], ...]
    symmetry_directions: dict[str, int]
    dimension: int
    free_directions: np.ndarray
    functional_dimension: int
    n_parameters: int

    @property
    def beyond_scaling(self) -> bool:
        """Whether the fiber is larger than the permutation/scaling orbit (hidden symmetries).

        Returns
        -------
        bool
            True when ``dimension`` exceeds the number of rescaling directions.

        Examples
        --------
        >>> from paperkernels.relu import ReLUNet, fiber_description
        >>> net = ReLUNet([[[1.0, -1.0], [0.5, 2.0]], [[1.0, -2.0]]], [[0.0, 1.0], [0.5]])
        >>> fiber_description(net).beyond_scaling
        False
        """
        return self.dimension > self.symmetry_directions.get("scaling", 0)


def fiber_description(
    net: ReLUNet, points: Any = None, *, n_points: int | None = None, seed: Any = 0, rtol: float = 1e-9
) -> FiberDescription:
    """Classify the neurons, count the symmetry directions, and compute the local fiber dimension.

    Parameters
    ----------
    net : ReLUNet
        The network.
    points : array of shape (N, n0), optional
        Points for the Jacobian (see :func:`functional_dimension`).
    n_points : int, optional
        Number of default points.
    seed : int or numpy.random.Generator
        Seed of the default points.
    rtol : float
        Singular values below ``rtol * s_max`` count as zero.

    Returns
    -------
    FiberDescription
        Neuron classes, symmetry directions, and the fiber's dimension and tangent directions.

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When an argument is malformed or the Jacobian overflows float64.

    Examples
    --------
    The 2 -> 2 -> 1 -> 1 network with a hidden layer-1 hyperplane (symmetry 6):

    >>> from fractions import Fraction as F
    >>> from paperkernels.relu import ReLUNet, fiber_description
    >>> net = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2), 1], [-1], [0]])
    >>> fiber = fiber_description(net)
    >>> fiber.neuron_classes
    (('hidden', 'preserved'), ('cut',))
    >>> fiber.dimension, fiber.beyond_scaling
    (4, True)
    """
    as_instance(net, "net", ReLUNet)
    Ws, bs = net.exact_parameters()
    widths = net.widths
    classes = []
    for l in range(1, net.depth):
        W, b = Ws[l - 1], bs[l - 1]
        layer = []
        for j in range(W.shape[0]):
            w = W[j]
            if l == 1:
                layer.append("constant" if all(v == 0 for v in w) else "cut")
            elif all(v >= 0 for v in w) and b[j] >= 0:
                layer.append("active")
            elif all(v <= 0 for v in w) and b[j] <= 0:
                layer.append("dead")
            else:
                layer.append("cut")
        classes.append(layer)
    if is_bottleneck(net):
        classes[0] = list(bottleneck_exact(net).info["layer1_classes_by_neuron"])
    counts = {"scaling": 0, "dead": 0, "active_mixing": 0, "hidden_shift": 0}
    for l, layer in enumerate(classes, start=1):
        n_active = 0
        for j, c in enumerate(layer):
            if c == "dead" or (c == "constant" and bs[l - 1][j] < 0):
                counts["dead"] += widths[l - 1] + 1 + widths[l + 1]
            elif c == "irrelevant":
                counts["dead"] += widths[l - 1] + 1
            else:
                counts["scaling"] += 1
            if c == "active":
                n_active += 1
            if c == "hidden":
                counts["hidden_shift"] += 1
        counts["active_mixing"] += n_active * n_active - n_active
    rtol = as_float(rtol, "rtol", low=0.0, high=1.0)
    X = _points(net, points, n_points, seed)
    rank, Vt, logs = _jacobian_rank(net, X, rtol)
    n_params = Vt.shape[1]
    # null(J(theta)) = T^-1 null(J(theta')): rescale (by powers of two, shifted so that nothing
    # overflows), then orthonormalise
    shift = -logs - (int(np.max(-logs)) if logs.size else 0)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        free = np.ldexp(Vt[rank:].T, shift[:, None])
    if free.shape[1]:
        free, _ = np.linalg.qr(free)
    if not np.all(np.isfinite(free)):
        raise ValueError("net: the parameters span too many orders of magnitude for float64 free directions")
    return FiberDescription(tuple(tuple(c) for c in classes), counts, n_params - rank, free, rank, n_params)
