"""Exhaustive checks of relu.equivalent and the canonical forms on every network of small one-input
architectures with parameters in a small integer set.

Networks are grouped by their exact function with an independent description
(``relu_reference.function_key_1d``: true breakpoints, their values and the slopes at +-inf, found
with plain-Python Fractions; for two inputs and one first-layer neuron, ``ridge_function_key``: the
normalised direction and the key of the one-dimensional profile). Every verdict must agree with the grouping (True for equal functions,
False with a witness at which the independent evaluator sees different outputs), and equal canonical
forms must imply equal functions.
"""

import itertools
from collections import defaultdict

import numpy as np
import pytest

from paperkernels.relu import ReLUNet, canonical_form, equivalent
from relu_reference import function_key_1d, reference_eval, ridge_function_key


def all_networks(widths, values):
    shapes = []
    for l in range(len(widths) - 1):
        shapes += [(widths[l + 1], widths[l]), (widths[l + 1],)]
    sizes = [int(np.prod(s)) for s in shapes]
    for combo in itertools.product(values, repeat=sum(sizes)):
        pos, arrays = 0, []
        for shape, size in zip(shapes, sizes, strict=False):
            arrays.append(np.array(combo[pos : pos + size], dtype=float).reshape(shape))
            pos += size
        yield arrays[0::2], arrays[1::2]


def form_key(form):
    parts = form.to_rational().parts
    out = [form.method, form.widths]
    for name in sorted(parts):
        value = parts[name]
        arrays = value if isinstance(value, (list, tuple)) else [value]
        out.append((name, tuple((a.shape, tuple(a.flat)) for a in arrays)))
    return tuple(out)


def sweep(widths, values, *, pairs_per_group=3, seed=0):
    """Group every network by function, check verdicts on chosen pairs, and count, per canonical form
    method, the equal pairs whose forms agree. Returns the statistics."""
    nets, lists = [], []
    groups = defaultdict(list)
    for Ws, bs in all_networks(widths, values):
        key_of = function_key_1d if widths[0] == 1 else ridge_function_key
        key = key_of([W.tolist() for W in Ws], [b.tolist() for b in bs])
        groups[key].append(len(nets))
        nets.append(ReLUNet(Ws, bs))
        lists.append(([W.tolist() for W in Ws], [b.tolist() for b in bs]))
    group_of = {i: g for g, members in enumerate(groups.values()) for i in members}
    members = list(groups.values())

    # canonical forms: equal forms imply equal functions; share of equal pairs whose forms agree
    stats = {}
    methods = ["auto"] + (["deep_generic"] if len(widths) > 3 else [])
    for method in methods:
        keys = [form_key(canonical_form(n, method, exact=True)) for n in nets]
        by_form = defaultdict(set)
        for i, k in enumerate(keys):
            by_form[k].add(group_of[i])
        assert all(len(gs) == 1 for gs in by_form.values()), f"{method}: equal forms, different functions"
        per_method = defaultdict(lambda: [0, 0])  # method -> [equal pairs, of which forms agree]
        for group in members:
            by_method = defaultdict(int)
            counts = defaultdict(int)
            for i in group:
                by_method[keys[i][0]] += 1
                counts[keys[i]] += 1
            for m, c in by_method.items():
                per_method[m][0] += c * (c - 1) // 2
            for k, c in counts.items():
                per_method[k[0]][1] += c * (c - 1) // 2
            total = len(group) * (len(group) - 1) // 2
            mixed = total - sum(c * (c - 1) // 2 for c in by_method.values())
            if mixed:
                per_method["different methods"][0] += mixed
        stats[method] = {m: tuple(v) for m, v in per_method.items()}

    # verdicts on chosen pairs, checked against the grouping
    rng = np.random.default_rng(seed)
    checked = {"equal": 0, "different": 0}
    for g, group in enumerate(members):
        others = group[1 : 1 + pairs_per_group]
        for j in others:
            v = equivalent(nets[group[0]], nets[j])
            assert v.equivalent is True and v.proof, (lists[group[0]], lists[j], v)
            checked["equal"] += 1
        h = members[(g + 1) % len(members)]
        for i, j in ((group[0], h[0]), (group[int(rng.integers(len(group)))], h[int(rng.integers(len(h)))])):
            if group_of[i] == group_of[j]:
                continue
            v = equivalent(nets[i], nets[j])
            assert v.equivalent is False and v.proof and v.witness is not None, (lists[i], lists[j], v)
            assert reference_eval(*lists[i], v.witness) != reference_eval(*lists[j], v.witness)
            checked["different"] += 1
    return {"networks": len(nets), "functions": len(members), "checked": checked, "forms": stats}


def test_exhaustive_one_hidden_layer_1_2_1():
    stats = sweep((1, 2, 1), (-1, 0, 1))
    assert stats["networks"] == 3**7
    equal, agree = stats["forms"]["auto"]["one_hidden_layer"]
    assert agree == equal  # the one-hidden-layer form is complete
    print(stats)


def test_exhaustive_deep_1_1_1_1():
    stats = sweep((1, 1, 1, 1), (-1, 0, 1))
    assert stats["networks"] == 3**6 and stats["checked"]["different"] > 0
    print(stats)


def test_exhaustive_two_inputs_2_1_1_1():
    # one first-layer neuron: ridge functions, keyed exactly by their direction and 1-d profile
    stats = sweep((2, 1, 1, 1), (-1, 0, 1), pairs_per_group=2)
    assert stats["networks"] == 3**7 and stats["checked"]["different"] > 0
    print(stats)


@pytest.mark.slow
@pytest.mark.parametrize(
    "widths, values",
    [
        ((1, 2, 1, 1), (-1, 0, 1)),
        ((1, 1, 1, 1), (-2, -1, 0, 1, 2)),
        ((1, 1, 2, 1), (-1, 0, 1)),
        ((2, 1, 2, 1), (-1, 0, 1)),
    ],
)
def test_exhaustive_larger_families(widths, values, request):
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("minutes long: run with -m slow")
    stats = sweep(widths, values, pairs_per_group=2)
    print(widths, values, stats)
