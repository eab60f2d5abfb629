"""The C++ float path of the generic deep canonical form."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ._canonical import CanonicalForm
from ._net import ReLUNet


def deep_handle(net: ReLUNet) -> _core.relu.DeepForm:
    Ws, bs = net.float_parameters()
    return _core.relu.deep_form([np.ascontiguousarray(W) for W in Ws], [np.ascontiguousarray(b) for b in bs])


def deep_form(net: ReLUNet) -> CanonicalForm | None:
    """Float canonical form with exact decisions, or None when the network is degenerate."""
    if net.rational:
        return None
    handle = deep_handle(net)
    if not handle.ok:
        return None

    def parts() -> dict[str, Any]:
        ok, Ws, bs = handle.materialize()
        if not ok:  # a value left the safe float64 range: the exact path has the answer
            from ._canonical import deep_generic_exact

            exact = deep_generic_exact(net).parts
            return {k: tuple(np.array(a, dtype=np.float64) for a in v) for k, v in exact.items()}
        return {"weights": tuple(Ws), "biases": tuple(bs)}

    form = CanonicalForm(
        "deep_generic",
        False,
        False,
        net.widths,
        parts,
        {"dropped": 0, "merged": 0, "constant_folded": 0},
        tuple(handle.relative_error),
        net,
    )
    form._handle = handle  # type: ignore[attr-defined]
    return form


def deep_forms_equal(a: CanonicalForm, b: CanonicalForm) -> bool | None:
    """Exact equality of two float-path forms; None when undecidable here (use the exact path)."""
    ha, hb = getattr(a, "_handle", None), getattr(b, "_handle", None)
    if ha is None or hb is None:
        return None
    result = ha.equals(hb)
    return None if result < 0 else bool(result)


def one_hidden_equal(a: ReLUNet, b: ReLUNet) -> bool | None:
    """Exact equivalence of two float one-hidden-layer networks in C++ (None when not applicable)."""
    if a.rational or b.rational or a.depth != 2 or b.depth != 2:
        return None
    (A1, A2), (a1, a2) = a.float_parameters()
    (B1, B2), (b1, b2) = b.float_parameters()
    return bool(_core.relu.one_hidden_equal(A1, a1, A2, a2, B1, b1, B2, b2))
