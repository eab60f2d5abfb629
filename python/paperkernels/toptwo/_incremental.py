"""The incremental sampler :class:`TopTwo`, for rewards that come from outside, and its snapshots."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _core
from .._limits import check_result_bytes
from .._seed import SeedLike, as_seed
from .._validation import as_array, as_bool, as_choice, as_int, is_real, plain_array
from ._options import (
    MAX_ARMS,
    STATE_BYTES_PER_ARM,
    THRESHOLDS,
    FloatArray,
    IntArray,
    ThresholdLike,
    check_arm_count,
    check_options,
    core_config,
    evaluate_threshold,
    options_from_dict,
    threshold_array,
)


@dataclass(frozen=True)
class TopTwoState:
    """Snapshot of a :class:`TopTwo` sampler (see :meth:`TopTwo.state`).

    ``leader``, ``challenger``, ``W``, ``Z``, ``threshold`` and ``should_stop`` are None until every
    arm has ``min_pulls`` pulls.

    Parameters
    ----------
    t : int
        Number of rewards received.
    N : numpy.ndarray of int64, shape (K,)
        Pulls per arm.
    S : numpy.ndarray of float64, shape (K,)
        Reward sums per arm (success counts for Bernoulli arms).
    L, M : numpy.ndarray of int64, shape (K,)
        The tracking counters of ``rule="tracking"``: rounds led by each arm, and the pulls of the
        arm decided while it led (zero under ``rule="random"``).
    initialised : bool
        True once every arm has ``min_pulls`` pulls.
    leader : int, optional
        The leader of the current state.
    challenger : int, optional
        The challenger of the current state.
    W : numpy.ndarray of float64, shape (K,), optional
        ``W[j]`` is the transportation cost ``W(leader, j)`` (0 for the leader itself).
    Z : float, optional
        The GLR statistic ``min_j W(leader, j)``.
    threshold : float, optional
        The threshold ``c(t, delta)`` at the current time.
    should_stop : bool, optional
        Whether the stopping rule fires in this state.

    Examples
    --------
    >>> from paperkernels import toptwo
    >>> sampler = toptwo.TopTwo(3, delta=0.1, seed=1)
    >>> sampler.update([0, 1, 2, 0], [1, 0, 0, 1])
    >>> state = sampler.state()
    >>> state.t, state.N, state.leader, state.challenger, state.should_stop
    (4, array([2, 1, 1]), 0, 1, False)
    >>> round(state.Z, 4), round(state.threshold, 4)
    (1.9095, 3.1723)
    """

    t: int
    N: IntArray
    S: FloatArray
    L: IntArray
    M: IntArray
    initialised: bool
    leader: int | None = None
    challenger: int | None = None
    W: FloatArray | None = None
    Z: float | None = None
    threshold: float | None = None
    should_stop: bool | None = None


class TopTwo:
    """Incremental sampler for rewards that come from outside (A/B tests, experiments).

    beta-EB-TCI by default, or any rule of ``SAMPLERS`` (``sampler=``) with its stopping rule and
    recommendation.

    Parameters
    ----------
    K : int
        Number of arms (>= 2).
    beta : float
        Target fraction of pulls of the leader, in (0, 1).
    challenger : {"TCI", "TC", "RS"}, optional
        As in :func:`identify`; None takes the sampler's own.
    rule : {"random", "tracking"}
        How the leader/challenger choice is made.
    arms : {"bernoulli", "gaussian"}
        Reward distributions (Bernoulli rewards must be 0 or 1).
    sigma : float
        Standard deviation of Gaussian arms.
    threshold : {"gk16", "union", "kk21"}, array or callable
        As in :func:`identify`. An array must cover every ``t`` at which :meth:`should_stop` is
        asked (a ValueError says when it does not); a callable ``threshold(t, delta)`` is evaluated
        on growing blocks of ``t`` as needed.
    delta : float
        Confidence parameter in (0, 1).
    forced_exploration : bool
        As in :func:`identify`.
    seed : None, int or numpy.random.Generator
        Seed of the decision stream (stream 1 of the seed: the one :func:`identify` uses).
    tie_break : {"random", "first"}
        Resolution of ties for the leader.
    min_pulls : int
        Pulls of every arm in the initial round robin.
    sampler : str
        Any of the named sampling rules of :func:`identify` (the class name is historical).
    ucb_alpha, weights_every, lil_epsilon, lil_beta, lil_lambda : optional
        The options of TTUCB, Track-and-Stop and lil'UCB, as in :func:`identify`.

    Raises
    ------
    ValueError
        If an option is out of range or not one of its names, or the state of ``K`` arms would
        exceed ``paperkernels.limits.max_result_bytes``.
    TypeError
        If an argument has the wrong type.

    Notes
    -----
    A sampler pickles, deep-copies and copies (``copy.copy`` gives an independent sampler); the copy
    continues bit-identically, cached decisions and random stream included. An update (one reward or
    a batch) is applied entirely or not at all. Methods lock the sampler, so sharing one between
    threads is safe.

    Decisions are made lazily and cached until the next :meth:`update`: the leader (and its
    tie-break draw) once per state, the arm returned by :meth:`select` once per state (with its
    uniform draw, or its tracking-counter update, made at that moment). Calling :meth:`select`,
    then :meth:`update` with that arm's reward, and :meth:`should_stop` after each update
    reproduces :func:`identify` exactly. Updates of other arms, or batches, are allowed: they simply
    change the state.

    Examples
    --------
    Rewards from the world (here simulated Bernoulli arms):

    >>> import numpy as np
    >>> from paperkernels import toptwo
    >>> means, world = np.array([0.6, 0.4, 0.3]), np.random.default_rng(0)
    >>> sampler = toptwo.TopTwo(3, delta=0.1, seed=1)
    >>> while not sampler.should_stop():
    ...     arm = sampler.select()
    ...     sampler.update(arm, int(world.random() < means[arm]))
    >>> sampler.t, sampler.recommendation, sampler.N
    (241, 0, array([114,  76,  51]))

    Fed the rewards of a simulated episode, the sampler makes the same choices:

    >>> episode = toptwo.identify(means, delta=0.1, seed=1, record=True)
    >>> replay = toptwo.TopTwo(3, delta=0.1, seed=1)
    >>> for arm, reward in zip(episode.arms, episode.rewards):
    ...     assert replay.select() == arm
    ...     replay.update(arm, reward)
    >>> replay.should_stop(), replay.t == episode.tau
    (True, True)
    """

    def __init__(
        self,
        K: int,
        beta: float = 0.5,
        challenger: str | None = None,
        rule: str = "random",
        arms: str = "bernoulli",
        sigma: float = 1.0,
        threshold: ThresholdLike = "gk16",
        delta: float = 0.01,
        forced_exploration: bool = False,
        seed: SeedLike = None,
        *,
        tie_break: str = "random",
        min_pulls: int = 1,
        sampler: str = "EB-TCI",
        ucb_alpha: float = 1.0,
        weights_every: int = 1,
        lil_epsilon: float = 0.01,
        lil_beta: float = 1.0,
        lil_lambda: float = 9.0,
    ) -> None:
        K = as_int(K, "K", low=2, high=MAX_ARMS)
        check_result_bytes(K * STATE_BYTES_PER_ARM, "K", f"the state of a sampler of {K} arms", "use fewer arms")
        opts = check_options(
            beta,
            challenger,
            rule,
            arms,
            sigma,
            delta,
            tie_break,
            forced_exploration,
            min_pulls,
            sampler,
            ucb_alpha,
            weights_every,
            lil_epsilon,
            lil_beta,
            lil_lambda,
        )
        check_arm_count(K, opts, "K")
        self._K = K
        self._options = opts
        self._threshold_fn: Callable[..., Any] | None = None
        values: FloatArray | None
        if isinstance(threshold, str):
            kind, values = as_choice(threshold, "threshold", THRESHOLDS), None
        elif callable(threshold):
            self._threshold_fn = threshold
            kind, values = "array", evaluate_threshold(threshold, 0, 1024, opts.delta)
        else:
            kind, values = "array", threshold_array(threshold)
        self._threshold_kind = kind
        self._threshold_values = values
        self._core: Any = _core.toptwo.Sampler(core_config(K, opts, kind, values), as_seed(seed))

    # Pickling and copies: the options, the threshold and the sampler's exact state (counts, sums,
    # tracking counters, decision generator and the decisions cached for the current state), so a
    # restored or copied sampler continues bit-identically and independently of the original.

    def __getstate__(self) -> dict[str, Any]:
        t, N, S, L, M, rng, leader, selection, weights, cumulative, weights_left, rounds, elimination = (
            self._core.get_state()
        )
        return dict(
            K=self._K,
            options=self._options.as_dict(),
            threshold_kind=self._threshold_kind,
            threshold_values=None if self._threshold_values is None else np.array(self._threshold_values),
            threshold_fn=self._threshold_fn,
            core=dict(
                t=int(t),
                N=N,
                S=np.asarray(S, dtype=np.float64),
                L=L,
                M=M,
                rng=[int(w) for w in rng],
                leader=int(leader),
                selection=int(selection),
                weights=weights,
                cumulative=cumulative,
                weights_left=int(weights_left),
                round=(int(rounds[0]), bool(rounds[1]), int(rounds[2])),
                elimination=elimination,
            ),
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        # Everything is checked and the new core built before this object changes: a refused state
        # leaves the sampler as it was.
        try:
            K = as_int(state["K"], "state K", low=2, high=MAX_ARMS)
            opts = options_from_dict(state["options"])
            kind = state["threshold_kind"]
            values = state["threshold_values"]
            fn = state["threshold_fn"]
            c = state["core"]
            t, rng, leader, selection = c["t"], c["rng"], c["leader"], c["selection"]
            round_state = tuple(c.get("round", (-1, False, 0)))
        except (KeyError, TypeError, IndexError) as exc:
            raise TypeError(f"state: not the pickled state of a TopTwo sampler ({type(exc).__name__}: {exc})") from None
        if kind != "array":
            kind, values = as_choice(kind, "threshold", THRESHOLDS), None
        else:
            values = threshold_array(values)
        if not isinstance(rng, (list, tuple)) or len(rng) != 4 or len(round_state) != 3:
            raise ValueError("state: expected 4 generator words and a round of 3 entries")
        if fn is not None and not callable(fn):
            raise TypeError(f"state threshold_fn: expected a callable or None, got {type(fn).__name__}")
        longest = 2**63 - 1
        core = _core.toptwo.Sampler(core_config(K, opts, kind, values), 0)
        core.set_state(
            as_int(t, "state t", low=0, high=longest),
            as_array(c["N"], "state N", dtype=np.int64, shape=(K,)),
            as_array(c["S"], "state S", shape=(K,)),
            as_array(c["L"], "state L", dtype=np.int64, shape=(K,)),
            as_array(c["M"], "state M", dtype=np.int64, shape=(K,)),
            tuple(as_int(word, "state rng", low=0, high=2**64 - 1) for word in rng),
            as_int(leader, "state leader", low=-1, high=K - 1),
            as_int(selection, "state selection", low=-1, high=K - 1),
            as_array(c.get("weights", []), "state weights", allow_empty=True),
            as_array(c.get("cumulative", []), "state cumulative", allow_empty=True),
            as_int(c.get("weights_left", 0), "state weights_left", low=0, high=longest),
            (
                as_int(round_state[0], "state round", low=-1, high=K - 1),
                as_bool(round_state[1], "state round"),
                as_int(round_state[2], "state round", low=0, high=longest),
            ),
            as_array(c.get("elimination", []), "state elimination", allow_empty=True),
        )
        self._K = K
        self._options = opts
        self._threshold_fn = fn
        self._threshold_kind = kind
        self._threshold_values = values
        self._core = core

    def __copy__(self) -> TopTwo:
        """An independent sampler in the same state (it shares nothing with this one but the callable
        threshold, if any)."""
        other = TopTwo.__new__(TopTwo)
        other.__setstate__(self.__getstate__())
        return other

    def __repr__(self) -> str:
        o = self._options
        return (
            f"TopTwo(K={self._K}, sampler={o.sampler!r}, beta={o.beta}, challenger={o.challenger!r}, "
            f"rule={o.rule!r}, arms={o.arms!r}, delta={o.delta}, t={self.t})"
        )

    @property
    def K(self) -> int:
        """Number of arms.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> toptwo.TopTwo(4, seed=0).K
        4
        """
        return self._K

    @property
    def t(self) -> int:
        """Total number of rewards received.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(2, seed=0)
        >>> sampler.update([0, 1, 1], [1, 0, 1])
        >>> sampler.t
        3
        """
        return int(self._core.t)

    @property
    def N(self) -> IntArray:
        """Pulls per arm.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(2, seed=0)
        >>> sampler.update([0, 1, 1], [1, 0, 1])
        >>> sampler.N
        array([1, 2])
        """
        counts: IntArray = self._core.counts()[0]
        return counts

    @property
    def S(self) -> FloatArray:
        """Reward sums per arm (success counts for Bernoulli arms).

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(2, seed=0)
        >>> sampler.update([0, 1, 1], [1, 0, 1])
        >>> sampler.S
        array([1., 1.])
        """
        sums: FloatArray = self._core.counts()[1]
        return sums

    def select(self) -> int:
        """The arm to pull next (the same arm until the next :meth:`update`).

        Returns
        -------
        int
            The arm index, in ``[0, K)``.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(3, seed=0)
        >>> sampler.select(), sampler.select()
        (0, 0)
        >>> sampler.update(0, 1)
        >>> sampler.select()
        1
        """
        return int(self._core.select())

    def update(self, arm: Any, reward: Any) -> None:
        """Record rewards: one ``(arm, reward)`` pair, or equal-length arrays of arms and rewards.

        A batch is applied in order, without decisions in between, and entirely or not at all.

        Parameters
        ----------
        arm : int or array_like of int
            Arm index (or indices) in ``[0, K)``.
        reward : float or array_like of float
            The reward(s): 0 or 1 for Bernoulli arms, finite numbers for Gaussian arms.

        Raises
        ------
        ValueError
            If an arm is out of range, a Bernoulli reward is not 0 or 1, a reward is not finite, a
            sum of rewards would overflow, or the arrays differ in length.
        TypeError
            If an arm is not an integer or a reward not a real number.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(3, seed=0)
        >>> sampler.update(2, 1)
        >>> sampler.update([0, 1, 0], [1, 0, 0])
        >>> sampler.N, sampler.S
        (array([2, 1, 1]), array([1., 0., 1.]))
        """
        raw_arms = plain_array(arm, "arm")
        arm_dims = raw_arms.ndim
        reward_dims = plain_array(reward, "reward").ndim
        if arm_dims == 0 and reward_dims == 0:
            a = as_int(arm, "arm", low=0, high=self.K - 1)
            if isinstance(reward, (bool, np.bool_)):
                reward = int(reward)
            if not is_real(reward):
                raise TypeError(f"reward: expected a real number, got {type(reward).__name__}")
            try:
                value = float(reward)
            except OverflowError:
                raise ValueError(f"reward: expected a number within the float64 range, got {reward!r}"[:200]) from None
            self._core.update(a, value)
            return
        if raw_arms.size and raw_arms.dtype.kind not in "iu":  # as for one arm: no floats, no bools
            raise TypeError(f"arm: expected integers, got an array of dtype {raw_arms.dtype}")
        arms = as_array(arm, "arm", dtype=np.int64, ndim=1, allow_empty=True)
        rewards = as_array(reward, "reward", dtype=np.float64, ndim=1, allow_empty=True, finite=False)
        if arms.shape != rewards.shape:
            raise ValueError(
                f"arm, reward: expected the same number of arms and rewards, got {arms.shape[0]} and {rewards.shape[0]}"
            )
        self._core.update_many(arms, rewards)

    def _cover_threshold(self) -> None:
        if self._threshold_fn is None:
            return
        assert self._threshold_values is not None  # a callable threshold always has its values
        t = self.t
        have = self._threshold_values.shape[0]
        if t < have:
            return
        extra = evaluate_threshold(self._threshold_fn, have, max(2 * have, t + 1), self._options.delta)
        self._threshold_values = np.concatenate([self._threshold_values, extra])
        self._core.set_threshold_values(self._threshold_values)

    def should_stop(self) -> bool:
        """Whether the stopping rule fires in the current state.

        For the GLR rules: every arm has ``min_pulls`` pulls and ``Z > c(t, delta)``; LUCB1, lil'UCB
        and EGE apply their own rules.

        Returns
        -------
        bool
            True when sampling should stop and :attr:`recommendation` be used.

        Raises
        ------
        ValueError
            If an array threshold has no entry for the current ``t``.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(2, delta=0.1, seed=0)
        >>> sampler.update([0, 1] * 20, [1, 0] * 20)
        >>> sampler.should_stop()
        True
        """
        self._cover_threshold()
        return bool(self._core.should_stop())

    @property
    def recommendation(self) -> int | None:
        """The empirical leader (the arm to recommend when :meth:`should_stop` is True).

        None while an arm is unpulled; during the initial round robin the lowest-indexed empirical
        best (no random draw).

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(2, seed=0)
        >>> sampler.recommendation is None
        True
        >>> sampler.update([0, 1], [0, 1])
        >>> sampler.recommendation
        1
        """
        rec = int(self._core.recommendation())
        return None if rec < 0 else rec

    def state(self) -> TopTwoState:
        """A snapshot of the sampler's statistics and of the decisions of the current state.

        Computing it draws nothing beyond the leader's tie-break, which the current state needs anyway.

        Returns
        -------
        TopTwoState
            Counts, sums, tracking counters and, once every arm has ``min_pulls`` pulls, the leader,
            challenger, costs ``W``, statistic ``Z``, threshold and stopping decision.

        Examples
        --------
        >>> from paperkernels import toptwo
        >>> sampler = toptwo.TopTwo(3, seed=0)
        >>> sampler.state().initialised
        False
        >>> sampler.update([0, 1, 2], [1, 0, 0])
        >>> state = sampler.state()
        >>> state.leader, state.challenger, state.should_stop
        (0, 1, False)
        """
        self._cover_threshold()
        d = self._core.state()
        extra: dict[str, Any] = {}
        if d["initialised"]:
            extra = dict(
                leader=int(d["leader"]),
                challenger=int(d["challenger"]),
                W=d["W"],
                Z=float(d["Z"]),
                threshold=float(d["threshold"]),
                should_stop=bool(d["should_stop"]),
            )
        return TopTwoState(
            t=int(d["t"]), N=d["N"], S=d["S"], L=d["L"], M=d["M"], initialised=bool(d["initialised"]), **extra
        )
