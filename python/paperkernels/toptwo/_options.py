"""Validation of the options of :mod:`paperkernels.toptwo`: sampling rules, thresholds, arms.

Every option string is checked once, here, and turned into the enum member of ``_core.toptwo``
that the C++ core takes (the core never parses strings).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _core
from .._limits import check_result_bytes
from .._validation import as_array, as_bool, as_choice, as_float, as_int, is_real, plain_array

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

CHALLENGERS = ("TCI", "TC", "RS")
#: Named sampling rules: (leader, challenger) of the top-two family, "uniform", or the tracking rule
#: of Track-and-Stop ("C" or "D").
SAMPLERS: dict[str, Any] = {
    "EB-TCI": ("EB", "TCI"),
    "EB-TC": ("EB", "TC"),
    "TTTS": ("TS", "RS"),
    "T3C": ("TS", "TC"),
    "TTUCB": ("UCB", "TC"),
    "uniform": "uniform",
    "TaS-C": "C",
    "TaS-D": "D",
    "FWS": "FW",
    "LUCB1": "LUCB1",
    "lilUCB": "lilUCB",
    "EGE": "EGE",
}
RULES = ("random", "tracking")
ARMS = ("bernoulli", "gaussian")
TIE_BREAKS = ("random", "first")
THRESHOLDS = ("gk16", "union", "kk21")

#: Default cap on the number of pulls of one episode (a guard against instances that never stop).
DEFAULT_MAX_STEPS = 100_000_000
MAX_STEPS_LIMIT = 2**62
#: Largest number of arms of one sampler (arm indices are 32-bit in the C++ core).
MAX_ARMS = 2**31 - 1
#: Default cap on the number of arms :func:`characteristic_time` accepts (its cost grows like K
#: times the number of root-finding steps: about a second per 2,000 arms).
CHARACTERISTIC_MAX_ARMS = 10_000
#: Largest number of arms of Frank-Wolfe sampling, whose zero-sum game needs a (K + 1) x 2K tableau
#: per step.
FWS_MAX_ARMS = 256
#: Bytes of sampler state per arm (counts, sums, cached costs and tracking counters).
STATE_BYTES_PER_ARM = 88

ThresholdLike = str | npt.NDArray[Any] | Sequence[float] | Callable[[IntArray, float], Any]

# The option strings and the enum members of the C++ core they stand for.
_core_toptwo = _core.toptwo
ARM_KINDS = {"bernoulli": _core_toptwo.Arms.bernoulli, "gaussian": _core_toptwo.Arms.gaussian}
_CHALLENGER_KINDS = {
    "TCI": _core_toptwo.Challenger.tci,
    "TC": _core_toptwo.Challenger.tc,
    "RS": _core_toptwo.Challenger.rs,
}
_RULE_KINDS = {"random": _core_toptwo.Rule.random, "tracking": _core_toptwo.Rule.tracking}
_TIE_BREAK_KINDS = {"random": _core_toptwo.TieBreak.random, "first": _core_toptwo.TieBreak.first}
_LEADER_KINDS = {"EB": _core_toptwo.Leader.eb, "TS": _core_toptwo.Leader.ts, "UCB": _core_toptwo.Leader.ucb}
_TRACKING_KINDS = {
    "none": _core_toptwo.Tracking.none,
    "C": _core_toptwo.Tracking.c,
    "D": _core_toptwo.Tracking.d,
    "FW": _core_toptwo.Tracking.fw,
}
_RACING_KINDS = {
    "none": _core_toptwo.Racing.none,
    "LUCB1": _core_toptwo.Racing.lucb1,
    "lilUCB": _core_toptwo.Racing.lil_ucb,
    "EGE": _core_toptwo.Racing.ege,
}
THRESHOLD_KINDS = {
    "gk16": _core_toptwo.ThresholdKind.gk16,
    "union": _core_toptwo.ThresholdKind.union_bound,
    "kk21": _core_toptwo.ThresholdKind.kk21,
    "array": _core_toptwo.ThresholdKind.array,
}


@dataclass(frozen=True)
class SamplerOptions:
    """The validated options of one sampling rule (strings as the user wrote them; the enum members
    of the core are looked up when the core's configuration is built)."""

    sampler: str
    leader: str
    uniform: bool
    tracking: str
    weights_every: int
    racing: str
    lil_epsilon: float
    lil_beta: float
    lil_lambda: float
    ucb_alpha: float
    beta: float
    challenger: str
    rule: str
    tie_break: str
    forced_exploration: bool
    min_pulls: int
    arms: str
    sigma: float
    delta: float

    def as_dict(self) -> dict[str, Any]:
        """The options as the plain dict a pickled :class:`~paperkernels.toptwo.TopTwo` stores."""
        return asdict(self)


def real_array(value: Any, name: str, what: str = "numbers", **checks: Any) -> FloatArray:
    """as_array(value, name, **checks) for means, counts and thresholds: booleans are refused, as
    for the scalar arguments (a bool is not a number here); the error calls the values ``what``."""
    raw = array_without_booleans(value, name, f"real {what}")  # converted once; as_array checks it
    if raw.dtype == object:
        raw = _reals_from_objects(raw, name, what)
    elif raw.dtype.kind == "f" and raw.dtype.itemsize > 8:
        raw = _float64_from_long_double(raw, name, what)
    return as_array(raw, name, **checks)


def array_without_booleans(value: Any, name: str, expected: str) -> np.ndarray:
    """plain_array(value), refusing booleans anywhere in it (TypeError: "expected {expected}"):
    numpy reads ``[True, 0.5]`` as floats without a word, so a sequence is first looked at as
    numpy holds its elements."""

    def boolean(x: Any) -> bool:
        return isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.dtype.kind == "b")

    if isinstance(value, (list, tuple)):
        kinds = {type(x) for x in value}  # one pass in C: a flat list of numbers is the common case
        if any(issubclass(k, (list, tuple, np.ndarray)) or hasattr(k, "__array__") for k in kinds):
            try:
                found = any(boolean(x) for x in np.asarray(value, dtype=object).flat)
            except Exception:  # too deep or ragged: plain_array below reports it, naming the argument
                found = False
        else:
            found = any(issubclass(k, (bool, np.bool_)) for k in kinds)
        if found:
            raise TypeError(f"{name}: expected {expected}, got booleans")
    raw = plain_array(value, name)
    if boolean(raw) or (raw.dtype == object and any(boolean(x) for x in raw.flat)):
        raise TypeError(f"{name}: expected {expected}, got booleans")
    return raw


