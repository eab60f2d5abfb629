"""paperkernels.relu: symmetries, canonical forms and exact functional equivalence."""

from fractions import Fraction as F

import numpy as np
import pytest

from paperkernels.relu import (
    ReLUNet,
    canonical_form,
    conservation_laws,
    equivalent,
    fiber_description,
    functional_dimension,
    gd_drift,
    local_conservation_laws,
    moves,
    neuron_gradients,
)
from relu_reference import plant_hidden, plant_structure, random_moves, random_net, ref

BOX2 = ([-3, -3], [3, 3])


def regions_equal(a, b, lo, hi):
    """Exact region enumeration used as the referee: True iff equal on the box."""
    v = equivalent(a, b, domain=(lo, hi), procedure="regions", n_samples=0, max_regions=10**6)
    assert v.proof
    return v.equivalent


def assert_witness(v, a, b):
    assert v.equivalent is False and v.proof and v.witness is not None
    assert ref(a, v.witness) != ref(b, v.witness)
    assert list(v.outputs[0]) == ref(a, v.witness) and list(v.outputs[1]) == ref(b, v.witness)


# ---- ReLUNet -----------------------------------------------------------------------------------


def test_evaluation_matches_reference():
    rng = np.random.default_rng(1)
    net = random_net([3, 4, 3, 2], rng)
    X = np.array([[F(1, 3), F(-2), F(5, 7)], [F(0), F(1, 2), F(-3, 4)]], dtype=object)
    exact = net.evaluate(X, exact=True)
    for x, y in zip(X, exact, strict=False):
        assert list(y) == ref(net, x)
    assert np.allclose(net.to_float()(np.array(X, dtype=float)), np.array(exact, dtype=float))
    pattern = net.activation_pattern(X, exact=True)
    assert [p.shape for p in pattern] == [(2, 4), (2, 3)]


def test_float_and_rational_parameters():
    net = ReLUNet([[[1.5, -2.0]], [[3.0]]], [[0.25], [1.0]])
    assert not net.rational and net.widths == (2, 1, 1)
    q = ReLUNet([[[F(1, 3), 1]], [[2]]], [[0], [0]])
    assert q.rational and q.weights[0][0, 0] == F(1, 3)
    assert net.to_rational().same_parameters(net)
    assert ReLUNet.from_parameter_vector(net.widths, net.parameter_vector()).same_parameters(net)


@pytest.mark.parametrize(
    "weights,biases,match",
    [
        ([np.ones((2, 3)), np.ones((1, 3))], [np.ones(2), np.ones(1)], r"weights\[1\]: expected 2 columns"),
        ([np.ones((2, 3)), np.ones((1, 2))], [np.ones(2), np.ones(2)], r"biases\[1\]: expected shape \(1,\)"),
        ([np.ones((2, 3))], [np.ones(2), np.ones(1)], "biases: expected 1 arrays"),
        ([np.ones((0, 3)), np.ones((1, 0))], [np.ones(0), np.ones(1)], r"weights\[0\]: expected a non-empty"),
        ([np.array([[1.0, np.nan]])], [np.ones(1)], r"weights\[0\]: expected finite"),
        ([np.ones((1, 2))], [np.array([np.inf])], r"biases\[0\]: expected finite"),
        ([np.ones(3)], [np.ones(1)], r"weights\[0\]: expected a 2-d array"),
    ],
)
def test_bad_networks(weights, biases, match):
    with pytest.raises(ValueError, match=match):
        ReLUNet(weights, biases)


def test_bad_types_and_points():
    with pytest.raises(TypeError, match="weights: expected a non-empty list"):
        ReLUNet([], [])
    with pytest.raises(TypeError, match=r"weights\[0\]"):
        ReLUNet([[["a"]]], [[0]])
    net = ReLUNet([np.ones((2, 3)), np.ones((1, 2))], [np.zeros(2), np.zeros(1)])
    with pytest.raises(ValueError, match=r"x: expected shape \(3,\)"):
        net(np.ones(2))
    with pytest.raises(ValueError, match="x: expected finite"):
        net(np.array([1.0, np.nan, 0.0]))


def test_equivalent_rejects_mismatched_pairs():
    a = ReLUNet([np.ones((2, 3)), np.ones((1, 2))], [np.zeros(2), np.zeros(1)])
    b = ReLUNet([np.ones((2, 2)), np.ones((1, 2))], [np.zeros(2), np.zeros(1)])
    c = ReLUNet([np.ones((2, 3)), np.ones((2, 2))], [np.zeros(2), np.zeros(2)])
    with pytest.raises(ValueError, match="b: expected a network with 3 inputs"):
        equivalent(a, b)
    with pytest.raises(ValueError, match="b: expected a network with 1 outputs"):
        equivalent(a, c)
    with pytest.raises(TypeError, match="b: expected a ReLUNet"):
        equivalent(a, "net")
    with pytest.raises(ValueError, match="domain: expected low < high"):
        equivalent(a, a, domain=([0, 0, 0], [1, 0, 1]))
    with pytest.raises(ValueError, match=r"domain: expected \(low, high\)"):
        equivalent(a, a, domain=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="domain: expected finite"):
        equivalent(a, a, domain=([0, 0, np.nan], [1, 1, 1]))
    with pytest.raises(ValueError, match="procedure: expected one of"):
        equivalent(a, a, procedure="magic")


