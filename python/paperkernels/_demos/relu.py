"""Demo of paperkernels.relu: the hidden symmetries of three-layer networks that permutation and scaling
miss (an always-active block refactored by an invertible G, and the hidden-hyperplane bias shift), after
Gegenfurtner, Grillo and Montufar, "The Symmetries of Three-Layer ReLU Networks" (arXiv 2605.18319), the
hidden symmetries of its abstract; each pair is decided exactly, with a witness where it differs."""

from __future__ import annotations

from fractions import Fraction as F

from .._report import Report


def run(report: Report) -> None:
    from ..relu import ReLUNet, canonical_form, equivalent, fiber_description, moves

    report.line("Hidden symmetries: permutation+scaling calls these pairs different; equivalent() proves them equal.")

    W1 = [[1, -2, F(1, 2)], [F(3, 2), 1, -1]]
    net = ReLUNet(
        [W1, [[1, 2], [F(1, 2), F(1, 4)], [-1, 2]], [[2, -1, F(3, 2)]]],
        [[F(1, 3), F(-1, 2)], [1, 3, F(-1, 2)], [F(1, 5)]],
    )
    gl = moves.mix_active(net, 2, [0, 1], [[1, F(1, 2)], [F(1, 3), 1]])
    same_scale_sort = canonical_form(net, "deep_generic") == canonical_form(gl, "deep_generic")
    report.heading("GL refactoring of an always-active block (3 -> 2 -> 3 -> 1)")
    report.figure("permutation+scaling forms equal", same_scale_sort)
    report.line(str(equivalent(net, gl)))

    a = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2), 1], [-1], [0]])
    shifted = moves.shift_hidden_bias(a, 1, 0, 5)
    report.heading("Hidden-hyperplane bias shift (2 -> 2 -> 1 -> 1, t = 5)")
    report.figure(
        "permutation+scaling forms equal", canonical_form(a, "deep_generic") == canonical_form(shifted, "deep_generic")
    )
    report.figure("layer-1 classes", ", ".join(fiber_description(a).neuron_classes[0]))
    report.line(str(equivalent(a, shifted)))

    too_far = ReLUNet([[[1, 2], [-1, 1]], [[2, -1]], [[3]]], [[F(1, 2) - 1, 1], [1], [0]])
    report.heading("The same shift with t = -1 < t_min = -1/2: a perturbed pair and its witness")
    v = equivalent(a, too_far)
    report.line(str(v))
    assert v.outputs is not None  # a pair that differs carries its witness and both outputs there
    report.figure("f_a(witness), f_b(witness)", f"{v.outputs[0][0]}, {v.outputs[1][0]}")
    box = equivalent(a, too_far, domain=([-4, -4], [4, 4]))
    report.line(str(box))