def _float64_from_long_double(raw: np.ndarray, name: str, what: str) -> np.ndarray:
    """A long double array as float64, refusing finite values that would become infinities or
    non-zero ones that would become 0."""
    with np.errstate(over="ignore", under="ignore"):
        converted = raw.astype(np.float64)
    lost = (np.isfinite(raw) & ~np.isfinite(converted)) | ((raw != 0) & (converted == 0))
    if np.any(lost):
        raise ValueError(f"{name}: expected {what} that float64 can hold, got one beyond its range")
    return converted


def _reals_from_objects(raw: np.ndarray, name: str, what: str) -> np.ndarray:
    """An object array of real numbers (numpy holds Python integers beyond uint64 so, and Fractions)
    as float64, each element by float(); other object arrays unchanged, for as_array to refuse."""
    elements = raw.ravel().tolist()
    if not all(is_real(x) for x in elements):
        return raw
    try:
        return np.array([_float64(x) for x in elements], dtype=np.float64).reshape(raw.shape)
    except OverflowError:
        raise ValueError(f"{name}: expected {what} that float64 can hold, got one beyond its range") from None


def _float64(x: Any) -> float:
    """float(x), refusing (OverflowError) a finite number that would become an infinity (a long
    double does so silently) or a non-zero one that would become 0."""
    value = float(x)  # integers and Fractions beyond float64 raise OverflowError here
    if (math.isinf(value) and not (isinstance(x, (float, np.floating)) and np.isinf(x))) or (value == 0.0 and x != 0):
        raise OverflowError
    return value


def check_mu(mu: Any, arms: str) -> tuple[FloatArray, int]:
    """Means with a unique maximum (in [0, 1] for Bernoulli arms) and the index of the best arm."""
    bounds = {"low": 0.0, "high": 1.0} if arms == "bernoulli" else {}
    values = real_array(mu, "mu", what="means", ndim=1, **bounds)
    if values.shape[0] < 2:
        raise ValueError(f"mu: expected at least 2 arms, got {values.shape[0]}")
    best = int(np.argmax(values))
    if np.count_nonzero(values == values[best]) > 1:
        tied = np.flatnonzero(values == values[best]).tolist()
        raise ValueError(f"mu: expected a unique best arm, but arms {tied} share the largest mean {values[best]}")
    return values, best