# ---- exact oracles ---------------------------------------------------------------------------------


def odd_pair():
    a = ReLUNet([[[1], [-1]], [[1, -1]]], [[0, 0], [0]], dtype="rational")
    b = ReLUNet([[[1], [-1]], [[1, -1]]], [[1, -1], [-1]], dtype="rational")
    return a, b


def test_oracle_identity_two_ways():
    a, b = odd_pair()
    v = equivalent(a, b)
    assert v.equivalent is True and v.proof and v.scope == "global" and "one_hidden_layer" in v.procedure
    # not related by permutation + scaling
    assert canonical_form(a, "deep_generic") != canonical_form(b, "deep_generic")
    for x in (F(-3), F(1, 2), F(7)):
        assert ref(a, [x]) == ref(b, [x]) == [x]


def test_oracle_merge_and_silent_neuron():
    a = ReLUNet([[[1], [1]], [[2, 3]]], [[-1, -1], [0]], dtype="rational")
    b = ReLUNet([[[1], [2]], [[5, 0]]], [[-1, 7], [0]], dtype="rational")
    assert canonical_form(a) == canonical_form(b)
    assert equivalent(a, b).equivalent is True


def gl_pair():
    W1 = [[1, -2, F(1, 2)], [F(3, 2), 1, -1]]
    b1 = [F(1, 3), F(-1, 2)]
    W2 = [[1, 2], [F(1, 2), F(1, 4)], [-1, 2]]
    b2 = [1, 3, F(-1, 2)]
    net = ReLUNet([W1, W2, [[2, -1, F(3, 2)]]], [b1, b2, [F(1, 5)]])
    G = [[1, F(1, 2)], [F(1, 3), 1]]
    return net, moves.mix_active(net, 2, [0, 1], G)


def test_oracle_gl_refactoring():
    net, other = gl_pair()
    assert moves.is_always_active(net, 2, 0) and moves.is_always_active(net, 2, 1)
    assert not net.same_parameters(other)
    assert canonical_form(net, "deep_generic") != canonical_form(other, "deep_generic")
    v = equivalent(net, other)
    assert v.equivalent is True and v.proof and "bottleneck" in v.procedure
    assert regions_equal(net, other, [-2] * 3, [2] * 3)


def shift_pair(t):
    W1 = [[1, 2], [-1, 1]]
    W2, W3 = [[2, -1]], [[3]]
    a = ReLUNet([W1, W2, W3], [[F(1, 2), 1], [-1], [0]])
    b = ReLUNet([W1, W2, W3], [[F(1, 2) + t, 1], [-1 - 2 * t], [0]])
    return a, b


@pytest.mark.parametrize("t", [F(5), F(-1, 4), F(-1, 2)])
def test_oracle_hidden_bias_shift_equivalent(t):
    a, b = shift_pair(t)
    assert moves.shift_hidden_bias(a, 1, 0, t).same_parameters(b)
    assert canonical_form(a, "deep_generic") != canonical_form(b, "deep_generic")
    assert canonical_form(a) == canonical_form(b)
    assert equivalent(a, b).equivalent is True
    assert regions_equal(a, b, [-4, -4], [4, 4])


def test_oracle_hidden_bias_shift_too_far():
    a, b = shift_pair(F(-1))
    assert moves.shift_bounds(a, 1, 0) == F(-1, 2)
    with pytest.raises(moves.MoveError, match="t: expected t >= -1/2"):
        moves.shift_hidden_bias(a, 1, 0, F(-1))
    v = equivalent(a, b)
    assert_witness(v, a, b)
    assert not regions_equal(a, b, [-4, -4], [4, 4])
    assert canonical_form(a).info["layer1_classes_by_neuron"] == ("hidden", "preserved")


# ---- moves ---------------------------------------------------------------------------------------


