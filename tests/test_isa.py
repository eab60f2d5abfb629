"""The instruction-set override (PAPERKERNELS_ISA, set_isa, get_isa, show_config) and every SIMD
kernel run under each instruction set this CPU supports: the kernels only spread independent sums
across vector lanes (each sum keeps its order, no fused multiply-add), so every instruction set
must return the same bits. The one exception, the greedy Gram kernel, adds by fused multiply-adds
under avx2 and avx512 (same bits between them) and stays within a documented bound of sse2."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import paperkernels
import paperkernels.shapes as ps
from paperkernels import _core

ISAS = paperkernels.supported_isas()


def under_every_isa(fn):
    """fn() under each supported instruction set; asserts all results equal bit for bit."""
    results = []
    for isa in ISAS:
        with paperkernels.set_isa(isa):
            assert paperkernels.get_isa() == isa
            results.append((isa, fn()))
    _, first = results[0]
    for isa, got in results[1:]:
        for a, b in zip(
            first if isinstance(first, tuple) else (first,), got if isinstance(got, tuple) else (got,), strict=False
        ):
            assert np.array_equal(a, b), f"{isa} differs from {results[0][0]}"
    return first


def test_default_is_the_widest_supported_and_sse2_always_runs():
    assert ISAS[-1] == "sse2"
    assert set(ISAS) <= {"avx512", "avx2", "sse2"}
    env = dict(os.environ)
    env.pop("PAPERKERNELS_ISA", None)
    out = subprocess.run(
        [sys.executable, "-c", "import paperkernels; print(paperkernels.get_isa())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == ISAS[0]


@pytest.mark.parametrize("isa", ISAS)
def test_environment_variable_is_read_at_import(isa):
    env = dict(os.environ, PAPERKERNELS_ISA=isa.upper())
    out = subprocess.run(
        [sys.executable, "-c", "import paperkernels; print(paperkernels.get_isa())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == isa


def test_bad_environment_variable_is_a_clear_error():
    env = dict(os.environ, PAPERKERNELS_ISA="avx9")
    out = subprocess.run([sys.executable, "-c", "import paperkernels"], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "ValueError: PAPERKERNELS_ISA: expected one of 'avx512', 'avx2', 'sse2'" in out.stderr


def test_set_isa_is_global_and_a_context_manager():
    before = paperkernels.get_isa()
    with paperkernels.set_isa("sse2") as chosen:
        assert chosen == "sse2" and paperkernels.get_isa() == "sse2"
        with paperkernels.set_isa("auto"):
            assert paperkernels.get_isa() == ISAS[0]
        assert paperkernels.get_isa() == "sse2"
    assert paperkernels.get_isa() == before
    paperkernels.set_isa("sse2")
    try:
        assert paperkernels.get_isa() == "sse2"
    finally:
        paperkernels.set_isa(before)


def test_overlapping_blocks_in_two_threads_restore_the_setting():
    # Thread A's block is entered first and left first, while B's is running: leaving withdraws
    # only A's own setting, and once both are left the setting before them is back.
    before = paperkernels.get_isa()
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with paperkernels.set_isa("sse2"):
            a_in.set()
            b_in.wait()
        seen["after A"] = paperkernels.get_isa()
        a_out.set()

    def second():
        a_in.wait()
        with paperkernels.set_isa(ISAS[0]):
            b_in.set()
            a_out.wait()
            seen["B alone"] = paperkernels.get_isa()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == {"after A": ISAS[0], "B alone": ISAS[0]}
    assert paperkernels.get_isa() == before


def test_many_threads_entering_blocks_leave_the_base_unchanged():
    # A call changes the base at once and its block withdraws it when entered: another thread's
    # call or block in between must not make either change permanent.
    before = paperkernels.get_isa()
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads interleave between the call and the block's entry
    try:

        def blocks(seed):
            rng = np.random.default_rng(seed)
            for _ in range(300):
                with paperkernels.set_isa(str(rng.choice(ISAS))):
                    pass

        threads = [threading.Thread(target=blocks, args=(seed,)) for seed in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert paperkernels.get_isa() == before


def test_a_context_runs_one_block_at_a_time():
    # Blocks of one context could end out of order (generators, other threads): which one a
    # __exit__ ends would be a guess, so a second block of a running context is refused.
    before = paperkernels.get_isa()
    context = paperkernels.set_isa("sse2")
    with context:
        with pytest.raises(RuntimeError, match="still running"):
            context.__enter__()
        assert paperkernels.get_isa() == "sse2"
    with context:  # again, once the block has ended
        assert paperkernels.get_isa() == "sse2"
    assert paperkernels.get_isa() == before
    # A block ended from another thread than the one that entered it.
    other = paperkernels.set_isa("sse2")
    other.__enter__()
    thread = threading.Thread(target=other.__exit__, args=(None, None, None))
    thread.start()
    thread.join()
    assert paperkernels.get_isa() == before


def test_a_context_applies_its_isa_when_entered():
    before = paperkernels.get_isa()
    context = paperkernels.set_isa("sse2")
    paperkernels.set_isa(ISAS[0])  # a later call: its setting is the one in force around the block
    with context as chosen:
        assert chosen == "sse2" and paperkernels.get_isa() == "sse2"
    assert paperkernels.get_isa() == ISAS[0]
    with paperkernels.set_isa("sse2"):
        paperkernels.set_isa(ISAS[-1])  # a call inside a block takes effect when the block ends
        assert paperkernels.get_isa() == "sse2"
    assert paperkernels.get_isa() == ISAS[-1]
    paperkernels.set_isa(before)


def test_show_config_names_the_environment_only_while_its_choice_holds():
    script = (
        "import paperkernels as p\n"
        "p.show_config()\n"
        "with p.set_isa('auto'):\n"
        "    p.show_config()\n"
        "p.set_isa('sse2')\n"
        "p.show_config()\n"
    )
    env = dict(os.environ, PAPERKERNELS_ISA=" SSE2 ")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    in_use = [line.strip() for line in out.stdout.splitlines() if line.strip().startswith("in use:")]
    assert in_use == ["in use: sse2 (PAPERKERNELS_ISA=sse2)", f"in use: {ISAS[0]}", "in use: sse2"]


def test_unknown_or_unsupported_isa_is_refused():
    before = paperkernels.get_isa()
    with pytest.raises(ValueError, match="isa: expected one of 'avx512', 'avx2', 'sse2' or 'auto', got 'neon'"):
        paperkernels.set_isa("neon")
    with pytest.raises(TypeError, match="isa: expected one of"):
        paperkernels.set_isa(2)
    with pytest.raises(ValueError, match="isa: expected 'avx512', 'avx2' or 'sse2'"):
        _core.isa.set("avx3")
    missing = [isa for isa in ("avx512", "avx2") if isa not in ISAS]
    for isa in missing:
        with pytest.raises(ValueError, match=f"this CPU does not support '{isa}'"):
            paperkernels.set_isa(isa)
        with pytest.raises(ValueError, match=f"this CPU does not support '{isa}'"):
            _core.isa.set(isa)
    assert paperkernels.get_isa() == before


def test_show_config_reports_build_cpu_and_isa(capsys):
    with paperkernels.set_isa("sse2"):
        assert paperkernels.show_config() is None
        text = capsys.readouterr().out
        info = paperkernels.show_config(mode="dicts")
    assert f"paperkernels {paperkernels.__version__}" in text
    assert "compiler:" in text and "flags:" in text and "-ffp-contract=off" in text
    assert "features found:" in text and "in use: sse2" in text
    assert info["simd"]["in_use"] == "sse2" and info["simd"]["supported"] == ISAS
    assert "sse2" in info["cpu"]["features"] or info["cpu"]["machine"] != "x86_64"
    with pytest.raises(ValueError, match="mode: expected"):
        paperkernels.show_config(mode="json")


# --- every SIMD kernel under every instruction set ------------------------------------------------


# folded (even, odd) and unfolded grids; the last two need several spans of gathered features
@pytest.mark.parametrize("shape", [(40, 40), (33, 33), (24, 37), (58, 70), (180, 180)])
@pytest.mark.parametrize("max_basis_bytes", [1e9, 0])  # stored basis (in panels) and on the fly
def test_cartesian_moments_same_bits_under_every_isa(shape, max_basis_bytes):
    rng = np.random.default_rng(sum(shape))
    masks = rng.random((53, *shape))  # 53: neither a multiple of a block nor of a tile height
    got = under_every_isa(lambda: ps.zernike_moments(masks, 13, max_basis_bytes=max_basis_bytes, n_threads=2))
    assert np.array_equal(got, ps.zernike_moments(masks, 13, max_basis_bytes=1e9 - max_basis_bytes, n_threads=1))


def test_cartesian_synthesis_same_bits_under_every_isa():
    enc = ps.XShapeEncoder(11, n_threads=2)
    rng = np.random.default_rng(3)
    codes = enc.encode_geometry(rng.random((9, 32, 32)))
    under_every_isa(lambda: enc.decode_geometry(codes, (29, 31)).field)


def test_polar_moments_same_bits_under_every_isa():
    from paperkernels.shapes._zernike import polar_basis

    grid = ps.polar_grid(37, 19, rule="gauss")
    values = np.random.default_rng(5).random((7, 37, 19))
    S = _core.shapes.half_size(12)
    under_every_isa(lambda: polar_basis(12, grid).analyse(values, 2, S))


@pytest.mark.parametrize("widths", [[9, 13, 37, 5], [64, 64, 64, 3], [3, 40, 17, 1]])
@pytest.mark.parametrize("values", ["normal", "integers"])  # integers: tied maxima, settled exactly
def test_relu_deep_form_same_bits_under_every_isa(widths, values):
    from paperkernels.benchmarks.relu import numpy_deep_form
    from paperkernels.relu import ReLUNet
    from paperkernels.relu._fast import deep_handle

    rng = np.random.default_rng(sum(widths))

    def draw(*shape):
        if values == "normal":
            return rng.normal(size=shape)
        return rng.integers(1, 9, size=shape) * rng.choice([-1.0, 1.0], size=shape)

    net = ReLUNet(
        [draw(widths[i + 1], widths[i]) for i in range(len(widths) - 1)],
        [draw(widths[i + 1]) for i in range(len(widths) - 1)],
    )

    def decisions():
        handle = deep_handle(net)
        assert handle.ok  # the float path, not the exact fallback for degenerate networks
        return tuple(np.array(v) for v in handle.scales() + handle.pivots() + handle.orders())

    def parameters():
        _, weights, biases = deep_handle(net).materialize()
        return tuple(weights + biases)

    under_every_isa(decisions)
    parts = under_every_isa(parameters)
    if values == "normal":  # no near ties: the plain numpy procedure gives the same values
        ref_W, ref_b = numpy_deep_form(*net.float_parameters())
        for got, ref in zip(parts, ref_W + ref_b, strict=True):
            assert np.array_equal(got, ref)


@pytest.mark.parametrize("arms", ["bernoulli", "gaussian"])
def test_toptwo_cost_index_same_episodes_under_every_isa(arms):
    # 300 arms: the challenger and Z come from the blocked cost index, whose bounds are vectorised.
    from paperkernels import toptwo

    rng = np.random.default_rng(5)
    mu = np.round(rng.uniform(0.1, 0.5, 300), 2)
    mu[17] = 0.7

    def run():
        r = toptwo.run_many(mu, 0.05, 3, arms=arms, seed=11, n_threads=1)
        return r.tau, r.recommendation, r.N

    tau, rec, _ = under_every_isa(run)
    assert (rec == 17).all() and (tau > 300).all()


@pytest.mark.parametrize("N", [0, 5, 16])
def test_polygon_moments_same_bits_under_every_isa(N):
    poly = ps.star_polygon(7, 0.4)
    under_every_isa(lambda: ps.zernike_moments(poly, N))


def test_greedy_gram_and_learners_under_every_isa():
    # The Gram kernel adds its terms by fused multiply-adds under avx2 and avx512 (same bits) and by
    # products then sums under sse2 (within the bound test_greedy_gram.py checks); the learners give
    # the same bits under every instruction set for the same Gram matrix. The data have a clear
    # signal and no near-ties between candidate scores, so every instruction set picks the same
    # features (at near-ties, rounding could tip a choice).
    rng = np.random.default_rng(8)
    X = rng.standard_normal((97, 45))
    y = X[:, :3] @ np.array([1.0, -2.0, 0.5]) + rng.standard_normal(97)
    mean = X.mean(axis=0)
    fs, omp = _core.greedy.Criterion.fs, _core.greedy.Criterion.omp

    def learners(gram, xty):
        xt = np.ascontiguousarray((X - mean).T)
        col_sq = np.einsum("ij,ij->i", xt, xt)
        return (
            *_core.greedy.fit_gram(gram, xty, 6, 30, fs, 1e-10, 3, 9, 2),
            *_core.greedy.fit_columns(xt, xty, col_sq, 6, 4, omp, 1e-10, 3, 9, 2),
        )

    results = {}
    for isa in ISAS:
        with paperkernels.set_isa(isa):
            gram, xty = _core.greedy.centred_gram(X, mean, 2, y - y.mean())
            results[isa] = (gram, xty, under_every_isa(lambda g=gram, v=xty: learners(g, v)))
    widest = results[ISAS[0]]
    for isa in ISAS[1:]:
        gram, xty, fitted = results[isa]
        if isa != "sse2":
            assert all(np.array_equal(a, b) for a, b in zip(widest[:2] + widest[2], (gram, xty) + fitted, strict=True))
            continue
        assert np.allclose(gram, widest[0], rtol=0, atol=1e-13 * np.max(np.abs(gram)))
        assert np.allclose(xty, widest[1], rtol=0, atol=1e-13 * np.max(np.abs(gram)))
        for index in (1, 5):  # the features chosen by each learner (fs from the Gram, omp from the data)
            assert np.array_equal(fitted[index], widest[2][index]), isa
        for a, b in zip(fitted, widest[2], strict=True):
            assert np.allclose(a, b, rtol=1e-9, atol=1e-12), isa


@pytest.mark.parametrize(
    "dtype, bad, shown",
    # The offending value is shown exactly (shortest round-trip text of the float64 it reads as).
    [
        (np.float32, np.nan, "nan"),
        (np.float32, np.nextafter(np.float32(1), np.float32(2)), "1.0000001192092896"),
        (np.float32, -0.0001, "-9.999999747378752e-05"),
        (np.float64, 1 + 1e-15, "1.000000000000001"),
        (np.uint8, 2, "2"),
    ],
)
def test_mask_range_check_in_every_dtype_names_the_pixel(dtype, bad, shown):
    masks = np.zeros((3, 40, 40), dtype=dtype)
    masks[2, 17, 23] = bad
    with pytest.raises(ValueError, match=rf"got {shown} in mask 2 at pixel \(17, 23\)"):
        ps.zernike_moments(masks, 4, input="cartesian")
    masks[2, 17, 23] = 1  # the bounds themselves are valid
    masks[1, 3, 4] = 0
    ps.zernike_moments(masks, 4, input="cartesian")