def check_sigma(sigma: Any) -> float:
    """A standard deviation whose 2 sigma^2 (the costs' denominator) is a finite normal number."""
    value = as_float(sigma, "sigma", low=0.0, low_open=True)
    two_sigma2 = 2.0 * value * value
    if not (np.isfinite(two_sigma2) and two_sigma2 >= np.finfo(np.float64).tiny):
        raise ValueError(
            f"sigma: expected a standard deviation whose 2 sigma^2 is a finite positive float64 "
            f"(about 1e-154 < sigma < 1.34e154), got {value!r}"
        )
    return value


def check_options(
    beta: Any,
    challenger: Any,
    rule: Any,
    arms: Any,
    sigma: Any,
    delta: Any,
    tie_break: Any,
    forced_exploration: Any,
    min_pulls: Any,
    sampler: Any = "EB-TCI",
    ucb_alpha: Any = 1.0,
    weights_every: Any = 1,
    lil_epsilon: Any = 0.01,
    lil_beta: Any = 1.0,
    lil_lambda: Any = 9.0,
) -> SamplerOptions:
    """Every option of a sampling rule, checked in a fixed order (the first bad one is named)."""
    flag = as_bool(forced_exploration, "forced_exploration")
    name = as_choice(sampler, "sampler", tuple(SAMPLERS))
    family = SAMPLERS[name]
    leader, own_challenger = family if isinstance(family, tuple) else ("EB", "TCI")
    if challenger is None:
        challenger = own_challenger
    return SamplerOptions(
        sampler=name,
        leader=leader,
        uniform=family == "uniform",
        tracking=family if family in ("C", "D", "FW") else "none",
        weights_every=as_int(weights_every, "weights_every", low=1, high=MAX_STEPS_LIMIT),
        racing=family if family in ("LUCB1", "lilUCB", "EGE") else "none",
        lil_epsilon=as_float(lil_epsilon, "lil_epsilon", low=0.0, high=1.0),
        lil_beta=as_float(lil_beta, "lil_beta", low=0.0, high=1e6, low_open=True),
        lil_lambda=as_float(lil_lambda, "lil_lambda", low=0.0, high=1e12, low_open=True),
        ucb_alpha=as_float(ucb_alpha, "ucb_alpha", low=0.0, low_open=True),
        beta=as_float(beta, "beta", low=0.0, high=1.0, low_open=True, high_open=True),
        challenger=as_choice(challenger, "challenger", CHALLENGERS),
        rule=as_choice(rule, "rule", RULES),
        tie_break=as_choice(tie_break, "tie_break", TIE_BREAKS),
        forced_exploration=flag,
        min_pulls=as_int(min_pulls, "min_pulls", low=1, high=MAX_STEPS_LIMIT),
        arms=as_choice(arms, "arms", ARMS),
        sigma=check_sigma(sigma),
        delta=as_float(delta, "delta", low=0.0, high=1.0, low_open=True, high_open=True),
    )


def options_from_dict(o: dict[str, Any]) -> SamplerOptions:
    """Options stored by :meth:`SamplerOptions.as_dict` (or by an older version, without the newer keys)."""
    return check_options(
        o["beta"],
        o["challenger"],
        o["rule"],
        o["arms"],
        o["sigma"],
        o["delta"],
        o["tie_break"],
        o["forced_exploration"],
        o["min_pulls"],
        o.get("sampler", "EB-TCI"),
        o.get("ucb_alpha", 1.0),
        o.get("weights_every", 1),
        o.get("lil_epsilon", 0.01),
        o.get("lil_beta", 1.0),
        o.get("lil_lambda", 9.0),
    )


def check_arm_count(K: int, opts: SamplerOptions, name: str) -> None:
    """Refuse more arms than Frank-Wolfe sampling handles, and round robins longer than any episode."""
    if K * opts.min_pulls > MAX_STEPS_LIMIT:
        raise ValueError(f"min_pulls: expected K * min_pulls <= 2^62 (the longest episode), got {K} * {opts.min_pulls}")
    if opts.sampler == "FWS" and K > FWS_MAX_ARMS:
        raise ValueError(
            f"{name}: Frank-Wolfe sampling accepts at most FWS_MAX_ARMS = {FWS_MAX_ARMS} arms (its game needs a "
            f"(K + 1) x 2K tableau per step), got {K}"
        )