def test_moves_refuse_invalid_conditions():
    rng = np.random.default_rng(5)
    net = random_net([2, 3, 3, 1], rng)
    with pytest.raises(moves.MoveError, match="positive scale"):
        moves.scale(net, 1, 0, -1)
    with pytest.raises(ValueError, match=r"layer: expected a hidden layer, an integer in \[1, 2\]"):
        moves.scale(net, 3, 0, 2)
    with pytest.raises(ValueError, match=r"perm: expected a permutation of 0..2"):
        moves.permute(net, 1, [0, 0, 1])
    with pytest.raises(moves.MoveError, match="not dead"):
        moves.perturb_dead(plant_structure(net, rng), 2, 0)
    planted = plant_structure(net, rng)
    with pytest.raises(moves.MoveError, match="invertible"):
        moves.mix_active(planted, 2, [0], [[0]])
    with pytest.raises(moves.MoveError, match="pass pair"):
        moves.flip(net, 1, 0)


def test_move_results_stay_float_when_exact():
    rng = np.random.default_rng(2)
    net = ReLUNet([rng.normal(size=(3, 2)), rng.normal(size=(1, 3))], [rng.normal(size=3), rng.normal(size=1)])
    assert not moves.scale(net, 1, 0, 0.25).rational
    assert moves.scale(net, 1, 0, F(1, 3)).rational


ARCHS = [
    ([2, 4, 1], "one_hidden_layer"),
    ([3, 5, 2], "one_hidden_layer"),
    ([3, 2, 4, 1], "bottleneck"),
    ([2, 2, 3, 2], "bottleneck"),
    ([2, 3, 4, 1], "deep_generic"),
    ([1, 3, 3, 2, 1], "deep_generic"),
]


@pytest.mark.parametrize("widths,method", ARCHS)
def test_random_move_compositions_are_equivalent(widths, method):
    rng = np.random.default_rng(abs(hash(tuple(widths))) % 2**32)
    n_deep_proofs = 0
    for trial in range(4):
        net = plant_structure(random_net(widths, rng), rng)
        if method == "bottleneck" and trial % 2:
            net = plant_hidden(net, rng)
        moved, applied = random_moves(net, rng, n_moves=6)
        assert applied
        v = equivalent(net, moved)
        lo, hi = [-3] * widths[0], [3] * widths[0]
        if method in ("one_hidden_layer", "bottleneck"):
            assert canonical_form(net) == canonical_form(moved), applied
            assert v.equivalent is True and v.proof
        else:
            assert v.equivalent is not False or not v.proof  # never a proven difference
            n_deep_proofs += v.equivalent is True
            box = equivalent(net, moved, domain=(lo, hi), n_samples=64)
            assert (
                box.equivalent is True
                and box.proof
                and box.procedure in ("region enumeration", "canonical form (deep_generic)")
            )
        assert regions_equal(net, moved, lo, hi)


@pytest.mark.parametrize("widths,method", ARCHS)
def test_perturbations_give_exact_witnesses(widths, method):
    rng = np.random.default_rng(7 + len(widths))
    for _ in range(3):
        net = random_net(widths, rng)
        Ws, bs = (list(x) for x in net.exact_parameters())
        Ws = [W.copy() for W in Ws]
        bs = [b.copy() for b in bs]
        layer = int(rng.integers(0, len(Ws)))
        # a non-dead neuron of layer `layer` (checked on the data of its own evaluation below)
        j = int(rng.integers(0, Ws[layer].shape[0]))
        if rng.random() < 0.5:
            bs[layer][j] += F(1, 7)
        else:
            k = int(rng.integers(0, Ws[layer].shape[1]))
            Ws[layer][j, k] += F(1, 5)
        other = ReLUNet(Ws, bs)
        lo, hi = [-4] * widths[0], [4] * widths[0]
        if regions_equal(net, other, lo, hi):
            continue  # the perturbed neuron is dead on this box: nothing to witness
        v = equivalent(net, other)
        if method == "deep_generic":
            assert v.equivalent is not True
            if v.witness is not None:
                assert_witness(v, net, other)
        else:  # complete procedures (proved, resp. reconstructed) and a witness for each difference
            assert_witness(v, net, other)
        box = equivalent(net, other, domain=(lo, hi))
        assert_witness(box, net, other)


def test_no_wrong_equivalent_on_random_small_pairs():
    """Random unrelated or nearly related pairs: every True verdict is confirmed by region enumeration."""
    rng = np.random.default_rng(11)
    n_true = 0
    for trial in range(30):
        widths = [[1, 2, 1], [2, 2, 1], [1, 2, 2, 1], [2, 2, 2, 1]][trial % 4]
        a = random_net(widths, rng, zero_prob=0.3)
        b = random_moves(a, rng, 3)[0] if trial % 2 else random_net(widths, rng, zero_prob=0.3)
        for dom in (None, BOX2 if widths[0] == 2 else ([-3], [3])):
            v = equivalent(a, b, domain=dom, n_samples=32)
            lo, hi = dom if dom is not None else ([-50] * widths[0], [50] * widths[0])
            if v.equivalent is True:
                n_true += 1
                assert regions_equal(a, b, lo, hi)
            elif v.proof:
                assert_witness(v, a, b) if v.witness is not None else None
    assert n_true >= 10


