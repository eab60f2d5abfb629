"""relu.equivalent's soundness and its complete exact procedure on all of R^n0 (joint linear regions
as polyhedra with rays), and exact handling of inputs at the edges of float64."""

import copy
import pickle
import time
from fractions import Fraction
from fractions import Fraction as F

import numpy as np
import pytest

import paperkernels.relu as R
from paperkernels.relu import ReLUNet, canonical_form, equivalent, moves
from paperkernels.relu._regions import enumerate_regions
from relu_reference import random_moves, random_net, ref
from sigint_helpers import assert_interrupts


def assert_witness(v, a, b, box=None):
    assert v.equivalent is False and v.proof and v.witness is not None
    assert ref(a, v.witness) != ref(b, v.witness)
    if box is not None:
        assert all(F(lo) <= x <= F(hi) for x, lo, hi in zip(v.witness, box[0], box[1], strict=False))


# ---- soundness: the counterexamples of the adversarial campaign -----------------------------------


def kink_at_extent_pair():
    W = lambda c: [[[1]], [[1]], [[1]], [[c]]]  # noqa: E731
    B = [[-1], [-(10**6 - 1)], [-(10**6 + 1)], [0]]
    return ReLUNet(W(1), B), ReLUNet(W(0), B)


@pytest.mark.parametrize("n_samples", [512, 0])
def test_a_kink_exactly_at_the_old_extent_is_not_missed(n_samples):
    a, b = kink_at_extent_pair()
    assert a(np.array([3e6]))[0] == 999999 and b(np.array([3e6]))[0] == 0
    v = equivalent(a, b, n_samples=n_samples)
    assert_witness(v, a, b)
    assert v.scope == "global"


def test_an_O1_difference_beyond_the_kinks_is_found_without_samples():
    a = ReLUNet([[[1]], [[1]], [[1]]], [[-1], [-2], [0]])  # relu(relu(x - 1) - 2): differs beyond x = 3
    b = ReLUNet([[[1]], [[1]], [[0]]], [[-1], [-2], [0]])
    assert_witness(equivalent(a, b, n_samples=0), a, b)


def test_a_box_witness_lies_inside_the_box():
    a = ReLUNet([[[-49.0]], [[1.0]]], [[1.0], [0.0]])
    b = ReLUNet([[[1.0]], [[0.0]]], [[0.0], [0.0]])
    box = ([F(1, 49)], [F(1)])
    v = equivalent(a, b, domain=box)  # relu(1 - 49 x) = 0 on [1/49, 1]
    assert v.equivalent is True and v.proof and v.witness is None
    for procedure in ("sampling", "regions", "milp"):
        w = equivalent(a, b, domain=box, procedure=procedure)
        assert w.equivalent is not False
    wider = ([F(0)], [F(1)])
    assert_witness(equivalent(a, b, domain=wider), a, b, wider)


def test_equal_networks_with_different_forms_are_equivalent():
    net = ReLUNet([[[1, 2], [-1, 1], [3, -1]], [[1, -1, 2], [-1, -2, 0]], [[2, 5]]], [[1, 0, -1], [0, -1], [0]])
    moved = moves.perturb_dead(net, 2, 1, outgoing=[7])
    for exact in (False, True):
        v = equivalent(net, moved, exact=exact)
        assert v.equivalent is True and v.proof and v.scope == "global"
    a = ReLUNet([[[1, 0], [0, -1]], [[1, -1]], [[1]]], [[0, 0], [0], [0]])
    b = ReLUNet([[[0, 1], [1, 1]], [[-1, 1]], [[1]]], [[0, 0], [0], [0]])  # both relu(x1 + min(x2, 0))
    assert canonical_form(a) != canonical_form(b)
    v = equivalent(a, b)
    assert v.equivalent is True and v.proof and v.procedure == "region enumeration"


def test_bottleneck_form_reports_it_is_not_complete():
    a = ReLUNet([[[1]], [[-1]], [[1]]], [[0], [1], [-3]])  # relu(1 - relu(u)) - 3
    b = ReLUNet([[[-1]], [[-1]], [[-1]]], [[1], [1], [-2]])  # -relu(1 - relu(1 - u)) - 2
    for x in range(-3, 4):
        assert ref(a, [F(x, 2)]) == ref(b, [F(x, 2)])
    fa, fb = canonical_form(a, "bottleneck"), canonical_form(b, "bottleneck")
    assert fa != fb and not fa.complete and not fb.complete
    assert canonical_form(ReLUNet([[[1, 2]], [[3]]], [[0], [0]])).complete  # one hidden layer stays complete
    v = equivalent(a, b)
    assert v.equivalent is True and v.proof
    c = equivalent(a, b, procedure="canonical")
    assert c.equivalent is None and "not complete" in c.reason


