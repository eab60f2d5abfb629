"""How paperkernels.toptwo meets its users and the C++ core: samplers pickled by earlier versions
load and continue identically, options cross into C++ as enum members only, C++ error messages show
the offending numbers exactly, and optional dependencies are named when missing."""

import base64
import pickle
import sys
import zlib

import numpy as np
import pytest

from paperkernels import _core, toptwo

MU = [0.7, 0.5, 0.3]

# TopTwo(3, delta=0.1, seed=11, **options) fed the first tau // 2 rewards of
# identify(MU, 0.1, seed=11, record=True, **options), pickled (protocol 4, zlib, base64) by the
# version in which paperkernels.toptwo was a single module.
LEGACY_PICKLES = {
    "tracking-rule": (
        {"rule": "tracking"},
        "eNp9U0trFEEQnsnOujubB+Ij6tXTBs0SDwkRhISsIejogpqrDj0ztdvD9jzomdm4BiGiIe7St5QH/QV6Ea9CzoII+hf07kHQe+x5hKySpA9TPV9/VfVVV/WW9mpBU7IlzoYkBN4F7gOLGnEQxhsBilPrQbguN7s48wyfYl2oBholUZHHbuBHGVSJiBcy4JK9ujK73rwlNwyIkyJjqysoKonvtgPu4UBUY07srut3UGh+4AOKyQ1wOzSOTOgB76OhilOSkjLolBhnLjMhjFwW+Li29OLJj7X35zZFNYUtiInEfhX6aynGiGc5El2+XKB6YlsmYSEdpWqF6/cDV5sSxsDvpIpLWQEaTxggnRR67IJpcSBdTIX5TuChOCOrscEx4XHIAk7Sq5C16Z7rm2HCWJRWoRHuRSh0S95oIEEXRTlyO96okLIDLFPy8XW63iRiKqYcIhowx5S35Eghne61BRSnD/EeYQlE2BITh1jbl/+aHXDImxSjsSDUFoppP/HCfsNMjxpewmKXcE76KCZMDrbsYMwTO5btFeWMKZvlOzllFw1lG5uqhTt4H+uGapS2kV6VouN+CKnLmLuIg5f5aUmoN7DVat3elyv7GEqM1qB58VJerHK+sNXCojwW6gOkV2gjzUTnRvPMi7H2SHR6/cjYeaS55dzWC6ss57HvHBN7UXrOFlS1sOV/VN09wfPCf56lUc8Sl4P7EOtDvfV1c+ndt5l9Zajfs6eGb6e3/ijDKt37sjf/ueoNq9qn2u8PP5/3gNaykoQeAQM7m6UcqBQv4wgt6c/NQTPPWbMT2Vk5hT04lkofpcyJg7fGoC1HRA4gDxI5ZVm+gaHsoBgH5so5zmf6xGhJYjX+AhB5h0M=",
    ),
    "track-and-stop": (
        {"sampler": "TaS-D"},
        "eNqdU0toE1EUzTRJk9RW/BQRN0JBqKip3dQPQqppKTqahY0rkeHNzEtmyJsPb+a1RhEULDXhLYReF3bhortuXEpFcOXKlRtBRESLuHGje1HvfGoDtV14F3mTc3/n/u7mHlm5TCxyv098yluUu5QF5dDzw3kPZH/d8+v4sQRH78EdGJWKCmpWFlBte24QQ4WAOD6jHGS+TmZPTKEXo8SMgL7pCyALwrUbHnegI4shJ0bLdpsgFbQbmqd20woDjc5R3gZVkf2oj9U513MpyF3MZhr1A5t5LsxU7t/6PPN0+LYsRrBOQ4LY97SAgQhjxNFNRCdHUrQkDF0jzLd6TXOp66cNV8MijFG3GXHO1qsXMT8XDPMjH9f0HJCl0KaazilpgXVI7sN6DGpq9KbPPE6iXmB1Jcd2NV8wFkSl5Ah3AnTUsaUegjb2J7CbTi+RvElZzOT540iWhdwdWpwGlsdMDftkIpFma3wC5J5NfI4wQQOoycFNrOHi/5zhcZpMKQS1IZUayAOucPx2WYtUZUew0CackzbIQY1TA0cYcmGEOF+Zjy1xXK6ZmCyBmlmAqqLDIlyFUVVRswtgnUDSYdunkUuffRo6DxJtVirnoFarXfqNEv+omRD0TvVgOSk2cyx9h9IXUC2VWbCOW2NRJmu8N8+E7Gv0RLfO/jN2Eun8ZPKeSt/hyST25W1in/nruVUSzyv/65nluL03YLRbWv2xtr4u1p5kusWxX19/rjxcPdkt6lOV90Mrh81ucel6Dd68+pKn1kBckSwFlFEjXqUEKKTXsQ2VaaSi8b0vjvR/rHxbvjbysvqh8va10fXfPavEVAYMgQPH5ZyjO4TYsZrBjQNltIErhQvLPYFbGRPsqJlFvFDKbNz75Aa2pskkaeJwQujlPx+ilp0=",
    ),
}