def test_region_enumeration_against_grid():
    """The referee itself: region verdicts agree with exact evaluation on a rational grid."""
    rng = np.random.default_rng(3)
    for _ in range(6):
        a = random_net([2, 3, 2, 1], rng)
        b = random_net([2, 3, 2, 1], rng)
        grid = [[F(i, 2), F(j, 2)] for i in range(-4, 5) for j in range(-4, 5)]
        differ_on_grid = any(ref(a, x) != ref(b, x) for x in grid)
        same = regions_equal(a, b, [-2, -2], [2, 2])
        assert not (same and differ_on_grid)
        assert regions_equal(a, a, [-2, -2], [2, 2])


def test_single_input_breakpoints_are_global():
    # relu(x - 100) hidden far away: a sampler on moderate scales misses it; breakpoints do not.
    a = ReLUNet([[[1], [1]], [[1, 1]]], [[0, F(-1000)], [0]])
    b = ReLUNet([[[1], [1]], [[1, 0]]], [[0, F(-1000)], [0]])
    v = equivalent(a, b, n_samples=0, procedure="regions")
    assert_witness(v, a, b)
    c = ReLUNet(
        [
            [[1], [2], [1]],
            [[1, -1, 1]],
        ],
        [[0, 0, 0], [0]],
    )
    d = ReLUNet([[[1]], [[-1]]], [[0], [0]])  # relu(x) - relu(2x) + relu(x) = 0 ... minus relu(x)
    e = ReLUNet([[[1]], [[0]]], [[0], [0]])
    assert equivalent(c, e, procedure="regions").equivalent is True
    assert equivalent(c, d, procedure="regions").equivalent is False


# ---- float path --------------------------------------------------------------------------------


def float_net(widths, rng, scale=1.0):
    return ReLUNet(
        [rng.normal(size=(widths[l + 1], widths[l])) * scale for l in range(len(widths) - 1)],
        [rng.normal(size=widths[l + 1]) * scale for l in range(len(widths) - 1)],
    )


def near_degenerate_variants(net, rng):
    Ws, bs = [W.copy() for W in net.weights], [b.copy() for b in net.biases]
    out = []
    # nearly parallel rows: row 1 = row 0 (times a power of two) up to one ulp in one entry
    W = [w.copy() for w in Ws]
    W[1][1] = W[1][0] * 2.0
    b = [v.copy() for v in bs]
    b[1][1] = b[1][0] * 2.0
    W[1][1, 0] = np.nextafter(W[1][1, 0], np.inf)
    out.append(ReLUNet(W, b))
    # two entries of a row tied (exactly) or one ulp apart in absolute value: pivot decisions
    for delta in (0, 1):
        W = [w.copy() for w in Ws]
        W[0][0, 1] = -W[0][0, 0] if delta == 0 else -np.nextafter(W[0][0, 0], np.inf)
        out.append(ReLUNet(W, bs))
    # tiny weights
    out.append(ReLUNet([w * 2.0**-400 for w in Ws[:1]] + Ws[1:], [bs[0] * 2.0**-400] + bs[1:]))
    return out


def test_float_and_exact_paths_agree():
    rng = np.random.default_rng(21)
    checked = 0
    for trial in range(12):
        widths = [[3, 5, 4, 2], [2, 4, 4, 3, 1], [4, 6, 6, 6, 2]][trial % 3]
        base = float_net(widths, rng, scale=[1.0, 1e-3, 1e3][trial % 3])
        variants = [base] + near_degenerate_variants(base, rng)
        for a in variants:
            partners = [
                moves.permute(moves.scale(a, 2, 1, 0.125), 1, rng.permutation(widths[1])),
                ReLUNet([w.copy() for w in a.weights[:-1]] + [np.nextafter(a.weights[-1], 1.0)], list(a.biases)),
                moves.scale(a, 1, 0, 3.0),  # rounding: generally no longer equivalent in floats
            ] + variants
            fa_fast, fa_exact = canonical_form(a), canonical_form(a, exact=True)
            for b in partners:
                fast = fa_fast == canonical_form(b)
                exact = fa_exact == canonical_form(b, exact=True)
                assert fast == exact
                checked += 1
    assert checked > 100


def test_float_form_values_within_bounds():
    rng = np.random.default_rng(4)
    net = float_net([5, 7, 6, 3], rng, scale=10.0)
    fast = canonical_form(net)
    exact = canonical_form(net, exact=True)
    assert not fast.exact and exact.exact
    for l, (Wf, We) in enumerate(zip(fast.parts["weights"], exact.parts["weights"], strict=False)):
        We = np.array(We, dtype=object)
        for x, y in zip(Wf.ravel(), We.ravel(), strict=False):
            assert abs(F(x) - y) <= F(fast.relative_error[l]) * abs(y)
    assert all(np.max(np.abs(W), axis=1).max() <= 1.0 + 1e-15 for W in fast.parts["weights"][:-1])