def test_false_only_with_a_witness_and_none_with_a_reason():
    rng = np.random.default_rng(3)
    for _ in range(12):
        a = random_net([2, 2, 3, 1], rng)
        b = random_moves(a, rng)[0]
        for procedure in ("auto", "canonical", "regions", "sampling"):
            v = equivalent(a, b, procedure=procedure)
            assert v.equivalent is not False, v
            if v.equivalent is None:
                assert v.reason and not v.proof
            else:
                assert v.proof and v.reason is None


# ---- the complete procedure on all of R^n0 ---------------------------------------------------------


def test_region_enumeration_covers_the_whole_space():
    # the regions of one neuron relu(x1 + x2 - 1) on R^2: two unbounded half-planes
    W = np.array([[F(1), F(1)]], dtype=object)
    leaves = []
    enumerate_regions(
        [[(W, np.array([F(-1)], dtype=object)), (np.array([[F(1)]], dtype=object), np.array([F(0)], dtype=object))]],
        n_inputs=2,
        on_leaf=lambda leaf: leaves.append(leaf) or False,
    )
    assert any(leaf.rays for leaf in leaves) and len(leaves) >= 2
    # every region's interior point maps by its affine piece to the true value
    net = ReLUNet([[[1, 1]], [[1]]], [[-1], [0]])
    for leaf in leaves:
        x = leaf.interior_point()
        ((M, m),) = leaf.maps
        assert list(np.dot(M, np.array(x, dtype=object)) + m) == ref(net, x)


@pytest.mark.parametrize("widths", [[1, 3, 2, 1], [2, 3, 3, 1], [2, 2, 2, 2, 1], [3, 2, 2, 1]])
def test_global_decisions_on_symmetric_and_perturbed_pairs(widths):
    rng = np.random.default_rng(sum(widths))
    for trial in range(3):
        a = random_net(widths, rng)
        b = random_moves(a, rng)[0]
        for exact in (False, True):
            v = equivalent(a, b, exact=exact, procedure="regions" if trial else "auto")
            assert v.equivalent is True and v.proof and v.scope == "global", v
        Ws, bs = (list(x) for x in b.exact_parameters())
        bs[-1] = bs[-1] + F(1, 10**9)
        c = ReLUNet(Ws, bs)
        assert_witness(equivalent(a, c, n_samples=0), a, c)
        assert_witness(equivalent(a, c, procedure="regions"), a, c)


def test_a_difference_only_far_away_is_found_on_R_n():
    # relu(x1 - 10^6) - relu(x1 - 10^6 - 1) + ... : equal on [-10^5, 10^5]^2, different beyond 10^6
    a = ReLUNet([[[1, 0], [0, 1]], [[1, 0]], [[1]]], [[-(10**6), 0], [0], [0]])
    b = ReLUNet([[[1, 0], [0, 1]], [[0, 0]], [[1]]], [[-(10**6), 0], [0], [0]])
    v = equivalent(a, b, n_samples=0)
    assert_witness(v, a, b)
    box = ([-(10**5)] * 2, [10**5] * 2)
    assert equivalent(a, b, domain=box).equivalent is True


def test_budget_gives_none_not_an_exception():
    a = ReLUNet([[[1]], [[-1]], [[1]]], [[0], [1], [-3]])  # equal functions, different forms
    b = ReLUNet([[[-1]], [[-1]], [[-1]]], [[1], [1], [-2]])
    v = equivalent(a, b, n_samples=0, max_regions=1)
    assert v.equivalent is None and not v.proof and "max_regions" in v.reason
    v = equivalent(a, b, procedure="regions", max_regions=1)
    assert v.equivalent is None and "max_regions" in v.reason
    assert equivalent(a, b, procedure="regions", max_regions=20).equivalent is True


