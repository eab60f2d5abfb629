"""Hardening of paperkernels.relu: random valid networks keep the invariants (symmetries preserve the
canonical form, equivalence decisions are symmetric), hostile inputs raise errors that name the
argument, threads and Ctrl-C behave, memory does not grow."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import paperkernels
import paperkernels.relu as R
from hardening_helpers import (
    BAD_ARRAYS,
    BAD_COUNTS,
    BAD_REALS,
    FEW,
    hostile_checks,
    interrupted_quickly,
    non_contiguous_copies,
    poisoned,
    rss_growth,
    run_in_threads,
)
from paperkernels.relu import moves

MODULE = "relu"


bad = hostile_checks(MODULE)


def random_net(seed, widths):
    rng = np.random.default_rng(seed)
    Ws = [rng.standard_normal((widths[i + 1], widths[i])) for i in range(len(widths) - 1)]
    bs = [rng.standard_normal(widths[i + 1]) for i in range(len(widths) - 1)]
    return R.ReLUNet(Ws, bs)


@st.composite
def nets(draw, depth=None):
    n_layers = draw(st.integers(1, 3)) if depth is None else depth
    widths = [draw(st.integers(1, 3))] + [draw(st.integers(1, 4)) for _ in range(n_layers)]
    return random_net(draw(st.integers(0, 2**32 - 1)), widths)


def symmetric_copy(net, seed):
    """A random permutation and power-of-two rescaling of every hidden layer: same function."""
    rng = np.random.default_rng(seed)
    out = net
    for layer in range(1, net.depth):
        width = net.widths[layer]
        out = moves.permute(out, layer, [int(i) for i in rng.permutation(width)])
        for neuron in range(width):
            out = moves.scale(out, layer, neuron, float(2.0 ** rng.integers(-3, 4)))
    return out


# ---- valid inputs: finite, shaped, invariant ---------------------------------------------------


@FEW
@given(net=nets(), seed=st.integers(0, 2**32 - 1), n=st.integers(1, 20))
def test_evaluation_finite_and_layout_free(net, seed, n):
    x = np.random.default_rng(seed).standard_normal((n, net.n_inputs))
    y = net(x)
    assert y.shape == (n, net.n_outputs) and np.all(np.isfinite(y))
    for variant in non_contiguous_copies(x):
        np.testing.assert_array_equal(net(variant), y)
    exact = net.evaluate(x[:2], exact=True).astype(float)
    np.testing.assert_allclose(exact, y[:2], rtol=1e-12, atol=1e-12)


@FEW
@given(net=nets(), seed=st.integers(0, 2**32 - 1))
def test_symmetries_preserve_canonical_form_and_equivalence(net, seed):
    twin = symmetric_copy(net, seed)
    assert R.canonical_form(twin) == R.canonical_form(net)
    verdict = R.equivalent(net, twin)
    assert verdict.equivalent is True and verdict.proof


@FEW
@given(a=nets(depth=2), seed=st.integers(0, 2**32 - 1), delta=st.floats(1e-3, 1.0))
def test_equivalence_decisions_symmetric(a, seed, delta):
    Ws, bs = a.float_parameters()
    bs = [b.copy() for b in bs]
    bs[-1] = bs[-1] + delta  # a constant shift of the output: never equivalent
    b = R.ReLUNet(Ws, bs)
    ab, ba = R.equivalent(a, b), R.equivalent(b, a)
    assert ab.equivalent is False and ba.equivalent is False and ab.proof and ba.proof
    for verdict, (first, second) in ((ab, (a, b)), (ba, (b, a))):
        w = verdict.witness
        assert np.any(first.evaluate(w, exact=True) != second.evaluate(w, exact=True))


@FEW
@given(net=nets())
def test_fiber_dimensions_consistent(net):
    rank = R.functional_dimension(net)
    assert 0 <= rank <= net.n_parameters
    fiber = R.fiber_description(net)
    assert fiber.dimension == net.n_parameters - fiber.functional_dimension
    assert fiber.free_directions.shape == (net.n_parameters, fiber.dimension)
    if net.depth > 1:
        laws = R.conservation_laws(net)
        assert [len(h) for h in laws] == list(net.widths[1:-1]) and all(np.all(np.isfinite(h)) for h in laws)


# ---- hostile inputs ----------------------------------------------------------------------------

NET = random_net(0, [2, 3, 1])
W0, B0 = [np.asarray(W) for W in NET.weights], [np.asarray(b) for b in NET.biases]


@FEW
@given(d=st.data())
def test_poisoned_arrays_refused(d):
    bad("weights[0]", R.ReLUNet, [d.draw(poisoned(W0[0])), W0[1]], B0)
    bad("biases[1]", R.ReLUNet, W0, [B0[0], d.draw(poisoned(B0[1]))])
    bad("x", NET, d.draw(poisoned(np.ones((3, 2)))))
    bad("points", R.functional_dimension, NET, d.draw(poisoned(np.ones((5, 2)))))
    bad("X", R.neuron_gradients, NET, d.draw(poisoned(np.ones((4, 2)))), np.ones((4, 1)))
    bad("domain", R.equivalent, NET, NET, domain=d.draw(poisoned(np.array([[-1.0, 1.0], [-1.0, 1.0]]))))
    bad("theta", R.ReLUNet.from_parameter_vector, [2, 3, 1], d.draw(poisoned(np.ones(13))))


@pytest.mark.parametrize("value", BAD_ARRAYS, ids=repr)
def test_bad_arrays_refused(value):
    bad("weights[0]", R.ReLUNet, [value, W0[1]], B0)
    bad("biases[0]", R.ReLUNet, W0, [value, B0[1]])
    bad("x", NET, value)
    bad("X", R.local_conservation_laws, NET, value)
    bad("theta", R.ReLUNet.from_parameter_vector, [2, 3, 1], value)


@pytest.mark.parametrize("value", BAD_COUNTS, ids=repr)
def test_bad_counts_refused(value):
    bad("layer", moves.scale, NET, value, 0, 2.0)
    bad("neuron", moves.scale, NET, 1, value, 2.0)
    if value != 10**30:  # a huge budget is a valid "no limit"
        bad("max_regions", R.equivalent, NET, NET, max_regions=value)
    if value is not None:
        bad("n_points", R.functional_dimension, NET, n_points=value)
        bad("widths", R.ReLUNet.from_parameter_vector, [2, value, 1], np.ones(13))
    if value != 10**30 and value is not None and not isinstance(value, bool) and value != -1:
        bad("n_samples", R.equivalent, NET, NET, n_samples=value)


@pytest.mark.parametrize("value", BAD_REALS + [-1.0, 0.0], ids=repr)
def test_bad_reals_refused(value):
    if value != "0.5":  # a Fraction literal, like Fraction("0.5")
        bad("s", moves.scale, NET, 1, 0, value)
    if value != 0.0:
        bad("rtol", R.functional_dimension, NET, rtol=value)
    if value not in (-1.0, 0.0, None):
        bad("eta", R.gd_drift, NET, ([np.ones((3, 2)), np.ones((1, 3))], [np.ones(3), np.ones(1)]), value)
    if value is not None and value != float("inf"):  # None and inf: no time limit
        bad("time_limit", R.equivalent, NET, NET, time_limit=value)


def test_wrong_structures_refused():
    bad("weights", R.ReLUNet, [], [])
    bad("weights", R.ReLUNet, np.ones((2, 2)), [np.ones(2)])
    bad("biases", R.ReLUNet, W0, B0[:1])
    bad("weights[1]", R.ReLUNet, [W0[0], np.ones((1, 4))], B0)
    bad("biases[0]", R.ReLUNet, W0, [np.ones(4), B0[1]])
    bad("weights[0]", R.ReLUNet, [np.ones(3), W0[1]], B0)
    bad("dtype", R.ReLUNet, W0, B0, dtype="float32")
    bad("x", NET, np.ones((2, 3)))
    bad("x", NET, np.ones((2, 2, 2)))
    bad("net", R.canonical_form, "net")
    bad("net", R.is_bottleneck, "net")
    bad("method", R.canonical_form, NET, "spectral")
    bad("b", R.equivalent, NET, random_net(1, [3, 2, 1]))
    bad("b", R.equivalent, NET, None)
    bad("procedure", R.equivalent, NET, NET, procedure="magic")
    bad("domain", R.equivalent, NET, NET, domain=(1.0, -1.0))
    bad("domain", R.equivalent, NET, NET, domain="box")
    bad("domain", R.equivalent, random_net(2, [1, 3, 1]), random_net(3, [1, 2, 2, 1]), procedure="milp")
    bad("perm", moves.permute, NET, 1, [0, 0, 1])
    bad("widths", R.ReLUNet.from_parameter_vector, "231", np.ones(13))
    bad("theta", R.ReLUNet.from_parameter_vector, [2, 3, 1], np.ones(5))
    bad("grads", R.gd_drift, NET, "grads", 0.1)
    bad("grads[0][0]", R.gd_drift, NET, ([np.ones((2, 2)), np.ones((1, 3))], [np.ones(3), np.ones(1)]), 0.1)


def test_overflow_refused_not_silent():
    huge = R.ReLUNet([np.full((2, 2), 1e308), np.full((1, 2), 1e308)], [np.zeros(2), np.zeros(1)])
    # regressions: these returned infinities (or raised bare RuntimeWarnings) before
    assert "exact=True" in str(bad("net", R.conservation_laws, huge))
    assert R.conservation_laws(huge, exact=True)[0][0] > 0
    bad("net", R.functional_dimension, huge)
    bad("net", R.fiber_description, huge)
    with pytest.raises(ValueError, match="x: the outputs overflow float64"):
        huge(np.ones(2))
    bad("eta", R.gd_drift, NET, ([np.ones((3, 2)), np.ones((1, 3))], [np.ones(3), np.ones(1)]), 1e300)
    tiny = R.ReLUNet([np.full((2, 2), 1e-300), np.full((1, 2), 1e-300)], [np.zeros(2), np.zeros(1)])
    verdict = R.equivalent(tiny, huge, procedure="sampling")  # float pre-filter overflows; exact check decides
    assert verdict.equivalent is False and verdict.proof


# ---- resource limits ---------------------------------------------------------------------------


def test_exploding_work_refused_up_front():
    assert "max_result_bytes" in str(bad("n_points", R.functional_dimension, NET, n_points=10**9))
    bad("n_samples", R.equivalent, NET, NET, n_samples=10**12)
    wide = random_net(4, [13, 2, 1])
    assert "procedure='milp'" in str(bad("procedure", R.equivalent, wide, wide, domain=(-1, 1), procedure="regions"))


def test_jacobian_limit_is_configurable():
    with paperkernels.limits.override(max_result_bytes=8 * 10 * 1 * NET.n_parameters - 1):
        bad("points", R.functional_dimension, NET, np.ones((10, 2)))
    with paperkernels.limits.override(max_result_bytes=8 * 10 * 1 * NET.n_parameters):
        assert R.functional_dimension(NET, np.random.default_rng(0).standard_normal((10, 2))) >= 1


# ---- threads, Ctrl-C, memory -------------------------------------------------------------------


def test_concurrent_calls_match_sequential():
    deep = [random_net(s, [4, 12, 12, 10, 2]) for s in range(4)]  # the C++ generic deep form
    shallow = [random_net(10 + s, [3, 20, 2]) for s in range(4)]  # the C++ one-hidden-layer check

    def work(i):
        form = R.canonical_form(deep[i])
        twin = symmetric_copy(shallow[i], i)
        return form, R.equivalent(shallow[i], twin).equivalent, R.canonical_form(twin)

    expected = [work(i) for i in range(4)]
    for got, want in zip(run_in_threads(work, list(range(4))), expected, strict=False):
        assert got[0] == want[0] and got[1] is want[1] is True and got[2] == want[2]


def test_region_enumeration_interruptible():
    rng = np.random.default_rng(0)
    a = random_net(0, [3, 30, 30, 1])
    b = moves.permute(a, 1, [int(i) for i in rng.permutation(30)])  # minutes of exact region enumeration
    interrupted_quickly(lambda: R.equivalent(a, b, domain=(-10, 10), procedure="regions", max_regions=10**6))


@pytest.mark.needs_proc
@pytest.mark.memory_growth
def test_no_memory_growth():
    deep = random_net(5, [3, 8, 8, 6, 2])
    a = random_net(6, [2, 10, 1])
    b = symmetric_copy(a, 1)

    def call():
        R.canonical_form(deep)
        R.equivalent(a, b, n_samples=0)
        deep(np.ones((50, 3)))

    assert rss_growth(call, 300) < 8 * 2**20


@pytest.mark.parametrize("duration", [np.timedelta64(3, "ns"), np.timedelta64(2), np.timedelta64(3, "s")])
def test_durations_refused_naming_the_argument(duration):
    # numpy's timedelta64 is a numbers.Integral, and float() reads it as a count of its unit: in
    # object arrays it used to pass as a number (or fail in float() naming nothing)
    x = np.array([[duration, 1.0]], dtype=object)
    for call in (NET, NET.activation_pattern, lambda v: NET.evaluate(v, exact=True)):
        assert "timedelta64" in str(bad("x", call, x))
    weights = [np.array(W, dtype=object) for W in W0]
    weights[0][0, 0] = duration
    assert "timedelta64" in str(bad("weights[0]", R.ReLUNet, weights, B0))
    assert "timedelta64" in str(bad("domain", R.equivalent, NET, NET, domain=([duration, 0.0], [1.0, 1.0])))