def test_degenerate_networks_fall_back_to_exact():
    rng = np.random.default_rng(8)
    net = float_net([3, 4, 4, 1], rng)
    W = [w.copy() for w in net.weights]
    W[1][:, 2] = 0.0  # neuron 2 of layer 1 is irrelevant
    form = canonical_form(ReLUNet(W, list(net.biases)))
    assert form.exact and form.widths == (3, 3, 4, 1) and form.info["dropped"] == 1


# ---- MILP ---------------------------------------------------------------------------------------


def test_milp_finds_exact_witness_and_never_says_equivalent():
    pytest.importorskip("highspy")
    net, other = gl_pair()
    perturbed = ReLUNet(list(net.weights), list(net.biases[:-1]) + [[F(1, 5) + F(1, 10**6)]])
    v = equivalent(net, perturbed, domain=([-1] * 3, [1] * 3), procedure="milp", n_samples=0)
    assert_witness(v, net, perturbed)
    same = equivalent(net, other, domain=([-1] * 3, [1] * 3), procedure="milp", n_samples=0)
    assert same.equivalent is None and not same.proof


def test_auto_uses_milp_when_the_region_budget_runs_out():
    pytest.importorskip("highspy")
    rng = np.random.default_rng(9)
    a = plant_structure(random_net([4, 6, 6, 1], rng), rng)
    b = moves.mix_active(a, 2, [0, 1], [[2, 1], [1, 1]])
    assert canonical_form(a) != canonical_form(b)  # generic form: the GL symmetry is invisible to it
    v = equivalent(a, b, domain=([-1] * 4, [1] * 4), n_samples=64, max_regions=5)
    assert v.procedure == "milp" and v.equivalent is None and not v.proof
    assert regions_equal(a, b, [-1] * 4, [1] * 4)
    c = ReLUNet(list(a.weights), list(a.biases[:-1]) + [a.biases[-1] + F(1, 10**9)])
    w = equivalent(a, c, domain=([-1] * 4, [1] * 4), procedure="milp", n_samples=0)
    assert_witness(w, a, c)


# ---- fibers and functional dimension --------------------------------------------------------------


def test_functional_dimension_generic_and_dead():
    rng = np.random.default_rng(12)
    net = float_net([3, 5, 2], rng)
    # generic one-hidden-layer net: the fiber is the scaling orbit (one dimension per hidden neuron)
    assert functional_dimension(net) == net.n_parameters - 5
    d = fiber_description(net)
    assert d.dimension == 5 and not d.beyond_scaling and d.free_directions.shape == (net.n_parameters, 5)
    J_dir = d.free_directions[:, 0]
    theta = net.parameter_vector()
    X = rng.normal(size=(50, 3))
    moved = ReLUNet.from_parameter_vector(net.widths, theta + 1e-6 * J_dir)
    assert np.max(np.abs(moved(X) - net(X))) < 1e-9


def test_fiber_of_bottleneck_with_hidden_neuron():
    a, _ = shift_pair(F(0))
    d = fiber_description(a)
    assert d.neuron_classes[0] == ("hidden", "preserved")
    assert d.symmetry_directions["hidden_shift"] == 1
    assert d.beyond_scaling


# ---- conservation laws ---------------------------------------------------------------------------


def _flow_setup():
    rng = np.random.default_rng(13)
    net = float_net([2, 4, 3, 1], rng, scale=0.8)
    X = rng.normal(size=(20, 2))
    Y = np.sin(X[:, :1])
    return net, X, Y


def _grad_vec(net, X, Y):
    _, (gW, gb) = neuron_gradients(net, X, Y)
    return np.concatenate([np.concatenate([w.ravel(), b]) for w, b in zip(gW, gb, strict=False)])


def test_rescaling_law_conserved_by_rk4_gradient_flow():
    net, X, Y = _flow_setup()
    theta = net.parameter_vector()
    widths = net.widths
    h0 = np.concatenate(conservation_laws(net))
    dt, steps = 1e-3, 400

    def field(th):
        return -_grad_vec(ReLUNet.from_parameter_vector(widths, th), X, Y)

    for _ in range(steps):
        k1 = field(theta)
        k2 = field(theta + dt / 2 * k1)
        k3 = field(theta + dt / 2 * k2)
        k4 = field(theta + dt * k3)
        theta = theta + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    end = ReLUNet.from_parameter_vector(widths, theta)
    assert np.linalg.norm(theta - net.parameter_vector()) > 1e-2  # it did move
    assert np.max(np.abs(np.concatenate(conservation_laws(end)) - h0)) < 1e-6


