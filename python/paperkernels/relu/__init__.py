"""Parameter symmetries, fibers and exact functional equivalence of ReLU networks.

After "The Symmetries of Three-Layer ReLU Networks" (Gegenfurtner, Grillo, Montufar, arXiv 2605.18319)
and "Most ReLU Networks Admit Identifiable Parameters" (Grillo, Montufar, arXiv 2605.03601). Only the
papers' abstracts were available: the bottleneck canonical form is our reconstruction, sound by
construction (every step is a function-preserving move) but not complete (``complete=False``);
:func:`equivalent` settles what the canonical forms leave open with an exact enumeration of the joint
linear regions of the two networks on all of R^n0 (or on a box).

Main entry points
-----------------
ReLUNet
    A fully connected ReLU network with float64 or exact rational parameters.
moves
    The symmetries 1-6 as moves with their validity conditions.
canonical_form(net, method="auto", exact=False)
    One-hidden-layer (complete), three-layer bottleneck (symmetry-aware) or generic deep form.
equivalent(a, b, domain=None, exact=False) -> Verdict
    Functional equivalence, globally or on a box: True only with a proof, False only with an exact
    witness inside the domain, otherwise None with the reason.
fiber_description, functional_dimension, conservation_laws, gd_drift, local_conservation_laws
    Fibers, Jacobian rank, and the conservation laws of gradient flow.
"""

from __future__ import annotations

from .._validation import as_choice, as_instance
from . import moves
from ._canonical import CanonicalForm, canonical_form_exact, choose_method, is_bottleneck
from ._conservation import conservation_laws, gd_drift, local_conservation_laws, neuron_gradients
from ._equivalence import Verdict, _interrupts_intact, equivalent
from ._fiber import FiberDescription, fiber_description, functional_dimension
from ._net import ReLUNet

__all__ = [
    "ReLUNet",
    "moves",
    "CanonicalForm",
    "canonical_form",
    "is_bottleneck",
    "Verdict",
    "equivalent",
    "FiberDescription",
    "fiber_description",
    "functional_dimension",
    "conservation_laws",
    "local_conservation_laws",
    "gd_drift",
    "neuron_gradients",
]


@_interrupts_intact
def canonical_form(net: ReLUNet, method: str = "auto", *, exact: bool = False) -> CanonicalForm:
    """Canonical form of a network's parameters.

    Parameters
    ----------
    net : ReLUNet
        The network.
    method : {"auto", "affine", "one_hidden_layer", "bottleneck", "deep_generic"}
        ``"auto"``: ``one_hidden_layer`` for L = 2, ``bottleneck`` for three-layer networks with
        n1 <= n0 and W_1 of full row rank, else ``deep_generic``.
    exact : bool
        Force exact rational arithmetic. Otherwise the generic deep form of a float network is computed
        by the C++ float path: every entry carries a rigorous relative error bound, and every decision
        (pivot, order, tie) closer than the bound is settled exactly; degenerate networks (zero,
        constant or duplicate neurons) fall back to the exact path.

    Returns
    -------
    CanonicalForm
        ``parts`` by method:

        - ``one_hidden_layer``: ``f(x) = sum_k C[:, k] relu(Wk[k] . x + bk[k]) + A x + d`` with each
          ``Wk[k]``'s first nonzero entry equal to 1, kinks distinct and sorted: keys
          ``kink_weights``, ``kink_biases``, ``kink_outputs``, ``linear`` (A), ``offset`` (d).
        - ``deep_generic``: ``weights``, ``biases`` of an equivalent network whose hidden rows
          ``[W_l | b_l]`` have unit max-abs and are sorted; zero, constant and duplicate neurons are
          removed.
        - ``bottleneck``: ``layer1_weights``/``layer1_biases`` (rows with unit max-abs weights,
          sorted; hidden neurons bias-shifted canonically, irrelevant ones zero) and, on the orthant,
          ``g(z) = sum_k cut_outputs[:, k] relu(cut_weights[k] . z + cut_biases[k]) + linear z + offset``.

    Raises
    ------
    TypeError
        When ``net`` is not a ReLUNet.
    ValueError
        When ``method`` is unknown or does not apply to the network's architecture.

    Examples
    --------
    Permuting and rescaling hidden neurons does not change the canonical form:

    >>> from paperkernels.relu import ReLUNet, canonical_form, moves
    >>> net = ReLUNet([[[1.0], [-2.0]], [[3.0, 1.0]]], [[0.0, 2.0], [0.0]])
    >>> other = moves.scale(moves.permute(net, 1, [1, 0]), 1, 0, 0.5)
    >>> canonical_form(net) == canonical_form(other)
    True
    >>> canonical_form(net).parts["kink_outputs"]
    array([[Fraction(2, 1), Fraction(3, 1)]], dtype=object)
    """
    as_instance(net, "net", ReLUNet)
    as_choice(method, "method", ("auto", "affine", "one_hidden_layer", "deep_generic", "bottleneck"))
    if method == "auto":
        method = choose_method(net)
    if not exact and method == "deep_generic" and not net.rational:
        from ._fast import deep_form

        form = deep_form(net)
        if form is not None:
            return form
    return canonical_form_exact(net, method)


from .._public import export as _export  # noqa: E402

_export(__name__, globals(), __all__)