def test_time_limit_covers_the_whole_call():
    rng = np.random.default_rng(5)
    widths = [5, 10, 10, 1]
    Ws = [rng.standard_normal((widths[i + 1], widths[i])) for i in range(3)]
    bs = [rng.standard_normal(widths[i + 1]) * 0.1 for i in range(3)]
    a = ReLUNet(Ws, bs)
    # the same function plus a dead neuron of layer 2 with a nonzero output weight: forms differ
    dead = -np.abs(rng.standard_normal((1, 10)))
    b = ReLUNet([Ws[0], np.vstack([Ws[1], dead]), np.hstack([Ws[2], [[3.0]]])], [bs[0], np.append(bs[1], -1.0), bs[2]])
    for domain in (([-1] * 5, [1] * 5), None):
        start = time.monotonic()
        v = equivalent(a, b, domain=domain, time_limit=1.0, max_regions=10**9)
        elapsed = time.monotonic() - start
        assert elapsed < 4.0
        assert v.equivalent is not False
        if v.equivalent is None:
            assert v.reason
    with pytest.raises(ValueError, match="time_limit"):
        equivalent(a, b, time_limit=float("nan"))


# ---- valid inputs at the edges of float64 ----------------------------------------------------------


def test_bias_weight_ratio_beyond_float_range():
    a = ReLUNet([[[F(1, 10**400)]], [[1]]], [[F(1)], [0]])
    assert equivalent(a, a).equivalent is True
    b = ReLUNet([[[F(1, 10**400)]], [[1]]], [[F(1)], [1]])
    assert_witness(equivalent(a, b), a, b)
    c = ReLUNet([[[1e-300]], [[1.0]]], [[1e300], [0.0]])
    d = ReLUNet([[[1e-300]], [[1.0]]], [[1e300], [1.0]])
    assert equivalent(c, c).equivalent is True
    assert_witness(equivalent(c, d), c, d)
    deep = ReLUNet([[[1e-300]], [[1.0]], [[1.0]]], [[1e300], [0.0], [0.0]])
    assert equivalent(deep, deep, exact=True).equivalent is True


def test_rational_parameters_beyond_float64():
    big = ReLUNet([[[F(10**400)]], [[1]]], [[0], [0]])
    other = ReLUNet([[[F(10**400)]], [[2]]], [[0], [0]])
    for exact in (False, True):
        assert equivalent(big, big, exact=exact).equivalent is True
        assert_witness(equivalent(big, other, exact=exact), big, other)
        assert equivalent(big, big, domain=(-1, 1), exact=exact).equivalent is True
    deep = ReLUNet([[[F(10**400), 1]], [[1]], [[1]]], [[0], [0], [0]])
    assert equivalent(deep, deep).equivalent is True
    scaled = moves.scale(big, 1, 0, 2)
    assert scaled.rational and equivalent(big, scaled).equivalent is True
    with pytest.raises(ValueError, match="net: a parameter lies beyond the float64 range"):
        R.fiber_description(big)
    with pytest.raises(ValueError, match="net: a parameter lies beyond the float64 range"):
        big(np.ones(1))
    assert big.evaluate([1], exact=True)[0] == 10**400
    with pytest.raises(ValueError, match="^net"):
        R.neuron_gradients(big, np.ones((2, 1)), np.ones((2, 1)))
    with pytest.raises(ValueError, match="^self"):
        big.to_float()
    huge = ReLUNet([np.full((2, 2), 1e308), np.full((1, 2), 1e308)], [np.zeros(2), np.zeros(1)])
    with pytest.raises(ValueError, match="^net: the loss or its gradient overflows"):
        R.neuron_gradients(huge, np.ones((2, 2)), np.ones((2, 1)))


def test_one_hidden_layer_witness_at_extreme_magnitudes_is_immediate():
    a = ReLUNet([[[1e300], [1e-300]], [[1e-300, 1e300]]], [[1e-300, 1e300], [0.0]])
    b = ReLUNet([[[1e300], [1e-300]], [[1e-300, 2e300]]], [[1e-300, 1e300], [0.0]])
    start = time.monotonic()
    for n_samples in (512, 0):
        v = equivalent(a, b, n_samples=n_samples)
        assert_witness(v, a, b)
    assert time.monotonic() - start < 2.0


def test_flip_with_two_constant_neurons_is_a_move_error():
    net = ReLUNet([[[1.0], [0.0], [0.0]], [[1.0, 1.0, 1.0]]], [[0.0, 1.0, -1.0], [0.0]])
    with pytest.raises(moves.MoveError):
        moves.flip(net, 1, 0, pair=(1, 2))