def test_gd_drift_identity():
    net, X, Y = _flow_setup()
    _, grads = neuron_gradients(net, X, Y)
    eta = 0.05
    step = ReLUNet(
        [W - eta * g for W, g in zip(net.weights, grads[0], strict=False)],
        [b - eta * g for b, g in zip(net.biases, grads[1], strict=False)],
    )
    drift = np.concatenate(gd_drift(net, grads, eta))
    change = np.concatenate(conservation_laws(step)) - np.concatenate(conservation_laws(net))
    assert np.max(np.abs(change - drift)) < 1e-12
    assert np.max(np.abs(drift)) > 1e-6


def test_gd_drift_exact_with_rational_gradient():
    # any gradient of a rescaling-invariant loss satisfies <w_in, g_in> = <w_out, g_out>; build one exactly
    net = ReLUNet([[[1, 2], [F(-1, 2), 1]], [[3, F(1, 3)]]], [[F(1, 4), -1], [0]])
    x, y = [F(1), F(2)], F(1, 2)
    Ws, bs = net.exact_parameters()
    pre = Ws[0].dot(np.array(x, dtype=object)) + bs[0]
    z = np.array([max(v, F(0)) for v in pre], dtype=object)
    r = Ws[1].dot(z)[0] + bs[1][0] - y  # loss r^2 / 2
    act = np.array([F(int(v > 0)) for v in pre], dtype=object)
    delta1 = Ws[1][0] * r * act
    gW = [np.outer(delta1, np.array(x, dtype=object)), np.array([z * r], dtype=object)]
    gb = [delta1, np.array([r], dtype=object)]
    eta = F(1, 10)
    step = ReLUNet(
        [W - eta * g for W, g in zip(Ws, gW, strict=False)], [b - eta * g for b, g in zip(bs, gb, strict=False)]
    )
    drift = gd_drift(net, (gW, gb), eta)[0]
    change = conservation_laws(step)[0] - conservation_laws(net)[0]
    assert list(change) == list(drift)


def test_local_laws_hold_while_pattern_constant():
    rng = np.random.default_rng(14)
    # layer-2 neurons 0, 1 always active on the data: positive incoming weights and biases
    net = float_net([2, 3, 3, 1], rng, scale=0.5)
    W = [w.copy() for w in net.weights]
    b = [v.copy() for v in net.biases]
    W[1][:2] = np.abs(W[1][:2]) + 0.5
    b[1][:2] = np.abs(b[1][:2]) + 1.0
    net = ReLUNet(W, b)
    X = rng.normal(size=(200, 2))
    margin = np.min(np.concatenate([np.abs(p) for p in net.pre_activations(X)[:-1]], axis=1), axis=1)
    X = X[margin > 0.3][:15]  # data away from every kink, so the pattern survives a while
    Y = X[:, :1] - X[:, 1:]
    laws0 = local_conservation_laws(net, X)
    block = next(law for law in laws0 if law.layer == 2)
    assert {0, 1} <= set(block.neurons)
    theta, widths, dt = net.parameter_vector(), net.widths, 2e-3
    pattern0 = [p.copy() for p in net.activation_pattern(X)]
    steps = 0
    for _ in range(150):
        cur = ReLUNet.from_parameter_vector(widths, theta)
        k1 = -_grad_vec(cur, X, Y)
        k2 = -_grad_vec(ReLUNet.from_parameter_vector(widths, theta + dt / 2 * k1), X, Y)
        k3 = -_grad_vec(ReLUNet.from_parameter_vector(widths, theta + dt / 2 * k2), X, Y)
        k4 = -_grad_vec(ReLUNet.from_parameter_vector(widths, theta + dt * k3), X, Y)
        new = theta + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if not all(
            np.array_equal(p, q)
            for p, q in zip(ReLUNet.from_parameter_vector(widths, new).activation_pattern(X), pattern0, strict=False)
        ):
            break  # the laws hold while the activation pattern is constant
        theta, steps = new, steps + 1
    assert steps >= 30 and np.linalg.norm(theta - net.parameter_vector()) > 1e-3
    end = ReLUNet.from_parameter_vector(widths, theta)
    law_end = next(law for law in local_conservation_laws(end, X) if law.layer == 2)
    assert law_end.neurons == block.neurons
    off = ~np.eye(len(block.neurons), dtype=bool)
    assert np.max(np.abs(law_end.Q - block.Q)) < 1e-6
    assert np.max(np.abs(block.Q[off])) > 1e-3


# ---- edge cases ------------------------------------------------------------------------------------


def test_affine_against_one_hidden_layer():
    affine = ReLUNet([[[1, 2]]], [[3]])
    same = ReLUNet([[[1, 2], [-1, -2]], [[1, -1]]], [[3, -3], [0]])  # relu(u) - relu(-u) = u
    off = ReLUNet([[[1, 2], [-1, -2]], [[1, -1]]], [[3, -2], [0]])
    assert equivalent(affine, same).equivalent is True
    v = equivalent(affine, off, n_samples=0)  # the constructive witness of procedure (a)
    assert_witness(v, affine, off)