def threshold_array(values: Any, name: str = "threshold") -> FloatArray:
    """A one-dimensional array of threshold values ``c[t]`` without NaN (infinities are allowed)."""
    arr = real_array(values, name, ndim=1, finite=False)
    if np.isnan(arr).any():
        raise ValueError(f"{name}: expected no NaN values")
    return arr


def evaluate_threshold(fn: Callable[..., Any], start: int, stop: int, delta: float) -> FloatArray:
    """A callable threshold evaluated once, vectorised, on ``t = start .. stop - 1``."""
    check_result_bytes(
        16 * (stop - start),
        "max_steps",
        f"evaluating the callable threshold on t = {start}..{stop - 1} (an int64 time and a float64 value each)",
        "lower max_steps or pass a named threshold",
    )
    t = np.arange(start, stop, dtype=np.int64)
    raw = plain_array(fn(t, delta), "threshold")
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"threshold: the callable must return real numbers, got an array of dtype {raw.dtype}")
    values = raw.astype(np.float64, copy=False)
    if values.shape != t.shape:
        raise ValueError(
            f"threshold: the callable must map an array t of shape {t.shape} to values of the same shape, "
            f"got shape {values.shape}"
        )
    return threshold_array(values)


def resolve_threshold(
    threshold: Any, delta: float, max_steps: Any, min_steps: int
) -> tuple[str, FloatArray | None, int]:
    """(kind, values or None, max_steps) of the threshold of :func:`identify` and :func:`run_many`."""
    if max_steps is not None:
        max_steps = as_int(max_steps, "max_steps", low=min_steps, high=MAX_STEPS_LIMIT)
    if isinstance(threshold, str):
        kind = as_choice(threshold, "threshold", THRESHOLDS)
        if max_steps is None and min_steps > DEFAULT_MAX_STEPS:
            raise ValueError(
                f"min_pulls: the round robin of K * min_pulls = {min_steps} pulls is longer than the default "
                f"max_steps = {DEFAULT_MAX_STEPS}; pass a larger max_steps"
            )
        return kind, None, DEFAULT_MAX_STEPS if max_steps is None else max_steps
    if callable(threshold):
        if max_steps is None:
            raise ValueError(
                "max_steps: a callable threshold needs an explicit max_steps (it is evaluated once on t = 0..max_steps)"
            )
        return "array", evaluate_threshold(threshold, 0, max_steps + 1, delta), max_steps
    values = threshold_array(threshold)
    if max_steps is None:
        max_steps = values.shape[0] - 1
        if max_steps < min_steps:
            raise ValueError(
                f"threshold: expected an array of at least K * min_pulls + 1 = {min_steps + 1} entries, "
                f"got {values.shape[0]}"
            )
    elif values.shape[0] < max_steps + 1:
        raise ValueError(
            f"threshold: expected an array of max_steps + 1 = {max_steps + 1} entries (c[t] for t = 0..max_steps), "
            f"got {values.shape[0]}"
        )
    return "array", values, int(max_steps)


def core_config(K: int, opts: SamplerOptions, kind: str, values: FloatArray | None) -> Any:
    """The C++ core's configuration: every option as the enum member it stands for."""
    return _core_toptwo.Config(
        K=K,
        beta=opts.beta,
        challenger=_CHALLENGER_KINDS[opts.challenger],
        rule=_RULE_KINDS[opts.rule],
        tie_break=_TIE_BREAK_KINDS[opts.tie_break],
        forced_exploration=opts.forced_exploration,
        min_pulls=opts.min_pulls,
        arms=ARM_KINDS[opts.arms],
        sigma=opts.sigma,
        threshold=THRESHOLD_KINDS[kind],
        delta=opts.delta,
        threshold_values=values,
        leader=_LEADER_KINDS[opts.leader],
        uniform=opts.uniform,
        ucb_alpha=opts.ucb_alpha,
        tracking=_TRACKING_KINDS[opts.tracking],
        weights_every=opts.weights_every,
        racing=_RACING_KINDS[opts.racing],
        lil_epsilon=opts.lil_epsilon,
        lil_beta=opts.lil_beta,
        lil_lambda=opts.lil_lambda,
    )