@pytest.mark.parametrize("case", sorted(LEGACY_PICKLES))
def test_samplers_pickled_by_the_single_module_version_continue_identically(case):
    options, blob = LEGACY_PICKLES[case]
    sampler = pickle.loads(zlib.decompress(base64.b64decode(blob)))
    assert type(sampler) is toptwo.TopTwo
    episode = toptwo.identify(MU, 0.1, seed=11, record=True, **options)
    half = episode.tau // 2
    assert sampler.t == half
    np.testing.assert_array_equal(sampler.N, np.bincount(episode.arms[:half], minlength=3))
    for arm, reward in zip(episode.arms[half:], episode.rewards[half:], strict=True):
        assert not sampler.should_stop()
        assert sampler.select() == arm
        sampler.update(arm, reward)
    assert sampler.should_stop()
    assert sampler.recommendation == episode.recommendation
    np.testing.assert_array_equal(sampler.N, episode.N)
    # and it pickles by its public path
    assert b"paperkernels.toptwo" in pickle.dumps(sampler) and b"toptwo._incremental" not in pickle.dumps(sampler)


def _config(**changes):
    core = _core.toptwo
    arguments = dict(
        K=3,
        beta=0.5,
        challenger=core.Challenger.tci,
        rule=core.Rule.random,
        tie_break=core.TieBreak.random,
        forced_exploration=False,
        min_pulls=1,
        arms=core.Arms.bernoulli,
        sigma=1.0,
        threshold=core.ThresholdKind.gk16,
        delta=0.1,
        threshold_values=None,
        leader=core.Leader.eb,
        uniform=False,
        ucb_alpha=1.0,
        tracking=core.Tracking.none,
        weights_every=1,
        racing=core.Racing.none,
        lil_epsilon=0.01,
        lil_beta=1.0,
        lil_lambda=9.0,
    )
    arguments.update(changes)
    return core.Config(**arguments)


def test_options_cross_into_cpp_as_enum_members_only():
    core = _core.toptwo
    assert set(core.Arms.__members__) == {"bernoulli", "gaussian"}
    assert set(core.ThresholdKind.__members__) == {"gk16", "union_bound", "kk21", "array"}
    assert set(core.Racing.__members__) == {"none", "lucb1", "lil_ucb", "ege"}
    config = _config()
    episode = core.identify(config, np.array(MU), 3, 10**6, False)
    assert episode[:2] == (toptwo.identify(MU, 0.1, seed=3).recommendation, toptwo.identify(MU, 0.1, seed=3).tau)
    # Neither option strings nor bare integers are accepted by the core.
    for name, value in [
        ("arms", "bernoulli"),
        ("arms", 0),
        ("challenger", "TCI"),
        ("rule", 1),
        ("threshold", "gk16"),
        ("threshold", 0),
        ("racing", "LUCB1"),
        ("tracking", 2),
    ]:
        with pytest.raises(TypeError):
            _config(**{name: value})
    with pytest.raises(TypeError):
        core.threshold("gk16", 0.1, 3, np.arange(1, 4))
    with pytest.raises(TypeError):
        core.characteristic_time(np.array(MU), 0.5, "bernoulli", 1.0)


def test_threshold_function_needs_only_its_own_arguments():
    core = _core.toptwo
    t = np.arange(1, 6, dtype=np.int64)
    np.testing.assert_array_equal(
        core.threshold(core.ThresholdKind.union_bound, 0.05, 4, t), np.log(2.0 * t * 3 / 0.05)
    )
    with pytest.raises(ValueError, match="named threshold"):
        core.threshold(core.ThresholdKind.array, 0.05, 4, t)
    with pytest.raises(ValueError, match=r"delta: expected a number in \(0, 1\), got 1.5$"):
        core.threshold(core.ThresholdKind.gk16, 1.5, 4, t)


def test_cpp_messages_show_numbers_exactly():
    sampler = toptwo.TopTwo(2, seed=0)
    with pytest.raises(ValueError, match=r"reward: Bernoulli arms expect rewards 0 or 1, got 0\.1$"):
        sampler.update(0, 0.1)
    with pytest.raises(ValueError, match=r"reward: Bernoulli arms expect rewards 0 or 1, got 1e-300$"):
        sampler.update([0, 1], [1.0, 1e-300])
    assert sampler.t == 0
    with pytest.raises(ValueError, match=r"ucb_alpha: expected a finite positive number, got -0\.5$"):
        _config(ucb_alpha=-0.5)
    with pytest.raises(ValueError, match=r"weights_every: expected a positive integer, got 0$"):
        _config(weights_every=0)
    with pytest.raises(ValueError, match=r"beta: expected a number in \(0, 1\), got 1\.25$"):
        _core.toptwo.characteristic_time(np.array(MU), 1.25, _core.toptwo.Arms.bernoulli, 1.0)


def test_named_options_stay_module_attributes():
    assert toptwo.SAMPLERS["EB-TCI"] == ("EB", "TCI") and len(toptwo.SAMPLERS) == 12
    assert toptwo.THRESHOLDS == ("gk16", "union", "kk21")
    assert (toptwo.DEFAULT_MAX_STEPS, toptwo.FWS_MAX_ARMS, toptwo.CHARACTERISTIC_MAX_ARMS) == (10**8, 256, 10_000)
    assert toptwo.ARMS == ("bernoulli", "gaussian") and toptwo.RULES == ("random", "tracking")


def test_flags_must_be_bools():
    with pytest.raises(TypeError, match="record: expected a bool, got int 1"):
        toptwo.identify(MU, 0.1, record=1, seed=0)
    with pytest.raises(TypeError, match="forced_exploration: expected a bool"):
        toptwo.TopTwo(3, forced_exploration="yes")


def test_missing_optional_dependencies_are_named(monkeypatch):
    result = toptwo.compare(MU, 0.1, samplers=["uniform"], n_runs=3, seed=0)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(ImportError, match=r"plot_comparison needs matplotlib: pip install 'paperkernels\[plot\]'"):
        toptwo.plot_comparison(result)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="Comparison.to_pandas needs pandas"):
        result.to_pandas()