def test_depth_mismatch_is_decided_globally_and_on_a_box():
    rng = np.random.default_rng(17)
    a = random_net([2, 3, 1], rng)
    Ws, bs = a.exact_parameters()
    # the same function with an extra always-active layer computing relu(z) = z on z >= 0... of a shifted copy
    deeper = ReLUNet([Ws[0], np.eye(3, dtype=np.int64), Ws[1]], [bs[0], [0, 0, 0], bs[1]])
    v = equivalent(a, deeper)  # no common canonical form: the region enumeration on R^2 decides
    assert v.equivalent is True and v.proof and v.scope == "global" and v.procedure == "region enumeration"
    box = equivalent(a, deeper, domain=BOX2)
    assert box.equivalent is True and box.proof and box.procedure == "region enumeration"


def test_canonical_networks_compute_the_same_function():
    rng = np.random.default_rng(19)
    X = [[F(int(i), 3), F(int(j), 2), F(int(k), 5)] for i, j, k in rng.integers(-6, 7, size=(12, 3))]
    for widths in ([3, 4, 2], [3, 2, 4, 1], [3, 3, 4, 2, 1]):
        net = plant_structure(random_net(widths, rng, zero_prob=0.2), rng)
        for exact in (True, False):
            form = canonical_form(net if exact else net.to_float(), exact=exact)
            canon = form.network()
            src = net if exact else net.to_float()
            for x in X:
                assert ref(canon, x) == ref(src, x)


def test_verdict_text_and_bool():
    a, b = odd_pair()
    v = equivalent(a, b)
    assert bool(v) and "equivalent on R^n0" in str(v)
    w = equivalent(*shift_pair(F(-1)))
    assert not bool(w) and "witness x =" in str(w)


def _one_hidden_variants(rng):
    """Float one-hidden-layer nets with duplicates, opposite pairs, zeros and extreme scales."""
    n0, m = int(rng.integers(1, 4)), int(rng.integers(1, 6))
    W1 = rng.integers(-2, 3, size=(m, n0)).astype(float) * 2.0 ** rng.integers(-3, 3, size=(m, 1))
    b1 = rng.integers(-2, 3, size=m).astype(float)
    W2 = rng.integers(-2, 3, size=(2, m)).astype(float)
    b2 = rng.integers(-2, 3, size=2).astype(float)
    base = ReLUNet([W1, W2], [b1, b2])
    out = [base, moves.scale(base, 1, 0, 0.5)]
    if m >= 1:  # duplicate of neuron 0 with the outgoing weights split, and an opposite copy
        out.append(ReLUNet([np.vstack([W1, W1[:1]]), np.hstack([W2, -W2[:, :1]])], [np.append(b1, b1[0]), b2]))
        out.append(ReLUNet([np.vstack([W1, -W1[:1]]), np.hstack([W2, W2[:, :1]])], [np.append(b1, -b1[0]), b2]))
    scale = 2.0 ** float(rng.choice([-600, 0, 600]))
    out.append(ReLUNet([W1 * scale, W2 / scale], [b1 * scale, b2]))
    nudged = W1.copy()
    nudged.flat[0] = np.nextafter(nudged.flat[0], np.inf)
    out.append(ReLUNet([nudged, W2], [b1, b2]))
    return out


def test_one_hidden_fast_check_matches_exact():
    from paperkernels.relu._fast import one_hidden_equal

    rng = np.random.default_rng(23)
    n_equal = n_total = 0
    for _ in range(60):
        nets = _one_hidden_variants(rng)
        for a in nets[:3]:
            for b in nets:
                fast = one_hidden_equal(a, b)
                exact = canonical_form(a, exact=True) == canonical_form(b, exact=True)
                assert fast == exact
                n_equal += exact
                n_total += 1
    assert 0.2 * n_total < n_equal < 0.9 * n_total


def test_one_hidden_fast_check_with_underflowing_keys():
    from paperkernels.relu._fast import one_hidden_equal

    # the key entry 1e-300 / 1e300 underflows to 0 in floats but is not 0
    a = ReLUNet([np.array([[1e300, 1e-300]]), np.array([[1.0]])], [np.zeros(1), np.zeros(1)])
    b = ReLUNet([np.array([[1.0, 0.0]]), np.array([[1e300]])], [np.zeros(1), np.zeros(1)])
    assert one_hidden_equal(a, b) is False
    assert canonical_form(a, exact=True) != canonical_form(b, exact=True)
    c = ReLUNet([np.array([[2.0**-600, 2.0**-1000]]), np.array([[2.0**600]])], [np.array([2.0**-700]), np.zeros(1)])
    d = ReLUNet([np.array([[1.0, 2.0**-400]]), np.array([[1.0]])], [np.array([2.0**-100]), np.zeros(1)])
    assert one_hidden_equal(c, d) is True
    assert canonical_form(c, exact=True) == canonical_form(d, exact=True)