NET3 = ReLUNet([[[1.0, 2.0], [-1.0, 1.0]], [[1.0, -1.0], [-1, -1]], [[2.0, 3.0]]], [[0.0, 0.0], [0.0, -1.0], [0.0]])


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_nonfinite_move_arguments_are_named(value):
    with pytest.raises(ValueError, match="outgoing"):
        moves.perturb_dead(NET3, 2, 1, outgoing=[value])
    with pytest.raises(ValueError, match="weights"):
        moves.perturb_dead(NET3, 2, 1, weights=[value, 0])
    with pytest.raises(ValueError, match="bias"):
        moves.perturb_dead(NET3, 2, 1, bias=value)
    with pytest.raises(ValueError, match="^G"):
        moves.mix_active(NET3, 1, [0], [[value]])
    with pytest.raises(ValueError, match="^s"):
        moves.scale(NET3, 1, 0, value)
    with pytest.raises(ValueError, match="domain"):
        equivalent(NET3, NET3, domain=([-1, -1], [1, value]))


def test_tiny_scales_and_huge_bounds_are_exact():
    tiny = moves.scale(NET3, 1, 0, 1e-320)
    assert tiny.rational and equivalent(NET3, tiny).equivalent is True
    assert equivalent(NET3, NET3, domain=([-1, -1], [F(10**400), 1])).equivalent is True
    other = ReLUNet(list(NET3.weights), list(NET3.biases[:-1]) + [NET3.biases[-1] + 1])
    huge = ([-1e308] * 2, [1e308] * 2)
    assert equivalent(NET3, moves.scale(NET3, 1, 0, 2.0), domain=huge).equivalent is True
    assert_witness(equivalent(NET3, other, domain=huge), NET3, other, huge)
    v = equivalent(NET3, other, domain=huge, procedure="milp")  # float64 optimisation may fail to see it
    if v.equivalent is not None:
        assert_witness(v, NET3, other, huge)
    far = ([F(10**400)] * 2, [F(10**400) + 1] * 2)  # no float64 point inside: exact procedures only
    assert_witness(equivalent(NET3, other, domain=far), NET3, other, far)


def test_long_double_is_refused_with_the_argument_named():
    ld = np.longdouble
    if np.dtype(ld).itemsize <= 8:
        pytest.skip("long double is float64 here")
    with pytest.raises(TypeError, match=r"weights\[0\]"):
        ReLUNet([np.ones((1, 1), dtype=ld), [[1.0]]], [[0.0], [0.0]])
    with pytest.raises(TypeError, match=r"biases\[1\]"):
        ReLUNet([[[1.0]], [[1.0]]], [[0.0], np.array([ld(1) / 3], dtype=object)])
    with pytest.raises(TypeError, match="^x"):
        NET3(np.ones(2, dtype=ld))
    with pytest.raises(TypeError, match="domain"):
        equivalent(NET3, NET3, domain=([ld(0)] * 2, [1, 1]))
    with pytest.raises(TypeError, match="^s"):
        moves.scale(NET3, 1, 0, ld(2))


def test_network_of_a_form_that_removed_a_whole_layer():
    net = ReLUNet([[[1.0, 2.0]], [[0.0]], [[1.0]]], [[0.0], [1.0], [0.0]])  # layer 2 is constant: removed
    form = canonical_form(net, "deep_generic")
    assert 0 in form.to_rational().widths[1:-1]
    rebuilt = form.network()
    assert equivalent(rebuilt, net).equivalent is True
    for x in ([0, 0], [1, -3], [5, 2]):
        assert ref(rebuilt, x) == ref(net, x)


def test_functional_dimension_invariant_under_exact_rescaling():
    rng = np.random.default_rng(0)
    net = ReLUNet(
        [rng.standard_normal((4, 3)), rng.standard_normal((3, 4)), rng.standard_normal((1, 3))],
        [rng.standard_normal(4), rng.standard_normal(3), rng.standard_normal(1)],
    )
    base = R.functional_dimension(net)
    for layer, neuron, s in ((1, 0, 2.0**20), (2, 1, 2.0**-30), (1, 2, 3.0)):
        assert R.functional_dimension(moves.scale(net, layer, neuron, s)) == base
    scaled = moves.scale(net, 1, 0, 2.0**20)
    fiber = R.fiber_description(scaled)
    assert fiber.dimension == R.fiber_description(net).dimension
    _, J = R.functional_dimension(scaled, return_jacobian=True)
    residual = np.abs(J @ fiber.free_directions).max()
    assert residual < 1e-6 * np.abs(J).max()


# ---- caller's arrays, masked arrays, overflow, pickling ------------------------------------------


def test_caller_arrays_stay_writeable_and_are_copied():
    W1, b1 = np.ones((2, 2)), np.zeros(2)
    W2, b2 = np.ones((1, 2)), np.zeros(1)
    net = ReLUNet([W1, W2], [b1, b2])
    for a in (W1, b1, W2, b2):
        assert a.flags.writeable
    W1[0, 0] = 5.0
    assert net.weights[0][0, 0] == 1.0 and not net.weights[0].flags.writeable