def test_many_inputs_skip_region_enumeration():
    rng = np.random.default_rng(29)
    a = float_net([13, 4, 3, 1], rng)
    b = ReLUNet(list(a.weights), list(a.biases[:-1]) + [a.biases[-1] + 1.0])
    box = ([-1] * 13, [1] * 13)
    with pytest.raises(ValueError, match="procedure: region enumeration on a box handles at most 12 inputs"):
        equivalent(a, b, domain=box, procedure="regions")
    v = equivalent(a, b, domain=box)
    assert_witness(v, a, b)


def test_bottleneck_shift_that_makes_a_reader_cut():
    # layer-2 neuron 0 is u z_0 (always active, beta = 0); a valid shift of layer-1 neuron 0 turns it
    # into a CUT neuron; the canonical shift must turn it back and fold it again.
    a = ReLUNet([[[1, 0], [0, 1]], [[1, 0], [2, -1]], [[3, -1]]], [[0, 0], [0, -1], [0]])
    assert moves.shift_bounds(a, 1, 0) == 0
    b = moves.shift_hidden_bias(a, 1, 0, F(3, 2))
    assert not moves.is_always_active(b, 2, 0)
    assert canonical_form(a) == canonical_form(b)
    assert equivalent(a, b).equivalent is True
    assert regions_equal(a, b, [-3, -3], [3, 3])


def test_bottleneck_form_complete_on_many_planted_compositions():
    """Several hidden neurons, zeros and planted blocks; moves 1-6 in random order."""
    rng = np.random.default_rng(31)
    done = 0
    while done < 150:
        widths = [[2, 2, 3, 1], [3, 2, 4, 1], [2, 2, 2, 2], [3, 3, 3, 1], [2, 1, 3, 1]][done % 5]
        net = random_net(widths, rng, zero_prob=float(rng.choice([0.0, 0.3])))
        if rng.random() < 0.5:
            net = plant_structure(net, rng)
        for i in range(widths[1]):
            if rng.random() < 0.4:
                net = plant_hidden(net, rng, neuron=i)
        if canonical_form(net).method != "bottleneck":
            continue
        moved, applied = random_moves(net, rng, int(rng.integers(1, 9)))
        assert canonical_form(net) == canonical_form(moved), applied
        done += 1


def test_without_highspy_the_box_question_is_undecided(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "highspy", None)  # import highspy -> ImportError
    net, other = gl_pair()
    v = equivalent(net, other, domain=([-1] * 3, [1] * 3), procedure="milp", n_samples=0)
    assert v.equivalent is None and not v.proof and "highspy" in v.detail
    assert "paperkernels[relu]" in v.reason  # the extra that installs it


def test_weight_decay_shrinks_the_rescaling_law_exponentially():
    net, X, Y = _flow_setup()
    lam, dt, steps = 0.3, 1e-3, 300
    theta, widths = net.parameter_vector(), net.widths
    h0 = np.concatenate(conservation_laws(net))

    def field(th):
        return -_grad_vec(ReLUNet.from_parameter_vector(widths, th), X, Y) - lam * th

    for _ in range(steps):
        k1 = field(theta)
        k2 = field(theta + dt / 2 * k1)
        k3 = field(theta + dt / 2 * k2)
        k4 = field(theta + dt * k3)
        theta = theta + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    h = np.concatenate(conservation_laws(ReLUNet.from_parameter_vector(widths, theta)))
    assert np.max(np.abs(h - h0 * np.exp(-2 * lam * dt * steps))) < 1e-6


def test_canonical_form_method_checks():
    rng = np.random.default_rng(37)
    deep = random_net([2, 3, 3, 1], rng)
    with pytest.raises(ValueError, match="method: expected one of"):
        canonical_form(deep, "nope")
    with pytest.raises(ValueError, match="method: 'bottleneck' needs two hidden layers with n1 <= n0"):
        canonical_form(deep, "bottleneck")
    with pytest.raises(ValueError, match="method: 'one_hidden_layer' needs at most one hidden layer"):
        canonical_form(deep, "one_hidden_layer")
    with pytest.raises(TypeError, match="net: expected a ReLUNet"):
        canonical_form([1, 2])


def test_moves_is_the_only_public_submodule():
    import pkgutil

    import paperkernels.relu as R

    submodules = {info.name for info in pkgutil.iter_modules(R.__path__)}
    assert {name for name in submodules if not name.startswith("_")} == {"moves"}
    assert "moves" in R.__all__ and all(hasattr(R, name) for name in R.__all__)
    assert all(hasattr(moves, name) for name in moves.__all__)