def test_masked_arrays_are_refused():
    m = np.ma.masked_array(np.ones((2, 2)), mask=[[True, False], [False, False]])
    with pytest.raises(TypeError, match=r"weights\[0\].*masked"):
        ReLUNet([m, np.ones((1, 2))], [np.zeros(2), np.zeros(1)])
    with pytest.raises(TypeError, match="^x.*masked"):
        NET3(np.ma.masked_array(np.ones(2), mask=[True, False]))
    with pytest.raises(TypeError, match="domain.*masked"):
        equivalent(NET3, NET3, domain=(np.ma.masked_array([0.0, 0.0], mask=[True, False]), [1, 1]))


def test_overflowing_outputs_raise_naming_the_argument():
    huge = ReLUNet([np.full((2, 2), 1e308), np.full((1, 2), 1e308)], [np.zeros(2), np.zeros(1)])
    with pytest.raises(ValueError, match="^x: the outputs overflow float64"):
        huge(np.ones(2))
    assert huge.evaluate([1, 1], exact=True)[0] == 4 * F(1e308) ** 2


def test_raising_array_interface_is_a_type_error():
    class Hostile:
        def __array__(self, *args, **kwargs):
            raise RuntimeError("no")

    with pytest.raises(TypeError, match="^x"):
        NET3(Hostile())
    with pytest.raises(TypeError, match=r"weights\[0\]"):
        ReLUNet([Hostile(), [[1.0]]], [[0.0], [0.0]])
    with pytest.raises(TypeError, match="domain"):
        equivalent(NET3, NET3, domain=Hostile())


def roundtrip(obj):
    yield from (pickle.loads(pickle.dumps(obj)), copy.deepcopy(obj))


def test_every_public_class_pickles_and_deep_copies():
    rng = np.random.default_rng(1)
    net = ReLUNet(
        [rng.standard_normal((3, 2)), rng.standard_normal((3, 3)), rng.standard_normal((1, 3))],
        [rng.standard_normal(3), rng.standard_normal(3), rng.standard_normal(1)],
    )
    rational = random_net([2, 2, 2, 1], rng)
    x = rng.standard_normal((5, 2))
    for n in (net, rational):
        for other in roundtrip(n):
            assert other.same_parameters(n) and not other.weights[0].flags.writeable
            np.testing.assert_array_equal(other(x), n(x))
    for method in ("auto", "deep_generic"):
        for exact in (False, True):
            form = canonical_form(net, method, exact=exact)
            assert form.exact == exact or method == "auto"
            for other in roundtrip(form):
                assert other == form and other.method == form.method and other.complete == form.complete
                assert equivalent(other.network(), net).equivalent is True
    v = equivalent(net, ReLUNet(list(net.weights), list(net.biases[:-1]) + [net.biases[-1] + 1]))
    for other in roundtrip(v):
        assert other == v and list(other.witness) == list(v.witness) and other.reason == v.reason
    fiber = R.fiber_description(net)
    for other in roundtrip(fiber):
        assert other.neuron_classes == fiber.neuron_classes and other.dimension == fiber.dimension
        np.testing.assert_array_equal(other.free_directions, fiber.free_directions)
    X = rng.standard_normal((6, 2))
    laws = R.local_conservation_laws(
        ReLUNet([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 1.0], [2.0, 1.0]], [[1.0, 1.0]]], [[1.0, 1.0], [1.0, 1.0], [0.0]]), X
    )
    for other in roundtrip(laws):
        assert len(other) == len(laws)
    err = moves.MoveError("s: expected a positive scale")
    for other in roundtrip(err):
        assert isinstance(other, moves.MoveError) and str(other) == str(err)


def test_milp_prints_nothing(capfd):
    pytest.importorskip("highspy")
    a = NET3
    b = ReLUNet(list(a.weights), list(a.biases[:-1]) + [a.biases[-1] + 1])
    capfd.readouterr()
    v = equivalent(a, b, domain=([-1, -1], [1, 1]), procedure="milp")
    out, err = capfd.readouterr()
    assert v.equivalent is False
    assert out == "" and "HiGHS" not in err


# ---- Ctrl-C ---------------------------------------------------------------------------------------


def test_region_enumeration_answers_sigint():
    assert_interrupts(
        """
        import numpy as np
        from paperkernels.relu import ReLUNet, equivalent
        rng = np.random.default_rng(0)
        w = [3, 12, 12, 12, 1]
        Ws = [rng.standard_normal((w[i + 1], w[i])) for i in range(4)]
        bs = [rng.standard_normal(w[i + 1]) for i in range(4)]
        a = ReLUNet(Ws, bs)
        b = ReLUNet(Ws[:-1] + [Ws[-1] * 1.0], bs)
        """,
        "equivalent(a, b, procedure='regions', max_regions=10**9, time_limit=None)",
    )


def test_exact_canonical_form_of_a_big_net_answers_sigint():
    assert_interrupts(
        """
        import numpy as np
        from paperkernels.relu import ReLUNet, canonical_form
        rng = np.random.default_rng(0)
        w = [300, 300, 300, 300, 1]
        net = ReLUNet([rng.standard_normal((w[i + 1], w[i])) for i in range(4)],
                      [rng.standard_normal(w[i + 1]) for i in range(4)])
        """,
        "canonical_form(net, exact=True)",
    )


def test_one_hidden_layer_comparison_in_cpp_answers_sigint():
    assert_interrupts(
        """
        import numpy as np
        from paperkernels.relu import ReLUNet, equivalent
        rng = np.random.default_rng(0)
        m = 400_000
        W, b, c = rng.standard_normal((m, 4)), rng.standard_normal(m), rng.standard_normal((1, m))
        a = ReLUNet([W, c], [b, np.zeros(1)])
        p = rng.permutation(m)
        twin = ReLUNet([W[p], c[:, p]], [b[p], np.zeros(1)])
        """,
        "equivalent(a, twin)",
    )


# ---- integers past 2**53 and numpy integer scalars stay exact -------------------------------------


def test_large_python_ints_are_exact_python_fractions():
    a = ReLUNet([[[2**62]], [[2]]], [[0], [0]])
    b = ReLUNet([[[Fraction(2**62)]], [[Fraction(2)]]], [[0], [0]])
    assert type(a.weights[0][0, 0].numerator) is int
    assert a.evaluate([1], exact=True)[0] == b.evaluate([1], exact=True)[0] == 2**63
    assert canonical_form(a) == canonical_form(b)
    assert equivalent(a, b).equivalent is True
    assert equivalent(a, b, domain=([0], [8])).equivalent is True
    other = ReLUNet([[[Fraction(1)]], [[Fraction(2**63)]]], [[0], [0]])
    assert equivalent(a, other).equivalent is True
    deep_a = ReLUNet([[[2**62]], [[2]], [[2]]], [[0], [0], [0]])
    deep_b = ReLUNet([[[Fraction(2**62)]], [[Fraction(2)]], [[Fraction(2)]]], [[0], [0], [0]])
    assert equivalent(deep_a, deep_b).equivalent is True
    four = ReLUNet([[[2**62]], [[4]]], [[0], [0]])
    assert equivalent(four, ReLUNet([[[Fraction(2**64)]], [[1]]], [[0], [0]]), procedure="regions").equivalent is True


def test_numpy_integer_scale_is_exact():
    net = ReLUNet([[[Fraction(2**40)]], [[Fraction(1)]]], [[Fraction(0)], [Fraction(0)]])
    moved = moves.scale(net, 1, 0, np.int64(2**40))
    assert moved.weights[0][0, 0] == 2**80
    assert moved.evaluate([1], exact=True)[0] == net.evaluate([1], exact=True)[0] == 2**40


def test_time_limit_covers_the_canonical_forms():
    # 6000-digit rationals: the exact deep form alone takes many seconds.
    rng = np.random.default_rng(1)
    n, big = 60, 10**6000
    W1 = [[Fraction(int(rng.integers(1, 10**6)) * big + 1, big + 7) for _ in range(3)] for _ in range(n)]
    b1 = [Fraction(int(rng.integers(-(10**6), 10**6)), big + 3) for _ in range(n)]
    W2 = [[Fraction(int(rng.integers(-5, 5)), 3) for _ in range(n)] for _ in range(n)]
    a = ReLUNet([W1, W2, [[Fraction(1)] * n]], [b1, [Fraction(-1, 7)] * n, [Fraction(0)]])
    b = moves.scale(a, 1, 3, Fraction(big + 11, 3))
    started = time.monotonic()
    verdict = equivalent(a, b, time_limit=0.3)
    assert time.monotonic() - started < 2.0
    assert verdict.equivalent is None and verdict.reason == "time limit"
